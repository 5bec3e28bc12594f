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

// Speculative gathers (an If's branches computed whatever the run-time
// condition, then selected by a graph.where on it): each is checked only
// when its branch is taken. The then branch's gather (%g) asserts `ok or
// not %c`; the else branch's constant indices (out of range: no compile
// error, since the branch may never be taken) reach the select through
// another speculative op and assert `ok or %c` (not not %c).
// CHECK-LABEL: func.func @speculative
// CHECK-SAME: %[[X:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<2xi64>, %[[C:.*]]: tensor<i1>
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[RED:.*]] = linalg.generic {{.*}} ins(%[[I]] : tensor<2xi64>)
// CHECK: %[[OK:.*]] = tensor.extract %[[RED]][]
// CHECK: %[[COND:.*]] = tensor.extract %[[C]][]
// CHECK: %[[NOT:.*]] = arith.xori %[[COND]], %[[TRUE]] : i1
// CHECK: %[[PASS:.*]] = arith.ori %[[OK]], %[[NOT]] : i1
// CHECK: cf.assert %[[PASS]], "Gather: an index is outside [-3, 3)"
// CHECK: graph.gather %[[X]], %[[I]] {axis = 0 : i64, graph.speculative}
// CHECK: %[[K:.*]] = graph.constant dense<[0, 7]>
// CHECK: %[[RED2:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<2xi64>)
// CHECK: %[[OK2:.*]] = tensor.extract %[[RED2]][]
// CHECK: %[[COND2:.*]] = tensor.extract %[[C]][]
// CHECK: %[[NOT2:.*]] = arith.xori %[[COND2]], %{{.*}} : i1
// CHECK: %[[NOTNOT:.*]] = arith.xori %[[NOT2]], %{{.*}} : i1
// CHECK: %[[PASS2:.*]] = arith.ori %[[OK2]], %[[NOTNOT]] : i1
// CHECK: cf.assert %[[PASS2]], "Gather: an index is outside [-3, 3)"
// CHECK: graph.gather %[[X]], %[[K]] {axis = 0 : i64, graph.speculative}
func.func @speculative(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %c: tensor<i1>) -> tensor<2x4xf32> {
  %g = graph.gather %x, %i {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %k = graph.constant dense<[0, 7]> : tensor<2xi64>
  %h = graph.gather %x, %k {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %n = graph.neg %h {graph.speculative} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = graph.where %c, %g, %n : (tensor<i1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}

// -----

// Nested Ifs: the inner If's condition %d is computed in the outer then
// branch, after the gather; the check goes after it and asserts `ok or
// not (%c and %d)`. A speculative gather whose result is never selected
// (%u) and one with constant indices in range (%v) get no check.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: %{{.*}}: tensor<3x4xf32>, %{{.*}}: tensor<2xi64>, %[[C:.*]]: tensor<i1>
// CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 0 : i64, graph.speculative}
// CHECK: %[[D:.*]] = graph.less
// CHECK: %[[RED:.*]] = linalg.generic
// CHECK: %[[OK:.*]] = tensor.extract %[[RED]][]
// CHECK: %[[CV:.*]] = tensor.extract %[[C]][]
// CHECK: %[[DV:.*]] = tensor.extract %[[D]][]
// CHECK: %[[BOTH:.*]] = arith.andi %[[CV]], %[[DV]] : i1
// CHECK: %[[NOT:.*]] = arith.xori %[[BOTH]], %{{.*}} : i1
// CHECK: %[[PASS:.*]] = arith.ori %[[OK]], %[[NOT]] : i1
// CHECK: cf.assert %[[PASS]]
// CHECK-NOT: cf.assert
// CHECK: return
func.func @nested(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %c: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %g = graph.gather %x, %i {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %d = graph.less %a, %b {graph.speculative} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %u = graph.gather %x, %i {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %k = graph.constant dense<[0, 2]> : tensor<2xi64>
  %v = graph.gather %x, %k {axis = 0 : i64, graph.speculative} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %inner = graph.where %d, %g, %v {graph.speculative} : (tensor<i1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = graph.neg %y : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = graph.where %c, %inner, %s : (tensor<i1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %w : tensor<2x4xf32>
}
