#!/usr/bin/python3
"""The ONNX backend test suite through tfrt-compile's ahead-of-time path.

Takes every test directory of the ONNX backend test data (Debian's
libonnx-testdata: FOLDERS below, 1072 tests) through

    tfrt-compile model.onnx --name m -o WORK --emit=shared
    tfrt-run WORK/m.so --input NAME=input_K.pb ... --output-dir OUT

and compares OUT/<output>.npy with the test's output_K.pb (numpy; ONNX backend
tolerances rtol 1e-3, atol 1e-7; exceptions in TOLERANCE_EXCEPTIONS). Inputs
are input_K.pb in graph-input order (initializers excluded); every
test_data_set_N of a test is run. Tests run in parallel (--jobs, default all
cores), each in its own work directory and process group with a timeout: a
crash, hang or compile failure is that test's result only.

Specialisation: graph inputs that fix a result's shape (Reshape's shape,
Slice's starts, ..., the SHAPE_OPERANDS table of
../onnx-node/run_node_tests.py) become initializers holding the data set's
values, and symbolic input dimensions are fixed with `--input-shape` from the
data set. A test that passes only so is counted as "passed (specialised)",
apart from plain passes.

Every non-passing test gets a category and a specific reason (classify()).
Outputs: a line per test, a summary, optionally --json/--markdown reports, a
floor check (--floor FILE: exit 1 if a test listed there does not pass, after
one lone retry of those that timed out; new passes are listed; --update-floor
adds them), and last `N passed, N failed`.
Exit status: 0, 1 (floor broken; without --floor: never for test failures),
2 (usage/setup error), 77 (no test data: ctest's SKIPPED).

Needs Debian's python3-onnx and python3-numpy: run it with /usr/bin/python3.
Nothing here compares against values tfrt-compile produced: the expected
values are those shipped with the ONNX test data.
"""

import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "onnx-node"))

import run_node_tests as rnt  # noqa: E402  (re-executes under /usr/bin/python3 if needed)
from run_node_tests import np, onnx, numpy_helper  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data"
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]

RTOL = 1e-3
ATOL = 1e-7

# The one place for per-test tolerances: {"folder/test": (rtol, atol, why)}.
# bfloat16 outputs are always compared within one bfloat16 ulp (rtol 2^-7),
# since the data holds bfloat16 values (run_node_tests.compare).
TOLERANCE_EXCEPTIONS = {
}

ONNX_RUNTIME_REFERENCE = ("ONNX Runtime 1.12", 988, 1072)

# Tests whose reference data cannot be matched by a correct implementation of
# the model as written; the note is appended to the failure's reason. (The
# test still runs and is judged like every other one.)
REFERENCE_NOTES = {
    "node/test_adam_multiple":
        "the reference outputs were computed with epsilon=1e-2 "
        "(onnx/backend/test/case/node/adam.py) but the model's Adam node sets "
        "no epsilon, so the spec default 1e-6 applies",
}

# Ops that draw random numbers: no implementation reproduces the generator
# that produced the reference data.
RANDOM_OPS = {"Bernoulli", "RandomUniform", "RandomUniformLike",
              "RandomNormal", "RandomNormalLike", "Multinomial"}

# Ops whose output shape depends on input values (not only on shapes): an
# ahead-of-time compiler with static shapes cannot produce them.
DATA_DEPENDENT_OPS = {"NonZero", "Unique", "NonMaxSuppression", "Compress",
                      "StringSplit"}
TRAINING_DOMAIN = "ai.onnx.preview.training"

# Categories in the order classify() prefers them when several apply.
CATEGORIES = [
    "sequence/optional types", "string tensors", "training op",
    "data-dependent output shape", "op not supported", "dtype",
    "compile error", "compile crash", "static shape not inferred",
    "timeout", "run error", "run crash", "wrong output shape",
    "wrong output dtype", "numerical mismatch", "wrong values",
    "test data", "runner error",
]

PASS = "passed"
PASS_SPEC = "passed (specialised)"
FAIL = "failed"
STAGED = "staged"   # compiled for a later --stage-in run (--stage-out)


def dtype_name(t):
    try:
        return onnx.TensorProto.DataType.Name(t).lower()
    except ValueError:
        return "dtype %d" % t


