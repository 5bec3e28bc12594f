#!/usr/bin/env python3
"""Small models that select particular kernels, against ONNX Runtime.

Builds one-node ONNX Conv models whose shapes select particular kernels of
tfrt-vectorize-conv (image stems: stride-2 3x3 convolutions with up to four
input channels, with and without parallel chunks, odd sizes, no top padding;
a stem shape that keeps the phase split; stride-1 3x3 convolutions whose
input channels go in blocks) and of tfrt-winograd-conv (F(2x2, 3x3), and
F(4x4, 3x3) with --winograd-tile=4 against a tolerance relative to the
largest output), and nearest
upsamplings fused
into an elementwise consumer (integer factors 2, 2x3 and 8, which read their
input at `o floordiv f` and go through tfrt-split-repeated-dims, and a
1.5x2 one that keeps the index tables), and MatMuls that select particular
paths of tfrt-vectorize-matmul and tfrt-async-tile-loops (see MATMULS),
depthwise convs that tfrt-vectorize-depthwise computes from their unpadded
input (see DEPTHWISE), and
1x1 convs and MatMuls whose elementwise consumer tfrt-vectorize-matmul
applies to the register tiles (see EPILOGUES), and activations and other
ops decomposed at import, many of newer opsets (see ACTIVATIONS,
newer_op_cases).
Runs each with ONNX Runtime
(onnxruntime-node, ../ppocr/ort_reference.js) and with tfrt-compile +
tfrt-run at 1 and 2 threads on the same random inputs, and compares: max
abs diff <= 1e-4 (F(4x4, 3x3): 1e-4 times the largest output).

Prints one line per case and closes with 'N passed, N failed'; exit 0 when
all pass, 1 otherwise. `--only REGEX` runs the matching cases (the others
are counted as skipped, neither passed nor failed).
"""

import argparse
import os
import re
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
    # Stride-1 3x3 convs whose input channels go in blocks
    # (tfrt-vectorize-conv channel-block): on the rows-outer input (160
    # columns), over flat rows in parallel chunks (40 columns: tail tiles
    # after the blocks), and 72 channels in blocks of 12.
    "conv3x3_96to24_160x160_rows_outer_blocks": (96, 24, 160, 160, [1, 1, 1, 1], 1),
    "conv3x3_96to24_40x40_flat_blocks": (96, 24, 40, 40, [1, 1, 1, 1], 1),
    "conv3x3_72to16_20x20_flat_blocks_of_12": (72, 16, 20, 20, [1, 1, 1, 1], 1),
    # Winograd F(2x2, 3x3) (tfrt-winograd-conv, AVX-512 targets; the 160x160
    # case above is one too): 40 tiles per row, the last block of 16 masked
    # at the row's end; 32 tiles per row on 36 rows (9 blocks, 3 chunks).
    "winograd_96to24_80x80_masked_tail": (96, 24, 80, 80, [1, 1, 1, 1], 1),
    "winograd_32to8_36x64_chunks": (32, 8, 36, 64, [1, 1, 1, 1], 1),
}


# name: (input channels, output channels, H, W): stride-1 3x3 convs (as in
# CASES) compiled with `tfrt-compile --winograd-tile=4`, Winograd F(4x4,
# 3x3), whose rounding errors grow with the outputs: compared against
# 1e-4 times the largest output (at least 1e-4). 160 columns: 40 tiles per
# row, a masked last block; 80x80 falls back to F(2x2, 3x3).
WINOGRAD_F4 = {
    "winograd_f4_96to24_160x160": (96, 24, 160, 160),
    "winograd_f4_fallback_96to24_80x80": (96, 24, 80, 80),
}


# name: (input shape, scales [1, 1, sh, sw]); the model is
# y = x2 + Resize(x) * 0.5 with x2 of the resized shape (nearest,
# asymmetric, floor), so the resize fuses into its elementwise consumer.
RESIZES = {
    "upsample_2x_add": ([1, 8, 20, 20], [1.0, 1.0, 2.0, 2.0]),
    "upsample_2x3_add": ([1, 5, 7, 9], [1.0, 1.0, 2.0, 3.0]),
    "upsample_8x_add": ([1, 3, 5, 4], [1.0, 1.0, 8.0, 8.0]),
    "upsample_1p5_tables": ([1, 2, 6, 6], [1.0, 1.0, 1.5, 2.0]),
}


# name: (left shape, right shape, right operand a constant initializer);
# the model is y = MatMul(x, w). Batch-1 fully connected layers (one row:
# the loop lowering), a classifier whose constant rows are not whole cache
# lines (packed at compile time, chunks along N, a last column of its own)
# and a product whose right operand is a run-time input larger than 1 MiB
# (chunks of at least 128 rows).
# Depthwise convs whose padded input tfrt-vectorize-depthwise reads unpadded
# (`unpadded`): name -> (channels, H, W, kernel, pads [top, left, bottom,
# right], stride, dilation). Taps above and below the input in the first
# and last output rows (skipped, up to two rows at each edge), vectors
# that start left of it (zeros shifted in) and past its right end (masked),
# a kernel taller than the input, and a row of two vector groups with left
# padding (the first at constant columns, the second in the loop).
DEPTHWISE = {
    "dw5x5_pad2_24_13x11": (24, 13, 11, 5, [2, 2, 2, 2], 1, 1),
    "dw3x3_s2_pad_top_left_16_20x36": (16, 20, 36, 3, [1, 1, 0, 0], 2, 1),
    "dw3x3_dil2_pad2_32_18x40": (32, 18, 40, 3, [2, 2, 2, 2], 1, 2),
    "dw3x3_pad1_8_2x40": (8, 2, 40, 3, [1, 1, 1, 1], 1, 1),
    "dw3x3_s2_pad1_groups_16_12x200": (16, 12, 200, 3, [1, 1, 1, 1], 2, 1),
    "dw3x3_s2_pad1_48_160x160": (48, 160, 160, 3, [1, 1, 1, 1], 2, 1),
}

MATMULS = {
    "matmul_1x480x128_fc": ([1, 480], [480, 128], True),
    "matmul_1x128x128_fc": ([1, 128], [128, 128], True),
    "matmul_40x120x6625_classifier": ([40, 120], [120, 6625], True),
    "matmul_256x512x1024_input_rhs": ([256, 512], [512, 1024], False),
}


