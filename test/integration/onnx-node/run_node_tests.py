#!/usr/bin/python3
"""End-to-end conformance run of tfrt-compile on ONNX's node tests.

For every op of OPS, selects the test directories of the ONNX node test data
(Debian's libonnx-testdata) that belong to that op, compiles each model with
`tfrt-compile --emit=shared`, runs it with `tfrt-run` on test_data_set_0 and
compares the outputs with the expected ones. Graph inputs that fix a result's
shape (Reshape's shape, Slice's starts/ends/axes/steps, Squeeze/Unsqueeze axes)
are frozen into initializers with the test's values first, since the compiler
needs static shapes (--no-freeze-shape-inputs turns that off); the test's line
says which.

A test whose model uses an op that tfrt-compile does not support (or whose
inputs/outputs are not tensors of an element type runtime-lib knows: sequences,
optionals, strings) is reported as OUT-OF-SCOPE with the reason; it is
counted separately and never dropped silently. Every selected test prints one
line; then a per-op summary, the out-of-scope count and finally
`N passed, N failed`. Exit status: 0 when no in-scope test failed, 1 when one
did, 2 on a usage or setup error, 77 (SKIPPED) without the test data.

ctest runs the whole ONNX backend suite instead (e2e.conformance,
../conformance/run_conformance.py, which reuses this file's comparison, process
handling and SHAPE_OPERANDS); this runner remains for quick per-op checks.

Needs Debian's python3-onnx and python3-numpy: run it with /usr/bin/python3.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as exc:  # pragma: no cover - environment dependent
    # Another python3 (pyenv, venv) may come first on PATH: re-run under the
    # system interpreter, which has Debian's python3-onnx and python3-numpy.
    if (os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and not os.environ.get("TFRT_NODE_TESTS_REEXEC")):
        os.environ["TFRT_NODE_TESTS_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.stderr.write("error: %s: install python3-onnx and python3-numpy "
                     "(scripts/setup.sh) and run with %s\n" % (exc, SYSTEM_PYTHON))
    sys.exit(2)

# The ops whose node tests this runner selects (ONNX op types).
OPS = [
    "Add", "Sub", "Mul", "Div", "Relu", "Sigmoid", "Tanh", "Clip",
    "HardSigmoid", "HardSwish", "Exp", "Log", "Sqrt", "Pow", "Neg", "Abs",
    "MatMul", "Gemm", "Conv", "BatchNormalization", "MaxPool", "AveragePool",
    "GlobalAveragePool", "Softmax", "Reshape", "Flatten", "Transpose",
    "Concat", "Slice", "Squeeze", "Unsqueeze", "Shape", "Cast", "Constant",
    "Identity",
]

# Directory-name stems ONNX uses for an op beyond its snake_case and
# lower-case names.
EXTRA_STEMS = {
    "BatchNormalization": ["batchnorm"],
}

# Whole directory names that belong to an op although no stem rule picks them.
EXTRA_DIRS = {
    "Conv": ["test_basic_conv_with_padding", "test_basic_conv_without_padding"],
}

# Directories a stem rule would pick although they test another op.
EXCLUDED_DIRS = {
    "test_constant_pad": "tests Pad (constant mode), not Constant",
}

DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data/node"
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEFAULT_BIN_DIR = os.path.join(REPO_ROOT, "build", "bin")

# Operands (input positions) that fix the shape of a result. An ahead-of-time
# compiler needs them constant, but some ONNX tests feed them as graph inputs:
# with --freeze-shape-inputs (the default) such inputs become initializers
# holding the test's data, and the compiled model takes the remaining inputs.
# This runner and test/integration/conformance/run_conformance.py (which
# reports such passes in a column of their own) share this table.
_REDUCE_OPS = ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd",
               "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
               "ReduceSumSquare")
SHAPE_OPERANDS = {
    "Reshape": (1,),                 # shape
    "Slice": (1, 2, 3, 4),           # starts, ends, axes, steps
    "Squeeze": (1,), "Unsqueeze": (1,),   # axes
    "Expand": (1,),                  # shape
    "Tile": (1,),                    # repeats
    "ConstantOfShape": (0,),         # shape
    "Pad": (1, 3),                   # pads, axes
    "Split": (1,),                   # split
    "SplitToSequence": (1,),         # split
    "Loop": (0, 1),                  # trip count M, initial cond (unrolled)
    "Resize": (2, 3),                # scales, sizes
    "Upsample": (1,),                # scales
    "Range": (0, 1, 2),              # start, limit, delta
    "OneHot": (1,),                  # depth
    "TopK": (1,),                    # K
    "Compress": (1,),                # condition (which slices are kept)
    "CumSum": (1,),                  # axis (selects the scanned dimension)
    "CenterCropPad": (1,),           # shape
    "Col2Im": (1, 2),                # image_shape, block_shape
    "MaxUnpool": (2,),               # output_shape
    "DFT": (1, 2),                   # dft_length, axis
    "STFT": (1, 3),                  # frame_step, frame_length
    "HannWindow": (0,), "HammingWindow": (0,), "BlackmanWindow": (0,),  # size
    "MelWeightMatrix": (0, 1),       # num_mel_bins, dft_length
}
SHAPE_OPERANDS.update({op: (1,) for op in _REDUCE_OPS})   # axes (an input since opset 13/18)

RTOL = 1e-3
ATOL = 1e-7


def snake_case(name):
    """HardSigmoid -> hard_sigmoid, MatMul -> mat_mul."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def stems_for(op):
    stems = [snake_case(op), op.lower()] + EXTRA_STEMS.get(op, [])
    seen = []
    for s in stems:
        if s not in seen:
            seen.append(s)
    return seen


