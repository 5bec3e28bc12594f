#!/usr/bin/env python3
"""Build-integration tests: the installed tree, the CMake package, pkg-config,
tfrt_compile_model() and cross-compilation (docs/build-integration.md).

One subcommand per ctest test (test/integration/build/CMakeLists.txt):

  install    cmake --install the build into WORK/install, copy that tree to
             the prefix (--prefix) and delete the original, so everything
             after runs from a moved installation; check the layout, that
             the package files name no absolute path, and that the moved
             tools run and find their runtime library.
  cmake      examples/cmake-consumer against the moved prefix with Ninja and
             with Unix Makefiles: outputs against a NumPy reference; the
             models' objects define only their own prefixed API; both models
             are in one executable; TFRT_COMPILE_CPU reaches tfrt-compile.
  makefile   examples/makefile-consumer (pkg-config, the installed
             tfrt-compile) against the NumPy reference.
  rebuild    touching one model rebuilds that model's library only (Ninja
             and Unix Makefiles); touching tfrt-compile rebuilds both; a
             second build directory gives byte-identical .o/.h/.json.
  misuse     tfrt_compile_model() misuse fails at configure time with the
             expected message; a call with every optional argument builds
             and each argument reaches tfrt-compile.
  in-tree    tfrt_compile_model() inside the tfrt-compile build (the
             tfrt-it-two-models target) against the NumPy reference.
  cross      --target-triple=aarch64-linux-gnu objects and the runtime built
             for aarch64, linked with aarch64-linux-gnu-gcc and run under
             qemu-aarch64-static, directly and through the CMake package
             with a toolchain file; outputs match the x86-64 build within
             1e-5. Exit 77 (skip) without the cross tools.

The expected values come from a float64 NumPy evaluation of the model files
(the weights are read from the JSON models; the operators are written out
here), never from tfrt-compile's own output.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

SKIP = 77
TOLERANCE = 1e-5
API = ("descriptor", "create", "run", "destroy", "set_pool", "run_async",
       "input_info", "output_info")


class Failure(Exception):
    pass


def log(msg):
    print(msg, flush=True)


def run(cmd, cwd=None, env=None, check=True):
    """Runs cmd, echoing it; returns (returncode, stdout+stderr)."""
    log("+ " + " ".join(cmd) + (f"   (in {cwd})" if cwd else ""))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if check and p.returncode != 0:
        log(p.stdout)
        raise Failure(f"command failed with exit status {p.returncode}: "
                      + " ".join(cmd))
    return p.returncode, p.stdout


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


# --------------------------------------------------------------------------
# NumPy reference of the two example models.

def load_weights(path):
    with open(path) as f:
        model = json.load(f)
    return {i["name"]: np.array(i["data"], np.float64).reshape(i["shape"])
            for i in model["initializers"]}


def tiny_cnn_input():
    return np.array([((i * 7) % 11) / 10.0 - 0.5 for i in range(64)],
                    np.float32).astype(np.float64).reshape(1, 1, 8, 8)


def mlp_input():
    return np.array([((i * 3) % 7) / 6.0 - 0.5 for i in range(12)],
                    np.float32).astype(np.float64).reshape(2, 6)


def reference_tiny_cnn(model_path):
    """Conv 3x3 (pad 1) + bias -> Relu -> MaxPool 2x2/2 -> Flatten ->
    Gemm (transB) -> Softmax."""
    w = load_weights(model_path)
    x = tiny_cnn_input()
    cw, cb = w["conv0.w"], w["conv0.b"]
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((n, cw.shape[0], h, wd))
    for o in range(cw.shape[0]):
        for i in range(h):
            for j in range(wd):
                conv[0, o, i, j] = np.sum(xp[0, :, i:i + 3, j:j + 3] * cw[o]) + cb[o]
    relu = np.maximum(conv, 0.0)
    pool = relu.reshape(n, cw.shape[0], h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    flat = pool.reshape(n, -1)
    logits = flat @ w["fc0.w"].T + w["fc0.b"]
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).ravel()


def reference_mlp(model_path):
    """MatMul + Add -> Tanh -> Gemm (transB) -> Sigmoid."""
    w = load_weights(model_path)
    h = np.tanh(mlp_input() @ w["fc1.w"] + w["fc1.b"])
    logits = h @ w["fc2.w"].T + w["fc2.b"]
    return (1.0 / (1.0 + np.exp(-logits))).ravel()


def parse_outputs(text):
    """'label: v0 v1 ...' lines -> {label: array}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_][\w.]*):((?:\s+\S+)+)\s*$", line)
        if m:
            out[m.group(1)] = np.array([float(v) for v in m.group(2).split()])
    return out