class Test:
    def __init__(self, folder, name, path):
        self.folder = folder
        self.name = name
        self.path = path
        self.id = "%s/%s" % (folder, name)
        self.ops = []
        self.inputs = []          # graph inputs (no initializers), in order
        self.outputs = []
        self.output_types = []
        self.symbolic = []        # inputs with unknown dimensions
        self.shape_operands = set()
        self.signature = {}       # facts from the model: see load()
        self.status = None
        self.category = ""
        self.reason = ""
        self.detail = ""
        self.unsupported_ops = []
        self.specialised = []     # what was fixed at compile time
        self.seconds = 0.0
        self.sets = 0
        self.staged = []          # --stage-out: compiled groups, see stage_group()

    def first_value(self, model, name):
        """The value of `name` as an initializer or, for a graph input, in
        the first data set; None if neither."""
        for init in model.graph.initializer:
            if init.name == name:
                return numpy_helper.to_array(init)
        if name in self.inputs:
            path = os.path.join(self.path, "test_data_set_0",
                                "input_%d.pb" % self.inputs.index(name))
            if os.path.exists(path):
                return numpy_helper.to_array(read_tensor(path))
        return None

    def dropout_may_be_random(self, model, node):
        """Whether a Dropout with a training_mode input may train with a
        ratio above 0 (the default ratio is 0.5)."""
        mode = self.first_value(model, node.input[2])
        if mode is not None and not mode.any():
            return False
        ratio = self.first_value(model, node.input[1]) if node.input[1] else None
        return ratio is None or bool(ratio.any())

    def load(self):
        model = onnx.load(os.path.join(self.path, "model.onnx"))
        self.ops = sorted(rnt.collect_op_types(model.graph, set()))
        ins, outs = rnt.graph_io(model)
        self.inputs = [i.name for i in ins]
        self.outputs = [o.name for o in outs]
        self.output_types = [o.type.tensor_type.elem_type
                             if o.type.WhichOneof("value") == "tensor_type" else None
                             for o in outs]
        for i in ins:
            if i.type.WhichOneof("value") == "tensor_type":
                t = i.type.tensor_type
                if not t.HasField("shape") or any(
                        not d.HasField("dim_value") for d in t.shape.dim):
                    self.symbolic.append(i.name)
        self.shape_operands = shape_inputs(model, ins)
        # Signature facts used to classify failures.
        seq, strings, dtypes = [], [], []
        for v in list(ins) + list(outs):
            kind = v.type.WhichOneof("value")
            if kind != "tensor_type":
                seq.append("%s '%s'" % ((kind or "untyped").replace("_type", ""), v.name))
                continue
            et = v.type.tensor_type.elem_type
            if et == onnx.TensorProto.STRING:
                strings.append(v.name)
            elif et not in rnt.TFRT_DTYPES or et in (onnx.TensorProto.FLOAT16,
                                                    onnx.TensorProto.BFLOAT16):
                dtypes.append((dtype_name(et), v.name))
        # Only sequence/optional graph inputs and outputs count: sequences
        # inside the model are compile-time lists of tensors (the importer's
        # SequenceOps.cpp), so such models are compiled and judged normally
        # (an op the importer lacks, e.g. SequenceMap, is "op not supported").
        # The optimizers of the training domain (Adagrad, Adam, Momentum)
        # are plain formulas and are compiled; Gradient needs automatic
        # differentiation.
        training = [o for o in self.ops if o == TRAINING_DOMAIN + "::Gradient"]
        for node in model.graph.node:
            if node.op_type == "BatchNormalization":
                if any(a.name == "training_mode" and a.i for a in node.attribute):
                    training.append("BatchNormalization training_mode=1")
            if node.op_type == "Dropout" and len(node.input) > 2 and node.input[2]:
                # With training_mode, Dropout is the identity when it is
                # false or the ratio is 0, else random. Graph inputs ratio and
                # training_mode are specialised: they decide which.
                self.shape_operands |= {i for i in node.input[1:3] if i in self.inputs}
                if self.dropout_may_be_random(model, node):
                    training.append("random: training-mode Dropout with ratio > 0")
            if node.op_type == "Cast":
                for a in node.attribute:
                    if a.name == "to" and a.i == onnx.TensorProto.STRING:
                        strings.append("Cast to string")
        self.signature = {
            "sequence": seq, "string": strings, "dtypes": dtypes,
            "training": sorted(set(training)),
            "data_dependent": [o for o in self.ops if o in DATA_DEPENDENT_OPS],
        }


# Ops whose result depends only on the shape of their input, not its values.
SHAPE_ONLY_OPS = {"Shape", "Size"}
FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE,
               onnx.TensorProto.FLOAT16}
INT_TYPES = {onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32,
             onnx.TensorProto.INT64, onnx.TensorProto.UINT8, onnx.TensorProto.UINT16,
             onnx.TensorProto.UINT32, onnx.TensorProto.UINT64}


def shape_inputs(model, inputs):
    """Graph inputs whose values determine a result's shape: those used
    directly as a shape operand (SHAPE_OPERANDS: Reshape's shape, ...), and
    integer graph inputs of rank <= 1 or float scalars from which a shape
    operand is computed (e.g. a window size -> Cast -> Range's limit, or
    Range's float start/limit/delta -> Loop's trip count), looking through
    every op except Shape and Size, which read only shapes."""
    names = {i.name for i in inputs}
    producer = {}
    for node in model.graph.node:
        for o in node.output:
            if o:
                producer[o] = node
    direct, computed = set(), set()
    stack = []
    for node in model.graph.node:
        if node.domain in ("", "ai.onnx"):
            for pos in rnt.SHAPE_OPERANDS.get(node.op_type, ()):
                if pos < len(node.input) and node.input[pos]:
                    name = node.input[pos]
                    if name in names:
                        direct.add(name)
                    else:
                        stack.append(name)
    seen = set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in names:
            computed.add(name)
            continue
        node = producer.get(name)
        if node is None or node.op_type in SHAPE_ONLY_OPS:
            continue
        stack.extend(i for i in node.input if i)
    small = set()
    for i in inputs:
        t = i.type.tensor_type if i.type.WhichOneof("value") == "tensor_type" else None
        if t is None or not t.HasField("shape"):
            continue
        rank = len(t.shape.dim)
        # Integer vectors and scalars (sizes, counts), and float scalars
        # (Range's start/limit/delta turned into a Loop trip count).
        if (t.elem_type in INT_TYPES and rank <= 1) or (
                t.elem_type in FLOAT_TYPES and rank == 0):
            small.add(i.name)
    return direct | (computed & small)


