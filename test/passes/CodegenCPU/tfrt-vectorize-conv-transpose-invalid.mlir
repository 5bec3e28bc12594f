// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-vectorize-conv-transpose=lanes=0
// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-vectorize-conv-transpose=max-accumulators=0

// expected-error @below {{tfrt-vectorize-conv-transpose: lanes and max-accumulators must be >= 1}}
func.func @f(%x: tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32> {
  return %x : tensor<1x2x2x16xf32>
}