# name: model builder (graph nodes, inputs, initializers) for 1x1 convs and
# MatMuls followed by elementwise ops that tfrt-async-tile-loops splits
# along with them and tfrt-vectorize-matmul applies to the register tiles:
# outputs 32-column aligned (tiles addressed as image rows), not aligned
# with a contiguous destination (viewed as [M, H*W]), written into the
# padded input of a depthwise conv (tiles that cross a row end written in
# pieces: W = 80 and 40),
# a residual input of the output's shape, per-channel constants, a
# transcendental (Sigmoid), a MatMul scaled per row by a run-time input, and
# depthwise convs (tfrt-vectorize-depthwise) with an activation, per-channel
# and scalar constants, a stride of 2, a residual input and a tail vector,
# and two ConvTransposes (kernel = stride 2) with a bias, BatchNorm-like
# per-channel constants and ReLU (read through the collapse of the 6-D
# result) and a sigmoid.
def epilogue_cases(rng):
    def t(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    def const(name, shape, scale=0.3):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)

    def conv(x, w, b, y):
        return helper.make_node("Conv", [x, w, b] if b else [x, w], [y],
                                kernel_shape=[1, 1])

    def dw_pad(x, w, y, groups):
        """A 3x3 depthwise conv with one pixel of zero padding, no bias."""
        return helper.make_node("Conv", [x, w], [y], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1], group=groups)

    cases = {}
    cases["pw_affine_hswish_16to32_320x320"] = (
        [conv("x", "w", "b", "c"),
         helper.make_node("Mul", ["c", "s"], ["cs"]),
         helper.make_node("Add", ["cs", "t"], ["ct"]),
         helper.make_node("HardSwish", ["ct"], ["h"]),
         helper.make_node("Mul", ["h", "k"], ["y"])],
        {"x": [1, 16, 320, 320]}, [1, 32, 320, 320],
        [const("w", [32, 16, 1, 1]), const("b", [32]),
         const("s", [1, 32, 1, 1]), const("t", [1, 32, 1, 1]),
         numpy_helper.from_array(np.array(0.75, dtype=np.float32), "k")])
    cases["pw_residual_relu_32to64_40x40"] = (
        [conv("x", "w", "b", "c"),
         helper.make_node("Add", ["c", "x2"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])],
        {"x": [1, 32, 40, 40], "x2": [1, 64, 40, 40]}, [1, 64, 40, 40],
        [const("w", [64, 32, 1, 1]), const("b", [64])])
    cases["pw_swish_24to48_20x20"] = (
        [conv("x", "w", None, "c"),
         helper.make_node("Sigmoid", ["c"], ["g"]),
         helper.make_node("Mul", ["c", "g"], ["y"])],
        {"x": [1, 24, 20, 20]}, [1, 48, 20, 20], [const("w", [48, 24, 1, 1])])
    cases["pw_hswish_then_dw_pad_48to96_80x80"] = (
        [conv("x", "w", "b", "c"),
         helper.make_node("HardSwish", ["c"], ["h"]),
         dw_pad("h", "dw", "y", 96)],
        {"x": [1, 48, 80, 80]}, [1, 96, 80, 80],
        [const("w", [96, 48, 1, 1]), const("b", [96]),
         const("dw", [96, 1, 3, 3])])
    cases["dw_hswish_affine_48_160x160"] = (
        [helper.make_node("Conv", ["x", "dw", "b"], ["c"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], group=48),
         helper.make_node("HardSwish", ["c"], ["h"]),
         helper.make_node("Mul", ["h", "s"], ["hs"]),
         helper.make_node("Add", ["hs", "t"], ["y"])],
        {"x": [1, 48, 160, 160]}, [1, 48, 160, 160],
        [const("dw", [48, 1, 3, 3]), const("b", [48]),
         const("s", [1, 48, 1, 1]),
         numpy_helper.from_array(np.array(0.25, dtype=np.float32), "t")])
    def dw_s2_residual_relu(ch, k, h, w):
        """A k x k stride-2 depthwise conv with bias and `same` padding, a
        residual input added, then a ReLU."""
        out = [1, ch, (h - 1) // 2 + 1, (w - 1) // 2 + 1]
        return (
            [helper.make_node("Conv", ["x", "dw", "b"], ["c"],
                              kernel_shape=[k, k], pads=[k // 2] * 4,
                              strides=[2, 2], group=ch),
             helper.make_node("Add", ["c", "x2"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])],
            {"x": [1, ch, h, w], "x2": out}, out,
            [const("dw", [ch, 1, k, k]), const("b", [ch])])

    cases["dw_s2_relu_residual_32_41x37"] = dw_s2_residual_relu(32, 3, 41, 37)
    # 5x5 kernels take their epilogue per channel plane, after its rows.
    cases["dw5x5_hswish_192_40x40"] = (
        [helper.make_node("Conv", ["x", "dw", "b"], ["c"], kernel_shape=[5, 5],
                          pads=[2, 2, 2, 2], group=192),
         helper.make_node("HardSwish", ["c"], ["y"])],
        {"x": [1, 192, 40, 40]}, [1, 192, 40, 40],
        [const("dw", [192, 1, 5, 5]), const("b", [192])])
    cases["dw5x5_s2_residual_relu_24_37x29"] = dw_s2_residual_relu(24, 5, 37, 29)
    cases["pw_relu_then_dw_pad_64to64_40x40"] = (
        [conv("x", "w", "b", "c"),
         helper.make_node("Relu", ["c"], ["h"]),
         dw_pad("h", "dw", "y", 64)],
        {"x": [1, 64, 40, 40]}, [1, 64, 40, 40],
        [const("w", [64, 64, 1, 1]), const("b", [64]),
         const("dw", [64, 1, 3, 3])])
    # tfrt-fuse-conv-bands: a depthwise conv with hard-swish read only by a
    # 1x1 conv 16 -> 16 whose epilogue adds the model's input (sliced at
    # each band's rows) and scales per channel; 16 x 128 x 128 floats of
    # depthwise output (1 MiB, the pass's threshold), 2 chunks x 16 bands.
    cases["dw_hswish_then_pw_residual_scale_16_128x128"] = (
        [helper.make_node("Conv", ["x", "dw", "db"], ["d"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], group=16),
         helper.make_node("HardSwish", ["d"], ["h"]),
         conv("h", "w", "b", "c"),
         helper.make_node("Add", ["c", "x"], ["a"]),
         helper.make_node("Mul", ["a", "s"], ["y"])],
        {"x": [1, 16, 128, 128]}, [1, 16, 128, 128],
        [const("dw", [16, 1, 3, 3]), const("db", [16]),
         const("w", [16, 16, 1, 1]), const("b", [16]),
         const("s", [1, 16, 1, 1])])
    # The same with ReLUs, 24 -> 40 channels on 42 x 300: bands of 3 rows
    # (the largest divisor of 42 up to 4), 14 bands in 2 chunks, rows of
    # 18.75 16-lane vectors.
    cases["dw_relu_then_pw_24to40_42x300"] = (
        [helper.make_node("Conv", ["x", "dw", "db"], ["d"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], group=24),
         helper.make_node("Relu", ["d"], ["h"]),
         conv("h", "w", None, "c"),
         helper.make_node("Relu", ["c"], ["y"])],
        {"x": [1, 24, 42, 300]}, [1, 40, 42, 300],
        [const("dw", [24, 1, 3, 3]), const("db", [24]),
         const("w", [40, 24, 1, 1])])
    # Image stems (tfrt-vectorize-conv's kernel on the unpadded input) with
    # their elementwise consumer applied to the register tiles: bias,
    # HardSwish and a per-channel scale, split into chunks of output rows
    # with the consumer; no bias, a residual of the output's shape and a
    # ReLU in one piece; no bias, ReLU, odd input sizes.
    def stem(x, w, b, y):
        return helper.make_node("Conv", [x, w, b] if b else [x, w], [y],
                                kernel_shape=[3, 3], strides=[2, 2],
                                pads=[1, 1, 1, 1])

    cases["stem_bias_hswish_scale_3to16_320x320"] = (
        [stem("x", "w", "b", "c"),
         helper.make_node("HardSwish", ["c"], ["h"]),
         helper.make_node("Mul", ["h", "s"], ["y"])],
        {"x": [1, 3, 320, 320]}, [1, 16, 160, 160],
        [const("w", [16, 3, 3, 3]), const("b", [16]),
         const("s", [1, 16, 1, 1])])
    # MobileNetV3's pattern: the stem's HardSwish written straight into the
    # padded input of the depthwise conv after it (tfrt-pad-in-place).
    cases["stem_hswish_then_dw_pad_3to16_256x256"] = (
        [stem("x", "w", "b", "c"),
         helper.make_node("HardSwish", ["c"], ["h"]),
         dw_pad("h", "dw", "y", 16)],
        {"x": [1, 3, 256, 256]}, [1, 16, 128, 128],
        [const("w", [16, 3, 3, 3]), const("b", [16]),
         const("dw", [16, 1, 3, 3])])
    cases["stem_residual_relu_3to8_64x64"] = (
        [stem("x", "w", None, "c"),
         helper.make_node("Add", ["c", "x2"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])],
        {"x": [1, 3, 64, 64], "x2": [1, 8, 32, 32]}, [1, 8, 32, 32],
        [const("w", [8, 3, 3, 3])])
    cases["stem_relu_4to24_129x127"] = (
        [stem("x", "w", None, "c"), helper.make_node("Relu", ["c"], ["y"])],
        {"x": [1, 4, 129, 127]}, [1, 24, 65, 64],
        [const("w", [24, 4, 3, 3])])
    # Chains that take a stride-2 depthwise conv along (tfrt-fuse-conv-bands
    # tails): the 1x1 conv's HardSwish written into a zero-bordered band
    # that the second depthwise conv reads; bands of 4 rows of its 64
    # output rows in 4 chunks, the first band's rows under a zero row.
    # Then 124 x 136 with the model's input added before the ReLU (sliced
    # at each band's 5 rows of the 1x1 conv): 62 output rows in bands of
    # 2, one chunk, 68 columns.
    def band_with_tail(cin, cout, h, w, act):
        """3x3 depthwise + HardSwish, 1x1 + HardSwish, then a 3x3 stride-2
        depthwise conv and `act`."""
        return (
            [helper.make_node("Conv", ["x", "dw", "db"], ["d"],
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              group=cin),
             helper.make_node("HardSwish", ["d"], ["h"]),
             conv("h", "w", "b", "c"),
             helper.make_node("HardSwish", ["c"], ["h2"]),
             helper.make_node("Conv", ["h2", "dw2", "db2"], ["d2"],
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              strides=[2, 2], group=cout),
             helper.make_node(act, ["d2"], ["y"])],
            {"x": [1, cin, h, w]}, [1, cout, h // 2, w // 2],
            [const("dw", [cin, 1, 3, 3]), const("db", [cin]),
             const("w", [cout, cin, 1, 1]), const("b", [cout]),
             const("dw2", [cout, 1, 3, 3]), const("db2", [cout])])

    cases["dw_hswish_pw_hswish_then_dw_s2_relu_16to24_128x128"] = (
        band_with_tail(16, 24, 128, 128, "Relu"))
    # det's first band at a third of its width: the stride-2 conv's rows
    # of 80 columns run in groups of five vectors, one row per step.
    cases["dw_hswish_pw_hswish_then_dw_s2_hswish_16to32_128x160"] = (
        band_with_tail(16, 32, 128, 160, "HardSwish"))
    cases["dw_pw_residual_relu_then_dw_s2_16to16_124x136"] = (
        [helper.make_node("Conv", ["x", "dw"], ["d"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], group=16),
         conv("d", "w", "b", "c"),
         helper.make_node("Add", ["c", "x"], ["a"]),
         helper.make_node("Relu", ["a"], ["r"]),
         helper.make_node("Conv", ["r", "dw2"], ["y"], kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], strides=[2, 2], group=16)],
        {"x": [1, 16, 124, 136]}, [1, 16, 62, 68],
        [const("dw", [16, 1, 3, 3]), const("w", [16, 16, 1, 1]),
         const("b", [16]), const("dw2", [16, 1, 3, 3])])
    def convtranspose_head(cin, h, w):
        return (
            [helper.make_node("ConvTranspose", ["x", "wt", "bt"], ["t"],
                              kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Mul", ["t", "s"], ["ts"]),
             helper.make_node("Add", ["ts", "o"], ["to"]),
             helper.make_node("Relu", ["to"], ["r"]),
             helper.make_node("ConvTranspose", ["r", "wt2"], ["t2"],
                              kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Sigmoid", ["t2"], ["y"])],
            {"x": [1, cin, h, w]}, [1, 1, 4 * h, 4 * w],
            [const("wt", [cin, 24, 2, 2]), const("bt", [24]),
             const("s", [1, 24, 1, 1]), const("o", [24, 1, 1]),
             const("wt2", [24, 1, 2, 2])])
    cases["convtranspose_bn_relu_then_sigmoid_24_80x80"] = convtranspose_head(
        32, 80, 80)
    # The same head on 32x64 maps, whose 24 channel planes (8 KiB each) put
    # a column's lines into one L1 set: the first ConvTranspose copies each
    # input row of all channels into a scratch with staggered rows first.
    cases["convtranspose_rows_copied_24_32x64"] = convtranspose_head(24, 32, 64)
    # tfrt-fuse-conv-transpose-pairs: the 80x80 head above runs both
    # ConvTransposes over bands of 2 input rows (its 24 x 160 x 160
    # intermediate is over the 1 MB threshold); here a second stage with 2
    # output channels, a bias (its init a per-channel broadcast) and no
    # epilogue, over 60 rows (3 chunks of 10 bands).
    cases["convtranspose_pair_bias_only_24to2_60x48"] = (
        [helper.make_node("ConvTranspose", ["x", "wt", "bt"], ["t"],
                          kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Mul", ["t", "s"], ["ts"]),
         helper.make_node("Add", ["ts", "o"], ["to"]),
         helper.make_node("Relu", ["to"], ["r"]),
         helper.make_node("ConvTranspose", ["r", "wt2", "bt2"], ["y"],
                          kernel_shape=[2, 2], strides=[2, 2])],
        {"x": [1, 16, 60, 48]}, [1, 2, 240, 192],
        [const("wt", [16, 24, 2, 2]), const("bt", [24]),
         const("s", [1, 24, 1, 1]), const("o", [24, 1, 1]),
         const("wt2", [24, 2, 2, 2]), const("bt2", [2])])
    # PP-OCRv4 det's squeeze-excitation after a pointwise conv 12 -> 96:
    # c + c * hardsigmoid(se(GAP(c))). tfrt-simplify-graph pools the conv's
    # input and convolves the pooled vector (GAP(conv1x1(x)) =
    # conv1x1(GAP(x))) and rewrites the sum as c * (1 + s).
    def se_block(out):
        return [conv("x", "w", None, "c"),
                helper.make_node("GlobalAveragePool", ["c"], ["p"]),
                conv("p", "w1", "b1", "q"),
                helper.make_node("Relu", ["q"], ["r"]),
                conv("r", "w2", "b2", "u"),
                helper.make_node("HardSigmoid", ["u"], ["s"], alpha=0.2,
                                 beta=0.5),
                helper.make_node("Mul", ["c", "s"], ["cs"]),
                helper.make_node("Add", ["c", "cs"], [out])]

    def se_weights():
        return [const("w", [96, 12, 1, 1]), const("w1", [24, 96, 1, 1]),
                const("b1", [24]), const("w2", [96, 24, 1, 1]),
                const("b2", [96])]

    cases["pw_se_hsigmoid_residual_12to96_40x40"] = (
        se_block("y"), {"x": [1, 12, 40, 40]}, [1, 96, 40, 40], se_weights())
    # The same block as in det's neck at 160x160, with the upsampled
    # output of the level below added: the conv's only user is then
    # c * (1 + s) + resize(lo), which runs on its register tiles (the
    # upsampling read as repeated elements).
    cases["pw_se_resize_residual_12to96_160x160"] = (
        se_block("a") +
        [helper.make_node("Resize", ["lo", "", "scales"], ["up"],
                          mode="nearest",
                          coordinate_transformation_mode="asymmetric",
                          nearest_mode="floor"),
         helper.make_node("Add", ["a", "up"], ["y"])],
        {"x": [1, 12, 160, 160], "lo": [1, 96, 80, 80]}, [1, 96, 160, 160],
        se_weights() + [numpy_helper.from_array(
            np.array([1, 1, 2, 2], dtype=np.float32), "scales")])
    cases["matmul_row_scale_relu_256x128x512"] = (
        [helper.make_node("MatMul", ["x", "w"], ["m"]),
         helper.make_node("Mul", ["m", "r"], ["mr"]),
         helper.make_node("Relu", ["mr"], ["y"])],
        {"x": [256, 128], "r": [256, 1]}, [256, 512],
        [const("w", [128, 512], 0.1)])
    return cases


# Activations of newer opsets that the importer composes of graph ops
# (Gelu, opset 20; Mish, opset 18), alone and as the epilogue of a 1x1
# conv: name: (op, attributes, opset, with a conv before it).
ACTIVATIONS = {
    "gelu_erf": ("Gelu", {}, 20, False),
    "gelu_tanh": ("Gelu", {"approximate": "tanh"}, 20, False),
    "mish": ("Mish", {}, 18, False),
    "conv1x1_gelu_erf": ("Gelu", {}, 20, True),
    "conv1x1_mish": ("Mish", {}, 18, True),
}


# A TfIdfVectorizer pool over tokens -4..3: four unigrams, four bigrams,
# two trigrams, mapped to output coordinates 0..11 except 7 and 10.
TFIDF_POOL = dict(
    pool_int64s=[-4, 0, 3, 1, 0, 1, -1, -1, 2, -3, 3, 3, 0, 0, 0, 1, -2, 1],
    ngram_counts=[0, 4, 12], ngram_indexes=[9, 0, 3, 5, 1, 8, 2, 11, 6, 4])


# Three 16-grams over the tokens 0..14 (15 distinct) and an input pattern
# [2, 60] holding gram 0 at offset 2 and gram 1 at offset 20 with skip 1 in
# row 0, gram 2 with its last token changed and gram 0 again in row 1.
GRAMS16 = np.array([np.roll(np.arange(15), r)[[i % 15 for i in range(16)]]
                    for r in (0, 4, 9)], np.int64)


def _grams16_input():
    t = np.full([2, 60], 7, np.int64)
    t[0, 2:18] = GRAMS16[0]
    t[0, 20:52:2] = GRAMS16[1]
    t[1, 30:46] = GRAMS16[0]
    t[1, 0:16] = GRAMS16[2]
    t[1, 15] = 3 if GRAMS16[2][15] != 3 else 4
    return t.tolist()


GRAMS16_INPUT = _grams16_input()


def newer_op_cases(rng):
    """Ops and forms that the importer decomposes into graph ops (many of
    opsets 18 to 21): name: (nodes, input shape of x, output shape of y,
    initializers, opset)."""
    def arr(name, a):
        return numpy_helper.from_array(np.asarray(a), name)

    def affine(name, n):
        return arr(name, (rng.random(n, dtype=np.float32) - 0.5) * 4)
    x = [2, 6, 5, 7]
    def ints(name, v):
        return arr(name, np.array(v, np.int64))
    def tokens(to, shape):
        return [helper.make_node("Mul", ["x", "two"], ["x2"]),
                helper.make_node("Floor", ["x2"], ["xf"]),
                helper.make_node("Cast", ["xf"], ["xi"], to=to),
                helper.make_node("Reshape", ["xi", "rows"], ["t"])]
    # A mask that zeroes x[:, :, 0, 0] and x[:, 2, 1, :]: slices of zero
    # norm along axes 1 and 3.
    mask = np.ones([1, 6, 5, 7], np.float32)
    mask[:, :, 0, 0] = 0
    mask[:, 2, 1, :] = 0
    return {
        # Compress with a constant condition (a gather of the kept slices):
        # along an axis with a condition shorter than it, and flattened.
        "compress_axis2_short_condition": (
            [helper.make_node("Compress", ["x", "keep"], ["y"], axis=2)],
            x, [2, 6, 2, 7], [arr("keep", np.array([True, False, False, True]))], 11),
        "compress_flat": (
            [helper.make_node("Compress", ["x", "keep"], ["y"])],
            x, [int(np.count_nonzero(np.arange(420) % 3 != 1))],
            [arr("keep", np.arange(420) % 3 != 1)], 11),
        # TfIdfVectorizer on tokens floor(2x) in -4..3 (rows of 35): uni-,
        # bi- and trigrams with skips, output coordinates permuted with two
        # unused (zeros); TFIDF weights on the longer n-grams only; IDF on
        # an int32 sequence of rank 1.
        "tfidf_tf_uni_bi_tri_skip2": (
            tokens(TensorProto.INT64, [12, 35]) + [helper.make_node(
                "TfIdfVectorizer", ["t"], ["y"], mode="TF", min_gram_length=1,
                max_gram_length=3, max_skip_count=2, **TFIDF_POOL)],
            x, [12, 12], [arr("two", np.float32(2)), ints("rows", [12, 35])], 17),
        "tfidf_tfidf_weights_bi_tri_skip4": (
            tokens(TensorProto.INT64, [12, 35]) + [helper.make_node(
                "TfIdfVectorizer", ["t"], ["y"], mode="TFIDF", min_gram_length=2,
                max_gram_length=3, max_skip_count=4,
                weights=[0.5, 1.5, 2, 0.25, 3, 1, 0.75, 4, 2.5, 0.1], **TFIDF_POOL)],
            x, [12, 12], [arr("two", np.float32(2)), ints("rows", [12, 35])], 17),
        "tfidf_idf_int32_flat_skip1": (
            tokens(TensorProto.INT32, [420]) + [helper.make_node(
                "TfIdfVectorizer", ["t"], ["y"], mode="IDF", min_gram_length=1,
                max_gram_length=2, max_skip_count=1,
                weights=[0.5, 1.5, 2, 0.25, 3, 1, 0.75, 4, 2.5, 0.1], **TFIDF_POOL)],
            x, [12], [arr("two", np.float32(2)), ints("rows", [420])], 17),
        # TfIdfVectorizer over 16-grams of 15 distinct tokens: 16^16 keys
        # exceed 62 bits, so the lookup ranks the 15-token prefixes before
        # the last token. The tokens are a constant pattern holding two of
        # the pool's 16-grams (one at skip 1), near misses and a third
        # gram's first 15 tokens, plus floor(relu(x) * 1e-6) = 0 from x.
        "tfidf_16grams_prefix_ranks_skip1": (
            [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Mul", ["r", "tiny"], ["rs"]),
             helper.make_node("Floor", ["rs"], ["rf"]),
             helper.make_node("Cast", ["rf"], ["ri"], to=TensorProto.INT64),
             helper.make_node("Reshape", ["ri", "flat"], ["rflat"]),
             helper.make_node("Slice", ["rflat", "s0", "s120"], ["r120"]),
             helper.make_node("Reshape", ["r120", "rows2"], ["z"]),
             helper.make_node("Add", ["z", "pattern"], ["t"]),
             helper.make_node("TfIdfVectorizer", ["t"], ["y"], mode="TF",
                              min_gram_length=16, max_gram_length=16,
                              max_skip_count=1, pool_int64s=GRAMS16.ravel().tolist(),
                              ngram_counts=[0] * 16, ngram_indexes=[2, 0, 1])],
            x, [2, 3], [arr("tiny", np.float32(1e-6)), ints("flat", [420]),
                        ints("s0", [0]), ints("s120", [120]), ints("rows2", [2, 60]),
                        ints("pattern", GRAMS16_INPUT)], 17),
        # LpNormalization (zero-norm slices give zeros), GlobalLpPool and
        # LpPool (opset 18: dilations, ceil_mode; opset 11: auto_pad).
        "lpnorm_p2_axis1_zero_slices": (
            [helper.make_node("Mul", ["x", "mask"], ["m"]),
             helper.make_node("LpNormalization", ["m"], ["y"], axis=1, p=2)],
            x, x, [arr("mask", mask)], 17),
        "lpnorm_p1_last_zero_slices": (
            [helper.make_node("Mul", ["x", "mask"], ["m"]),
             helper.make_node("LpNormalization", ["m"], ["y"], axis=-1, p=1)],
            x, x, [arr("mask", mask)], 17),
        "globallppool_p2": (
            [helper.make_node("GlobalLpPool", ["x"], ["y"])],
            x, [2, 6, 1, 1], [], 17),
        "globallppool_p3": (
            [helper.make_node("GlobalLpPool", ["x"], ["y"], p=3)],
            x, [2, 6, 1, 1], [], 17),
        "lppool_p2_3x3_s2_pads": (
            [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[3, 3],
                              strides=[2, 2], pads=[1, 1, 1, 1])],
            [1, 8, 13, 11], [1, 8, 7, 6], [], 17),
        "lppool_p1_same_upper": (
            [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[3, 2],
                              strides=[2, 2], auto_pad="SAME_UPPER", p=1)],
            [1, 8, 13, 11], [1, 8, 7, 6], [], 17),
        "lppool18_p3_ceil_dilated": (
            [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 3],
                              strides=[2, 2], dilations=[1, 2], ceil_mode=1, p=3)],
            [1, 8, 13, 11], [1, 8, 7, 4], [], 18),
        # CenterCropPad: crop and pad at once, odd differences, a negative
        # axis, all axes by default.
        "centercroppad18_crop_and_pad": (
            [helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[1, -1])],
            x, [2, 4, 5, 10], [ints("s", [4, 10])], 18),
        "centercroppad18_odd_all_axes": (
            [helper.make_node("CenterCropPad", ["x", "s"], ["y"])],
            x, [3, 3, 8, 4], [ints("s", [3, 3, 8, 4])], 18),
        # AffineGrid (opset 20): 2-D and 3-D, both align_corners.
        "affinegrid20_2d": (
            [helper.make_node("AffineGrid", ["x", "sz"], ["y"])],
            [2, 2, 3], [2, 4, 5, 2], [ints("sz", [2, 3, 4, 5])], 20),
        "affinegrid20_2d_align": (
            [helper.make_node("AffineGrid", ["x", "sz"], ["y"], align_corners=1)],
            [2, 2, 3], [2, 4, 5, 2], [ints("sz", [2, 3, 4, 5])], 20),
        "affinegrid20_3d": (
            [helper.make_node("AffineGrid", ["x", "sz"], ["y"])],
            [1, 3, 4], [1, 3, 4, 5, 3], [ints("sz", [1, 1, 3, 4, 5])], 20),
        # Col2Im (opset 18): overlapping blocks; strides and pads with a
        # column no block reaches; dilated blocks over two images.
        "col2im18_overlapping": (
            [helper.make_node("Col2Im", ["x", "img", "blk"], ["y"])],
            [1, 12, 16], [1, 2, 5, 6], [ints("img", [5, 6]), ints("blk", [2, 3])], 18),
        "col2im18_strided_padded": (
            [helper.make_node("Col2Im", ["x", "img", "blk"], ["y"],
                              strides=[2, 3], pads=[1, 0, 1, 2])],
            [1, 18, 12], [1, 2, 7, 8], [ints("img", [7, 8]), ints("blk", [3, 3])], 18),
        "col2im18_dilated": (
            [helper.make_node("Col2Im", ["x", "img", "blk"], ["y"], dilations=[2, 2])],
            [2, 4, 16], [2, 1, 6, 6], [ints("img", [6, 6]), ints("blk", [2, 2])], 18),
        # Pad mode wrap (opset 19): as wide as the dimension, and with crops.
        "pad19_wrap": (
            [helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")],
            x, [2, 6, 12, 14],
            [ints("pads", [0, 0, 5, 3, 0, 0, 2, 4])], 19),
        "pad19_wrap_with_crops": (
            [helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")],
            x, [2, 6, 7, 7],
            [ints("pads", [0, 0, -1, 2, 0, 0, 3, -2])], 19),
        "pad18_reflect_with_crops": (
            [helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")],
            x, [2, 6, 7, 7],
            [ints("pads", [0, 0, -1, 2, 0, 0, 3, -2])], 18),
        # Split by num_outputs into 4 and 3 (the last part smaller), joined
        # back in the other order.
        "split18_uneven": (
            [helper.make_node("Split", ["x"], ["a", "b"], axis=3, num_outputs=2),
             helper.make_node("Concat", ["b", "a"], ["y"], axis=3)],
            x, x, [], 18),
        # Pad with the axes input: reflect on one axis, a constant on two
        # (one given as negative).
        "pad18_axes_reflect": (
            [helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect")],
            x, [2, 6, 8, 7],
            [arr("pads", np.array([1, 2], np.int64)), arr("axes", np.array([2], np.int64))],
            18),
        "pad18_axes_constant": (
            [helper.make_node("Pad", ["x", "pads", "v", "axes"], ["y"])],
            x, [2, 9, 5, 9],
            [arr("pads", np.array([1, 2, 2, 1], np.int64)),
             arr("axes", np.array([-1, 1], np.int64)), arr("v", np.float32(0.5))],
            18),
        # GroupNormalization: scale and bias per group (opset 18), per
        # channel (opset 21).
        "groupnorm18_3groups": (
            [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                              num_groups=3, epsilon=1e-4)],
            x, x, [affine("s", 3), affine("b", 3)], 18),
        "groupnorm21_2groups": (
            [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                              num_groups=2)],
            x, x, [affine("s", 6), affine("b", 6)], 21),
        # Resize (opset 18/19) with the axes attribute, one scale for all
        # listed axes from sizes (keep_aspect_ratio_policy), and antialias
        # on an upscaling linear resize (no filter then).
        "resize19_not_larger": (
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="nearest",
                              keep_aspect_ratio_policy="not_larger", axes=[2, 3])],
            [1, 2, 8, 10], [1, 2, 4, 5], [arr("sz", np.array([5, 5], np.int64))], 19),
        "resize19_not_smaller": (
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                              keep_aspect_ratio_policy="not_smaller", axes=[2, 3])],
            [1, 2, 8, 10], [1, 2, 5, 6], [arr("sz", np.array([5, 5], np.int64))], 19),
        "resize19_axes_sizes": (
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                              axes=[-1])],
            [1, 2, 8, 10], [1, 2, 8, 13], [arr("sz", np.array([13], np.int64))], 19),
        "resize19_axes_scales": (
            [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="cubic",
                              axes=[3, 2])],
            [1, 2, 8, 10], [1, 2, 12, 20],
            [arr("sc", np.array([2.0, 1.5], np.float32))], 19),
        # Antialias on downscaling (opset 18): the filter stretched by
        # 1 / scale; mixed with an upscaled axis; cubic with
        # exclude_outside; align_corners.
        "resize18_antialias_linear_down": (
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear",
                              antialias=1)],
            [1, 2, 12, 15], [1, 2, 5, 6], [arr("sz", np.array([1, 2, 5, 6], np.int64))], 18),
        "resize18_antialias_cubic_mixed_exclude": (
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="cubic",
                              antialias=1, exclude_outside=1)],
            [1, 2, 12, 6], [1, 2, 5, 9], [arr("sz", np.array([1, 2, 5, 9], np.int64))], 18),
        "resize18_antialias_linear_align_scales": (
            [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear",
                              antialias=1, coordinate_transformation_mode="align_corners")],
            [1, 2, 12, 15], [1, 2, 4, 10],
            [arr("sc", np.array([1, 1, 1 / 3, 2 / 3], np.float32))], 18),
        "resize19_antialias_up": (
            [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear",
                              antialias=1)],
            [1, 2, 8, 10], [1, 2, 16, 20],
            [arr("sc", np.array([1, 1, 2, 2], np.float32))], 19),
        # ScatterND and ScatterElements (the loops of
        # tfrt-lower-graph-to-linalg{scatter-loops}): slices of rows with
        # duplicate and negative tuples (add), whole tuples (max), one slice
        # the size of x (min), run-time indices floor(2x) in -4..3 from x
        # (add over rows of 5; ScatterElements add along axis 1, max along
        # axis 3 with updates of x), mul on slices (opset 18).
        "scatternd_rows_add_duplicates": (
            [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="add")],
            x, x, [ints("i", [[1, 2], [0, 5], [1, 2], [-1, -4]]),
                   affine("u", [4, 5, 7])], 18),
        "scatternd_whole_tuples_max": (
            [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="max")],
            x, x, [ints("i", [[0, 1, 2, 3], [1, 5, 4, 6], [0, 1, 2, 3], [-2, 0, -1, 0]]),
                   affine("u", [4])], 18),
        "scatternd_slice_of_x_min": (
            [helper.make_node("Unsqueeze", ["x", "ax0"], ["u"]),
             helper.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction="min")],
            x, [4] + x, [ints("ax0", [0]), ints("i", [[2]]), affine("d", [4] + x)], 18),
        "scatternd_runtime_rows_add": (
            tokens(TensorProto.INT64, [420]) + [
                helper.make_node("Slice", ["t", "s0", "s84"], ["t84"]),
                helper.make_node("Reshape", ["t84", "shi"], ["i"]),
                helper.make_node("Reshape", ["x", "shu"], ["u"]),
                helper.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction="add")],
            x, [8, 5], [arr("two", np.float32(2)), ints("rows", [420]),
                        ints("s0", [0]), ints("s84", [84]), ints("shi", [84, 1]),
                        ints("shu", [84, 5]), affine("d", [8, 5])], 18),
        "scatternd_slices_mul": (
            [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="mul")],
            x, x, [ints("i", [[1], [0], [1]]), affine("u", [3, 6, 5, 7])], 18),
        "scatter_elements_runtime_axis1_add": (
            tokens(TensorProto.INT64, x) + [helper.make_node(
                "ScatterElements", ["d", "t", "x"], ["y"], axis=1, reduction="add")],
            x, x, [arr("two", np.float32(2)), ints("rows", x), affine("d", x)], 18),
        "scatter_elements_runtime_axis3_max": (
            tokens(TensorProto.INT64, x) + [helper.make_node(
                "ScatterElements", ["d", "t", "x"], ["y"], axis=3, reduction="max")],
            x, x, [arr("two", np.float32(2)), ints("rows", x), affine("d", x)], 18),
    }


