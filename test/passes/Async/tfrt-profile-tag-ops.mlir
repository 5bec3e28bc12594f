// RUN: tfrt-opt %s -tfrt-profile-tag-ops -mlir-print-debuginfo | FileCheck %s
// RUN: tfrt-opt %s -tfrt-profile-tag-ops -tfrt-profile-tag-ops -mlir-print-debuginfo | FileCheck %s

// Graph ops (not constants) get their op type as the metadata of a fused
// location around their own; running the pass again changes nothing.
// CHECK-LABEL: func.func @main
// CHECK: graph.add {{.*}} loc(#[[ADD:loc[0-9]+]])
// CHECK: graph.relu {{.*}} loc(#[[RELU:loc[0-9]+]])
// CHECK: graph.constant {{.*}} loc(#[[CST:loc[0-9]+]])
// CHECK-DAG: #[[ADD]] = loc(fused<{tfrt.op = "add"}>[#{{loc[0-9]+}}])
// CHECK-DAG: #[[RELU]] = loc(fused<{tfrt.op = "relu"}>[#{{loc[0-9]+}}])
// CHECK-DAG: #[[CST]] = loc("two")
// CHECK-DAG: = loc("node_add")
// CHECK-DAG: = loc("node_relu")
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<f32>) {
  %s = graph.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("node_add")
  %r = graph.relu %s : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("node_relu")
  %two = graph.constant dense<2.0> : tensor<f32> loc("two")
  return %r, %two : tensor<2x4xf32>, tensor<f32>
}
