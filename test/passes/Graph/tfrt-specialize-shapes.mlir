// RUN: tfrt-opt %s -split-input-file -tfrt-specialize-shapes="input-shapes=x=2x4 require-static=1" | FileCheck %s

// A Shape -> Slice -> Concat subgraph folds to a constant once the input
// shape is fixed, and the reshape becomes static.
// CHECK-LABEL: func.func @shape_subgraph
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32> {graph.name = "x"}) -> tensor<8xf32>
// CHECK-NOT: graph.shape
// CHECK-NOT: graph.concat
// CHECK: %[[C:.*]] = graph.constant dense<8> : tensor<1xi64>
// CHECK: %[[R:.*]] = graph.reshape %[[X]], %[[C]]
// CHECK-SAME: -> tensor<8xf32>
// CHECK: return %[[R]]
func.func @shape_subgraph(%x: tensor<?x4xf32> {graph.name = "x"}) -> tensor<*xf32> {
  %s = graph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  %z = graph.constant dense<0> : tensor<1xi64>
  %two = graph.constant dense<2> : tensor<1xi64>
  %one = graph.constant dense<1> : tensor<1xi64>
  %sl = graph.slice %s, %z, %two, %z, %one : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  %p = graph.constant dense<1> : tensor<1xi64>
  %cc = graph.concat %sl, %p {axis = 0 : i64} : (tensor<?xi64>, tensor<1xi64>) -> tensor<?xi64>
  %g = graph.constant dense<0> : tensor<i64>
  %n0 = graph.gather %cc, %g {axis = 0 : i64} : (tensor<?xi64>, tensor<i64>) -> tensor<i64>
  %n1 = graph.mul %n0, %n0 : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %u = graph.unsqueeze %n1, %z : (tensor<i64>, tensor<1xi64>) -> tensor<*xi64>
  %m = graph.constant dense<2> : tensor<1xi64>
  %t = graph.mul %u, %m : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %r = graph.reshape %x, %t {allowzero = false} : (tensor<?x4xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Shapes flow through every op kind; the function type follows.
// CHECK-LABEL: func.func @propagate
// CHECK-SAME: -> tensor<2x4xf32>
// CHECK: graph.relu %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
func.func @propagate(%x: tensor<?x?xf32> {graph.name = "x"}) -> tensor<*xf32> {
  %r = graph.relu %x : (tensor<?x?xf32>) -> tensor<*xf32>
  %b = graph.constant dense<1.0> : tensor<4xf32>
  %a = graph.add %r, %b : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %a : tensor<*xf32>
}