def softmax_cases(rng):
    """Softmax over the last axis (tfrt-vectorize-softmax: three vector
    passes per row, chunks of rows in parallel): name: (nodes, input shape
    of x, output shape of y, initializers, input range). rec's classifier
    (MatMul + bias + Softmax over 6625: 4 chunks of 10 rows, one masked
    element per row; the bias computed as the rows are read), attention
    rows of 40, alone and after an additive mask, rows of 17 and 16 with inputs
    wide enough that exp underflows; and softmaxes the pass leaves to the
    generics (rows of 5, a softmax over axis 1)."""
    w = numpy_helper.from_array(
        (rng.standard_normal((120, 6625)) * 0.3).astype(np.float32), "w")
    b = numpy_helper.from_array(
        (rng.standard_normal(6625) * 0.5).astype(np.float32), "b")
    def softmax(axis=-1, src="x"):
        return [helper.make_node("Softmax", [src], ["y"], axis=axis)]
    return {
        "softmax_classifier_40x120x6625": (
            [helper.make_node("MatMul", ["x", "w"], ["l"]),
             helper.make_node("Add", ["l", "b"], ["lb"])] + softmax(src="lb"),
            [1, 40, 120], [1, 40, 6625], [w, b], 4),
        "softmax_attention_8x40x40": (softmax(), [1, 8, 40, 40], [1, 8, 40, 40], [], 20),
        "softmax_attention_mask_8x40x40": (
            [helper.make_node("Add", ["x", "mask"], ["xm"])] + softmax(src="xm"),
            [1, 8, 40, 40], [1, 8, 40, 40], [numpy_helper.from_array(
                np.where(rng.random((1, 1, 40, 40)) < 0.3, -1e4, 0).astype(np.float32),
                "mask")], 20),
        "softmax_rows_of_17_underflow": (softmax(), [3, 5, 17], [3, 5, 17], [], 200),
        "softmax_rows_of_16": (softmax(), [4, 16], [4, 16], [], 20),
        "softmax_rows_of_5_generics": (softmax(), [7, 5], [7, 5], [], 20),
        "softmax_axis1_generics": (softmax(axis=1), [2, 20, 6], [2, 20, 6], [], 20),
    }


