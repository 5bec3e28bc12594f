// RUN: tfrt-opt %s -split-input-file -canonicalize | FileCheck %s

// Shape computations on constants fold away entirely.
// CHECK-LABEL: func.func @fold_shape_math
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<[2, 12]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @fold_shape_math(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %s = graph.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i0 = graph.constant dense<0> : tensor<1xi64>
  %d0 = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %b = graph.constant dense<1> : tensor<1xi64>
  %e = graph.constant dense<3> : tensor<1xi64>
  %rest = graph.slice %s, %b, %e, %i0, %b : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r0 = graph.gather %rest, %i0 {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %r1 = graph.gather %rest, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %p = graph.mul %r0, %r1 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %c = graph.concat %d0, %p {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

// Casts and views of constants fold; identities disappear.
// CHECK-LABEL: func.func @fold_views
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_views() -> tensor<1x2xf32> {
  %c = graph.constant dense<[1, 2]> : tensor<2xi32>
  %f = graph.cast %c {to = f32} : (tensor<2xi32>) -> tensor<2xf32>
  %a = graph.constant dense<0> : tensor<1xi64>
  %u = graph.unsqueeze %f, %a : (tensor<2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  %i = graph.identity %u : (tensor<1x2xf32>) -> tensor<1x2xf32>
  return %i : tensor<1x2xf32>
}

// -----

// Division by a zero constant does not fold.
// CHECK-LABEL: func.func @no_fold_div_zero
// CHECK: graph.div
func.func @no_fold_div_zero() -> tensor<1xi64> {
  %a = graph.constant dense<4> : tensor<1xi64>
  %z = graph.constant dense<0> : tensor<1xi64>
  %d = graph.div %a, %z : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %d : tensor<1xi64>
}