def discover(data_dir, folders, regex):
    tests = []
    for folder in folders:
        root = os.path.join(data_dir, folder)
        if not os.path.isdir(root):
            raise SystemExit("error: no test folder %s" % root)
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if not os.path.isfile(os.path.join(path, "model.onnx")):
                continue
            t = Test(folder, name, path)
            if regex and not re.search(regex, t.id):
                continue
            tests.append(t)
    return tests


def read_tensor(path):
    tp = onnx.TensorProto()
    with open(path, "rb") as fh:
        tp.ParseFromString(fh.read())
    return tp


def numbered(files, prefix):
    pat = re.compile(r"%s_(\d+)\.pb" % prefix)
    hits = [(int(m.group(1)), f) for f in files for m in [pat.fullmatch(f)] if m]
    return [f for _, f in sorted(hits)]


def first_error_line(output, work):
    """The compiler's/runner's first error line, without file paths."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    pick = next((l for l in lines if "error" in l.lower()), lines[0] if lines else "(no output)")
    pick = pick.replace(work, "WORK")
    # `error: /path/model.onnx: msg` -> `msg`
    pick = re.sub(r"^error:\s*\S*model\.onnx:\s*", "", pick)
    pick = re.sub(r"^error:\s*", "", pick)
    pick = re.sub(r"/\S*/(test_data_set_\d+/\S+)", r"\1", pick)
    return pick[:240]


UNSUPPORTED_RE = re.compile(r"unsupported op '([^']+)'(?: \(node '[^']*'\))?(?::\s*(.*))?")


def parse_unsupported(output):
    """{op: [details]} from tfrt-compile's `unsupported op 'X'` diagnostics."""
    found = collections.OrderedDict()
    for line in output.splitlines():
        for m in UNSUPPORTED_RE.finditer(line):
            details = found.setdefault(m.group(1), [])
            d = (m.group(2) or "").strip()
            if d and d not in details:
                details.append(d)
    return found


class Failure(Exception):
    def __init__(self, category, reason, detail="", unsupported=None):
        super().__init__(reason)
        self.category = category
        self.reason = reason
        self.detail = detail
        self.unsupported = unsupported or {}


def compile_model(test, args, model_path, work, shapes, deadline):
    cmd = [args.tfrt_compile, model_path, "--name", "m", "-o", work, "--emit=shared"]
    cmd += args.compile_args
    for name, dims in shapes:
        cmd += ["--input-shape", "%s=%s" % (name, "x".join(str(d) for d in dims))]
    rc, out = rnt.run_cmd(cmd, deadline)
    if rc is None:
        raise Failure("timeout", "timeout (%ds) in tfrt-compile" % args.timeout)
    if rc != 0:
        unsupported = collections.OrderedDict()
        for op, details in parse_unsupported(out).items():
            # The compiler names an op of another domain without it.
            qualified = [o for o in test.ops if o.endswith("::" + op)]
            if op not in test.ops and len(qualified) == 1:
                op = qualified[0]
            unsupported.setdefault(op, []).extend(details)
        # tfrt-compile may leave out ops that only consume an unsupported
        # op's results: add the model's ops that `--list-ops` lacks.
        for op in test.ops:
            if op not in args.supported and op not in unsupported:
                unsupported[op] = []
        line = first_error_line(out, work)
        if unsupported:
            raise Failure("op not supported", "", line, unsupported)
        if rc < 0:
            raise Failure("compile crash", "compile crash: tfrt-compile %s" %
                          rnt.describe_exit(rc), line)
        if "could not infer a static shape" in line:
            raise Failure("static shape not inferred", "static shape not inferred: " + line)
        raise Failure("compile error", "compile error: " + line)
    so = os.path.join(work, "m.so")
    if not os.path.isfile(so):
        raise Failure("compile error", "compile error: tfrt-compile wrote no m.so")
    return so