def make_activation_model(path, op, attrs, opset, conv, shape, rng):
    """x [shape] -> (1x1 conv to 24 channels ->) op -> y."""
    inits = []
    nodes = []
    src = "x"
    out = list(shape)
    if conv:
        w = (rng.random((24, shape[1], 1, 1), dtype=np.float32) - 0.5) * 2
        b = (rng.random(24, dtype=np.float32) - 0.5) * 2
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        nodes.append(helper.make_node("Conv", ["x", "w", "b"], ["c"]))
        src = "c"
        out[1] = 24
    nodes.append(helper.make_node(op, [src], ["y"], **attrs))
    save_xy_model(path, op, nodes, shape, out, inits, opset)


def save_xy_model(path, name, nodes, xs, ys, inits, opset):
    """A float model from input x [xs] to output y [ys] at `opset`."""
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ys)],
        initializer=inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]),
              path)


def make_epilogue_model(path, nodes, inputs, out_shape, inits):
    graph = helper.make_graph(
        nodes, "epilogue",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v)
         for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)


def make_matmul_model(path, xs, ws, const, rng):
    w = (rng.standard_normal(ws) * 0.1).astype(np.float32)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)]
    inits = []
    if const:
        inits.append(numpy_helper.from_array(w, "w"))
    else:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, ws))
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [xs[0], ws[1]])],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return None if const else w


