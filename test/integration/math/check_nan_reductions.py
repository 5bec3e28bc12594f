#!/usr/bin/env python3
"""NaN in arg max/min and max/min reductions, against numpy.

ONNX leaves NaN to the implementations; its reference implementation is
numpy's: np.argmax / np.argmin return the first NaN along the axis (the
last with select_last_index, computed on the flipped axis), and
np.max / np.min return NaN. Compiles one ONNX model with ArgMax, ArgMin
(both select_last_index values, both axes) and ReduceMax, ReduceMin on a
[64, 37] input that holds NaN, infinities and repeated values, runs it with
tfrt-run and compares every output with numpy's. Prints one line per
output and closes with 'N passed, N failed'.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def reference(x, op, axis, last):
    if op in ("ReduceMax", "ReduceMin"):
        return (np.max if op == "ReduceMax" else np.min)(x, axis=axis)
    f = np.argmax if op == "ArgMax" else np.argmin
    if not last:
        return f(x, axis=axis)
    return x.shape[axis] - 1 - f(np.flip(x, axis=axis), axis=axis)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin-dir", default=os.path.join(REPO_ROOT, "build", "bin"))
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    rng = np.random.RandomState(11)
    x = rng.randint(-3, 4, size=(64, 37)).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf], np.float32)
    mask = rng.rand(*x.shape) < 0.08
    x[mask] = rng.choice(specials, mask.sum())
    x[5, :] = np.nan
    x[:, 7] = np.nan
    cases, nodes, outs = [], [], []
    for op in ("ArgMax", "ArgMin", "ReduceMax", "ReduceMin"):
        for axis in (0, 1):
            for last in ((0, 1) if op.startswith("Arg") else (0,)):
                name = "%s_axis%d%s" % (op, axis, "_last" if last else "")
                attrs = {"keepdims": 0}
                if op.startswith("Arg"):
                    attrs.update(axis=axis, select_last_index=last)
                    inputs = ["x"]
                    dtype = TensorProto.INT64
                else:
                    attrs.update(axes=[axis])
                    inputs = ["x"]
                    dtype = TensorProto.FLOAT
                nodes.append(helper.make_node(op, inputs, [name], **attrs))
                outs.append(helper.make_tensor_value_info(
                    name, dtype, [x.shape[1 - axis]]))
                cases.append((name, op, axis, last))
    graph = helper.make_graph(
        nodes, "nan", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                     list(x.shape))],
        outs)
    path = os.path.join(args.work_dir, "nan.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              path)
    obj = os.path.join(args.work_dir, "nan.so")
    subprocess.run([os.path.join(args.bin_dir, "tfrt-compile"), path, "--name",
                    "nan", "--emit=shared", "-o", obj], check=True)
    xin = os.path.join(args.work_dir, "x.npy")
    np.save(xin, x)
    out = os.path.join(args.work_dir, "out")
    subprocess.run([os.path.join(args.bin_dir, "tfrt-run"), obj, "--name", "nan",
                    "--input", "x=" + xin, "--output-dir", out], check=True,
                   stdout=subprocess.DEVNULL)
    passed = failed = 0
    for name, op, axis, last in cases:
        got = np.load(os.path.join(out, name + ".npy"))
        ref = reference(x, op, axis, last)
        ok = np.array_equal(got, ref, equal_nan=got.dtype.kind == "f")
        if ok:
            passed += 1
            print("PASS", name)
        else:
            failed += 1
            bad = np.where(~((got == ref) | (np.isnan(got) & np.isnan(ref))
                             if got.dtype.kind == "f" else got == ref))[0][:4]
            print("FAIL %s at %s: got %s, numpy %s" % (name, bad.tolist(),
                                                      got[bad].tolist(),
                                                      ref[bad].tolist()))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