def compare(label, got, expected, tolerance=TOLERANCE):
    if got is None:
        raise Failure(f"{label}: no output line")
    if got.shape != expected.shape:
        raise Failure(f"{label}: {got.size} values, expected {expected.size}")
    err = float(np.max(np.abs(got - expected)))
    if err > tolerance:
        raise Failure(f"{label}: max abs error {err:.3g} > {tolerance:g}\n"
                      f"  got      {got}\n  expected {expected}")
    log(f"ok: {label} matches (max abs error {err:.2g})")


def check_consumer_outputs(text, src, models=("tiny_cnn", "mlp")):
    outputs = parse_outputs(text)
    if "tiny_cnn" in models:
        compare("tiny_cnn.y", outputs.get("tiny_cnn.y"),
                reference_tiny_cnn(os.path.join(src, "examples/tiny-cnn/model.json")))
    if "mlp" in models:
        compare("mlp.y", outputs.get("mlp.y"),
                reference_mlp(os.path.join(src, "examples/cmake-consumer/mlp.json")))
    return outputs


# --------------------------------------------------------------------------
# Helpers over the installed tree and the consumer project.

def prefix_env(args):
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(args.prefix, "lib", "pkgconfig")
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    return env


def copy_examples(src, dest):
    """examples/cmake-consumer, makefile-consumer and tiny-cnn under dest, so
    the consumers' relative model paths hold and touching stays local."""
    fresh_dir(dest)
    for d in ("cmake-consumer", "makefile-consumer", "tiny-cnn"):
        shutil.copytree(os.path.join(src, "examples", d), os.path.join(dest, d))
    return dest


def configure_consumer(args, source, build, generator, extra=()):
    run(["cmake", "-G", generator, "-S", source, "-B", build,
         f"-DCMAKE_PREFIX_PATH={args.prefix}",
         f"-DCMAKE_C_COMPILER={args.cc}", *extra], env=prefix_env(args))


def build_cmd(build):
    return ["cmake", "--build", build, "--", "-j2"]


def defined_globals(nm, path):
    _, out = run([nm, "--defined-only", "--extern-only", path])
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-2] not in ("U", "w", "v"):
            syms.append(parts[-1])
    return syms


def check_model_symbols(nm, obj, name):
    syms = defined_globals(nm, obj)
    expected = sorted(f"{name}_{f}" for f in API)
    if sorted(syms) != expected:
        raise Failure(f"{obj}: global definitions {sorted(syms)}, expected "
                      f"exactly {expected}")
    log(f"ok: {os.path.basename(obj)} defines only {name}_* globally ({len(syms)} symbols)")


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF":
        raise Failure(f"{path}: not an ELF file")
    return int.from_bytes(head[18:20], "little")


# --------------------------------------------------------------------------
# Subcommands.

