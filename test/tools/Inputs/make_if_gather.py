"""Writes if_gather.onnx for tfrt-run-index-checks.test: an If on a run-time
condition whose then branch gathers rows of x at run-time indices and
whose else branch slices the first two rows. The importer computes both
branches and selects, so the gather also runs when its branch is not
taken."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
then_g = helper.make_graph(
    [helper.make_node("Gather", ["x", "i"], ["t"], axis=0, name="pick")],
    "then", [], [helper.make_tensor_value_info("t", F, [2, 4])])
else_g = helper.make_graph(
    [helper.make_node("Slice", ["x", "s0", "s1"], ["e"], name="first_rows")],
    "else", [], [helper.make_tensor_value_info("e", F, [2, 4])],
    initializer=[numpy_helper.from_array(np.array([0], np.int64), "s0"),
                 numpy_helper.from_array(np.array([2], np.int64), "s1")])
graph = helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                      else_branch=else_g, name="choose")],
    "if_gather",
    [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("x", F, [3, 4]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("y", F, [2, 4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          sys.argv[1])
