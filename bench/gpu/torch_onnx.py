#!/usr/bin/env python3
"""PyTorch (eager, CUDA) running an ONNX model node by node: the peer for
bench/gpu-check.sh's GPU timings.

onnx2torch is not installed on the GPU machines we are lent and nothing can be
fetched there, so this is a small interpreter of our own that maps each ONNX
node of the PP-OCR models onto torch / torch.nn.functional calls (cuDNN for
Conv). Weights are moved to the GPU once; shape arithmetic (Shape, Slice,
Concat of shapes) runs on small host tensors, as a PyTorch model would do
with Python ints. Exact f32 by default (TF32 off for matmul and cuDNN), like
our `--gpu-precision=f32`.

  python3 torch_onnx.py MODEL.onnx INPUT.raw D0xD1x... [--runs 50]
      [--check REF_0.raw ...] [--tf32]

Prints one JSON object: median/min ms of --runs timed runs (wall clock around
the run with torch.cuda.synchronize), and with --check the max abs diff of
each output against the given raw float32 references.
"""
import argparse
import json
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pads2d(p):
    # ONNX [top, left, bottom, right] -> symmetric padding when possible.
    if p[0] == p[2] and p[1] == p[3]:
        return (p[0], p[1]), None
    return (0, 0), (p[1], p[3], p[0], p[2])   # F.pad order: left, right, top, bottom