def cmd_install(args):
    work = fresh_dir(args.work_dir)
    original = os.path.join(work, "install")
    run(["cmake", "--install", args.build_dir, "--prefix", original])
    shutil.rmtree(args.prefix, ignore_errors=True)
    shutil.copytree(original, args.prefix, symlinks=True)
    shutil.rmtree(original)
    log(f"moved the installation {original} -> {args.prefix}")

    p = args.prefix
    expected = [
        "bin/tfrt-compile", "bin/tfrt-opt", "bin/tfrt-run",
        "lib/libtfrt_runtime.a", "lib/libtfrt_runtime.so",
        "include/tfrt/runtime.h",
        "lib/cmake/TfrtCompile/TfrtCompileConfig.cmake",
        "lib/cmake/TfrtCompile/TfrtCompileConfigVersion.cmake",
        "lib/cmake/TfrtCompile/TfrtCompileTargets.cmake",
        "lib/cmake/TfrtCompile/TfrtCompileFunctions.cmake",
        "lib/pkgconfig/tfrt-runtime.pc",
    ]
    missing = [f for f in expected if not os.path.isfile(os.path.join(p, f))]
    if missing:
        raise Failure("missing from the installed tree: " + ", ".join(missing))
    log("ok: installed layout")

    # No package file may name where it was installed or built.
    for d in ("lib/cmake/TfrtCompile", "lib/pkgconfig"):
        for f in os.listdir(os.path.join(p, d)):
            text = open(os.path.join(p, d, f)).read()
            for bad in (original, os.path.abspath(args.build_dir),
                        os.path.abspath(args.source_dir)):
                if bad in text:
                    raise Failure(f"{d}/{f} names the absolute path {bad}")
    targets = open(os.path.join(p, "lib/cmake/TfrtCompile/TfrtCompileTargets.cmake")).read()
    for t in ("tfrt::runtime", "tfrt::runtime_shared"):
        if f'add_library({t} ' not in targets:
            raise Failure(f"TfrtCompileTargets.cmake does not define {t}")
    log("ok: package files are relative to their location; tfrt::runtime and "
        "tfrt::runtime_shared exported")

    env = prefix_env(args)
    _, cflags = run(["pkg-config", "--cflags", "--libs", "tfrt-runtime"], env=env)
    _, compiler = run(["pkg-config", "--variable=tfrt_compile", "tfrt-runtime"], env=env)
    if os.path.realpath(compiler.strip()) != os.path.realpath(os.path.join(p, "bin/tfrt-compile")):
        raise Failure(f"pkg-config tfrt_compile is {compiler.strip()}")
    inc = re.search(r"-I(\S+)", cflags)
    if not inc or os.path.realpath(inc.group(1)) != os.path.realpath(os.path.join(p, "include")):
        raise Failure(f"pkg-config --cflags gives {cflags.strip()}")
    log("ok: pkg-config resolves into the moved prefix")

    # The moved tools run, and tfrt-compile links its own runtime library
    # into --emit=shared; tfrt-run runs the result.
    for tool in ("tfrt-compile", "tfrt-opt"):
        run([os.path.join(p, "bin", tool), "--version"])
    out_dir = fresh_dir(os.path.join(work, "shared"))
    run([os.path.join(p, "bin/tfrt-compile"),
         os.path.join(args.source_dir, "examples/cmake-consumer/mlp.json"),
         "--input-shape", "x=2x6", "--emit=shared", "-o", out_dir + "/"])
    np.save(os.path.join(out_dir, "x.npy"), mlp_input().astype(np.float32))
    _, out = run([os.path.join(p, "bin/tfrt-run"), os.path.join(out_dir, "mlp.so"),
                  "--input", "x=" + os.path.join(out_dir, "x.npy"),
                  "--output-dir", out_dir])
    got = np.load(os.path.join(out_dir, "y.npy")).astype(np.float64).ravel()
    compare("tfrt-run mlp.so (moved tools)", got,
            reference_mlp(os.path.join(args.source_dir, "examples/cmake-consumer/mlp.json")))


def require_prefix(args):
    if not os.path.isfile(os.path.join(args.prefix, "bin/tfrt-compile")):
        raise Failure(f"no installation at {args.prefix}: run the "
                      "build-integration.install test first")


