// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-split-matmul-columns=lanes=0
// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-split-matmul-columns=tile=0

// expected-error @below {{tfrt-split-matmul-columns: lanes and tile must be >= 1}}
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x40xf32>, %c: tensor<8x40xf32>) -> tensor<8x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x40xf32>) outs(%c : tensor<8x40xf32>) -> tensor<8x40xf32>
  return %r : tensor<8x40xf32>
}