def run_set(test, args, so, data, in_files, out_files, frozen, work, deadline, k):
    out_dir = os.path.join(work, "out%d" % k)
    cmd = [args.tfrt_run, so]
    for i, f in enumerate(in_files):
        if test.inputs[i] not in frozen:
            cmd += ["--input", "%s=%s" % (test.inputs[i], os.path.join(data, f))]
    cmd += ["--output-dir", out_dir]
    rc, out = rnt.run_cmd(cmd, deadline)
    setname = os.path.basename(data)
    if rc is None:
        raise Failure("timeout", "timeout (%ds) in tfrt-run" % args.timeout)
    if rc != 0:
        line = first_error_line(out, work)
        if rc < 0:
            raise Failure("run crash", "run crash: tfrt-run %s (%s)" % (
                rnt.describe_exit(rc), setname), line)
        if "does not match the model's" in line:
            # The data set's input disagrees with the shape the model declares.
            raise Failure("test data", "test data: " + line)
        raise Failure("run error", "run error: %s" % line)
    rtol, atol = RTOL, ATOL
    if test.id in TOLERANCE_EXCEPTIONS:
        rtol, atol = TOLERANCE_EXCEPTIONS[test.id][:2]
    for i, f in enumerate(out_files):
        name = test.outputs[i]
        expected = numpy_helper.to_array(read_tensor(os.path.join(data, f)))
        got = os.path.join(out_dir, rnt.sanitize(name) + ".npy")
        if not os.path.isfile(got):
            raise Failure("run error", "run error: tfrt-run wrote no output '%s'" % name)
        actual = np.load(got, allow_pickle=False)
        where = "output %d '%s'" % (i, name) + (", %s" % setname if test.sets > 1 else "")
        check(expected, actual, test.output_types[i], rtol, atol, where)


def check(expected, actual, declared, rtol, atol, where):
    if (declared != onnx.TensorProto.BFLOAT16 and actual.shape == expected.shape
            and actual.dtype == expected.dtype and expected.dtype.kind in "fc"):
        why = rnt.compare_floats(expected, actual, rtol, atol)
    else:
        why = rnt.compare(expected, actual, declared)
    if not why:
        return
    if why.startswith("shape"):
        raise Failure("wrong output shape", "wrong output shape (%s: %s)" % (where, why))
    if why.startswith("dtype"):
        raise Failure("wrong output dtype", "wrong output dtype (%s: %s)" % (where, why))
    m = re.search(r"max abs diff (\S+)", why)
    if m:
        n = re.match(r"values differ: (\d+ of \d+) elements", why)
        raise Failure("numerical mismatch", "numerical mismatch (max abs diff %s, %s elements; %s)"
                      % (m.group(1), n.group(1) if n else "?", where))
    if why.startswith("NaN"):
        raise Failure("numerical mismatch", "numerical mismatch (%s; %s)" % (why, where))
    raise Failure("wrong values", "wrong values (%s; %s)" % (why.replace("values differ: ", ""), where))


def run_test(test, args, work_root):
    start = time.monotonic()
    deadline = start + args.timeout
    work = os.path.join(work_root, test.folder, test.name)
    test.status, test.category, test.reason, test.detail = None, "", "", ""
    test.unsupported_ops, test.specialised = [], []
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        _run_test(test, args, work, deadline)
        if args.stage_out:
            test.status = STAGED
        else:
            test.status = PASS_SPEC if test.specialised else PASS
    except Failure as f:
        test.status = FAIL
        classify(test, f)
    except Exception as exc:  # noqa: BLE001 - one test's error must not stop the run
        test.status = FAIL
        classify(test, Failure("runner error", "runner error: %s: %s" % (
            type(exc).__name__, str(exc).replace(work, "WORK")[:200])))
    finally:
        test.seconds = time.monotonic() - start
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _run_test(test, args, work, deadline):
    try:
        test.load()
    except Exception as exc:  # noqa: BLE001
        raise Failure("test data", "test data: cannot read model.onnx: %s" % exc)
    sets = sorted((d for d in os.listdir(test.path) if re.fullmatch(r"test_data_set_\d+", d)),
                  key=lambda d: int(d.rsplit("_", 1)[1]))
    if not sets:
        raise Failure("test data", "test data: no test_data_set_N")
    test.sets = len(sets)
    # Group the data sets by what is specialised at compile time: frozen
    # input values and fixed input dimensions. One compilation per group.
    groups = collections.OrderedDict()
    for k, s in enumerate(sets):
        data = os.path.join(test.path, s)
        files = os.listdir(data)
        in_files, out_files = numbered(files, "input"), numbered(files, "output")
        if len(in_files) != len(test.inputs):
            raise Failure("test data", "test data: %s has %d input files for %d graph inputs"
                          % (s, len(in_files), len(test.inputs)))
        if len(out_files) != len(test.outputs):
            raise Failure("test data", "test data: %s has %d output files for %d graph outputs"
                          % (s, len(out_files), len(test.outputs)))
        frozen, shapes, key = {}, [], []
        for i, f in enumerate(in_files):
            name = test.inputs[i]
            if args.specialise and name in test.shape_operands:
                tp = read_tensor(os.path.join(data, f))
                tp.name = name
                frozen[name] = tp
                key.append(tp.SerializeToString())
            elif args.specialise and name in test.symbolic:
                dims = tuple(read_tensor(os.path.join(data, f)).dims)
                shapes.append((name, dims))
                key.append(repr(dims).encode())
        groups.setdefault(b"\0".join(key), []).append((k, data, in_files, out_files, frozen, shapes))
    for g, members in enumerate(groups.values()):
        _, _, _, _, frozen, shapes = members[0]
        for name in frozen:
            note = "value of input '%s'" % name
            if note not in test.specialised:
                test.specialised.append(note)
        for name, dims in shapes:
            note = "dims of input '%s' (--input-shape)" % name
            if note not in test.specialised:
                test.specialised.append(note)
        gwork = os.path.join(work, "c%d" % g)
        os.makedirs(gwork)
        model_path = os.path.join(test.path, "model.onnx")
        if frozen:
            model_path = freeze(test, frozen, gwork)
        so = compile_model(test, args, model_path, gwork, shapes, deadline)
        if args.stage_out:
            stage_group(test, args, g, so, members)
            continue
        for k, data, in_files, out_files, frozen, _ in members:
            run_set(test, args, so, data, in_files, out_files, frozen, gwork, deadline, k)