def cmd_cmake(args):
    require_prefix(args)
    work = fresh_dir(args.work_dir)
    examples = copy_examples(args.source_dir, os.path.join(work, "src"))
    source = os.path.join(examples, "cmake-consumer")
    # The Makefiles build also sets the models' CPU through the project
    # variable TFRT_COMPILE_CPU (the baseline x86-64 instead of the host's).
    for generator, tag, cpu in (("Ninja", "ninja", None),
                                ("Unix Makefiles", "make", "x86-64")):
        build = os.path.join(work, tag)
        configure_consumer(args, source, build, generator,
                           [f"-DTFRT_COMPILE_CPU={cpu}"] if cpu else [])
        run(build_cmd(build), env=prefix_env(args))
        if cpu:
            for meta in ("tiny_cnn/tiny_cnn.json", "mlp_model/mlp.json"):
                with open(os.path.join(build, meta)) as f:
                    got = json.load(f)["target"]["cpu"]
                if got != cpu:
                    raise Failure(f"{meta}: cpu {got}, expected {cpu} (TFRT_COMPILE_CPU)")
            log(f"ok: [{generator}] TFRT_COMPILE_CPU={cpu} reached tfrt-compile")
        _, out = run([os.path.join(build, "two_models")])
        log(out.strip())
        check_consumer_outputs(out, args.source_dir)
        # (b) each object defines only its model's API; one binary holds both.
        check_model_symbols(args.nm, os.path.join(build, "tiny_cnn/tiny_cnn.o"), "tiny_cnn")
        check_model_symbols(args.nm, os.path.join(build, "mlp_model/mlp.o"), "mlp")
        exe_syms = set(defined_globals(args.nm, os.path.join(build, "two_models")))
        for s in ("tiny_cnn_run", "mlp_run", "tfrt_model_run"):
            if s not in exe_syms:
                raise Failure(f"two_models does not define {s}")
        log(f"ok: [{generator}] two models in one executable")


def cmd_makefile(args):
    require_prefix(args)
    work = fresh_dir(args.work_dir)
    examples = copy_examples(args.source_dir, os.path.join(work, "src"))
    source = os.path.join(examples, "makefile-consumer")
    env = prefix_env(args)
    run(["make", f"CXX={args.cxx}", "-j2"], cwd=source, env=env)
    _, out = run([os.path.join(source, "build/tiny_cnn_app")])
    log(out.strip())
    check_consumer_outputs(out, args.source_dir, models=("tiny_cnn",))
    # A second make does nothing.
    _, out = run(["make", f"CXX={args.cxx}"], cwd=source, env=env)
    if "tfrt-compile" in out or "Nothing to be done" not in out:
        raise Failure("a second make rebuilt something:\n" + out)
    log("ok: makefile consumer is up to date after one build")


def mtimes(build, files):
    return {f: os.stat(os.path.join(build, f)).st_mtime_ns for f in files}


def touch(path):
    time.sleep(1.1)  # beyond any timestamp granularity of make and ninja
    os.utime(path, None)


