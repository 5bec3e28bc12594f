"""Writes a small ONNX-backend-style test tree for run-synthetic.test:
DIR/node/<test>/{model.onnx,test_data_set_N/{input,output}_K.pb}.

The tests check that the conformance runner fails what must fail (wrong
expected values, wrong shapes, models it cannot compile) with the right
reason, and passes the rest, including a test with two data sets and one
whose shape input is specialised."""

import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as TP


def write(root, name, model, sets):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for n, (ins, outs) in enumerate(sets):
        s = os.path.join(d, "test_data_set_%d" % n)
        os.makedirs(s, exist_ok=True)
        for prefix, arrays in (("input", ins), ("output", outs)):
            for k, a in enumerate(arrays):
                with open(os.path.join(s, "%s_%d.pb" % (prefix, k)), "wb") as fh:
                    fh.write(numpy_helper.from_array(a).SerializeToString())


def model(nodes, inputs, outputs, opset=13, domains=()):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 8
    return m


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def main(root):
    node = os.path.join(root, "node")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    relu = model([helper.make_node("Relu", ["x"], ["y"])],
                 [vi("x", TP.FLOAT, [3, 4])], [vi("y", TP.FLOAT, [3, 4])])
    write(node, "test_relu_ok", relu, [([x], [np.maximum(x, 0)])])
    x2 = rng.standard_normal((3, 4)).astype(np.float32)
    write(node, "test_relu_two_sets", relu,
          [([x], [np.maximum(x, 0)]), ([x2], [np.maximum(x2, 0)])])
    # The second data set's expected value is off by 0.5 in one element.
    bad = np.maximum(x2, 0)
    bad[1, 2] += 0.5
    write(node, "test_relu_wrong_value", relu,
          [([x], [np.maximum(x, 0)]), ([x2], [bad])])
    write(node, "test_relu_wrong_shape", relu, [([x], [np.maximum(x, 0).reshape(4, 3)])])
    # Within rtol 1e-3: passes.
    write(node, "test_relu_within_tolerance", relu, [([x], [np.maximum(x, 0) * (1 + 5e-4)])])
    # An op of a domain nobody supports.
    custom = model([helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")],
                   [vi("x", TP.FLOAT, [3, 4])], [vi("y", TP.FLOAT, [3, 4])],
                   domains=["com.example"])
    write(node, "test_custom_op", custom, [([x], [x])])
    # Reshape whose shape is a graph input: specialised.
    reshape = model([helper.make_node("Reshape", ["x", "shape"], ["y"])],
                    [vi("x", TP.FLOAT, [3, 4]), vi("shape", TP.INT64, [2])],
                    [vi("y", TP.FLOAT, [2, 6])])
    write(node, "test_reshape_shape_input", reshape,
          [([x, np.array([2, 6], np.int64)], [x.reshape(2, 6)])])
    # A data set with one input file too few.
    write(node, "test_relu_missing_input", relu, [([], [np.maximum(x, 0)])])


if __name__ == "__main__":
    main(sys.argv[1])
