#!/usr/bin/env python3
"""Special values the ONNX specification leaves open, against references.

1. NaN in arg max/min and max/min reductions. ONNX's reference
   implementation is numpy's: np.argmax / np.argmin return the first NaN
   along the axis (the last with select_last_index, computed on the flipped
   axis), and np.max / np.min return NaN. ArgMax, ArgMin (both
   select_last_index values, both axes) and ReduceMax, ReduceMin on a
   [64, 37] input that holds NaN, infinities and repeated values, against
   numpy.
2. Integer Div and Mod on every pair of edge values (0, +-1, +-2, 7, the
   smallest and largest value) of int8, int32 and int64, against Python's
   integers: Div truncates toward zero, Mod takes the divisor's sign
   (fmod=0) or the dividend's (fmod=1), results wrap to the type. Where x86
   traps (a zero divisor; the smallest value over -1) tfrt-compile defines
   the result: x / 0 = 0 and x % 0 = 0 (numpy's values), and the smallest
   value / -1 is itself (the wrapping negation); the run must not crash.
   BitwiseAnd, BitwiseOr, BitwiseXor and BitwiseNot (opset 18) of int8,
   uint8, int32 and int64 edge values against numpy.

3. ReduceLogSumExp on rows of large, tiny and infinite values, against
   the float64 value m + log(sum(exp(x - m))): the result must be finite
   where that is (log(sum(exp(x))) overflows to inf once an element
   passes 88.7, and ONNX's reference implementation computes it so), +inf
   for a row holding +inf, -inf for a row of -inf, NaN with a NaN.

4. LayerNormalization, InstanceNormalization and
   MeanVarianceNormalization of inputs whose mean (1e4) is large against
   their spread (0.01), against the float64 normalization of the same
   float32 inputs, within 1e-5 (outputs of magnitude 1; ONNX Runtime is
   0.05 off here, the plain float32 formulas 0.15).

5. NaN in TopK and MaxPool. TopK orders NaN above every number and NaNs
   as equal, ties going to the lower index (numpy's sort order, and
   PyTorch's topk): largest=1 returns NaNs first, largest=0 last; TopK of
   k = 5 and 37 along both axes of the input of 1., both largest values,
   against a stable sort in Python. MaxPool (3x3, stride 1, padded, and
   2x2, stride 2) and GlobalMaxPool give NaN for every window that holds
   one, as np.max over the window. (ONNX Runtime 1.30 is no reference
   here: its TopK can drop numbers in favour of a NaN and its MaxPool
   returns NaN only where the NaN is the window's first element.)

6. NaN and infinities through the activation clamps, which tfrt-compile
   builds as a NaN-propagating maximum / minimum that may ignore the sign
   of zero: Relu, Clip(0, 6), HardSigmoid and HardSwish on their own and
   as the fused epilogue of a 1x1 convolution, on inputs holding NaN,
   +-inf and +-0, against numpy (np.maximum / np.minimum propagate NaN;
   the convolution in float64): NaN where numpy has NaN, the same
   infinities, and within 1e-5 elsewhere (a zero of either sign equal to
   zero).

Prints one line per output and closes with 'N passed, N failed'.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.numpy_helper
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


def wrap(v, dtype):
    info = np.iinfo(dtype)
    span = info.max - info.min + 1
    return (v - info.min) % span + info.min


def int_reference(op, fmod, x, y, dtype):
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        if b == 0:
            out.append(0)
        elif op == "Div":
            q = abs(a) // abs(b)
            out.append(wrap(q if (a >= 0) == (b > 0) else -q, dtype))
        elif fmod:
            r = abs(a) % abs(b)
            out.append(r if a >= 0 else -r)
        else:
            out.append(a % b)
    return np.array(out, dtype=dtype)


def run_model(args, name, graph, feeds, opset=17):
    path = os.path.join(args.work_dir, name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]),
              path)
    obj = os.path.join(args.work_dir, name + ".so")
    subprocess.run([os.path.join(args.bin_dir, "tfrt-compile"), path, "--name",
                    name, "--emit=shared", "-o", obj], check=True)
    out = os.path.join(args.work_dir, name + "-out")
    cmd = [os.path.join(args.bin_dir, "tfrt-run"), obj, "--name", name,
           "--output-dir", out]
    for k, v in feeds.items():
        f = os.path.join(args.work_dir, "%s-%s.npy" % (name, k))
        np.save(f, v)
        cmd += ["--input", "%s=%s" % (k, f)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def integer_cases(args):
    results = []
    for dtype, proto in ((np.int8, TensorProto.INT8), (np.int32, TensorProto.INT32),
                         (np.int64, TensorProto.INT64)):
        info = np.iinfo(dtype)
        edge = np.array([0, 1, -1, 2, -2, 7, -7, info.min, info.max,
                         info.min + 1, info.max - 1], dtype=dtype)
        x, y = np.repeat(edge, len(edge)), np.tile(edge, len(edge))
        cases = [("Div", 0), ("Mod", 0), ("Mod", 1)]
        nodes, outs = [], []
        for op, fmod in cases:
            name = "%s%s" % (op, "_fmod" if fmod else "")
            attrs = {"fmod": 1} if fmod else {}
            nodes.append(helper.make_node(op, ["x", "y"], [name], **attrs))
            outs.append(helper.make_tensor_value_info(name, proto, [len(x)]))
        ins = [helper.make_tensor_value_info(n, proto, [len(x)]) for n in ("x", "y")]
        tag = np.dtype(dtype).name
        out = run_model(args, "int_" + tag, helper.make_graph(nodes, "i", ins, outs),
                        {"x": x, "y": y})
        for op, fmod in cases:
            name = "%s%s" % (op, "_fmod" if fmod else "")
            got = np.load(os.path.join(out, name + ".npy"))
            ref = int_reference(op, fmod, x, y, dtype)
            bad = np.where(got != ref)[0][:4]
            results.append(("%s_%s" % (name, tag), len(bad) == 0,
                            [(int(x[i]), int(y[i]), int(got[i]), int(ref[i]))
                             for i in bad]))
    return results


def bitwise_cases(args):
    """BitwiseAnd, BitwiseOr, BitwiseXor and BitwiseNot (opset 18) on every
    pair of edge values, against numpy's &, |, ^ and ~."""
    results = []
    for dtype, proto in ((np.int8, TensorProto.INT8), (np.uint8, TensorProto.UINT8),
                         (np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)):
        info = np.iinfo(dtype)
        edge = np.array(sorted({0, 1, 2, 7, 0x55, info.max, info.max - 1, info.min,
                                info.min + 1} | ({-1, -2, -0x56} if info.min < 0 else set())),
                        dtype=dtype)
        x, y = np.repeat(edge, len(edge)), np.tile(edge, len(edge))
        ops = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
               "BitwiseXor": np.bitwise_xor}
        nodes = [helper.make_node(op, ["x", "y"], [op]) for op in ops]
        nodes.append(helper.make_node("BitwiseNot", ["x"], ["BitwiseNot"]))
        outs = [helper.make_tensor_value_info(op, proto, [len(x)])
                for op in list(ops) + ["BitwiseNot"]]
        ins = [helper.make_tensor_value_info(n, proto, [len(x)]) for n in ("x", "y")]
        tag = np.dtype(dtype).name
        out = run_model(args, "bits_" + tag, helper.make_graph(nodes, "b", ins, outs),
                        {"x": x, "y": y}, opset=18)
        for op in list(ops) + ["BitwiseNot"]:
            got = np.load(os.path.join(out, op + ".npy"))
            ref = ops[op](x, y) if op in ops else np.invert(x)
            bad = np.where(got != ref)[0][:4]
            results.append(("%s_%s" % (op, tag), len(bad) == 0 and got.dtype == dtype,
                            [(int(x[i]), int(y[i]), int(got[i]), int(ref[i]))
                             for i in bad]))
    return results