def cmd_rebuild(args):
    require_prefix(args)
    work = fresh_dir(args.work_dir)
    examples = copy_examples(args.source_dir, os.path.join(work, "src"))
    source = os.path.join(examples, "cmake-consumer")
    env = prefix_env(args)
    mlp_files = ["mlp_model/mlp.o", "mlp_model/mlp.h", "mlp_model/mlp.json",
                 "libmlp_model.a"]
    cnn_files = ["tiny_cnn/tiny_cnn.o", "tiny_cnn/tiny_cnn.h",
                 "tiny_cnn/tiny_cnn.json", "libtiny_cnn.a"]
    # The moved tfrt-compile itself gets touched below: use a copy of the
    # prefix of our own so other tests never see it change.
    prefix = os.path.join(work, "prefix")
    shutil.copytree(args.prefix, prefix, symlinks=True)
    local = argparse.Namespace(**vars(args))
    local.prefix = prefix
    compiler = os.path.join(prefix, "bin/tfrt-compile")

    builds = {}
    for generator, tag in (("Ninja", "ninja"), ("Unix Makefiles", "make")):
        build = os.path.join(work, tag)
        builds[tag] = build
        configure_consumer(local, source, build, generator)
        run(build_cmd(build), env=env)
        before = mtimes(build, mlp_files + cnn_files)
        touch(os.path.join(source, "mlp.json"))
        if tag == "ninja":
            # What ninja considers out of date, in its own words.
            _, explain = run(["ninja", "-C", build, "-n", "-d", "explain"])
            dirty = set(re.findall(r"ninja explain: (\S+) is dirty", explain))
            log("ninja -n -d explain: dirty: " + " ".join(sorted(dirty)))
            if "mlp_model/mlp.o" not in dirty or any("tiny_cnn" in d for d in dirty):
                raise Failure("after touching mlp.json ninja would rebuild: "
                              + " ".join(sorted(dirty)))
        _, out = run(build_cmd(build), env=env)
        after = mtimes(build, mlp_files + cnn_files)
        stale = [f for f in mlp_files if f not in ("mlp_model/mlp.h", "mlp_model/mlp.json")
                 and after[f] == before[f]]
        rebuilt = [f for f in cnn_files if after[f] != before[f]]
        if stale or rebuilt or "tiny-cnn/model.json" in out:
            raise Failure(f"[{generator}] touching mlp.json: not rebuilt {stale}, "
                          f"wrongly rebuilt {rebuilt}\n{out}")
        log(f"ok: [{generator}] touching mlp.json rebuilt only the mlp_model library")

        # A newer compiler rebuilds every model.
        before = mtimes(build, mlp_files + cnn_files)
        touch(compiler)
        run(build_cmd(build), env=env)
        after = mtimes(build, mlp_files + cnn_files)
        stale = [f for f in ("mlp_model/mlp.o", "tiny_cnn/tiny_cnn.o") if after[f] == before[f]]
        if stale:
            raise Failure(f"[{generator}] touching tfrt-compile did not rebuild {stale}")
        log(f"ok: [{generator}] touching tfrt-compile rebuilt both models")

        # And then nothing is left to do.
        before = mtimes(build, mlp_files + cnn_files)
        _, out = run(build_cmd(build), env=env)
        if mtimes(build, mlp_files + cnn_files) != before:
            raise Failure(f"[{generator}] a no-op build rewrote model files\n{out}")
        log(f"ok: [{generator}] the next build is a no-op")

    # Determinism: another build directory, and tfrt-compile by hand, give
    # byte-identical artifacts.
    again = os.path.join(work, "again")
    configure_consumer(local, source, again, "Ninja")
    run(build_cmd(again), env=env)
    by_hand = fresh_dir(os.path.join(work, "by-hand"))
    run([compiler, os.path.join(source, "mlp.json"), "--name", "mlp",
         "--input-shape", "x=2x6", "-o", by_hand + "/"])
    for f in mlp_files[:3] + cnn_files[:3]:
        a = open(os.path.join(builds["ninja"], f), "rb").read()
        for other in (os.path.join(again, f), os.path.join(builds["make"], f)):
            if open(other, "rb").read() != a:
                raise Failure(f"{f} differs between {builds['ninja']} and {other}")
        if f.startswith("mlp_model/"):
            if open(os.path.join(by_hand, os.path.basename(f)), "rb").read() != a:
                raise Failure(f"{f} differs from tfrt-compile run by hand")
    log("ok: .o/.h/.json are byte-identical across build directories, "
        "generators and a direct tfrt-compile run")