def dir_matches_stem(dirname, stem):
    """`test_<stem>` exactly, or `test_<stem>_...`: test_conv_x matches conv,
    test_convtranspose does not; test_cast_x matches cast, test_castlike_x
    does not; test_exp_example matches exp, test_expand_x does not."""
    base = "test_" + stem
    return dirname == base or dirname.startswith(base + "_")


def select_tests(data_dir, ops):
    """Returns ({op: [dirnames]}, [(dirname, reason)] excluded) and checks that
    no directory is claimed by two ops."""
    try:
        names = sorted(d for d in os.listdir(data_dir)
                       if os.path.isfile(os.path.join(data_dir, d, "model.onnx")))
    except OSError as exc:
        raise SystemExit("error: cannot list %s: %s" % (data_dir, exc))
    owner = {}
    selected = {op: [] for op in ops}
    excluded = []
    for op in ops:
        for name in names:
            hit = any(dir_matches_stem(name, s) for s in stems_for(op))
            hit = hit or name in EXTRA_DIRS.get(op, [])
            if not hit:
                continue
            if name in EXCLUDED_DIRS:
                excluded.append((name, op, EXCLUDED_DIRS[name]))
                continue
            if name in owner:
                raise SystemExit("error: %s is selected for both %s and %s"
                                 % (name, owner[name], op))
            owner[name] = op
            selected[op].append(name)
    return selected, excluded


def collect_op_types(graph, out):
    for node in graph.node:
        op = node.op_type if node.domain in ("", "ai.onnx") else \
            "%s::%s" % (node.domain, node.op_type)
        out.add(op)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                collect_op_types(attr.g, out)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    collect_op_types(g, out)
    return out


def graph_io(model):
    inits = {i.name for i in model.graph.initializer}
    inits |= {i.name for i in model.graph.sparse_initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    outputs = list(model.graph.output)
    return inputs, outputs


# Element types of runtime-lib's tfrt_dtype (equal to TensorProto.DataType).
TFRT_DTYPES = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}


def non_tensor_values(values):
    """Graph inputs/outputs that are not tensors of a tfrt_dtype element type
    (sequences, optionals, string or complex tensors)."""
    bad = []
    for v in values:
        kind = v.type.WhichOneof("value")
        if kind != "tensor_type":
            bad.append("%s is %s" % (v.name, (kind or "untyped").replace("_type", "")))
        elif v.type.tensor_type.elem_type not in TFRT_DTYPES:
            bad.append("%s is a %s tensor" % (
                v.name, onnx.TensorProto.DataType.Name(v.type.tensor_type.elem_type).lower()))
    return bad


