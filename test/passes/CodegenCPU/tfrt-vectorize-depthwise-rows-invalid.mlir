// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-depthwise=rows=0
// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-depthwise=rows=9

// expected-error-re @below {{tfrt-vectorize-depthwise: rows must be in [1, 8], got {{0|9}}{{$}}}}
func.func @f(%x: tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32> {
  return %x : tensor<1x2x2x16xf32>
}
