// RUN: tfrt-opt %s -tfrt-flush-denormals | FileCheck %s

// Subnormal elements (below 2^-126 = 1.17549435e-38 in magnitude, not zero)
// become zeros of their sign; normal values, the smallest normal and zeros
// stay.
// CHECK-LABEL: func.func @weights
// CHECK: graph.constant dense<[0.000000e+00, -0.000000e+00, 5.000000e-01, 1.17549435E-38, 0.000000e+00]> : tensor<5xf32>
// A splat of a subnormal value.
// CHECK: graph.constant dense<0.000000e+00> : tensor<2x2xf32>
// Constants without subnormals, and other element types, are untouched.
// CHECK: graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: graph.constant dense<[1, 2]> : tensor<2xi64>
func.func @weights() -> (tensor<5xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xi64>) {
  %a = graph.constant dense<[1.0e-40, -1.0e-44, 0.5, 1.17549435e-38, 0.0]> : tensor<5xf32>
  %b = graph.constant dense<3.0e-39> : tensor<2x2xf32>
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = graph.constant dense<[1, 2]> : tensor<2xi64>
  return %a, %b, %c, %d : tensor<5xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xi64>
}
