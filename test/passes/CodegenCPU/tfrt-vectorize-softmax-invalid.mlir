// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-softmax=lanes=0
// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-softmax=unroll=0
// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-softmax=max-chunks=0
// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-softmax=min-chunk-elements=-1

// An option out of range is an error that names the option and the value,
// checked before any softmax is looked at.

// expected-error-re @below {{tfrt-vectorize-softmax: {{(lanes|unroll|max-chunks) must be >= 1, got 0|min-chunk-elements must be >= 0, got -1}}{{$}}}}
func.func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  return %x : tensor<8x32xf32>
}
