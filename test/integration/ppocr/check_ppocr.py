#!/usr/bin/python3
"""PP-OCR models, end to end, against ONNX Runtime.

Compiles one PP-OCR model from scripts/fetch-models.sh (`--model cls`: the
direction classifier ch_ppocr_mobile_v2.0_cls_infer.onnx at 1x3x48x192, the
default; `det`: ch_PP-OCRv4_det_infer.onnx at 1x3x640x640; `rec`:
ch_PP-OCRv4_rec_infer.onnx at 1x3x48x320), runs it on three seeded random
inputs three ways -- the shared library through tfrt-run on one thread and
with `--threads=2` (its parallel chunks and task groups on a pool), and the
object file linked with main.c and libtfrt_runtime.a -- and compares each
with ONNX Runtime (onnxruntime-node, ort_reference.js): max abs diff <= 1e-4.

Without the models or ONNX Runtime (fetch-models.sh failed or was not run) it
prints `SKIPPED: <reason>` and exits 77, ctest's skip code for this test.
Exit 0 when every comparison passes, 1 otherwise.

Needs Debian's python3-onnx and python3-numpy: run it with /usr/bin/python3.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import numpy as np
    import onnx
except ImportError as exc:  # pragma: no cover - environment dependent
    if (os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and not os.environ.get("TFRT_PPOCR_REEXEC")):
        os.environ["TFRT_PPOCR_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.stderr.write("error: %s: install python3-onnx and python3-numpy "
                     "(scripts/setup.sh) and run with %s\n" % (exc, SYSTEM_PYTHON))
    sys.exit(2)

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MODELS = {
    "cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192)),
    "det": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 640, 640)),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
}
INPUT_NAME = "x"
SEEDS = (1, 2, 3)
TOLERANCE = 1e-4


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin-dir", default=os.path.join(REPO_ROOT, "build", "bin"),
                   help="directory with tfrt-compile and tfrt-run (default: build/bin)")
    p.add_argument("--runtime-include", default=os.path.join(REPO_ROOT, "runtime-lib", "include"))
    p.add_argument("--runtime-lib",
                   default=os.path.join(REPO_ROOT, "build", "lib", "libtfrt_runtime.a"))
    p.add_argument("--cc", default="clang-22", help="C compiler for main.c (default: clang-22)")
    p.add_argument("--models-dir",
                   default=os.path.join(REPO_ROOT, "third_party", "npm", "package", "assets"))
    p.add_argument("--ort-dir", default=os.path.join(REPO_ROOT, "third_party", "npm", "ort"),
                   help="folder with node_modules/onnxruntime-node")
    p.add_argument("--node", default="node")
    p.add_argument("--work-dir", default=os.path.join(REPO_ROOT, "build", "test", "e2e", "ppocr-cls"))
    p.add_argument("--timeout", type=int, default=600, help="seconds per command (default: 600)")
    p.add_argument("--model", choices=sorted(MODELS), default="cls")
    p.add_argument("--input-shape", default="",
                   help="the input's shape as D0xD1x... (default: the model's "
                        "usual shape above); other image sizes exercise the "
                        "kernels' edge cases that shape specialisation creates")
    p.add_argument("--mcpu", default="",
                   help="tfrt-compile --mcpu (default: the host); the test is "
                        "skipped when this machine lacks the CPU's vector "
                        "features (x86-64-v3: AVX2 and FMA)")
    return p.parse_args(argv)


def skip(reason):
    print("SKIPPED: %s" % reason, flush=True)
    sys.exit(SKIP)


def run(cmd, timeout, what):
    print("$ " + " ".join(cmd), flush=True)
    start = time.monotonic()
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise StepError("%s timed out after %ds" % (what, timeout))
    except OSError as exc:
        raise StepError("%s: cannot run %s: %s" % (what, cmd[0], exc))
    out = res.stdout.decode("utf-8", "replace")
    if out.strip():
        print("  " + out.strip().replace("\n", "\n  "), flush=True)
    if res.returncode != 0:
        raise StepError("%s failed (exit %d)" % (what, res.returncode))
    print("  (%.1fs)" % (time.monotonic() - start), flush=True)
    return out


# CPU flags (/proc/cpuinfo) that code compiled for an --mcpu needs to run.
MCPU_FLAGS = {"x86-64-v3": ["avx2", "fma"], "x86-64-v2": ["sse4_2"]}


class StepError(Exception):
    pass


def check_prerequisites(args, model):
    fetch_error = os.environ.get("TFRT_FETCH_MODELS_ERROR", "").strip()
    if not os.path.isfile(model):
        if fetch_error:
            skip("PP-OCR models unavailable: scripts/fetch-models.sh failed: %s" % fetch_error)
        skip("%s not found in %s (run scripts/fetch-models.sh)" % (MODEL_FILE, args.models_dir))
    ort_pkg = os.path.join(args.ort_dir, "node_modules", "onnxruntime-node", "package.json")
    if not os.path.isfile(ort_pkg):
        if fetch_error:
            skip("ONNX Runtime unavailable: scripts/fetch-models.sh failed: %s" % fetch_error)
        skip("onnxruntime-node not found in %s (run scripts/fetch-models.sh)" % args.ort_dir)
    if not shutil.which(args.node):
        skip("node (%s) not found: ONNX Runtime reference cannot run" % args.node)
    missing = [t for t in ("tfrt-compile", "tfrt-run")
               if not os.access(os.path.join(args.bin_dir, t), os.X_OK)]
    if missing:
        raise StepError("%s not built in %s" % (", ".join(missing), args.bin_dir))
    if not os.path.isfile(args.runtime_lib):
        raise StepError("runtime library %s not built" % args.runtime_lib)
    if not shutil.which(args.cc):
        raise StepError("C compiler %s not found" % args.cc)
    needed = MCPU_FLAGS.get(args.mcpu)
    if args.mcpu and needed is None:
        raise StepError("--mcpu=%s: the features it needs are not known here (one of %s)"
                        % (args.mcpu, ", ".join(sorted(MCPU_FLAGS))))
    if needed:
        flags = set()
        try:
            with open("/proc/cpuinfo") as fh:
                for line in fh:
                    if line.startswith("flags"):
                        flags = set(line.split(":", 1)[1].split())
                        break
        except OSError:
            pass
        lacking = sorted(f for f in needed if f not in flags)
        if lacking:
            skip("this machine's CPU lacks %s, which --mcpu=%s code uses"
                 % (", ".join(lacking), args.mcpu))


def max_abs_diff(actual, expected):
    if actual.shape != expected.shape:
        return None, "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    if actual.dtype != expected.dtype:
        return None, "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if actual.size == 0:
        return 0.0, None
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return None, "NaN positions differ"
    with np.errstate(invalid="ignore"):
        d = np.abs(a - e)
    d = d[~np.isnan(d)]
    return (float(d.max()) if d.size else 0.0), None


def main(argv):
    global MODEL_FILE, NAME, INPUT_SHAPE
    args = parse_args(argv)
    NAME = args.model
    MODEL_FILE, INPUT_SHAPE = MODELS[NAME]
    if args.input_shape:
        try:
            INPUT_SHAPE = tuple(int(d) for d in args.input_shape.split("x"))
        except ValueError:
            INPUT_SHAPE = ()
        if len(INPUT_SHAPE) != 4 or min(INPUT_SHAPE) < 1:
            print("error: --input-shape %s: expected four positive sizes as "
                  "D0xD1xD2xD3" % args.input_shape)
            print("0 passed, 1 failed")
            return 1
    model = os.path.join(args.models_dir, MODEL_FILE)
    try:
        check_prerequisites(args, model)
    except StepError as exc:
        print("error: %s" % exc)
        print("0 passed, 1 failed")
        return 1

    m = onnx.load(model, load_external_data=False)
    out_names = [o.name for o in m.graph.output]
    out_files = [n.replace("/", "_") + ".npy" for n in out_names]
    print("model: %s" % model)
    print("outputs: %s" % ", ".join(out_names))

    work = os.path.abspath(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    compile_ = os.path.join(args.bin_dir, "tfrt-compile")
    tfrt_run = os.path.join(args.bin_dir, "tfrt-run")
    shape_arg = "%s=%s" % (INPUT_NAME, "x".join(str(d) for d in INPUT_SHAPE))

    results = []  # (seed, path, diff or None, reason)
    try:
        # Inputs and the ONNX Runtime reference.
        for seed in SEEDS:
            x = np.random.default_rng(seed).random(INPUT_SHAPE, dtype=np.float32)
            np.save(os.path.join(work, "input_%d.npy" % seed), x)
            x.tofile(os.path.join(work, "input_%d.raw" % seed))
            run([args.node, os.path.join(HERE, "ort_reference.js"), "--ort-dir", args.ort_dir,
                 "--model", model, "--input", "%s=%s" % (INPUT_NAME, os.path.join(
                     work, "input_%d.npy" % seed)),
                 "--output-dir", os.path.join(work, "ort_%d" % seed)],
                args.timeout, "ONNX Runtime reference (seed %d)" % seed)

        # Both compilations.
        shared_dir = os.path.join(work, "shared")
        obj_dir = os.path.join(work, "obj")
        os.makedirs(shared_dir)
        os.makedirs(obj_dir)
        mcpu = ["--mcpu=" + args.mcpu] if args.mcpu else []
        run([compile_, model, "--name", NAME, "-o", shared_dir, "--emit=shared",
             "--input-shape", shape_arg] + mcpu, args.timeout, "tfrt-compile --emit=shared")
        run([compile_, model, "--name", NAME, "-o", obj_dir, "--emit=obj",
             "--input-shape", shape_arg] + mcpu, args.timeout, "tfrt-compile --emit=obj")
        for f in ("%s.o" % NAME, "%s.h" % NAME, "%s.json" % NAME):
            if not os.path.isfile(os.path.join(obj_dir, f)):
                raise StepError("tfrt-compile --emit=obj wrote no %s" % f)
        with open(os.path.join(obj_dir, "%s.json" % NAME)) as fh:
            meta = json.load(fh)
        print("metadata: %s" % json.dumps(
            {k: meta.get(k) for k in ("inputs", "outputs", "workspace_bytes")}))

        # The C driver linked from the object file.
        driver = os.path.join(obj_dir, "run_%s" % NAME)
        run([args.cc, "-O2", "-Wall", "-DTFRT_MODEL=%s" % NAME, "-I", args.runtime_include,
             "-I", obj_dir, os.path.join(HERE, "main.c"), os.path.join(obj_dir, "%s.o" % NAME),
             args.runtime_lib, "-lm", "-lstdc++", "-o", driver],
            args.timeout, "building main.c")

        for seed in SEEDS:
            expected = [np.load(os.path.join(work, "ort_%d" % seed, f)) for f in out_files]

            # tfrt-run on the shared library, on one thread and on two.
            for threads in (1, 2):
                run_dir = os.path.join(work, "tfrt_run_%d_t%d" % (seed, threads))
                path = "tfrt-run %s.so%s" % (NAME, "" if threads == 1 else " -t2")
                try:
                    run([tfrt_run, os.path.join(shared_dir, "%s.so" % NAME), "--input",
                         "%s=%s" % (INPUT_NAME, os.path.join(work, "input_%d.npy" % seed)),
                         "--threads=%d" % threads, "--output-dir", run_dir],
                        args.timeout, "tfrt-run --threads=%d (seed %d)" % (threads, seed))
                    for k, f in enumerate(out_files):
                        p = os.path.join(run_dir, f)
                        if not os.path.isfile(p):
                            raise StepError("tfrt-run wrote no %s" % f)
                        diff, why = max_abs_diff(np.load(p), expected[k])
                        results.append((seed, path, out_names[k], diff, why))
                except StepError as exc:
                    results.append((seed, path, "-", None, str(exc)))

            # The C driver.
            try:
                outs = [os.path.join(obj_dir, "out_%d_%d.raw" % (seed, k))
                        for k in range(len(out_names))]
                run([driver, os.path.join(work, "input_%d.raw" % seed)] + outs,
                    args.timeout, "main.c driver (seed %d)" % seed)
                for k, p in enumerate(outs):
                    got = np.fromfile(p, dtype=np.float32)
                    if got.size != expected[k].size:
                        why = "%d values, expected %d" % (got.size, expected[k].size)
                        results.append((seed, "main.c + %s.o" % NAME, out_names[k], None, why))
                        continue
                    diff, why = max_abs_diff(got.reshape(expected[k].shape), expected[k])
                    results.append((seed, "main.c + %s.o" % NAME, out_names[k], diff, why))
            except StepError as exc:
                results.append((seed, "main.c + %s.o" % NAME, "-", None, str(exc)))
    except StepError as exc:
        print("error: %s" % exc)
        print("0 passed, 1 failed")
        return 1

    print()
    print("max abs diff vs ONNX Runtime (tolerance %g):" % TOLERANCE)
    passed = failed = 0
    for seed, path, out, diff, why in results:
        if why is None and diff is not None and diff <= TOLERANCE:
            passed += 1
            verdict = "PASS"
        else:
            failed += 1
            verdict = "FAIL"
        detail = ("%.3g" % diff) if diff is not None else why
        if why is None and diff is not None and diff > TOLERANCE:
            detail += " > %g" % TOLERANCE
        print("  %-4s seed %d  %-22s %-18s %s" % (verdict, seed, path, out, detail))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