# Two-stage runs (--stage-out / --stage-in): compile here, run elsewhere,
# e.g. `--compile-arg=--target=cuda` on a machine without a GPU, then the
# run stage on a GPU machine that has only python3 (numpy, onnx) and
# tfrt-run. The stage directory holds, per test, each compiled group's m.so
# and copies of the data sets' .pb files, and manifest.json.
def stage_group(test, args, g, so, members):
    rel = os.path.join(test.folder, test.name)
    dst = os.path.join(args.stage_out, rel)
    os.makedirs(os.path.join(dst, "c%d" % g), exist_ok=True)
    shutil.copy(so, os.path.join(dst, "c%d" % g, "m.so"))
    sets = []
    for k, data, in_files, out_files, frozen, _ in members:
        setname = os.path.basename(data)
        os.makedirs(os.path.join(dst, setname), exist_ok=True)
        for i, f in enumerate(in_files):
            if test.inputs[i] not in frozen:
                shutil.copy(os.path.join(data, f), os.path.join(dst, setname, f))
        for f in out_files:
            shutil.copy(os.path.join(data, f), os.path.join(dst, setname, f))
        sets.append({"k": k, "data": os.path.join(rel, setname), "in_files": in_files,
                     "out_files": out_files, "frozen": sorted(frozen)})
    test.staged.append({"so": os.path.join(rel, "c%d" % g, "m.so"), "sets": sets})


def write_stage_manifest(tests, args, meta):
    entries = []
    for t in tests:
        entries.append({
            "id": t.id, "status": t.status, "category": t.category, "reason": t.reason,
            "specialised": t.specialised, "inputs": t.inputs, "outputs": t.outputs,
            "output_types": t.output_types, "sets": t.sets, "groups": t.staged})
    with open(os.path.join(args.stage_out, "manifest.json"), "w") as fh:
        json.dump({"meta": meta, "tests": entries}, fh, indent=1)
        fh.write("\n")


def run_staged_test(entry, args, work_root):
    """Runs one staged test; returns (status, category, reason)."""
    if entry["status"] != STAGED:
        return FAIL, entry["category"], entry["reason"]
    test = Test(*entry["id"].split("/", 1), path="")
    test.inputs, test.outputs = entry["inputs"], entry["outputs"]
    test.output_types, test.sets = entry["output_types"], entry["sets"]
    work = os.path.join(work_root, entry["id"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    deadline = time.monotonic() + args.timeout
    try:
        for group in entry["groups"]:
            so = os.path.join(args.stage_in, group["so"])
            for s in group["sets"]:
                run_set(test, args, so, os.path.join(args.stage_in, s["data"]),
                        s["in_files"], s["out_files"], set(s["frozen"]), work,
                        deadline, s["k"])
    except Failure as f:
        return FAIL, f.category, f.reason
    except Exception as exc:  # noqa: BLE001 - one test's error must not stop the run
        return FAIL, "runner error", "runner error: %s: %s" % (type(exc).__name__, exc)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return (PASS_SPEC if entry["specialised"] else PASS), "", ""


def run_stage_in(args):
    path = os.path.join(args.stage_in, "manifest.json")
    try:
        with open(path) as fh:
            manifest = json.load(fh)
        if not isinstance(manifest, dict) or not {"meta", "tests"} <= set(manifest):
            raise ValueError("no 'meta' and 'tests'")
    except (OSError, ValueError) as exc:
        print("error: --stage-in %s: not a stage of --stage-out (%s: %s)" % (
            args.stage_in, os.path.basename(path), exc), file=sys.stderr)
        return 2
    entries = manifest["tests"]
    if args.filter:
        entries = [e for e in entries if re.search(args.filter, e["id"])]
    work_root = tempfile.mkdtemp(prefix="tfrt-conformance-stage.")
    print("Running %d staged tests (compiled with: %s) with %d jobs" % (
        len(entries), " ".join(manifest["meta"].get("compile_args", [])) or "defaults",
        args.jobs), flush=True)
    start = time.monotonic()
    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_staged_test, e, args, work_root): e for e in entries}
            for fut in concurrent.futures.as_completed(futures):
                e = futures[fut]
                results[e["id"]] = fut.result()
                status, _, reason = results[e["id"]]
                if status == FAIL:
                    print("FAIL    %s: %s" % (e["id"], reason), flush=True)
                elif not args.quiet:
                    print("PASS    %s" % e["id"], flush=True)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    ids = [e["id"] for e in entries]
    plain = sum(results[i][0] == PASS for i in ids)
    spec = sum(results[i][0] == PASS_SPEC for i in ids)
    cats = collections.Counter(results[i][1] for i in ids if results[i][0] == FAIL)
    print()
    print("Staged run: %d tests, %d passed (%d plain + %d specialised), %d failed, %.0f s" % (
        len(ids), plain + spec, plain, spec, len(ids) - plain - spec,
        time.monotonic() - start))
    for c, n in cats.most_common():
        print("  %4d %s" % (n, c))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"meta": manifest["meta"], "passed": plain + spec, "plain": plain,
                       "specialised": spec, "failed": len(ids) - plain - spec,
                       "failure_categories": dict(cats),
                       "tests": [{"id": i, "status": results[i][0], "category": results[i][1],
                                  "reason": results[i][2]} for i in ids]}, fh, indent=1)
            fh.write("\n")
    print("%d passed, %d failed" % (plain + spec, len(ids) - plain - spec))
    return 0