class Interpreter:
    def __init__(self, model_path, device):
        self.model = onnx.load(model_path)
        self.dev = device
        self.opset = max(o.version for o in self.model.opset_import
                         if o.domain in ("", "ai.onnx"))
        self.consts = {}
        for init in self.model.graph.initializer:
            self.consts[init.name] = self.tensor(numpy_helper.to_array(init))
        for node in self.model.graph.node:
            if node.op_type == "Constant":
                self.consts[node.output[0]] = self.tensor(
                    numpy_helper.to_array(node.attribute[0].t))
        self.nodes = [n for n in self.model.graph.node if n.op_type != "Constant"]
        self.inputs = [i.name for i in self.model.graph.input if i.name not in self.consts]
        self.outputs = [o.name for o in self.model.graph.output]

    def tensor(self, a):
        t = torch.from_numpy(np.array(a, copy=True))
        # Integer tensors are shape arithmetic: they stay on the host.
        return t.to(self.dev) if t.is_floating_point() else t

    def run(self, *xs):
        env = dict(self.consts)
        env.update(zip(self.inputs, xs))
        for node in self.nodes:
            args = [env[i] if i else None for i in node.input]
            outs = getattr(self, "op_" + node.op_type)(node, attrs(node), *args)
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            env.update(zip(node.output, outs))
        return [env[o] for o in self.outputs]

    # -- elementwise
    def op_Add(self, n, a, x, y): return x + y
    def op_Sub(self, n, a, x, y): return x - y
    def op_Mul(self, n, a, x, y): return x * y

    def op_Div(self, n, a, x, y):
        if not x.is_floating_point() and not y.is_floating_point():
            return torch.div(x, y, rounding_mode="trunc")
        return x / y

    def op_Pow(self, n, a, x, y):
        return torch.pow(x, y.to(x.device) if torch.is_tensor(y) else y)

    def op_Sqrt(self, n, a, x): return torch.sqrt(x)
    def op_Relu(self, n, a, x): return F.relu(x)
    def op_Sigmoid(self, n, a, x): return torch.sigmoid(x)

    def op_HardSigmoid(self, n, a, x):
        return torch.clamp(x * a.get("alpha", 0.2) + a.get("beta", 0.5), 0.0, 1.0)

    def op_Clip(self, n, a, x, lo=None, hi=None):
        lo = float(lo.item()) if lo is not None else a.get("min", None)
        hi = float(hi.item()) if hi is not None else a.get("max", None)
        return torch.clamp(x, lo, hi)

    def op_Cast(self, n, a, x):
        to = a["to"]
        if to == onnx.TensorProto.FLOAT:
            return x.float()
        if to == onnx.TensorProto.INT64:
            return x.long()
        if to == onnx.TensorProto.INT32:
            return x.int()
        raise NotImplementedError("Cast to %d" % to)

    # -- conv, norm, pooling
    def op_Conv(self, n, a, x, w, b=None):
        pad, explicit = pads2d(a.get("pads", [0, 0, 0, 0]))
        if explicit:
            x = F.pad(x, explicit)
        return F.conv2d(x, w, b, stride=tuple(a.get("strides", [1, 1])), padding=pad,
                        dilation=tuple(a.get("dilations", [1, 1])), groups=a.get("group", 1))

    def op_ConvTranspose(self, n, a, x, w, b=None):
        p = a.get("pads", [0, 0, 0, 0])
        if p[0] != p[2] or p[1] != p[3]:
            raise NotImplementedError("asymmetric ConvTranspose pads")
        return F.conv_transpose2d(x, w, b, stride=tuple(a.get("strides", [1, 1])),
                                  padding=(p[0], p[1]),
                                  output_padding=tuple(a.get("output_padding", [0, 0])),
                                  groups=a.get("group", 1),
                                  dilation=tuple(a.get("dilations", [1, 1])))

    def op_BatchNormalization(self, n, a, x, s, b, m, v):
        return F.batch_norm(x, m, v, s, b, False, 0.0, a.get("epsilon", 1e-5))

    def op_GlobalAveragePool(self, n, a, x):
        return x.mean(dim=(2, 3), keepdim=True)

    def op_AveragePool(self, n, a, x):
        pad, explicit = pads2d(a.get("pads", [0, 0, 0, 0]))
        if explicit:
            raise NotImplementedError("asymmetric AveragePool pads")
        return F.avg_pool2d(x, tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])),
                            pad, ceil_mode=bool(a.get("ceil_mode", 0)),
                            count_include_pad=bool(a.get("count_include_pad", 0)))

    def op_MaxPool(self, n, a, x):
        pad, explicit = pads2d(a.get("pads", [0, 0, 0, 0]))
        if explicit:
            raise NotImplementedError("asymmetric MaxPool pads")
        return F.max_pool2d(x, tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])),
                            pad, ceil_mode=bool(a.get("ceil_mode", 0)))

    def op_Resize(self, n, a, x, roi=None, scales=None, sizes=None):
        mode = a.get("mode", b"nearest")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if sizes is not None and sizes.numel():
            size = [int(s) for s in sizes.tolist()[2:]]
            kw = {"size": size}
        else:
            kw = {"scale_factor": [float(s) for s in scales.tolist()[2:]]}
        if mode == "nearest":
            return F.interpolate(x, mode="nearest", **kw)
        ctm = a.get("coordinate_transformation_mode", b"half_pixel")
        ctm = ctm.decode() if isinstance(ctm, bytes) else ctm
        return F.interpolate(x, mode="bilinear", align_corners=(ctm == "align_corners"), **kw)

    # -- matmul, softmax, reductions
    def op_MatMul(self, n, a, x, y): return torch.matmul(x, y)

    def op_Gemm(self, n, a, x, y, c=None):
        if a.get("transA", 0):
            x = x.t()
        if a.get("transB", 0):
            y = y.t()
        r = a.get("alpha", 1.0) * (x @ y)
        return r if c is None else r + a.get("beta", 1.0) * c

    def op_Softmax(self, n, a, x):
        axis = a.get("axis", -1 if self.opset >= 13 else 1)
        if self.opset < 13:
            shp = x.shape
            return torch.softmax(x.reshape(int(np.prod(shp[:axis])), -1), -1).reshape(shp)
        return torch.softmax(x, axis)

    def op_ReduceMean(self, n, a, x, axes=None):
        ax = a.get("axes", None) if axes is None else axes.tolist()
        ax = list(range(x.dim())) if ax is None else ax
        return x.mean(dim=tuple(ax), keepdim=bool(a.get("keepdims", 1)))

    # -- shapes
    def op_Shape(self, n, a, x): return torch.tensor(list(x.shape), dtype=torch.int64)

    def op_Reshape(self, n, a, x, shape):
        s = shape.tolist()
        s = [x.shape[i] if d == 0 else d for i, d in enumerate(s)]
        return x.reshape(s)

    def op_Flatten(self, n, a, x):
        axis = a.get("axis", 1)
        return x.reshape(int(np.prod(x.shape[:axis])), -1)

    def op_Transpose(self, n, a, x):
        return x.permute(*a.get("perm", list(range(x.dim()))[::-1]))

    def op_Squeeze(self, n, a, x, axes=None):
        ax = a.get("axes", None) if axes is None else axes.tolist()
        if ax is None:
            return x.squeeze()
        for d in sorted((d % x.dim() for d in ax), reverse=True):
            x = x.squeeze(d)
        return x

    def op_Unsqueeze(self, n, a, x, axes=None):
        ax = a.get("axes", None) if axes is None else axes.tolist()
        for d in sorted(d % (x.dim() + len(ax)) for d in ax):
            x = x.unsqueeze(d)
        return x

    def op_Concat(self, n, a, *xs):
        dev = xs[0].device
        return torch.cat([x.to(dev) for x in xs], a["axis"])

    def op_Slice(self, n, a, x, starts=None, ends=None, axes=None, steps=None):
        if starts is None:
            starts, ends, axes = a["starts"], a["ends"], a.get("axes")
        else:
            starts, ends = starts.tolist(), ends.tolist()
            axes = axes.tolist() if axes is not None else None
        steps = steps.tolist() if steps is not None else [1] * len(starts)
        axes = axes if axes is not None else list(range(len(starts)))
        idx = [slice(None)] * x.dim()
        for s, e, ax, st in zip(starts, ends, axes, steps):
            dim = x.shape[ax]
            s = max(0, min(dim, s + dim if s < 0 else s))
            e = max(0, min(dim, e + dim if e < 0 else e))
            idx[ax] = slice(s, e, st)
        return x[tuple(idx)]

    def op_Gather(self, n, a, x, i):
        axis = a.get("axis", 0)
        r = torch.index_select(x, axis, i.reshape(-1).to(x.device))
        return r.reshape(list(x.shape[:axis]) + list(i.shape) + list(x.shape[axis + 1:]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("input")
    p.add_argument("shape")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--check", nargs="*", default=[])
    p.add_argument("--tf32", action="store_true", help="allow TF32 (default: exact f32)")
    p.add_argument("--kernel-time", action="store_true",
                   help="also the GPU time of the kernels and copies per run "
                   "(torch.profiler over 10 runs), free of Python overhead")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.allow_tf32 = a.tf32
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    m = Interpreter(a.model, dev)
    shape = [int(d) for d in a.shape.split("x")]
    x = torch.from_numpy(np.fromfile(a.input, dtype=np.float32).reshape(shape)).to(dev)
    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
              "tf32": a.tf32}
    with torch.no_grad():
        for _ in range(5):
            ys = m.run(x)
        torch.cuda.synchronize()
        ts = []
        for _ in range(a.runs):
            t = time.perf_counter()
            ys = m.run(x)
            torch.cuda.synchronize()
            ts.append((time.perf_counter() - t) * 1e3)
        # CUDA graph replay is not possible here (host-side shape arithmetic).
        ts.sort()
        result.update(median_ms=round(ts[len(ts) // 2], 4), min_ms=round(ts[0], 4),
                      runs=a.runs)
        if a.kernel_time:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    m.run(x)
                torch.cuda.synchronize()
            us = 0.0
            for e in prof.key_averages():
                us += getattr(e, "self_device_time_total",
                              getattr(e, "self_cuda_time_total", 0.0))
            result["device_kernels_ms_per_run"] = round(us / 10 / 1e3, 4)
    diffs = []
    for k, ref in enumerate(a.check):
        y = ys[k].float().cpu().numpy().reshape(-1)
        r = np.fromfile(ref, dtype=np.float32)
        diffs.append(float(np.max(np.abs(y - r))) if y.size == r.size else "size mismatch")
    if diffs:
        result["max_abs_diff_vs_ort"] = diffs
    print(json.dumps(result))


if __name__ == "__main__":
    main()
