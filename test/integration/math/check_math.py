#!/usr/bin/env python3
"""Accuracy of the compiled transcendental functions against float64 math.

Compiles one ONNX model with every unary transcendental op tfrt-compile
lowers to polynomial approximations (tfrt-approximate-math) or to exp/log
compositions (Exp, Log, Tanh, Sigmoid, Erf, Softplus, Elu, Selu, Celu, Sin,
Cos, Tan, Atan, Asin, Acos, Sinh, Cosh, Asinh, Acosh, Atanh, Sqrt,
Reciprocal, Softsign), runs it with tfrt-run on inputs spread over each
op's domain (uniform in several ranges, plus special values: zeros,
subnormals, the largest floats, infinities, NaN), and compares every output
element with Python's float64 math on the same float32 input, rounded to
float32:

  |got - ref| <= max(1e-6 * |ref|, ulp(ref)) + flush(op)

where ulp(ref) is the spacing of float32 at the reference (a subnormal
result cannot carry six digits) and flush(op) an allowance for results
flushed to zero, 0 for every op now (Exp, Sigmoid and Softplus give
subnormal results down to x = -103.97). Special values must match exactly (the
same infinity, NaN where float64 math gives NaN), and so must zero
results, their sign included.

Prints one line per op (worst relative error, its input) and closes with
'N passed, N failed'; exit 0 when all pass, 1 otherwise.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
N = 1 << 16


def nan_safe(f):
    def g(v):
        try:
            return f(v)
        except (ValueError, OverflowError):
            return float("nan")
    return g


def exp64(v):
    try:
        return math.exp(v)
    except OverflowError:
        return float("inf")


def sigmoid(v):
    if v >= 0:
        return 1.0 / (1.0 + math.exp(-v))
    e = math.exp(v)
    return e / (1.0 + e)


def softplus(v):
    if v > 30:
        return v
    return math.log1p(math.exp(v))


def elu(v, a=1.0):
    return v if v > 0 else a * math.expm1(v)


def selu(v):
    a, g = 1.67326319217681884765625, 1.05070102214813232421875
    return g * (v if v > 0 else a * math.expm1(v))


def celu(v, a=1.0):
    return max(0.0, v) + min(0.0, a * math.expm1(v / a))


def log64(v):
    if math.isnan(v) or v < 0:
        return float("nan")
    if v == 0:
        return float("-inf")
    return math.log(v) if v != float("inf") else float("inf")


def sinh64(v):
    try:
        return math.sinh(v)
    except OverflowError:
        return math.copysign(float("inf"), v)


def cosh64(v):
    try:
        return math.cosh(v)
    except OverflowError:
        return float("inf")


SPECIAL = [0.0, -0.0, 1e-45, -1e-45, 1e-40, 1.1754944e-38, 3.4028235e38,
           -3.4028235e38, float("inf"), float("-inf"), float("nan")]

# op: (reference, input ranges [(lo, hi)], flush allowance, attributes,
#      special values at the start of the input: True for SPECIAL, or a list);
#      a range ("log", a, b) is +-10^u with u uniform in [a, b)
OPS = {
    "Exp": (exp64, [(-10, 10), (-87, 88), (-104, -87)], 0.0, {}, True),
    "Log": (log64, [(1e-3, 10), (1e-30, 1e30), (1e-45, 1e-38)], 0.0, {}, True),
    "Tanh": (math.tanh, [(-10, 10), (-0.1, 0.1), (-1e-3, 1e-3)], 0.0, {}, True),
    "Sigmoid": (sigmoid, [(-10, 10), (-100, 100), (-104, -87)], 0.0, {},
                True),
    "Erf": (nan_safe(math.erf), [(-4, 4), (-0.1, 0.1)], 0.0, {}, True),
    "Softplus": (softplus, [(-10, 10), (-80, 80), (-104, -87)], 0.0, {},
                 False),
    "Elu": (elu, [(-10, 10), (-1e-3, 1e-3)], 0.0, {}, False),
    "Selu": (selu, [(-10, 10)], 0.0, {}, False),
    "Celu": (celu, [(-10, 10)], 0.0, {}, False),
    "Sin": (nan_safe(math.sin), [(-10, 10), (-100, 100), (-5e7, 5e7),
                                 ("log", 7, 38.5)], 0.0, {}, True),
    "Cos": (nan_safe(math.cos), [(-10, 10), (-100, 100), (-5e7, 5e7),
                                 ("log", 7, 38.5)], 0.0, {}, True),
    "Tan": (math.tan, [(-1.5, 1.5)], 0.0, {}, False),
    "Atan": (math.atan, [(-10, 10), (-1e4, 1e4)], 0.0, {}, False),
    "Asin": (nan_safe(math.asin), [(-1, 1)], 0.0, {}, False),
    "Acos": (nan_safe(math.acos), [(-1, 1)], 0.0, {}, False),
    "Sinh": (sinh64, [(-10, 10), (-88, 88)], 0.0, {}, False),
    "Cosh": (cosh64, [(-10, 10), (-88, 88)], 0.0, {}, False),
    "Asinh": (math.asinh, [(-10, 10), (-1e4, 1e4)], 0.0, {}, False),
    "Acosh": (nan_safe(math.acosh), [(1, 10), (1, 1e4)], 0.0, {}, False),
    "Atanh": (nan_safe(math.atanh), [(-0.999, 0.999)], 0.0, {}, False),
    "Sqrt": (nan_safe(math.sqrt), [(0, 10), (0, 1e30)], 0.0, {}, True),
    "Reciprocal": (lambda v: 1.0 / v if v != 0 else math.copysign(float("inf"), v),
                   [(0.1, 10), (-10, -0.1)], 0.0, {}, False),
    "Softsign": (lambda v: v / (1.0 + abs(v)), [(-10, 10)], 0.0, {}, False),
}


def inputs_for(ranges, special, rng):
    per = N // len(ranges)
    def draw(r):
        if r[0] == "log":
            return rng.choice([-1.0, 1.0], per) * 10.0 ** rng.uniform(r[1], r[2], per)
        return rng.uniform(r[0], r[1], per)
    x = np.concatenate([draw(r) for r in ranges])
    x = np.resize(x, N).astype(np.float32)
    if special:
        values = SPECIAL if special is True else special
        x[: len(values)] = np.array(values, dtype=np.float32)
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin-dir", default=os.path.join(REPO_ROOT, "build", "bin"))
    p.add_argument("--work-dir", required=True)
    p.add_argument("--mcpu", default=None)
    args = p.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    rng = np.random.RandomState(3)
    nodes, graph_in, graph_out, feeds = [], [], [], {}
    for op, (_, ranges, _, attrs, special) in OPS.items():
        name = "x_" + op
        graph_in.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [N]))
        graph_out.append(helper.make_tensor_value_info("y_" + op, TensorProto.FLOAT, [N]))
        nodes.append(helper.make_node(op, [name], ["y_" + op], **attrs))
        feeds[name] = inputs_for(ranges, special, rng)
    model = helper.make_model(helper.make_graph(nodes, "math", graph_in, graph_out),
                              opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(args.work_dir, "math.onnx")
    onnx.save(model, path)
    obj = os.path.join(args.work_dir, "math.so")
    cmd = [os.path.join(args.bin_dir, "tfrt-compile"), path, "--name", "math",
           "--emit=shared", "-o", obj]
    if args.mcpu:
        cmd.append("--mcpu=" + args.mcpu)
    subprocess.run(cmd, check=True)
    run = [os.path.join(args.bin_dir, "tfrt-run"), obj, "--name", "math",
           "--output-dir", os.path.join(args.work_dir, "out")]
    for name, x in feeds.items():
        f = os.path.join(args.work_dir, name + ".npy")
        np.save(f, x)
        run += ["--input", "%s=%s" % (name, f)]
    subprocess.run(run, check=True, stdout=subprocess.DEVNULL)
    passed = failed = 0
    for op, (ref_fn, _, floor, _, _) in OPS.items():
        x = feeds["x_" + op]
        got = np.load(os.path.join(args.work_dir, "out", "y_%s.npy" % op))
        with np.errstate(all="ignore"):
            ref = np.array([ref_fn(float(v)) for v in x], dtype=np.float64)
        ref32 = ref.astype(np.float32).astype(np.float64)
        g = got.astype(np.float64)
        finite = np.isfinite(ref32)
        # Special results must match exactly, the sign of a zero included.
        exact_ok = np.where(np.isnan(ref32), np.isnan(g),
                            (g == ref32) & ((ref32 != 0) |
                                            (np.signbit(g) == np.signbit(ref32))))
        with np.errstate(invalid="ignore"):
            err = np.abs(g - ref)
        ulp = np.spacing(np.abs(ref32).astype(np.float32)).astype(np.float64)
        allowed = np.maximum(1e-6 * np.abs(ref), ulp) + floor
        ok = np.where(finite & (ref32 != 0), err <= allowed, exact_ok)
        rel = np.where(finite & (np.abs(ref) > 0), err / np.maximum(np.abs(ref), 1e-300), 0)
        worst = int(np.argmax(np.where(finite, err - allowed, -np.inf)))
        bad = int((~ok).sum())
        line = "%s %s (max rel %.2e; worst at x=%.9g: ref %.9g, got %.9g)" % (
            "PASS" if bad == 0 else "FAIL", op, float(rel.max()), x[worst],
            ref[worst], got[worst])
        if bad:
            first = int(np.argmax(~ok))
            line += " %d of %d wrong, first x=%.9g: ref %.9g, got %.9g" % (
                bad, N, x[first], ref[first], got[first])
            failed += 1
        else:
            passed += 1
        print(line)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