def make_resize_model(path, shape, scales):
    out = [int(d * s) for d, s in zip(shape, scales)]
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["r"], mode="nearest",
                         coordinate_transformation_mode="asymmetric",
                         nearest_mode="floor"),
        helper.make_node("Mul", ["r", "half"], ["rh"]),
        helper.make_node("Add", ["x2", "rh"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array(scales, dtype=np.float32), "scales"),
             numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")]
    graph = helper.make_graph(
        nodes, "resize",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
         helper.make_tensor_value_info("x2", TensorProto.FLOAT, out)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return out


def make_maxroipool_model(path, xs, rs, pooled, scale):
    """MaxRoiPool of x [xs] over run-time rois [rs] -> y."""
    graph = helper.make_graph(
        [helper.make_node("MaxRoiPool", ["x", "rois"], ["y"],
                          pooled_shape=pooled, spatial_scale=scale)],
        "maxroipool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, rs)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [rs[0], xs[1]] + list(pooled))])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              path)


def make_deformconv_model(path, xs, ws, attrs, with_mask, rng):
    """DeformConv of x [xs] by constant W [ws] and bias with run-time offset
    (and mask) -> y; returns the offset's and mask's shapes."""
    n, c, h, w = xs
    m, _, kh, kw = ws
    s = attrs.get("strides", [1, 1])
    d = attrs.get("dilations", [1, 1])
    p = attrs.get("pads", [0, 0, 0, 0])
    g = attrs.get("offset_group", 1)
    oh = (h + p[0] + p[2] - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (w + p[1] + p[3] - d[1] * (kw - 1) - 1) // s[1] + 1
    offs = [n, g * 2 * kh * kw, oh, ow]
    masks = [n, g * kh * kw, oh, ow]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs),
              helper.make_tensor_value_info("offset", TensorProto.FLOAT, offs)]
    names = ["x", "w", "offset", "b"]
    if with_mask:
        inputs.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, masks))
        names.append("mask")
    inits = [numpy_helper.from_array((rng.random(ws, dtype=np.float32) - 0.5), "w"),
             numpy_helper.from_array(rng.random(m, dtype=np.float32) - 0.5, "b")]
    graph = helper.make_graph(
        [helper.make_node("DeformConv", names, ["y"], **attrs)], "deformconv",
        inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, m, oh, ow])],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]),
              path)
    return offs, masks


