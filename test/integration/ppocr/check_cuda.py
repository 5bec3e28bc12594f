#!/usr/bin/python3
"""A model compiled with --target=cuda, run on the GPU, against ONNX Runtime.

Compiles MODEL with `tfrt-compile --target=cuda`, links the object with
main.c (the generic C driver) and libtfrt_runtime.a, runs it on a seeded
random input and compares every output with ONNX Runtime's CPU result
(ort_reference.js): max abs diff <= --tolerance (default 1e-3). With
--time-runs N it also links bench/gpu/time_model.c and reports create time,
first run and the median of N runs. Prints `PASS <name> ...` or
`FAIL <name> ...` lines; with --results FILE appends one JSON line.
Exit 0 when everything passed, 1 otherwise, 77 when a prerequisite
(node, onnxruntime-node, numpy) is missing.
"""
import argparse
import json
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy missing")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def run(cmd, timeout, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, env=env, universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (os.path.basename(cmd[0]),
                                                   r.returncode, r.stdout[-2000:]))
    return r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--name", default="model")
    p.add_argument("--input-shape", required=True, help="NAME=D0xD1x...")
    p.add_argument("--gpu-arch", default="sm_90")
    p.add_argument("--tfrt-compile", default=os.path.join(ROOT, "build", "bin", "tfrt-compile"))
    p.add_argument("--runtime-include", default=os.path.join(ROOT, "runtime-lib", "include"))
    p.add_argument("--runtime-lib", default=os.path.join(ROOT, "build", "lib", "libtfrt_runtime.a"))
    p.add_argument("--cc", default="clang-22")
    p.add_argument("--node", default="node")
    p.add_argument("--ort-dir", default=os.path.join(ROOT, "third_party", "npm", "ort"))
    p.add_argument("--work-dir", required=True)
    p.add_argument("--tolerance", type=float, default=1e-3)
    p.add_argument("--time-runs", type=int, default=0)
    p.add_argument("--results")
    p.add_argument("--timeout", type=int, default=300)
    a = p.parse_args()

    in_name, dims = a.input_shape.split("=")
    shape = [int(d) for d in dims.split("x")]
    os.makedirs(a.work_dir, exist_ok=True)
    work = os.path.abspath(a.work_dir)
    result = {"model": os.path.basename(a.model), "name": a.name,
              "input_shape": a.input_shape, "gpu_arch": a.gpu_arch}
    ok = False
    try:
        t0 = time.time()
        run([a.tfrt_compile, a.model, "--name", a.name, "--input-shape", a.input_shape,
             "--target=cuda", "--gpu-arch=" + a.gpu_arch, "-o", work], a.timeout)
        result["compile_s"] = round(time.time() - t0, 2)
        meta = json.load(open(os.path.join(work, a.name + ".json")))
        outs = meta["outputs"]
        x = np.random.default_rng(0).random(shape, dtype=np.float32)
        np.save(os.path.join(work, "input.npy"), x)
        x.tofile(os.path.join(work, "input.raw"))
        if not os.path.isfile(os.path.join(a.ort_dir, "node_modules", "onnxruntime-node",
                                           "package.json")):
            print("SKIPPED: onnxruntime-node not found in %s" % a.ort_dir)
            return 77
        run([a.node, os.path.join(HERE, "ort_reference.js"), "--ort-dir", a.ort_dir,
             "--model", a.model, "--input", "%s=%s" % (in_name, os.path.join(work, "input.npy")),
             "--output-dir", os.path.join(work, "ort")], a.timeout)
        driver = os.path.join(work, "run_" + a.name)
        run([a.cc, "-O2", "-DTFRT_MODEL=" + a.name, "-I", a.runtime_include, "-I", work,
             os.path.join(HERE, "main.c"), os.path.join(work, a.name + ".o"), a.runtime_lib,
             "-lm", "-o", driver], a.timeout)
        out_files = [os.path.join(work, "out_%d.raw" % k) for k in range(len(outs))]
        run([driver, os.path.join(work, "input.raw")] + out_files, a.timeout)
        worst = 0.0
        for k, o in enumerate(outs):
            got = np.fromfile(out_files[k], dtype=np.float32)
            ref = np.load(os.path.join(work, "ort", o["name"].replace("/", "_") + ".npy"))
            ref = ref.astype(np.float32).reshape(-1)
            if got.size != ref.size:
                raise RuntimeError("output %s: %d values, ONNX Runtime has %d"
                                   % (o["name"], got.size, ref.size))
            worst = max(worst, float(np.max(np.abs(got - ref))) if got.size else 0.0)
        result["max_abs_diff"] = worst
        ok = worst <= a.tolerance and np.isfinite(worst)
        if a.time_runs > 0:
            timer = os.path.join(work, "time_" + a.name)
            run([a.cc, "-O2", "-DTFRT_MODEL=" + a.name, "-I", a.runtime_include, "-I", work,
                 os.path.join(ROOT, "bench", "gpu", "time_model.c"),
                 os.path.join(work, a.name + ".o"), a.runtime_lib, "-lm", "-o", timer],
                a.timeout)
            result["timing"] = json.loads(run([timer, str(a.time_runs)], a.timeout))
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as exc:
        result["error"] = str(exc)[-1500:]
        ok = False
    result["pass"] = bool(ok)
    print("%s %s %s" % ("PASS" if ok else "FAIL", a.name, json.dumps(result)))
    if a.results:
        with open(a.results, "a") as f:
            f.write(json.dumps(result) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
