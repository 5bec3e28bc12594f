# -*- Python -*-
# lit configuration of the tfrt-compile test suite.
#
# Run through ctest (`ctest --test-dir build -R lit`), `ninja -C build
# check-tfrt`, or by hand:
#   lit -sv --param tfrt_site_config=build/test/lit.site.cfg.py test/
# Without that parameter the site config of build/ at the repository root is
# used.
#
# Substitutions: tfrt-opt, tfrt-compile, tfrt-run (this build's tools),
# FileCheck, not, count, split-file (LLVM's), %cc (clang-22), %runtime_include,
# %runtime_lib (libtfrt_runtime.a), %python (python with onnx and numpy),
# %onnx_testdata (ONNX backend test data), %npm_models (PP-OCR models).
# %cuda_path ($CUDA_HOME or /usr/local/cuda).
# Features: onnx-testdata, npm-models, cuda-toolkit (ptxas, fatbinary and
# libdevice under %cuda_path), cuda-gpu (`nvidia-smi -L` succeeds).

import os
import re

import lit.formats
import lit.util


def _load_site_config():
    site = lit_config.params.get("tfrt_site_config")
    if not site:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        site = os.path.join(root, "build", "test", "lit.site.cfg.py")
    if not os.path.isfile(site):
        lit_config.fatal(
            "no site config at %s: configure the build first (scripts/build.sh) "
            "or pass --param tfrt_site_config=BUILD/test/lit.site.cfg.py" % site)
    # The site config sets the paths and loads this file again.
    lit_config.load_config(config, site)


def _tool_pattern(name):
    # The tool name as a whole word of a RUN line: not part of a longer word,
    # option or path (so `count` in `--count=2` or `out/count.txt` stays).
    return r"(?<![^\s|;&(])" + re.escape(name) + r"(?![^\s|;&)])"


def _configure():
    config.name = "tfrt-compile"
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = [".mlir", ".json", ".test"]
    config.test_source_root = os.path.dirname(os.path.abspath(__file__))
    config.test_exec_root = config.tfrt_test_obj_root
    # Directories and files that hold no lit tests.
    config.excludes = ["unit", "Inputs", "CMakeLists.txt", "lit.cfg.py",
                       "lit.site.cfg.py", "lit.site.cfg.py.in", "README.md"]

    llvm_tools = config.llvm_tools_dir
    if not os.path.isdir(llvm_tools):
        llvm_tools = "/usr/lib/llvm-22/bin"
    path = os.pathsep.join([config.tfrt_tools_dir, llvm_tools,
                            config.environment.get("PATH", os.environ.get("PATH", ""))])
    config.environment["PATH"] = path
    for var in ("HOME", "TMPDIR", "LANG", "LC_ALL"):
        if var in os.environ:
            config.environment[var] = os.environ[var]

    subs = []
    # Longest first, so no %-name is cut by a shorter one.
    subs.append(("%runtime_include", config.tfrt_runtime_include_dir))
    subs.append(("%runtime_lib", config.tfrt_runtime_lib))
    subs.append(("%onnx_testdata", config.onnx_testdata_dir))
    npm_models = os.path.join(config.tfrt_src_root, "third_party", "npm",
                              "package", "assets")
    subs.append(("%npm_models", npm_models))
    subs.append(("%ort_dir", os.path.join(config.tfrt_src_root, "third_party",
                                          "npm", "ort")))
    # CUDA toolkit (ptxas, fatbinary, libdevice) for --target=cuda tests.
    cuda_path = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    subs.append(("%cuda_path", cuda_path))
    subs.append(("%python", config.python_executable))
    subs.append(("%cc", config.tfrt_cc))
    for tool in ("tfrt-compile", "tfrt-opt", "tfrt-run"):
        subs.append((_tool_pattern(tool), os.path.join(config.tfrt_tools_dir, tool)))
    for tool in ("FileCheck", "not", "count", "split-file"):
        found = os.path.join(llvm_tools, tool)
        if not os.path.exists(found):
            found = lit.util.which(tool, path) or tool
        subs.append((_tool_pattern(tool), found))
    config.substitutions.extend(subs)

    if os.path.isdir(config.onnx_testdata_dir):
        config.available_features.add("onnx-testdata")
    # Code compiled for x86-64-v3 (AVX2 register tiles) runs here.
    try:
        with open("/proc/cpuinfo") as fh:
            flags = next((l.split(":", 1)[1].split() for l in fh
                          if l.startswith("flags")), [])
        if "avx2" in flags and "fma" in flags:
            config.available_features.add("host-avx2")
    except OSError:
        pass
    cls_model = os.path.join(npm_models, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    if os.path.isfile(cls_model):
        config.available_features.add("npm-models")
    # ONNX Runtime references (onnxruntime-node, scripts/fetch-models.sh).
    ort_dir = os.path.join(config.tfrt_src_root, "third_party", "npm", "ort")
    if os.path.isfile(os.path.join(ort_dir, "node_modules", "onnxruntime-node",
                                   "package.json")) and lit.util.which("node"):
        config.available_features.add("onnxruntime")
    if all(os.path.exists(os.path.join(cuda_path, f)) for f in
           ("bin/ptxas", "bin/fatbinary", "nvvm/libdevice/libdevice.10.bc")):
        config.available_features.add("cuda-toolkit")
        if "CUDA_HOME" in os.environ:
            config.environment["CUDA_HOME"] = os.environ["CUDA_HOME"]
    # GPU execution tests: only where a device answers.
    try:
        import subprocess
        if subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=20).returncode == 0:
            config.available_features.add("cuda-gpu")
    except (OSError, subprocess.SubprocessError):
        pass
    for tool in ("tfrt-compile", "tfrt-opt", "tfrt-run"):
        if not os.path.exists(os.path.join(config.tfrt_tools_dir, tool)):
            lit_config.note("%s is not built yet (%s)" % (tool, config.tfrt_tools_dir))


if getattr(config, "tfrt_tools_dir", None) is None:
    _load_site_config()
else:
    _configure()