def logsumexp_case(args):
    rows = np.array([[1000, 1000, 999, 0], [-1000, -1000, -999, -1e30],
                     [1e30, 1e30, -1e30, 0], [-np.inf] * 4, [np.inf, 0, 1, 2],
                     [1e4 + 1e-3, 1e4 - 1e-3, 1e4 + 2e-3, 1e4 - 2e-3],
                     [1e-20, 2e-20, 3e-20, 4e-20], [np.nan, 1, 2, 3],
                     [88, 89, 90, -90]], np.float32)
    node = helper.make_node("ReduceLogSumExp", ["x"], ["y"], axes=[1],
                            keepdims=0)
    graph = helper.make_graph(
        [node], "lse", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                      list(rows.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(rows)])])
    out = run_model(args, "lse", graph, {"x": rows})
    got = np.load(os.path.join(out, "y.npy")).astype(np.float64)
    ref = []
    for row in rows.astype(np.float64):
        m = row.max()
        if np.isnan(m):
            ref.append(np.nan)
        elif np.isinf(m):
            ref.append(m)
        else:
            ref.append(m + np.log(np.exp(row - m).sum()))
    ref = np.array(ref)
    with np.errstate(invalid="ignore"):
        ok = (np.isnan(ref) & np.isnan(got)) | (got == ref) | (
            np.abs(got - ref) <= 1e-6 * np.abs(ref))
    bad = np.where(~ok)[0]
    return [("ReduceLogSumExp", len(bad) == 0,
             [(rows[i].tolist(), got[i], ref[i]) for i in bad])]


