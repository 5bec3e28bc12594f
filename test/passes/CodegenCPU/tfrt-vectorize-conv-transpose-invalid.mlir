// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-conv-transpose=lanes=0

// expected-error @below {{tfrt-vectorize-conv-transpose: lanes must be >= 1}}
func.func @f(%x: tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32> {
  return %x : tensor<1x2x2x16xf32>
}