class TestCase:
    def __init__(self, name, op, path):
        self.name = name
        self.op = op
        self.path = path
        self.op_types = []
        self.inputs = []
        self.frozen = []           # graph inputs turned into initializers
        self.outputs = []
        self.output_types = []
        self.scope_reason = None   # set when out of scope
        self.load_error = None
        self.status = None         # PASS / FAIL / OUT-OF-SCOPE
        self.reason = ""
        self.seconds = 0.0

    def load(self, supported):
        try:
            model = onnx.load(os.path.join(self.path, "model.onnx"))
        except Exception as exc:  # noqa: BLE001 - reported as a failure
            self.load_error = "cannot read model.onnx: %s" % exc
            return
        self.op_types = sorted(collect_op_types(model.graph, set()))
        ins, outs = graph_io(model)
        self.inputs = [i.name for i in ins]
        shape_operands = set()
        for node in model.graph.node:
            if node.domain in ("", "ai.onnx"):
                for pos in SHAPE_OPERANDS.get(node.op_type, ()):
                    if pos < len(node.input) and node.input[pos]:
                        shape_operands.add(node.input[pos])
        self.frozen = [n for n in self.inputs if n in shape_operands]
        self.outputs = [o.name for o in outs]
        self.output_types = [o.type.tensor_type.elem_type
                             if o.type.WhichOneof("value") == "tensor_type" else None
                             for o in outs]
        unsupported = [o for o in self.op_types if o not in supported]
        if unsupported:
            self.scope_reason = "uses %s" % ", ".join(unsupported)
            return
        bad = non_tensor_values(ins + outs)
        if bad:
            self.scope_reason = "unsupported graph value types (%s)" % "; ".join(bad)


_children_lock = threading.Lock()
_children = set()


def run_cmd(argv, deadline, cwd=None):
    """Runs argv in its own process group; kills the group at `deadline`.
    Returns (returncode or None on timeout, combined output)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None, ""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    with _children_lock:
        _children.add(proc)
    try:
        out, _ = proc.communicate(timeout=remaining)
        return proc.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        return None, out.decode("utf-8", "replace")
    finally:
        with _children_lock:
            _children.discard(proc)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def describe_exit(rc):
    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit %d" % rc


def last_error_line(output):
    lines = [l.strip() for l in output.strip().splitlines() if l.strip()]
    for l in reversed(lines):
        if "error" in l.lower():
            return l[:300]
    return lines[-1][:300] if lines else "(no output)"


def sanitize(name):
    return name.replace("/", "_")


def bfloat16_bits_to_float32(a):
    return (a.astype(np.uint32) << 16).view(np.float32)


def compare(expected, actual, declared=None):
    """Returns None when equal enough, else a short reason. `declared` is the
    graph's TensorProto element type of the output."""
    if declared == onnx.TensorProto.BFLOAT16:
        # numpy has no bfloat16: ONNX's test data stores it as uint16 bit
        # patterns; tfrt-run may write the bits (uint16) or float32 values.
        # Compared as floats, within one bfloat16 ulp (8 significant bits).
        if actual.shape != expected.shape:
            return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
        if actual.dtype not in (np.uint16, np.float32):
            return "dtype %s, expected bfloat16 as uint16 bits or float32" % actual.dtype
        e = bfloat16_bits_to_float32(expected) if expected.dtype == np.uint16 else expected
        a = bfloat16_bits_to_float32(actual) if actual.dtype == np.uint16 else actual
        return compare_floats(e, a, rtol=2.0 ** -7, atol=0.0)
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    if actual.dtype != expected.dtype:
        return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        return compare_floats(expected, actual, RTOL, ATOL)
    if not np.array_equal(actual, expected):
        bad = int((actual != expected).sum())
        return "values differ: %d of %d elements" % (bad, expected.size)
    return None