MISUSE_CASES = [
    # (name, body, expected message)
    ("valid", "tfrt_compile_model(good MODEL model.json INPUT_SHAPES x=2x6)", None),
    # Every optional argument; built and checked by cmd_misuse.
    ("all-arguments",
     "tfrt_compile_model(full MODEL model.txt FORMAT json NAME full_model\n"
     "  INPUT_SHAPES x=3x6 CPU x86-64 TARGET_TRIPLE x86_64-pc-linux-gnu\n"
     "  OPTIONS -O1 DEPENDS extra.bin)", None),
    ("missing-model-keyword", "tfrt_compile_model(m NAME m)",
     r"tfrt_compile_model\(m\): MODEL <file> is required"),
    ("missing-model-file", "tfrt_compile_model(m MODEL nope.json)",
     r"tfrt_compile_model\(m\): MODEL file '.*/nope\.json' does not exist"),
    ("model-without-value", "tfrt_compile_model(m MODEL)",
     r"tfrt_compile_model\(m\): MODEL needs a value"),
    ("unknown-format", "tfrt_compile_model(m MODEL model.json FORMAT tflite)",
     r"unknown FORMAT 'tflite' \(expected onnx, json or mlir\)"),
    ("unknown-extension", "tfrt_compile_model(m MODEL model.txt)",
     r"cannot tell the format of '.*model\.txt' from its extension '\.txt'"),
    ("bad-shape-no-equals", "tfrt_compile_model(m MODEL model.json INPUT_SHAPES x2x6)",
     r"malformed INPUT_SHAPES entry 'x2x6'"),
    ("bad-shape-letters", "tfrt_compile_model(m MODEL model.json INPUT_SHAPES x=2xq)",
     r"malformed INPUT_SHAPES entry 'x=2xq'"),
    ("bad-shape-trailing-x", "tfrt_compile_model(m MODEL model.json INPUT_SHAPES x=2x)",
     r"malformed INPUT_SHAPES entry 'x=2x'"),
    ("target-not-identifier", "tfrt_compile_model(my-model MODEL model.json)",
     r"no NAME given and the target name 'my-model' is not a C identifier"),
    ("name-not-identifier", "tfrt_compile_model(m MODEL model.json NAME 9lives)",
     r"NAME '9lives' is not a C identifier"),
    ("name-without-value", "tfrt_compile_model(m MODEL model.json NAME)",
     r"NAME needs a value"),
    ("unknown-keyword", "tfrt_compile_model(m MODEL model.json SHAPES x=2x6)",
     r"unexpected arguments: SHAPES x=2x6 \(known keywords:"),
    ("emit-in-options", "tfrt_compile_model(m MODEL model.json OPTIONS --emit=shared)",
     r"OPTIONS must not contain '--emit=shared'"),
    ("target-exists", "add_custom_target(m)\ntfrt_compile_model(m MODEL model.json)",
     r"a target named 'm' already exists"),
    ("missing-compiler",
     "set(TFRT_COMPILE_EXECUTABLE /nonexistent/tfrt-compile)\n"
     "tfrt_compile_model(m MODEL model.json)",
     r"tfrt-compile '/nonexistent/tfrt-compile' does not exist"),
]


def cmd_misuse(args):
    require_prefix(args)
    work = fresh_dir(args.work_dir)
    mlp = os.path.join(args.source_dir, "examples/cmake-consumer/mlp.json")
    failures = []

    def configure(name, find, body):
        d = fresh_dir(os.path.join(work, name))
        shutil.copy(mlp, os.path.join(d, "model.json"))
        shutil.copy(mlp, os.path.join(d, "model.txt"))
        open(os.path.join(d, "extra.bin"), "wb").close()
        with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.20)\n"
                    "project(misuse LANGUAGES C)\n"
                    f"{find}\n{body}\n")
        return run(["cmake", "-G", "Ninja", "-S", d, "-B", os.path.join(d, "build"),
                    f"-DCMAKE_PREFIX_PATH={args.prefix}", f"-DCMAKE_C_COMPILER={args.cc}"],
                   check=False)

    cases = [(n, "find_package(TfrtCompile CONFIG REQUIRED)", b, e)
             for n, b, e in MISUSE_CASES]
    cases.append(("version-too-new", "find_package(TfrtCompile 9.0 CONFIG REQUIRED)", "",
                  r"compatible with\s+requested version \"?9\.0"))
    for name, find, body, expected in cases:
        rc, out = configure(name, find, body)
        flat = re.sub(r"\s+", " ", out)
        if expected is None:
            ok = rc == 0
        else:
            ok = rc != 0 and re.search(re.sub(r"\\s\+", " ", expected), flat) is not None
        if ok:
            log(f"ok: {name}" + (f": {expected}" if expected else ": configures"))
        else:
            log(out)
            failures.append(name)
    if failures:
        raise Failure("misuse cases without the expected result: " + ", ".join(failures))

    # The project using every argument builds, and they reach tfrt-compile.
    build = os.path.join(work, "all-arguments", "build")
    run(["cmake", "--build", build])
    with open(os.path.join(build, "full/full_model.json")) as f:
        meta = json.load(f)
    got = (meta["name"], meta["inputs"][0]["shape"], meta["target"]["cpu"],
           meta["target"]["triple"], meta["target"]["opt_level"])
    want = ("full_model", [3, 6], "x86-64", "x86_64-pc-linux-gnu", 1)
    if got != want:
        raise Failure(f"all-arguments: metadata says {got}, expected {want}")
    check_model_symbols(args.nm, os.path.join(build, "full/full_model.o"), "full_model")
    before = os.stat(os.path.join(build, "full/full_model.o")).st_mtime_ns
    touch(os.path.join(work, "all-arguments", "extra.bin"))
    run(["cmake", "--build", build])
    if os.stat(os.path.join(build, "full/full_model.o")).st_mtime_ns == before:
        raise Failure("all-arguments: touching a DEPENDS file did not recompile")
    log("ok: all-arguments: FORMAT, NAME, INPUT_SHAPES, CPU, TARGET_TRIPLE, "
        "OPTIONS reach tfrt-compile; a DEPENDS file recompiles")


