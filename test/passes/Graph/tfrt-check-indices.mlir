// RUN: tfrt-opt %s -split-input-file -tfrt-check-indices | FileCheck %s

// Run-time indices: a reduction ANDs -d <= x < d over them into a 0-d i1,
// and a cf.assert names the node and the range; the gather stays as it was.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[OK:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[I]] : tensor<2xi64>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[V:.*]]: i64, %[[ACC:.*]]: i1):
// CHECK: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %[[V]]
// CHECK: %[[HIGH:.*]] = arith.cmpi slt, %[[V]], %[[C3]] : i64
// CHECK: %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: %[[AND:.*]] = arith.andi %[[ACC]], %[[IN]] : i1
// CHECK: linalg.yield %[[AND]] : i1
// CHECK: %[[B:.*]] = tensor.extract %[[OK]][] : tensor<i1>
// CHECK: cf.assert %[[B]], "node 'g' (Gather): an index is outside [-3, 3)"
// CHECK: graph.gather %[[X]], %[[I]]
func.func @gather(%x: tensor<3x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("g")
  return %g : tensor<2x4xf32>
}

// -----

// GatherND: each component of an index tuple against its own dimension
// (the last loop index selects the bound); a negative axis of
// GatherElements counts from the end.
// CHECK-LABEL: func.func @nd_and_elements
// CHECK: linalg.index 1 : index
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: cf.assert %{{.*}}, "GatherND: an index tuple is outside the data dimensions [3, 4] (component k must lie in [-d_k, d_k))"
// CHECK: graph.gather_nd
// CHECK: cf.assert %{{.*}}, "GatherElements: an index is outside [-5, 5)"
// CHECK: graph.gather_elements
func.func @nd_and_elements(%x: tensor<3x4x5xf32>, %i: tensor<6x2xi32>, %j: tensor<3x4x2xi64>) -> (tensor<6x5xf32>, tensor<3x4x2xf32>) {
  %g = graph.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<3x4x5xf32>, tensor<6x2xi32>) -> tensor<6x5xf32>
  %e = graph.gather_elements %x, %j {axis = -1 : i64} : (tensor<3x4x5xf32>, tensor<3x4x2xi64>) -> tensor<3x4x2xf32>
  return %g, %e : tensor<6x5xf32>, tensor<3x4x2xf32>
}

// -----

// Scatters: the indices address the data they update.
// CHECK-LABEL: func.func @scatters
// CHECK: cf.assert %{{.*}}, "ScatterElements: an index is outside [-4, 4)"
// CHECK: graph.scatter_elements
// CHECK: cf.assert %{{.*}}, "ScatterND: an index tuple is outside the data dimensions [3] (component k must lie in [-d_k, d_k))"
// CHECK: graph.scatter_nd
func.func @scatters(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>, %k: tensor<2x1xi64>, %v: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %s = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %t = graph.scatter_nd %x, %k, %v {reduction = "none"} : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %s, %t : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Constant indices in range need no run-time check.
// CHECK-LABEL: func.func @constant_in_range
// CHECK-NOT: cf.assert
// CHECK-NOT: linalg.generic
// CHECK: graph.gather
func.func @constant_in_range(%x: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %i = graph.constant dense<[-3, 2]> : tensor<2xi64>
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

// A speculative gather (an If branch computed whatever the run-time
// condition) gets no check, nor its constant indices an error.
// CHECK-LABEL: func.func @speculative
// CHECK-NOT: cf.assert
// CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 0 : i64, graph.speculative}
// CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 0 : i64, graph.speculative}
func.func @speculative(%x: tensor<3x4xf32>, %i: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %g = graph.gather %x, %i {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %c = graph.constant dense<[0, 7]> : tensor<2xi64>
  %h = graph.gather %x, %c {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %g, %h : tensor<2x4xf32>, tensor<2x4xf32>
}