def compare_floats(expected, actual, rtol, atol):
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    nan_e, nan_a = np.isnan(e), np.isnan(a)
    if not np.array_equal(nan_e, nan_a):
        return "NaN positions differ (%d NaNs, expected %d)" % (nan_a.sum(), nan_e.sum())
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)[~close]
        diff = diff[~np.isnan(diff)]
        worst = float(diff.max()) if diff.size else float("inf")
        return "values differ: %d of %d elements, max abs diff %.3g" % (
            int((~close).sum()), e.size, worst)
    return None


def freeze_inputs(test, data, in_files, frozen, work):
    """Writes WORK/model.onnx: the test's model with the `frozen` graph inputs
    turned into initializers holding test_data_set_0's values."""
    model = onnx.load(os.path.join(test.path, "model.onnx"))
    values = {}
    for k, f in enumerate(in_files):
        if test.inputs[k] in frozen:
            tp = onnx.TensorProto()
            with open(os.path.join(data, f), "rb") as fh:
                tp.ParseFromString(fh.read())
            tp.name = test.inputs[k]
            values[tp.name] = tp
    keep = [i for i in model.graph.input if i.name not in values]
    del model.graph.input[:]
    model.graph.input.extend(keep)
    model.graph.initializer.extend(values[n] for n in frozen)
    if model.ir_version < 4:
        # Before IR 4 every initializer must also be a graph input.
        model.ir_version = 4
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    return path