# DeformConv (opset 19): input shape, weight shape, attributes, with a mask.
# Offsets in [-3, 3) send some taps outside the image.
DEFORMCONV = {
    "deformconv19_3x3_pad1_bias": ([1, 4, 7, 8], [6, 4, 3, 3], {"pads": [1, 1, 1, 1]}, False),
    "deformconv19_groups_mask_strided": (
        [2, 4, 9, 7], [6, 2, 3, 3],
        {"group": 2, "offset_group": 2, "strides": [2, 2], "dilations": [1, 2],
         "pads": [1, 2, 1, 2]}, True),
}


# MaxRoiPool's RoIs (batch index, x1, y1, x2, y2) at spatial_scale 0.5 on a
# 10x12 image: corners at .5 after scaling (rounded away from zero: 2.5 ->
# 3), fractional ones, a RoI outside the image (empty bins: 0), an inverted
# one (size clamped to 1), negative corners, the whole image.
MAXROIPOOL_ROIS = [[0, 2, 2, 16, 12],
                   [1, 5, 3, 22.8, 19.2],
                   [0, 30, 30, 40, 40],
                   [1, 16, 12, 4, 2],
                   [0, -8, -12, 10, 6],
                   [1, 0, 0, 23, 19]]


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


def make_dw_model(path, c, h, w, k, pads, stride, dilation, rng):
    weight = numpy_helper.from_array(
        (rng.standard_normal((c, 1, k, k)) * 0.3).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(c).astype(np.float32), "b")
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k],
                            strides=[stride, stride], pads=pads, group=c,
                            dilations=[dilation, dilation])
    span = dilation * (k - 1) + 1
    oh = (h + pads[0] + pads[2] - span) // stride + 1
    ow = (w + pads[1] + pads[3] - span) // stride + 1
    graph = helper.make_graph(
        [node], "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, oh, ow])],
        [weight, bias])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (os.path.basename(cmd[0]),
                                                         p.returncode, p.stdout.strip()[-400:]))
    return p.stdout


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default=None,
                    help="folder of tfrt-compile and tfrt-run (default: from PATH)")
    ap.add_argument("--ort-dir", default=os.path.join(REPO_ROOT, "third_party", "npm", "ort"))
    ap.add_argument("--node", default="node")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--mcpu", default="",
                    help="tfrt-compile --mcpu (default: the host), e.g. x86-64-v3 "
                         "for the AVX2 register tiles")
    ap.add_argument("--only", default=None, metavar="REGEX",
                    help="run only the cases whose name matches (re.search); "
                         "the others are reported as skipped")
    args = ap.parse_args(argv)
    mcpu = ["--mcpu=" + args.mcpu] if args.mcpu else []
    os.makedirs(args.work_dir, exist_ok=True)

    def tool(name):
        return os.path.join(args.bin_dir, name) if args.bin_dir else name

    def check(name, d, model, inputs, flags=(), relative=False):
        """ONNX Runtime's and our outputs of `model` on `inputs` (name ->
        array, saved into `d`), compiled with `flags`; prints PASS or FAIL
        and returns the verdict. The tolerance is 1e-4, times the largest
        output when `relative` (and that is above 1)."""
        if args.only and not re.search(args.only, name):
            skipped.append(name)
            return True
        feeds = []
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), v)
            feeds += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        shapes = []
        for k, v in inputs.items():
            shapes.append("--input-shape=%s=%s" % (k, "x".join(str(n) for n in v.shape)))
        try:
            run([args.node, os.path.join(HERE, "..", "ppocr", "ort_reference.js"),
                 "--ort-dir", args.ort_dir, "--model", model,
                 "--output-dir", os.path.join(d, "ort")] + feeds)
            # Every model with parallel loops is split for LLVM's middle end
            # and code generation (ParallelCodegen.h), however small, so
            # that the merged objects are checked against ONNX Runtime too.
            log = run([tool("tfrt-compile"), model, "--emit=shared", "--name", "m",
                       "-o", os.path.join(d, "m.so"), "--codegen-threads=2",
                       "--codegen-split-min=0", "--time-phases"] + shapes + mcpu +
                      list(flags))
            if "partitions compiled in parallel" in log:
                split.append(name)
            for threads in (1, 2):
                out = os.path.join(d, "tfrt_t%d" % threads)
                run([tool("tfrt-run"), os.path.join(d, "m.so"), "--name", "m",
                     "--threads=%d" % threads, "--output-dir", out] + feeds)
                got = np.load(os.path.join(out, "y.npy"))
                want = np.load(os.path.join(d, "ort", "y.npy"))
                if got.shape != want.shape:
                    raise RuntimeError("shape %s, ONNX Runtime %s" % (got.shape, want.shape))
                diff = float(np.max(np.abs(got - want)))
                tol = 1e-4 * (max(1.0, float(np.max(np.abs(want)))) if relative else 1.0)
                if not diff <= tol:
                    raise RuntimeError("max abs diff %.3g at %d threads (tolerance %.3g)"
                                       % (diff, threads, tol))
        except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
            print("FAIL %s: %s" % (name, e))
            return False
        print("PASS %s (max abs diff %.3g)" % (name, diff))
        return True

    rng = np.random.default_rng(7)
    results = []
    split = []
    skipped = []

    def conv_case(name, c, m, h, w, pads, stride, flags=(), relative=False):
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        make_model(model, c, m, h, w, pads, stride, rng)
        x = rng.random((1, c, h, w), dtype=np.float32) * 2 - 1
        return check(name, d, model, {"x": x}, flags, relative)

    for name, (c, m, h, w, pads, stride) in CASES.items():
        results.append(conv_case(name, c, m, h, w, pads, stride))
    for name, (c, m, h, w) in WINOGRAD_F4.items():
        results.append(conv_case(name, c, m, h, w, [1, 1, 1, 1], 1,
                                 ["--winograd-tile=4"], relative=True))
    for name, (c, h, w, k, pads, stride, dilation) in DEPTHWISE.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        make_dw_model(model, c, h, w, k, pads, stride, dilation, rng)
        results.append(check(name, d, model, {
            "x": rng.random((1, c, h, w), dtype=np.float32) * 2 - 1}))
    for name, (shape, scales) in RESIZES.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        out = make_resize_model(model, shape, scales)
        results.append(check(name, d, model, {
            "x": rng.random(shape, dtype=np.float32),
            "x2": rng.random(out, dtype=np.float32)}))
    for name, (xs, ws, const) in MATMULS.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        w = make_matmul_model(model, xs, ws, const, rng)
        feeds = {"x": rng.random(xs, dtype=np.float32) * 2 - 1}
        if w is not None:
            feeds["w"] = w
        results.append(check(name, d, model, feeds))
    for name, (nodes, inputs, out_shape, inits) in epilogue_cases(rng).items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        make_epilogue_model(model, nodes, inputs, out_shape, inits)
        results.append(check(name, d, model, {
            k: rng.random(v, dtype=np.float32) * 2 - 1 for k, v in inputs.items()}))
    for name, (op, attrs, opset, conv) in ACTIVATIONS.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        shape = [1, 16, 33, 64]
        make_activation_model(model, op, attrs, opset, conv, shape, rng)
        results.append(check(name, d, model, {
            "x": rng.random(shape, dtype=np.float32) * 12 - 6}))
    for name, (nodes, xs, ys, inits, opset) in newer_op_cases(rng).items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        save_xy_model(model, name, nodes, xs, ys, inits, opset)
        results.append(check(name, d, model, {
            "x": rng.random(xs, dtype=np.float32) * 4 - 2}))
    for name, (nodes, xs, ys, inits, span) in softmax_cases(rng).items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        save_xy_model(model, name, nodes, xs, ys, inits, 13)
        results.append(check(name, d, model, {
            "x": (rng.random(xs, dtype=np.float32) - 0.5) * span}))
    for name, (xs, ws, attrs, with_mask) in DEFORMCONV.items():
        d = os.path.join(args.work_dir, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        offs, masks = make_deformconv_model(model, xs, ws, attrs, with_mask, rng)
        feeds = {"x": rng.random(xs, dtype=np.float32) * 2 - 1,
                 "offset": rng.random(offs, dtype=np.float32) * 6 - 3}
        if with_mask:
            feeds["mask"] = rng.random(masks, dtype=np.float32)
        results.append(check(name, d, model, feeds))
    d = os.path.join(args.work_dir, "maxroipool_3x4_scale_half")
    os.makedirs(d, exist_ok=True)
    model = os.path.join(d, "model.onnx")
    rois = np.array(MAXROIPOOL_ROIS, np.float32)
    make_maxroipool_model(model, [2, 3, 10, 12], list(rois.shape), [3, 4], 0.5)
    results.append(check("maxroipool_3x4_scale_half", d, model, {
        "x": rng.random([2, 3, 10, 12], dtype=np.float32) * 4 - 2, "rois": rois}))
    if skipped:
        print("skipped (not matching --only): %d" % len(skipped))
    passed = sum(results) - len(skipped)
    failed = len(results) - len(skipped) - passed
    print("compiled in partitions: %d of %d" % (len(split), len(results)))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