def cmd_cross(args):
    triple = "aarch64-linux-gnu"
    sysroot = "/usr/aarch64-linux-gnu"
    tools = {t: shutil.which(t) for t in
             (f"{triple}-gcc", f"{triple}-g++", "qemu-aarch64-static")}
    missing = [t for t, p in tools.items() if not p]
    if not os.path.isdir(sysroot):
        missing.append(sysroot)
    if missing:
        print("SKIP: cross-compilation tools missing: " + ", ".join(missing)
              + " (scripts/setup.sh installs g++-aarch64-linux-gnu and "
              "qemu-user-static)", flush=True)
        return SKIP
    require_prefix(args)
    work = fresh_dir(args.work_dir)
    emulator = [tools["qemu-aarch64-static"], "-L", sysroot]
    compiler = os.path.join(args.prefix, "bin/tfrt-compile")
    src = args.source_dir
    tiny = os.path.join(src, "examples/tiny-cnn/model.json")
    mlp = os.path.join(src, "examples/cmake-consumer/mlp.json")
    main_c = os.path.join(src, "examples/cmake-consumer/main.c")

    # The runtime for aarch64: runtime-lib alone (no compiler), installed.
    rt_build = os.path.join(work, "runtime-build")
    rt_prefix = os.path.join(work, "runtime-aarch64")
    run(["cmake", "-G", "Ninja", "-S", src, "-B", rt_build,
         "-DTFRT_BUILD_COMPILER=OFF", "-DTFRT_BUILD_TESTS=OFF",
         "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_SYSTEM_NAME=Linux",
         "-DCMAKE_SYSTEM_PROCESSOR=aarch64",
         f"-DCMAKE_C_COMPILER={tools[triple + '-gcc']}",
         f"-DCMAKE_CXX_COMPILER={tools[triple + '-g++']}"])
    run(["cmake", "--build", rt_build, "--", "-j2"])
    run(["cmake", "--install", rt_build, "--prefix", rt_prefix])
    rt_lib = os.path.join(rt_prefix, "lib/libtfrt_runtime.a")

    # x86-64 (host) and aarch64 builds of the same program, by hand.
    results = {}
    for arch, cc, triple_args, runner in (
            ("x86-64", args.cc, [], []),
            ("aarch64", tools[triple + "-gcc"], [f"--target-triple={triple}"], emulator)):
        out = fresh_dir(os.path.join(work, arch))
        # tiny_cnn with parallel loops (a low --parallel-min-cost), compiled
        # in two module partitions whatever its size: the merged object
        # (ld.lld -r of the target's objects) must run on both machines.
        _, text = run([compiler, tiny, "--name", "tiny_cnn", "-o", out + "/",
                       "--parallel-min-cost=1000", "--codegen-threads=2",
                       "--codegen-split-min=0", "--time-phases", *triple_args])
        if "2 partitions compiled in parallel" not in text:
            raise Failure(f"{arch} tiny_cnn was not compiled in partitions:\n{text}")
        run([compiler, mlp, "--name", "mlp", "--input-shape", "x=2x6", "-o", out + "/",
             *triple_args])
        for name in ("tiny_cnn", "mlp"):
            machine = elf_machine(os.path.join(out, name + ".o"))
            want = 183 if arch == "aarch64" else 62  # EM_AARCH64, EM_X86_64
            if machine != want:
                raise Failure(f"{arch} {name}.o has ELF machine {machine}, expected {want}")
            check_model_symbols(args.nm, os.path.join(out, name + ".o"), name)
        runtime = rt_lib if arch == "aarch64" else os.path.join(args.prefix, "lib/libtfrt_runtime.a")
        include = os.path.join(rt_prefix if arch == "aarch64" else args.prefix, "include")
        exe = os.path.join(out, "two_models")
        run([cc, "-std=c11", "-O2", "-I", include, "-I", out, main_c,
             os.path.join(out, "tiny_cnn.o"), os.path.join(out, "mlp.o"), runtime,
             "-lm", "-o", exe])
        if arch == "aarch64" and elf_machine(exe) != 183:
            raise Failure(f"{exe} is not an aarch64 executable")
        _, text = run(runner + [exe])
        log(text.strip())
        results[arch] = check_consumer_outputs(text, src)
    for label in ("tiny_cnn.y", "mlp.y"):
        compare(f"{label} aarch64 vs x86-64", results["aarch64"][label],
                results["x86-64"][label])

    # The same through the CMake package: a toolchain file, the aarch64
    # runtime package, the host's tfrt-compile and the model triple.
    toolchain = os.path.join(work, "aarch64-toolchain.cmake")
    with open(toolchain, "w") as f:
        f.write(f"""set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER {tools[triple + '-gcc']})
set(CMAKE_CXX_COMPILER {tools[triple + '-g++']})
set(CMAKE_FIND_ROOT_PATH {sysroot})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR {' '.join(emulator)})
""")
    examples = copy_examples(src, os.path.join(work, "src"))
    build = os.path.join(work, "cmake-aarch64")
    run(["cmake", "-G", "Ninja", "-S", os.path.join(examples, "cmake-consumer"),
         "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}",
         f"-DTfrtCompile_DIR={rt_prefix}/lib/cmake/TfrtCompile",
         f"-DTFRT_COMPILE_EXECUTABLE={compiler}",
         f"-DTFRT_COMPILE_TARGET_TRIPLE={triple}"])
    run(["cmake", "--build", build, "--", "-j2"])
    exe = os.path.join(build, "two_models")
    if elf_machine(exe) != 183:
        raise Failure(f"{exe} is not an aarch64 executable")
    _, text = run(emulator + [exe])
    log(text.strip())
    outputs = check_consumer_outputs(text, src)
    for label in ("tiny_cnn.y", "mlp.y"):
        compare(f"{label} CMake aarch64 vs x86-64", outputs[label],
                results["x86-64"][label])
    return 0


