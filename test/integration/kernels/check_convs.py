#!/usr/bin/env python3
"""Single-convolution models against ONNX Runtime.

Builds one-node ONNX Conv models whose shapes select particular kernels of
tfrt-vectorize-conv (image stems: stride-2 3x3 convolutions with up to four
input channels, with and without parallel chunks, odd sizes, no top padding;
and a stem shape that keeps the phase split), runs each with ONNX Runtime
(onnxruntime-node, ../ppocr/ort_reference.js) and with tfrt-compile +
tfrt-run on the same random input, and compares: max abs diff <= 1e-4.

Prints one line per case and closes with 'N passed, N failed'; exit 0 when
all pass, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# name: (input channels, output channels, H, W, pads [top, left, bottom,
# right], stride)
CASES = {
    "stem_3to16_64x64": (3, 16, 64, 64, [1, 1, 1, 1], 2),
    "stem_3to16_320x320_chunks": (3, 16, 320, 320, [1, 1, 1, 1], 2),
    "stem_3to16_odd_129x127": (3, 16, 129, 127, [1, 1, 1, 1], 2),
    "stem_4to8_no_top_pad": (4, 8, 64, 64, [0, 1, 1, 1], 2),
    "stem_1to24_bottom_pad2": (1, 24, 40, 64, [1, 1, 2, 1], 2),
    "stem_3to16_phase_split_95": (3, 16, 66, 190, [1, 1, 1, 1], 2),
}


def make_model(path, c, m, h, w, pads, stride, rng):
    weight = numpy_helper.from_array(
        (rng.standard_normal((m, c, 3, 3)) * 0.3).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(m).astype(np.float32), "b")
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3],
                            strides=[stride, stride], pads=pads)
    oh = (h + pads[0] + pads[2] - 3) // stride + 1
    ow = (w + pads[1] + pads[3] - 3) // stride + 1
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, m, oh, ow])],
        [weight, bias])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (os.path.basename(cmd[0]),
                                                         p.returncode, p.stdout.strip()[-400:]))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default=None,
                    help="folder of tfrt-compile and tfrt-run (default: from PATH)")
    ap.add_argument("--ort-dir", default=os.path.join(REPO_ROOT, "third_party", "npm", "ort"))
    ap.add_argument("--node", default="node")
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)

    def tool(name):
        return os.path.join(args.bin_dir, name) if args.bin_dir else name

    rng = np.random.default_rng(7)
    passed = failed = 0
    for name, (c, m, h, w, pads, stride) in CASES.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        make_model(model, c, m, h, w, pads, stride, rng)
        x = rng.random((1, c, h, w), dtype=np.float32) * 2 - 1
        np.save(os.path.join(d, "x.npy"), x)
        try:
            run([args.node, os.path.join(HERE, "..", "ppocr", "ort_reference.js"),
                 "--ort-dir", args.ort_dir, "--model", model,
                 "--input", "x=" + os.path.join(d, "x.npy"), "--output-dir",
                 os.path.join(d, "ort")])
            run([tool("tfrt-compile"), model, "--emit=shared",
                 "--name", "conv", "--input-shape", "x=1x%dx%dx%d" % (c, h, w),
                 "-o", os.path.join(d, "conv.so")])
            for threads in (1, 2):
                out = os.path.join(d, "tfrt_t%d" % threads)
                run([tool("tfrt-run"), os.path.join(d, "conv.so"),
                     "--name", "conv", "--input", "x=" + os.path.join(d, "x.npy"),
                     "--threads=%d" % threads, "--output-dir", out])
                got = np.load(os.path.join(out, "y.npy"))
                want = np.load(os.path.join(d, "ort", "y.npy"))
                if got.shape != want.shape:
                    raise RuntimeError("shape %s, ONNX Runtime %s" % (got.shape, want.shape))
                diff = float(np.max(np.abs(got - want)))
                if not diff <= 1e-4:
                    raise RuntimeError("max abs diff %.3g at %d threads" % (diff, threads))
            print("PASS %s (max abs diff %.3g)" % (name, diff))
            passed += 1
        except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
            print("FAIL %s: %s" % (name, e))
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
