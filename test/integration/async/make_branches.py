"""Writes an ONNX model with independent branches for the async tests and
benchmarks: input x [rows, width] feeds `branches` chains of `depth`
MatMul + Add + Tanh layers each (their own weights); the chains' results are
summed into y. Weights are deterministic (NumPy seed 7), scaled so that tanh
stays in its non-saturated range.

usage: make_branches.py OUT.onnx [--rows R] [--width W] [--depth D]
                        [--branches B]
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--rows", type=int, default=64)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--branches", type=int, default=2)
    a = p.parse_args()
    rng = np.random.default_rng(7)
    nodes, inits, tails = [], [], []
    for b in range(a.branches):
        prev = "x"
        for d in range(a.depth):
            w = f"w{b}_{d}"
            bias = f"b{b}_{d}"
            inits.append(numpy_helper.from_array(
                (rng.standard_normal((a.width, a.width)) / np.sqrt(a.width))
                .astype(np.float32), w))
            inits.append(numpy_helper.from_array(
                (0.1 * rng.standard_normal(a.width)).astype(np.float32), bias))
            nodes += [
                helper.make_node("MatMul", [prev, w], [f"m{b}_{d}"]),
                helper.make_node("Add", [f"m{b}_{d}", bias], [f"a{b}_{d}"]),
                helper.make_node("Tanh", [f"a{b}_{d}"], [f"t{b}_{d}"]),
            ]
            prev = f"t{b}_{d}"
        tails.append(prev)
    acc = tails[0]
    for i, t in enumerate(tails[1:]):
        out = "y" if i == len(tails) - 2 else f"s{i}"
        nodes.append(helper.make_node("Add", [acc, t], [out]))
        acc = out
    if len(tails) == 1:
        nodes.append(helper.make_node("Identity", [acc], ["y"]))
    graph = helper.make_graph(
        nodes, "branches",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [a.rows, a.width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [a.rows, a.width])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, a.out)


if __name__ == "__main__":
    main()