def cmd_in_tree(args):
    """The tfrt-it-two-models target of the tfrt-compile build: both models
    compiled by tfrt_compile_model() with the tfrt-compile built there."""
    if not args.exe:
        raise Failure("in-tree needs --exe")
    run(["cmake", "--build", args.build_dir, "--target", "tfrt-it-two-models"])
    model_dir = os.path.dirname(args.exe)
    check_model_symbols(args.nm, os.path.join(model_dir, "tfrt_it_tiny_cnn/tiny_cnn.o"),
                        "tiny_cnn")
    check_model_symbols(args.nm, os.path.join(model_dir, "tfrt_it_mlp/mlp.o"), "mlp")
    _, out = run([args.exe])
    log(out.strip())
    check_consumer_outputs(out, args.source_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["install", "cmake", "makefile", "rebuild",
                                        "misuse", "cross", "in-tree"])
    ap.add_argument("--source-dir", required=True, help="the repository root")
    ap.add_argument("--build-dir", required=True, help="the tfrt-compile build")
    ap.add_argument("--prefix", required=True,
                    help="where the moved installation lives")
    ap.add_argument("--work-dir", required=True, help="scratch directory of this test")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--exe", help="in-tree: the tfrt-it-two-models executable")
    args = ap.parse_args()
    for attr in ("source_dir", "build_dir", "prefix", "work_dir"):
        setattr(args, attr, os.path.abspath(getattr(args, attr)))
    try:
        rc = globals()["cmd_" + args.command.replace("-", "_")](args)
    except Failure as e:
        log(f"FAIL: {e}")
        return 1
    if rc == SKIP:
        return SKIP
    log(f"PASS: {args.command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