def freeze(test, frozen, work):
    model = onnx.load(os.path.join(test.path, "model.onnx"))
    keep = [i for i in model.graph.input if i.name not in frozen]
    del model.graph.input[:]
    model.graph.input.extend(keep)
    model.graph.initializer.extend(frozen[n] for n in test.inputs if n in frozen)
    if model.ir_version < 4:
        model.ir_version = 4   # before IR 4 every initializer is also an input
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    return path


def classify(test, f):
    """Sets test.category/reason/detail: the model's signature first (what no
    op support would fix), then the failure itself."""
    sig = test.signature or {}
    test.unsupported_ops = list(f.unsupported)
    unsupported_txt = ""
    if f.unsupported:
        ops = list(f.unsupported)
        unsupported_txt = ("op %s not supported" if len(ops) == 1
                           else "ops %s not supported") % ", ".join(ops)
        details = ["%s: %s" % (op, "; ".join(d)) if len(ops) > 1 else "; ".join(d)
                   for op, d in f.unsupported.items() if d]
        if details:
            unsupported_txt += " (%s)" % "; ".join(details)
    base = unsupported_txt or f.reason
    if f.detail and not f.unsupported:
        test.detail = f.detail
    if sig.get("sequence"):
        cat, reason = "sequence/optional types", "sequence/optional types (%s)" % ", ".join(sig["sequence"])
    elif sig.get("string"):
        cat, reason = "string tensors", "string tensors (%s)" % ", ".join(sig["string"])
    elif sig.get("training"):
        cat, reason = "training op", "training op (%s)" % ", ".join(sig["training"])
    elif sig.get("data_dependent"):
        cat, reason = "data-dependent output shape", "data-dependent output shape (%s)" % \
            ", ".join(sig["data_dependent"])
    elif f.unsupported:
        cat, reason = "op not supported", unsupported_txt
        random = sorted(op for op in f.unsupported if op in RANDOM_OPS)
        if random:
            reason += " (random: %s draws from a generator whose values the " \
                "reference data cannot share)" % ", ".join(random)
        test.category, test.reason = cat, reason
        return
    elif sig.get("dtypes") and f.category not in ("runner error", "test data", "timeout"):
        names = sorted({d for d, _ in sig["dtypes"]})
        cat = "dtype"
        reason = "dtype %s (%s)" % (", ".join(names), "; ".join(
            "%s '%s'" % (d, n) for d, n in sig["dtypes"]))
        test.category, test.reason = cat, reason
        test.detail = base if not test.detail else base + " | " + test.detail
        return
    else:
        test.category, test.reason = f.category, f.reason
        if test.id in REFERENCE_NOTES:
            test.reason += "; " + REFERENCE_NOTES[test.id]
        return
    test.category, test.reason = cat, reason
    test.detail = base if not test.detail else base + " | " + test.detail


def read_floor(path):
    floor = []
    if os.path.isfile(path):
        with open(path) as fh:
            for line in fh:
                line = line.split("#", 1)[0].strip()
                if line:
                    floor.append(line)
    return floor


FLOOR_HEADER = """\
# Conformance floor: ONNX backend tests (FOLDER/TEST of libonnx-testdata) that
# pass through tfrt-compile -> tfrt-run. ctest's e2e.conformance fails when one
# of them stops passing. New passes: scripts/conformance.sh --update-floor.
# Removing a line needs a reason in the commit message.
"""


