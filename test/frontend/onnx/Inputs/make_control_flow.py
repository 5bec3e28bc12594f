"""Writes the ONNX models of control-flow.test and sequences.test: If, Loop
and Scan subgraphs, and sequences, all resolved at import.

Usage: make_control_flow.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL


def save(name, nodes, inputs, outputs, inits=(), opset=13, check=True):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="tfrt-frontend-tests")
    model.ir_version = 7
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, value):
    return numpy_helper.from_array(np.array(value), name)


def branch(name, op, out):
    # Reads x of the enclosing graph.
    return helper.make_graph([helper.make_node(op, ["x"], [out])], name, [],
                             [vi(out, F, [2, 3])])


def if_node(out="y"):
    return helper.make_node("If", ["c"], [out],
                            then_branch=branch("then", "Relu", "t"),
                            else_branch=branch("else", "Neg", "e"))


# If with a constant condition: only the then branch.
save("if_const", [if_node()], [vi("x", F, [2, 3])], [vi("y", F, [2, 3])],
     [numpy_helper.from_array(np.array(True), "c")])
# If with a run-time condition: both branches and a select.
save("if_select", [if_node()], [vi("x", F, [2, 3]), vi("c", B, [])],
     [vi("y", F, [2, 3])])

# Loop: 3 iterations (constant M), y += x[i], the running sums as scan output.
body = helper.make_graph(
    [helper.make_node("Identity", ["cin"], ["cout"]),
     helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
     helper.make_node("Gather", ["x", "i"], ["xi"]),
     helper.make_node("Add", ["yin", "xi"], ["yout"]),
     helper.make_node("Identity", ["yout"], ["scan"])],
    "body", [vi("i", I64, []), vi("cin", B, []), vi("yin", F, [2])],
    [vi("cout", B, []), vi("yout", F, [2]), vi("scan", F, [2])],
    [const("zero", np.array([0], dtype=np.int64))])
save("loop", [helper.make_node("Loop", ["M", "", "y0"], ["y", "sums"], body=body)],
     [vi("x", F, [3, 2]), vi("y0", F, [2])], [vi("y", F, [2]), vi("sums", F, [3, 2])],
     [const("M", np.array(3, dtype=np.int64))])
# ... with a run-time trip count: not unrolled.
save("loop_runtime", [helper.make_node("Loop", ["M", "", "y0"], ["y", "sums"], body=body)],
     [vi("x", F, [3, 2]), vi("y0", F, [2]), vi("M", I64, [])],
     [vi("y", F, [2]), vi("sums", F, [3, 2])])

# Scan (opset 9+): running sum over axis 1 of x, backwards, stacked on axis 1.
sbody = helper.make_graph(
    [helper.make_node("Add", ["s", "e"], ["s2"]),
     helper.make_node("Identity", ["s2"], ["o"])],
    "sbody", [vi("s", F, [2]), vi("e", F, [2])], [vi("s2", F, [2]), vi("o", F, [2])])
save("scan", [helper.make_node("Scan", ["s0", "x"], ["s", "o"], body=sbody,
                               num_scan_inputs=1, scan_input_axes=[1],
                               scan_input_directions=[1], scan_output_axes=[1])],
     [vi("s0", F, [2]), vi("x", F, [2, 4])], [vi("s", F, [2]), vi("o", F, [2, 4])])

# Sequences: split, insert, erase, at, length, concat (stack).
save("sequences", [
    helper.make_node("SplitToSequence", ["x"], ["parts"], axis=1, keepdims=0),
    helper.make_node("SequenceInsert", ["parts", "z", "p0"], ["s1"]),
    helper.make_node("SequenceErase", ["s1"], ["s2"]),
    helper.make_node("SequenceAt", ["s2", "pm1"], ["last"]),
    helper.make_node("SequenceLength", ["s2"], ["len"]),
    helper.make_node("ConcatFromSequence", ["s2"], ["stacked"], axis=-1, new_axis=1),
], [vi("x", F, [2, 3]), vi("z", F, [2])],
    [vi("last", F, [2]), vi("len", I64, []), vi("stacked", F, [2, 3])],
    [const("p0", np.array(0, dtype=np.int64)), const("pm1", np.array(-1, dtype=np.int64))],
    opset=12)
# A sequence-typed graph input.
save("sequence_input", [helper.make_node("SequenceLength", ["s"], ["n"])],
     [helper.make_tensor_sequence_value_info("s", F, [2])], [vi("n", I64, [])],
     opset=12)
# If with a run-time condition and branches of different shapes.
save("if_mismatch", [helper.make_node(
    "If", ["c"], ["y"], then_branch=branch("then", "Relu", "t"),
    else_branch=helper.make_graph([helper.make_node("Transpose", ["x"], ["e"])],
                                  "else", [], [vi("e", F, [3, 2])]))],
     [vi("x", F, [2, 3]), vi("c", B, [])], [vi("y", F, None)], check=False)
# Loop whose body computes its condition from data (an early exit).
ebody = helper.make_graph(
    [helper.make_node("ReduceSum", ["yin"], ["sum"], keepdims=0),
     helper.make_node("Less", ["sum", "ten"], ["cout"]),
     helper.make_node("Add", ["yin", "yin"], ["yout"])],
    "ebody", [vi("i", I64, []), vi("cin", B, []), vi("yin", F, [2])],
    [vi("cout", B, []), vi("yout", F, [2])],
    [const("ten", np.array(10, dtype=np.float32))])
save("loop_early_exit", [helper.make_node("Loop", ["M", "go", "y0"], ["y"], body=ebody)],
     [vi("y0", F, [2])], [vi("y", F, [2])],
     [const("M", np.array(5, dtype=np.int64)), const("go", np.array(True))])
# ... without the input cond, a for loop: the body's condition is ignored.
save("loop_for", [helper.make_node("Loop", ["M", "", "y0"], ["y"], body=ebody)],
     [vi("y0", F, [2])], [vi("y", F, [2])],
     [const("M", np.array(3, dtype=np.int64))])
# A while loop whose condition depends on the iteration number only, with an
# If on the iteration number inside: both resolved at compile time.
wbody = helper.make_graph(
    [helper.make_node("Add", ["i", "one"], ["next"]),
     helper.make_node("Less", ["next", "three"], ["cout"]),
     helper.make_node("Less", ["i", "one"], ["first"]),
     helper.make_node("If", ["first"], ["yout"],
                      then_branch=helper.make_graph(
                          [helper.make_node("Add", ["yin", "yin"], ["t"])],
                          "then", [], [vi("t", F, [2])]),
                      else_branch=helper.make_graph(
                          [helper.make_node("Mul", ["yin", "yin"], ["e"])],
                          "else", [], [vi("e", F, [2])]))],
    "wbody", [vi("i", I64, []), vi("cin", B, []), vi("yin", F, [2])],
    [vi("cout", B, []), vi("yout", F, [2])],
    [const("one", np.array(1, dtype=np.int64)),
     const("three", np.array(3, dtype=np.int64))])
save("loop_while", [helper.make_node("Loop", ["", "go", "y0"], ["y"], body=wbody)],
     [vi("y0", F, [2])], [vi("y", F, [2])], [const("go", np.array(True))])