def normalization_cases(args):
    rng = np.random.RandomState(5)
    x = (rng.randn(2, 3, 7, 11) * 0.01 + 1e4).astype(np.float32)
    inits = [onnx.numpy_helper.from_array(np.ones(11, np.float32), "s11"),
             onnx.numpy_helper.from_array(np.ones(3, np.float32), "s3"),
             onnx.numpy_helper.from_array(np.zeros(3, np.float32), "b3")]
    nodes = [helper.make_node("LayerNormalization", ["x", "s11"], ["ln"],
                              axis=-1, epsilon=1e-5),
             helper.make_node("InstanceNormalization", ["x", "s3", "b3"],
                              ["inorm"], epsilon=1e-5),
             helper.make_node("MeanVarianceNormalization", ["x"], ["mvn"],
                              axes=[0, 2, 3])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(x.shape))
            for n in ("ln", "inorm", "mvn")]
    graph = helper.make_graph(
        nodes, "norms", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                       list(x.shape))],
        outs, initializer=inits)
    out = run_model(args, "norms", graph, {"x": x})
    xd = x.astype(np.float64)
    results = []
    for name, axes, eps in (("ln", (3,), 1e-5), ("inorm", (2, 3), 1e-5),
                            ("mvn", (0, 2, 3), None)):
        m = xd.mean(axis=axes, keepdims=True)
        v = xd.var(axis=axes, keepdims=True)
        ref = (xd - m) / (np.sqrt(v + eps) if eps else np.sqrt(v) + 1e-9)
        got = np.load(os.path.join(out, name + ".npy")).astype(np.float64)
        err = np.abs(got - ref).max()
        results.append(("%s_large_mean" % name, bool(err <= 1e-5),
                        ["max error %.3g" % err]))
    return results


def topk_reference(x, axis, k, largest):
    """Values and indices of the k first elements along `axis` in the order
    NaN > +inf > numbers > -inf (reversed for largest=0), ties by index."""
    xs = np.moveaxis(x, axis, -1)
    vals = np.empty(xs.shape[:-1] + (k,), x.dtype)
    idx = np.empty(xs.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*xs.shape[:-1]):
        row = xs[pos]

        def key(i):
            v = float(row[i])
            if np.isnan(v):
                return (0 if largest else 1, 0.0, i)
            return (1 if largest else 0, -v if largest else v, i)
        order = sorted(range(len(row)), key=key)[:k]
        vals[pos] = row[order]
        idx[pos] = order
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def maxpool_reference(x, k, s, pad):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * pad, w + 2 * pad), -np.inf, x.dtype)
    xp[:, :, pad:pad + h, pad:pad + w] = x
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    y = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = np.max(xp[:, :, i * s:i * s + k, j * s:j * s + k],
                                   axis=(2, 3))
    return y


