// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-depthwise=lanes=0

// expected-error @below {{tfrt-vectorize-depthwise: lanes must be >= 1}}
func.func @f(%x: tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32> {
  return %x : tensor<1x2x2x16xf32>
}