def run_one(test, args, work_root):
    start = time.monotonic()
    deadline = start + args.timeout
    work = os.path.join(work_root, test.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        return _run_one(test, args, work, deadline)
    except Exception as exc:  # noqa: BLE001 - one test's error must not stop the run
        return "FAIL", "runner error: %s: %s" % (type(exc).__name__, exc)
    finally:
        test.seconds = time.monotonic() - start
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _run_one(test, args, work, deadline):
    data = os.path.join(test.path, "test_data_set_0")
    if not os.path.isdir(data):
        return "FAIL", "no test_data_set_0"
    in_files = sorted((f for f in os.listdir(data) if re.fullmatch(r"input_\d+\.pb", f)),
                      key=lambda f: int(f[6:-3]))
    out_files = sorted((f for f in os.listdir(data) if re.fullmatch(r"output_\d+\.pb", f)),
                       key=lambda f: int(f[7:-3]))
    if len(in_files) != len(test.inputs):
        return "FAIL", "%d input files for %d graph inputs" % (len(in_files), len(test.inputs))
    if len(out_files) != len(test.outputs):
        return "FAIL", "%d output files for %d graph outputs" % (len(out_files), len(test.outputs))

    model_path = os.path.join(test.path, "model.onnx")
    frozen = test.frozen if args.freeze_shape_inputs else []
    if frozen:
        model_path = freeze_inputs(test, data, in_files, frozen, work)

    cmd = [args.tfrt_compile, model_path, "--name", "m",
           "-o", work, "--emit=shared"]
    rc, out = run_cmd(cmd, deadline)
    if rc is None:
        return "FAIL", "timeout (%ds) in tfrt-compile" % args.timeout
    if rc != 0:
        return "FAIL", "tfrt-compile %s: %s" % (describe_exit(rc), last_error_line(out))
    so = os.path.join(work, "m.so")
    if not os.path.isfile(so):
        return "FAIL", "tfrt-compile succeeded but wrote no m.so"

    out_dir = os.path.join(work, "out")
    cmd = [args.tfrt_run, so]
    for k, f in enumerate(in_files):
        if test.inputs[k] not in frozen:
            cmd += ["--input", "%s=%s" % (test.inputs[k], os.path.join(data, f))]
    cmd += ["--output-dir", out_dir]
    rc, out = run_cmd(cmd, deadline)
    if rc is None:
        return "FAIL", "timeout (%ds) in tfrt-run" % args.timeout
    if rc != 0:
        return "FAIL", "tfrt-run %s: %s" % (describe_exit(rc), last_error_line(out))

    for k, f in enumerate(out_files):
        name = test.outputs[k]
        tp = onnx.TensorProto()
        with open(os.path.join(data, f), "rb") as fh:
            tp.ParseFromString(fh.read())
        expected = numpy_helper.to_array(tp)
        got_path = os.path.join(out_dir, sanitize(name) + ".npy")
        if not os.path.isfile(got_path):
            return "FAIL", "tfrt-run wrote no %s" % os.path.relpath(got_path, work)
        try:
            actual = np.load(got_path, allow_pickle=False)
        except Exception as exc:  # noqa: BLE001
            return "FAIL", "cannot read %s: %s" % (os.path.basename(got_path), exc)
        why = compare(expected, actual, test.output_types[k])
        if why:
            return "FAIL", "output %d '%s': %s" % (k, name, why)
    return "PASS", ""


def supported_ops(args):
    if args.ops_from_list:
        return set(OPS), "the fixed op list (--ops-from-list)"
    try:
        res = subprocess.run([args.tfrt_compile, "--list-ops"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SystemExit("error: cannot run '%s --list-ops': %s (build it, pass "
                         "--bin-dir, or use --ops-from-list)" % (args.tfrt_compile, exc))
    if res.returncode != 0:
        raise SystemExit("error: '%s --list-ops' failed (%s): %s" % (
            args.tfrt_compile, describe_exit(res.returncode),
            res.stderr.decode("utf-8", "replace").strip()))
    ops = {l.strip() for l in res.stdout.decode("utf-8", "replace").splitlines() if l.strip()}
    if not ops:
        raise SystemExit("error: '%s --list-ops' printed no ops" % args.tfrt_compile)
    return ops, "'tfrt-compile --list-ops' (%d ops)" % len(ops)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                   help="ONNX node test directory (default: %(default)s)")
    p.add_argument("--bin-dir", default=DEFAULT_BIN_DIR,
                   help="directory with tfrt-compile and tfrt-run (default: build/bin)")
    p.add_argument("--tfrt-compile", help="path of tfrt-compile (default: BIN_DIR/tfrt-compile)")
    p.add_argument("--tfrt-run", help="path of tfrt-run (default: BIN_DIR/tfrt-run)")
    p.add_argument("--work-dir", help="where per-test work directories go "
                   "(default: a new temporary directory)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="tests run in parallel (default: nproc)")
    p.add_argument("--timeout", type=int, default=120,
                   help="seconds per test, compile and run together (default: 120)")
    p.add_argument("--filter", help="only tests whose directory name matches this regex")
    p.add_argument("--keep", action="store_true", help="keep the work directories")
    p.add_argument("--ops-from-list", action="store_true",
                   help="take the supported ops from the fixed list in this script "
                   "instead of 'tfrt-compile --list-ops'")
    p.add_argument("--no-freeze-shape-inputs", dest="freeze_shape_inputs",
                   action="store_false",
                   help="compile the models as they are, even when a graph input fixes a "
                   "result's shape (Reshape's shape, Slice's starts, ...); by default such "
                   "inputs become initializers with the test's data")
    p.add_argument("--list", action="store_true",
                   help="print the op-to-test mapping and each selected test's op set; "
                   "compile and run nothing")
    args = p.parse_args(argv)
    args.tfrt_compile = args.tfrt_compile or os.path.join(args.bin_dir, "tfrt-compile")
    args.tfrt_run = args.tfrt_run or os.path.join(args.bin_dir, "tfrt-run")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    if not os.path.isdir(args.data_dir):
        # ctest's skip code for this test (SKIP_RETURN_CODE 77).
        print("SKIPPED: ONNX node test data not found at %s (install libonnx-testdata: "
              "scripts/setup.sh)" % args.data_dir)
        return 77
    if args.list and not os.path.exists(args.tfrt_compile):
        args.ops_from_list = True
    supported, supported_from = supported_ops(args)

    selected, excluded = select_tests(args.data_dir, OPS)
    print("Test selection in %s:" % args.data_dir)
    for op in OPS:
        rule = " | ".join("test_%s[_*]" % s for s in stems_for(op))
        if EXTRA_DIRS.get(op):
            rule += " + " + " ".join(EXTRA_DIRS[op])
        print("  %-18s %-48s -> %d tests" % (op, rule, len(selected[op])))
    for name, op, why in excluded:
        print("  not selected for %s: %s (%s)" % (op, name, why))
    print("Supported ops from %s" % supported_from)

    tests = []
    for op in OPS:
        for name in selected[op]:
            if args.filter and not re.search(args.filter, name):
                continue
            tests.append(TestCase(name, op, os.path.join(args.data_dir, name)))
    if not tests:
        print("error: no test selected", file=sys.stderr)
        return 2
    for t in tests:
        t.load(supported)

    if args.list:
        in_scope = 0
        for t in tests:
            if t.load_error:
                scope = "FAIL (%s)" % t.load_error
            elif t.scope_reason:
                scope = "OUT-OF-SCOPE (%s)" % t.scope_reason
            else:
                scope = "in scope"
                in_scope += 1
            if t.frozen and args.freeze_shape_inputs and not t.scope_reason:
                scope += "; frozen shape inputs: %s" % ",".join(t.frozen)
            print("%-18s %-55s ops=[%s] %s" % (t.op, t.name, ",".join(t.op_types), scope))
        print("%d tests selected, %d in scope, %d out of scope"
              % (len(tests), in_scope, len(tests) - in_scope))
        return 0

    for tool in (args.tfrt_compile, args.tfrt_run):
        if not os.access(tool, os.X_OK):
            print("error: %s is not an executable (build first or pass --bin-dir)" % tool,
                  file=sys.stderr)
            return 2

    if args.work_dir:
        work_root = os.path.abspath(args.work_dir)
        os.makedirs(work_root, exist_ok=True)
        own_work_root = False
    else:
        work_root = tempfile.mkdtemp(prefix="tfrt-node-tests.")
        own_work_root = True

    runnable = []
    for t in tests:
        if t.load_error:
            t.status, t.reason = "FAIL", t.load_error
        elif t.scope_reason:
            t.status, t.reason = "OUT-OF-SCOPE", t.scope_reason
        else:
            runnable.append(t)
    for t in tests:
        if t.status:
            print("%-12s %s: %s" % (t.status, t.name, t.reason), flush=True)

    print("Running %d tests with %d jobs, %ds timeout each, work dir %s"
          % (len(runnable), args.jobs, args.timeout, work_root), flush=True)
    print_lock = threading.Lock()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_one, t, args, work_root): t for t in runnable}
            for fut in concurrent.futures.as_completed(futures):
                t = futures[fut]
                t.status, t.reason = fut.result()
                with print_lock:
                    note = ""
                    if t.frozen and args.freeze_shape_inputs:
                        note = ", frozen shape inputs: %s" % ",".join(t.frozen)
                    if t.status == "PASS":
                        print("%-12s %s (%.1fs%s)" % ("PASS", t.name, t.seconds, note),
                              flush=True)
                    else:
                        print("%-12s %s: %s%s" % (t.status, t.name, t.reason,
                                                   note.replace(", ", " (", 1) + ")"
                                                   if note else ""), flush=True)
    except KeyboardInterrupt:
        with _children_lock:
            for proc in list(_children):
                _kill_group(proc)
        raise
    finally:
        if own_work_root and not args.keep:
            shutil.rmtree(work_root, ignore_errors=True)

    print()
    print("Per-op summary (passed / failed / out of scope):")
    for op in OPS:
        mine = [t for t in tests if t.op == op]
        if not mine:
            continue
        p = sum(t.status == "PASS" for t in mine)
        f = sum(t.status == "FAIL" for t in mine)
        o = sum(t.status == "OUT-OF-SCOPE" for t in mine)
        print("  %-18s %3d / %3d / %3d" % (op, p, f, o))
    failed = [t for t in tests if t.status == "FAIL"]
    if failed:
        print("Failed tests:")
        for t in failed:
            print("  %s: %s" % (t.name, t.reason))
    if args.keep:
        print("Work directories kept in %s" % work_root)
    passed = sum(t.status == "PASS" for t in tests)
    out_of_scope = sum(t.status == "OUT-OF-SCOPE" for t in tests)
    print("%d out of scope" % out_of_scope)
    print("%d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