def nan_order_cases(args, x):
    """TopK and MaxPool on inputs holding NaN, against the references
    above."""
    inits, nodes, outs, refs = [], [], [], {}
    for axis in (0, 1):
        for k in (5, x.shape[axis]):
            for largest in (1, 0):
                name = "TopK_axis%d_k%d_%s" % (axis, k,
                                                "largest" if largest else "smallest")
                inits.append(onnx.numpy_helper.from_array(
                    np.array([k], np.int64), name + "_k"))
                nodes.append(helper.make_node(
                    "TopK", ["x", name + "_k"], [name, name + "_i"], axis=axis,
                    largest=largest, sorted=1))
                shape = list(x.shape)
                shape[axis] = k
                outs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
                outs.append(helper.make_tensor_value_info(name + "_i", TensorProto.INT64,
                                                          shape))
                v, i = topk_reference(x, axis, k, largest)
                refs[name], refs[name + "_i"] = v, i
    graph = helper.make_graph(
        nodes, "topk", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                      list(x.shape))],
        outs, initializer=inits)
    out = run_model(args, "topk_nan", graph, {"x": x})
    img = x.reshape(1, 1, x.shape[0], x.shape[1])
    img = np.concatenate([img, np.flip(img, axis=2)], axis=1).copy()
    pools = {"MaxPool_3x3_s1_pad1": (3, 1, 1), "MaxPool_2x2_s2": (2, 2, 0)}
    nodes, outs = [], []
    for name, (k, s, pad) in pools.items():
        nodes.append(helper.make_node("MaxPool", ["x"], [name], kernel_shape=[k, k],
                                      strides=[s, s], pads=[pad] * 4))
        refs[name] = maxpool_reference(img, k, s, pad)
        outs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                  list(refs[name].shape)))
    nodes.append(helper.make_node("GlobalMaxPool", ["x"], ["GlobalMaxPool"]))
    refs["GlobalMaxPool"] = np.max(img, axis=(2, 3), keepdims=True)
    outs.append(helper.make_tensor_value_info("GlobalMaxPool", TensorProto.FLOAT,
                                              [1, 2, 1, 1]))
    graph = helper.make_graph(
        nodes, "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                      list(img.shape))], outs)
    out2 = run_model(args, "pool_nan", graph, {"x": img})
    results = []
    for name, ref in refs.items():
        got = np.load(os.path.join(out if name.startswith("TopK") else out2,
                                   name + ".npy"))
        same = (got == ref) | (np.isnan(got) & np.isnan(ref)) \
            if got.dtype.kind == "f" else got == ref
        ok = got.shape == ref.shape and got.dtype == ref.dtype and bool(same.all())
        bad = [] if got.shape != ref.shape else \
            [(tuple(int(j) for j in p), got[p].item(), ref[p].item())
             for p in list(zip(*np.where(~same)))[:4]]
        results.append((name, ok, bad or ["shape %s, expected %s" % (got.shape, ref.shape)]))
    return results


def clamp_cases(args, rng):
    """Activation clamps on NaN, infinities and signed zeros, alone and as a
    1x1 convolution's epilogue, against numpy."""
    c, m, h, w = 16, 32, 4, 64
    x = (rng.rand(1, c, h, w).astype(np.float32) - 0.5) * 16
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, 48, replace=False)
    flat[picks] = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -3.0],
                           np.float32)[np.arange(48) % 6]
    wt = (rng.rand(m, c, 1, 1).astype(np.float32) - 0.5)
    wt[np.abs(wt) < 0.05] = 0.25

    def relu(v):
        return np.maximum(v, np.float32(0))

    def clip(v):
        return np.minimum(np.maximum(v, np.float32(0)), np.float32(6))

    def hsig(v):
        return np.maximum(np.minimum(v * np.float32(0.2) + np.float32(0.5),
                                     np.float32(1)), np.float32(0))

    def hswish(v):
        return v * np.maximum(np.minimum(v / np.float32(6) + np.float32(0.5),
                                         np.float32(1)), np.float32(0))

    acts = {"Relu": (relu, {}), "Clip": (clip, {}),
            "HardSigmoid": (hsig, {"alpha": 0.2, "beta": 0.5}),
            "HardSwish": (hswish, {})}

    def conv(wi):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.einsum("mc,nchw->nmhw", wi[:, :, 0, 0].astype(np.float64),
                             x.astype(np.float64)).astype(np.float32)
    nodes, outs, refs = [], [], {}
    inits = [onnx.numpy_helper.from_array(np.array(0, np.float32), "lo"),
             onnx.numpy_helper.from_array(np.array(6, np.float32), "hi")]
    for i, (op, (f, attrs)) in enumerate(acts.items()):
        # Each activation reads a convolution of its own, with weights of
        # its own (an epilogue is fused into a convolution whose result has
        # one user).
        wi = wt * np.float32(1 + 0.5 * i)
        inits.append(onnx.numpy_helper.from_array(wi, "w_" + op))
        nodes.append(helper.make_node("Conv", ["x", "w_" + op], ["conv_" + op]))
        for src, ref_in, shape in (("x", x, [1, c, h, w]),
                                   ("conv_" + op, conv(wi), [1, m, h, w])):
            name = "%s_%s" % (op, "alone" if src == "x" else "conv_epilogue")
            ins = [src, "lo", "hi"] if op == "Clip" else [src]
            nodes.append(helper.make_node(op, ins, [name], **attrs))
            outs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
            with np.errstate(invalid="ignore", over="ignore"):
                refs[name] = f(ref_in)
            # The clamp must see NaN and both infinities.
            assert np.isnan(ref_in).any() and np.isposinf(ref_in).any() and \
                np.isneginf(ref_in).any(), name
    graph = helper.make_graph(
        nodes, "clamps", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                        [1, c, h, w])],
        outs, initializer=inits)
    out = run_model(args, "clamps", graph, {"x": x})
    results = []
    for name, ref in refs.items():
        got = np.load(os.path.join(out, name + ".npy"))
        finite = np.isfinite(ref)
        same = (np.isnan(got) & np.isnan(ref)) | \
            (np.isinf(ref) & (got == ref)) | \
            (finite & (np.abs(got - ref) <= 1e-5 * np.maximum(1, np.abs(ref))))
        bad = [(tuple(int(j) for j in q), got[q].item(), ref[q].item())
               for q in list(zip(*np.where(~same)))[:4]]
        results.append((name, got.shape == ref.shape and bool(same.all()),
                        bad or ["shape %s, expected %s" % (got.shape, ref.shape)]))
    return results


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
                    dtype = TensorProto.INT64
                else:
                    attrs.update(axes=[axis])
                    dtype = TensorProto.FLOAT
                nodes.append(helper.make_node(op, ["x"], [name], **attrs))
                outs.append(helper.make_tensor_value_info(
                    name, dtype, [x.shape[1 - axis]]))
                cases.append((name, op, axis, last))
    graph = helper.make_graph(
        nodes, "nan", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                     list(x.shape))],
        outs)
    out = run_model(args, "nan", graph, {"x": x})
    results = []
    for name, op, axis, last in cases:
        got = np.load(os.path.join(out, name + ".npy"))
        ref = reference(x, op, axis, last)
        ok = np.array_equal(got, ref, equal_nan=got.dtype.kind == "f")
        bad = np.where(~((got == ref) | (np.isnan(got) & np.isnan(ref))
                         if got.dtype.kind == "f" else got == ref))[0][:4]
        results.append((name, ok, [(int(i), got[i].item(), ref[i].item())
                                   for i in bad]))
    results += integer_cases(args)
    results += bitwise_cases(args)
    results += logsumexp_case(args)
    results += normalization_cases(args)
    results += nan_order_cases(args, x)
    results += clamp_cases(args, rng)
    passed = failed = 0
    for name, ok, bad in results:
        if ok:
            passed += 1
            print("PASS", name)
        else:
            failed += 1
            print("FAIL %s: %s" % (name, bad))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
