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

// -----

// Exact unary ops and float-to-bool casts fold (a trip count computed from
// Range's operands: ceil((limit - start) / delta), clamped at 0).
// CHECK-LABEL: func.func @fold_exact_unary
// CHECK-DAG: graph.constant dense<[2.000000e+00, -1.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[1.000000e+00, -2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[1.500000e+00, 0.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[1.500000e+00, 1.500000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[3, 0, 0]> : tensor<3xi64>
// CHECK-DAG: graph.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-NOT: graph.ceil
// CHECK-NOT: graph.floor
// CHECK-NOT: graph.relu
// CHECK-NOT: graph.abs
// CHECK-NOT: graph.cast
func.func @fold_exact_unary() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xi1>) {
  %x = graph.constant dense<[1.5, -1.5, -0.0]> : tensor<3xf32>
  %c = graph.ceil %x : (tensor<3xf32>) -> tensor<3xf32>
  %f = graph.floor %x : (tensor<3xf32>) -> tensor<3xf32>
  %r = graph.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %a = graph.abs %x : (tensor<3xf32>) -> tensor<3xf32>
  %i = graph.constant dense<[3, -4, 0]> : tensor<3xi64>
  %ri = graph.relu %i : (tensor<3xi64>) -> tensor<3xi64>
  %b = graph.cast %x {to = i1} : (tensor<3xf32>) -> tensor<3xi1>
  return %c, %f, %r, %a, %ri, %b : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi64>, tensor<3xi1>
}
