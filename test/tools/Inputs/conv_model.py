"""Writes a small convolution model for the --profile tests: x [1, 8, 16, 16]
-> Conv 3x3 (16 channels, pads 1) + Relu -> Conv 1x1 (8 channels) -> y.
Weights are deterministic (NumPy seed 3).

usage: conv_model.py OUT.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((16, 8, 3, 3)) / 8).astype(np.float32)
    b1 = (rng.standard_normal(16) / 8).astype(np.float32)
    w2 = (rng.standard_normal((8, 16, 1, 1)) / 4).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv3x3",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu"),
        helper.make_node("Conv", ["r1", "w2"], ["y"], name="conv1x1",
                         kernel_shape=[1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16, 16])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
