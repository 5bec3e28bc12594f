"""Writes the small ONNX models the frontend lit tests import.

Usage: make_models.py OUT_DIR
Each model is built with onnx.helper at test time (python3-onnx, numpy), so
no binary model is committed.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


def save(name, nodes, inputs, outputs, inits=(), opset=13, extra_opsets=(),
         check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + list(extra_opsets)
    model = helper.make_model(graph, opset_imports=opsets,
                              producer_name="tfrt-frontend-tests")
    model.ir_version = 7
    # Outputs declared without a shape take the one ONNX infers.
    if any(not o.type.tensor_type.HasField("shape") for o in graph.output):
        g = onnx.shape_inference.infer_shapes(model).graph
        inferred = {v.name: v for v in list(g.value_info) + list(g.output)
                    if v.type.tensor_type.HasField("shape")}
        for o in model.graph.output:
            if not o.type.tensor_type.HasField("shape") and o.name in inferred:
                o.CopyFrom(inferred[o.name])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


F = TensorProto.FLOAT

# Opset 9 forms: Slice-1 attributes, Clip-6 bounds, Softmax-1 (coerce to 2-D),
# Unsqueeze-1 axes, BatchNormalization-9, Dropout-7, Gemm-9, Flatten-9.
save("old_opset9", [
    helper.make_node("Slice", ["x"], ["sl"], name="slice", starts=[0, 1],
                     ends=[1, 1000], axes=[0, 1]),
    helper.make_node("Clip", ["x"], ["cl"], name="clip", min=0.0, max=6.0),
    helper.make_node("Softmax", ["x"], ["sm"], name="softmax"),
    helper.make_node("Unsqueeze", ["x"], ["us"], name="unsqueeze", axes=[1]),
    helper.make_node("BatchNormalization", ["img", "s", "b", "m", "v"], ["bn"],
                     name="bn", epsilon=1e-3),
    helper.make_node("Dropout", ["bn"], ["dr"], name="dropout", ratio=0.3),
    helper.make_node("Flatten", ["dr"], ["fl"], name="flatten"),
    helper.make_node("Gemm", ["fl", "w", "gb"], ["gm"], name="gemm", transB=1),
], [vi("x", F, [2, 3, 4]), vi("img", F, [1, 2, 2, 2])],
   [vi("sl", F, None), vi("cl", F, None), vi("sm", F, None),
    vi("us", F, None), vi("gm", F, None)],
   [numpy_helper.from_array(np.ones(2, np.float32), "s"),
    numpy_helper.from_array(np.zeros(2, np.float32), "b"),
    numpy_helper.from_array(np.zeros(2, np.float32), "m"),
    numpy_helper.from_array(np.ones(2, np.float32), "v"),
    numpy_helper.from_array(np.ones((3, 8), np.float32), "w"),
    numpy_helper.from_array(np.zeros(3, np.float32), "gb")],
   opset=9)

# Opset 11: Softmax-11 (still the 2-D coercion) and Clip-11 with an omitted
# min; Squeeze-11 without axes.
save("opset11", [
    helper.make_node("Softmax", ["x"], ["sm"], name="softmax", axis=0),
    helper.make_node("Clip", ["x", "", "hi"], ["cl"], name="clip"),
    helper.make_node("Squeeze", ["x"], ["sq"], name="squeeze"),
], [vi("x", F, [1, 3, 1])],
   [vi("sm", F, None), vi("cl", F, None), vi("sq", F, [3])],
   [numpy_helper.from_array(np.array(6, np.float32), "hi")], opset=11)

# Tensors of every supported element type, as raw_data (numpy_helper) and
# in the typed repeated fields (helper.make_tensor without raw).
inits = []
outs = []
for i, (name, dt, vals) in enumerate([
        ("f32_typed", TensorProto.FLOAT, [1.5, -2.0]),
        ("f64_typed", TensorProto.DOUBLE, [0.25, 8.0]),
        ("f16_typed", TensorProto.FLOAT16, [1.0, -2.0]),
        ("i8_typed", TensorProto.INT8, [-7, 7]),
        ("u8_typed", TensorProto.UINT8, [200, 1]),
        ("i16_typed", TensorProto.INT16, [-300, 300]),
        ("u16_typed", TensorProto.UINT16, [60000, 2]),
        ("i32_typed", TensorProto.INT32, [-70000, 3]),
        ("i64_typed", TensorProto.INT64, [-5000000000, 4]),
        ("u32_typed", TensorProto.UINT32, [4000000000, 5]),
        ("u64_typed", TensorProto.UINT64, [9000000000000000000, 6]),
        ("bool_typed", TensorProto.BOOL, [True, False])]):
    inits.append(helper.make_tensor(name, dt, [2], vals))
    outs.append(vi(name, dt, [2]))
for name, arr in [
        ("f32_raw", np.array([[1.5, -2.0], [3.0, 0.5]], np.float32)),
        ("f64_raw", np.array([0.25, 8.0], np.float64)),
        ("f16_raw", np.array([1.0, -2.0], np.float16)),
        ("i8_raw", np.array([-7, 7], np.int8)),
        ("u16_raw", np.array([60000, 2], np.uint16)),
        ("i64_raw", np.array([-5000000000, 4], np.int64)),
        ("u64_raw", np.array([9000000000000000000, 6], np.uint64)),
        ("bool_raw", np.array([True, False, True], np.bool_))]:
    inits.append(numpy_helper.from_array(arr, name))
    outs.append(vi(name, helper.np_dtype_to_tensor_dtype(arr.dtype)
                   if hasattr(helper, "np_dtype_to_tensor_dtype")
                   else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr.dtype],
                   list(arr.shape)))
bf16 = helper.make_tensor("bf16_typed", TensorProto.BFLOAT16, [1], [1.5])
inits.append(bf16)
outs.append(vi("bf16_typed", TensorProto.BFLOAT16, [1]))
save("tensors", [
    helper.make_node("Constant", [], ["c_float"], name="c_float", value_float=2.5),
    helper.make_node("Constant", [], ["c_ints"], name="c_ints", value_ints=[1, 2, 3]),
    helper.make_node("Cast", ["x"], ["x_f16"], name="cast", to=TensorProto.FLOAT16),
], [vi("x", TensorProto.INT32, [2])],
   outs + [vi("c_float", F, []), vi("c_ints", TensorProto.INT64, [3]),
           vi("x_f16", TensorProto.FLOAT16, [2])], inits)

# auto_pad and pooling attributes.
save("conv_pool", [
    helper.make_node("Conv", ["x", "w"], ["c"], name="conv", auto_pad="SAME_LOWER",
                     strides=[2, 2]),
    helper.make_node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[3, 3],
                     auto_pad="SAME_UPPER"),
    helper.make_node("AveragePool", ["x"], ["a"], name="avg", kernel_shape=[2, 2],
                     strides=[2, 2], ceil_mode=1),
    helper.make_node("Conv", ["x1d", "w1d"], ["c1d"], name="conv1d", pads=[1, 0],
                     dilations=[2]),
], [vi("x", F, [1, 2, 5, 5]), vi("x1d", F, [1, 2, 7])],
   [vi("p", F, None), vi("a", F, None), vi("c1d", F, None)],
   [numpy_helper.from_array(np.ones((4, 2, 2, 2), np.float32), "w"),
    numpy_helper.from_array(np.ones((3, 2, 3), np.float32), "w1d")])

# Symbolic batch dimension (fixed with --input-shape).
save("symbolic", [
    helper.make_node("Shape", ["x"], ["s"], name="shape"),
    helper.make_node("Gather", ["s", "zero"], ["n"], name="batch", axis=0),
    helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"], name="n1"),
    helper.make_node("Concat", ["n1", "minus1"], ["ns"], name="newshape", axis=0),
    helper.make_node("Reshape", ["x", "ns"], ["y"], name="reshape"),
], [vi("x", F, ["batch", 3, 4])], [vi("y", F, ["batch", 12])],
   [numpy_helper.from_array(np.array(0, np.int64), "zero"),
    numpy_helper.from_array(np.array([0], np.int64), "ax0"),
    numpy_helper.from_array(np.array([-1], np.int64), "minus1")])

# Two unsupported ops (both reported), one node depending on one of them, an
# unsupported attribute and a random (training-mode) Dropout.
save("unsupported", [
    helper.make_node("Constant", [], ["train"], name="train",
                     value=numpy_helper.from_array(np.array(True))),
    helper.make_node("Unique", ["x"], ["e"], name="unique"),
    helper.make_node("Relu", ["e"], ["r"], name="relu_after_unique"),
    helper.make_node("NonZero", ["x"], ["f"], name="nonzero"),
    helper.make_node("Dropout", ["x", "", "train"], ["p", "idx"], name="drop"),
    helper.make_node("Identity", ["idx"], ["i"], name="use_mask"),
    helper.make_node("Relu", ["x"], ["c"], name="custom", domain="com.example"),
], [vi("x", F, [1, 1, 2, 2])],
   [vi("r", F, [None]), vi("f", TensorProto.INT64, [4, None]),
    vi("p", F, [1, 1, 2, 2]), vi("i", TensorProto.BOOL, [1, 1, 2, 2]),
    vi("c", F, [1, 1, 2, 2])],
   extra_opsets=[helper.make_opsetid("com.example", 1)], check=False)

# Rejected by ONNX's checker: an op the default domain does not have.
save("checker", [helper.make_node("NoSuchOp", ["x"], ["y"], name="bad")],
     [vi("x", F, [2])], [vi("y", F, [2])], check=False)

# A newer opset than libonnx knows: a warning, the checker is skipped.
save("newer_opset", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [vi("x", F, [2])], [vi("y", F, [2])], opset=99, check=False)

# A newer IR version than libonnx knows: a warning, the checker is skipped.
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                          "newer_ir", [vi("x", F, [2])], [vi("y", F, [2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 99
onnx.save(model, os.path.join(OUT, "newer_ir.onnx"))

# An output type without a shape (unknown rank, allowed by ONNX although
# this libonnx's checker wants one).
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                          "no_output_shape", [vi("x", F, [2])],
                          [helper.make_tensor_value_info("y", F, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.save(model, os.path.join(OUT, "no_output_shape.onnx"))

# Unsupported tensor types: a STRING input, external data.
save("string_input", [helper.make_node("Identity", ["s"], ["y"], name="id")],
     [vi("s", TensorProto.STRING, [1])], [vi("y", TensorProto.STRING, [1])])
ext = helper.make_tensor("w", F, [2], [1.0, 2.0])
ext.ClearField("float_data")
ext.data_location = TensorProto.EXTERNAL
ext.external_data.add(key="location", value="weights.bin")
with open(os.path.join(OUT, "weights.bin"), "wb") as f:
    f.write(np.array([1, 2], np.float32).tobytes())
save("external", [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
     [vi("x", F, [2])], [vi("y", F, [2])], [ext], check=False)

# Not a protobuf at all.
with open(os.path.join(OUT, "malformed.onnx"), "wb") as f:
    f.write(b"\x0a\xff\xff\xff\xff\x0fthis is not an ONNX model")

# Ops whose ONNX form the importer normalises: Resize with constant sizes
# (scales derived), ConvTranspose with output_shape (pads derived),
# ReduceSum-13 axes as an input and ReduceMean axes as an attribute, equal
# Split into slices, Range folded, variadic Mean into adds and a divide,
# Einsum into a batched matmul between reshapes.
save("new_ops", [
    helper.make_node("Resize", ["x", "", "", "sizes"], ["up"], name="resize",
                     mode="nearest", coordinate_transformation_mode="asymmetric",
                     nearest_mode="floor"),
    helper.make_node("ConvTranspose", ["x", "wt"], ["ct"], name="convt",
                     strides=[2, 2], output_shape=[8, 8]),
    helper.make_node("ReduceSum", ["x", "axes"], ["rs"], name="rsum", keepdims=0),
    helper.make_node("ReduceMean", ["x"], ["rm"], name="rmean", axes=[-1]),
    helper.make_node("Split", ["x"], ["s0", "s1"], name="split", axis=1),
    helper.make_node("Range", ["r0", "r1", "r2"], ["rg"], name="range"),
    helper.make_node("Mean", ["s0", "s1", "s0"], ["mn"], name="mean"),
    helper.make_node("Einsum", ["x", "x"], ["es"], name="einsum",
                     equation="abij,abjk->abik"),
], [vi("x", F, [1, 2, 4, 4])],
   [vi("up", F, None), vi("ct", F, None), vi("rs", F, None), vi("rm", F, None),
    vi("rg", TensorProto.INT64, None), vi("mn", F, None), vi("es", F, None)],
   [numpy_helper.from_array(np.array([1, 2, 8, 8], np.int64), "sizes"),
    numpy_helper.from_array(np.ones((2, 3, 3, 3), np.float32), "wt"),
    numpy_helper.from_array(np.array([2, 3], np.int64), "axes"),
    numpy_helper.from_array(np.array(1, np.int64), "r0"),
    numpy_helper.from_array(np.array(10, np.int64), "r1"),
    numpy_helper.from_array(np.array(3, np.int64), "r2")])