def write_floor(path, ids):
    with open(path, "w") as fh:
        fh.write(FLOOR_HEADER)
        for i in sorted(set(ids)):
            fh.write(i + "\n")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                   help="libonnx-testdata's data directory (default: %(default)s)")
    p.add_argument("--folders", default=",".join(FOLDERS),
                   help="comma-separated test folders (default: %(default)s)")
    p.add_argument("--bin-dir", default=os.path.join(REPO_ROOT, "build", "bin"),
                   help="directory with tfrt-compile and tfrt-run (default: build/bin)")
    p.add_argument("--tfrt-compile")
    p.add_argument("--tfrt-run")
    p.add_argument("--work-dir", help="per-test work directories (default: a temporary one)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="tests run in parallel (default: nproc = %(default)s)")
    p.add_argument("--timeout", type=int, default=120,
                   help="seconds per test, compilations and runs together (default: 120)")
    p.add_argument("--filter", help="only tests whose FOLDER/TEST matches this regex")
    p.add_argument("--keep", action="store_true", help="keep the work directories")
    p.add_argument("--no-specialise", dest="specialise", action="store_false",
                   help="compile the models as they are: no frozen shape inputs, "
                   "no --input-shape for symbolic dimensions")
    p.add_argument("--json", help="write the machine-readable report here")
    p.add_argument("--markdown", help="write the human-readable report here")
    p.add_argument("--floor", help="passing-test list: exit 1 if one of them does not pass")
    p.add_argument("--update-floor", action="store_true",
                   help="add this run's new passes to the --floor file")
    p.add_argument("--compile-arg", dest="compile_args", action="append", default=[],
                   help="extra tfrt-compile argument (repeatable), e.g. "
                   "--compile-arg=--target=cuda")
    p.add_argument("--stage-out", help="compile only: put each test's m.so and data "
                   "into this directory with manifest.json, for a later --stage-in run")
    p.add_argument("--stage-in", help="run only: the tests of a --stage-out directory "
                   "(needs tfrt-run, numpy and onnx, no tfrt-compile)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no line per test, a progress line per 100 tests (the reports "
                   "and the summary still give every result)")
    args = p.parse_args(argv)
    args.tfrt_compile = args.tfrt_compile or os.path.join(args.bin_dir, "tfrt-compile")
    args.tfrt_run = args.tfrt_run or os.path.join(args.bin_dir, "tfrt-run")
    args.folders = [f for f in args.folders.split(",") if f]
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.update_floor and not args.floor:
        p.error("--update-floor needs --floor")
    if args.stage_out and args.stage_in:
        p.error("--stage-out and --stage-in exclude each other")
    if args.stage_out:
        args.stage_out = os.path.abspath(args.stage_out)
    return args


def tool_version(tool):
    try:
        r = subprocess.run([tool, "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=30, check=False)
        return r.stdout.decode("utf-8", "replace").strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "unknown"


def source_state():
    """`<commit>` of the repository, `+ local changes` when files outside the
    conformance outputs differ from it (the build may hold them)."""
    try:
        head = subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "--short", "HEAD"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=30, check=True).stdout.decode().strip()
        st = subprocess.run(["git", "-C", REPO_ROOT, "status", "--porcelain",
                             "--untracked-files=no"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            timeout=30, check=True).stdout.decode()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    mine = ("docs/conformance.", "test/integration/conformance/",
            "test/integration/onnx-node/", "scripts/conformance.sh",
            "scripts/test.sh", "test/CMakeLists.txt")
    dirty = [l[3:] for l in st.splitlines() if not l[3:].startswith(mine)]
    return head + (" + local changes" if dirty else "")


def main(argv):
    args = parse_args(argv)
    if args.stage_in:
        if not os.access(args.tfrt_run, os.X_OK):
            print("error: %s is not an executable (pass --tfrt-run)" % args.tfrt_run,
                  file=sys.stderr)
            return 2
        return run_stage_in(args)
    if not os.path.isdir(args.data_dir):
        print("SKIPPED: ONNX backend test data not found at %s (install libonnx-testdata: "
              "scripts/setup.sh)" % args.data_dir)
        return 77
    for tool in (args.tfrt_compile, args.tfrt_run):
        if not os.access(tool, os.X_OK):
            print("error: %s is not an executable (build first or pass --bin-dir)" % tool,
                  file=sys.stderr)
            return 2
    supported, _ = rnt.supported_ops(argparse.Namespace(
        ops_from_list=False, tfrt_compile=args.tfrt_compile))
    args.supported = supported
    tests = discover(args.data_dir, args.folders, args.filter)
    if not tests:
        print("error: no test selected", file=sys.stderr)
        return 2

    if args.work_dir:
        work_root = os.path.abspath(args.work_dir)
        os.makedirs(work_root, exist_ok=True)
        own = False
    else:
        work_root = tempfile.mkdtemp(prefix="tfrt-conformance.")
        own = True
    print("Running %d tests of %s with %d jobs, %ds timeout each" % (
        len(tests), ",".join(args.folders), args.jobs, args.timeout), flush=True)
    lock = threading.Lock()
    done = 0
    start = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_test, t, args, work_root): t for t in tests}
            for fut in concurrent.futures.as_completed(futures):
                t = futures[fut]
                fut.result()
                done += 1
                with lock:
                    if args.quiet:
                        if done % 100 == 0 or done == len(tests):
                            print("[%d/%d] %d passed so far" % (
                                done, len(tests), sum(x.status in (PASS, PASS_SPEC)
                                                      for x in tests)), flush=True)
                    elif t.status == PASS:
                        if not args.quiet:
                            print("PASS    %s (%.1fs)" % (t.id, t.seconds), flush=True)
                    elif t.status == STAGED:
                        if not args.quiet:
                            print("STAGED  %s (%.1fs)" % (t.id, t.seconds), flush=True)
                    elif t.status == PASS_SPEC:
                        if not args.quiet:
                            print("PASS*   %s (%.1fs; specialised: %s)" % (
                                t.id, t.seconds, ", ".join(t.specialised)), flush=True)
                    else:
                        print("FAIL    %s: %s" % (t.id, t.reason), flush=True)
        # A floor test that timed out may only have been starved by a busy
        # machine: it runs once more, alone, before it counts as a regression.
        floor_set = set(read_floor(args.floor)) if args.floor else set()
        for t in tests:
            if t.id in floor_set and t.status == FAIL and t.category == "timeout":
                print("RETRY   %s alone (floor test; %s)" % (t.id, t.reason), flush=True)
                run_test(t, args, work_root)
                print("%-7s %s%s" % ("PASS" if t.status != FAIL else "FAIL", t.id,
                                     ": " + t.reason if t.status == FAIL else ""), flush=True)
    except KeyboardInterrupt:
        with rnt._children_lock:
            for proc in list(rnt._children):
                rnt._kill_group(proc)
        raise
    finally:
        if own and not args.keep:
            shutil.rmtree(work_root, ignore_errors=True)
    wall = time.monotonic() - start
    cpu = sum(r.ru_utime + r.ru_stime for r in (   # this runner, tfrt-compile,
        resource.getrusage(resource.RUSAGE_SELF),    # the linker and tfrt-run
        resource.getrusage(resource.RUSAGE_CHILDREN)))

    if args.stage_out:
        staged = sum(t.status == STAGED for t in tests)
        write_stage_manifest(tests, args, {
            "generated": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"),
            "tfrt_compile_version": tool_version(args.tfrt_compile),
            "source": source_state(), "compile_args": args.compile_args,
            "folders": args.folders, "specialise": args.specialise,
            "rtol": RTOL, "atol": ATOL, "compile_wall_s": round(wall, 1)})
        print("\nStaged %d of %d tests in %s (%d did not compile); run them with "
              "--stage-in" % (staged, len(tests), args.stage_out, len(tests) - staged))
        return 0

    import conformance_report as report   # noqa: E402
    meta = {
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "tfrt_compile_version": tool_version(args.tfrt_compile),
        "source": source_state(),
        "supported_ops": sorted(supported),
        "jobs": args.jobs, "timeout_s": args.timeout, "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1), "load_avg_1min": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(), "rtol": RTOL, "atol": ATOL,
        "tolerance_exceptions": {k: {"rtol": v[0], "atol": v[1], "why": v[2]}
                                 for k, v in TOLERANCE_EXCEPTIONS.items()},
        "folders": args.folders, "specialise": args.specialise,
        "reference": {"name": ONNX_RUNTIME_REFERENCE[0], "passed": ONNX_RUNTIME_REFERENCE[1],
                      "total": ONNX_RUNTIME_REFERENCE[2]},
    }
    data = report.to_json(tests, meta)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(data, fh, indent=1, sort_keys=False)
            fh.write("\n")
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(report.to_markdown(data))

    print()
    print(report.summary_text(data))
    passed_ids = [t.id for t in tests if t.status in (PASS, PASS_SPEC)]
    rc = 0
    if args.floor:
        floor = read_floor(args.floor)
        by_id = {t.id: t for t in tests}
        considered = [i for i in floor if i in by_id]
        broken = [i for i in considered if by_id[i].status == FAIL]
        new = sorted(set(passed_ids) - set(floor))
        print()
        print("Floor %s: %d tests (%d in this run)" % (
            os.path.relpath(args.floor), len(floor), len(considered)))
        if new:
            print("New passes not on the floor (%d; scripts/conformance.sh --update-floor "
                  "adds them):" % len(new))
            for i in new:
                print("  NEW     %s" % i)
        if broken:
            print("REGRESSIONS: %d floor tests do not pass:" % len(broken))
            for i in broken:
                print("  REGRESSED %s: %s" % (i, by_id[i].reason))
            rc = 1
        else:
            print("Floor holds: every floor test in this run passes")
        if args.update_floor:
            write_floor(args.floor, list(floor) + new)
            print("Floor updated: %d tests added" % len(new))
    passed = len(passed_ids)
    print("%d passed, %d failed" % (passed, len(tests) - passed))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
