// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-matmul=prefetch-ahead=-1
// RUN: tfrt-opt %s -verify-diagnostics -tfrt-vectorize-matmul=prefetch-k-ahead=-16

// A negative prefetch distance is an error that names the option and the
// value, checked before any matmul is looked at.

// expected-error-re @below {{tfrt-vectorize-matmul: prefetch{{(-k)?}}-ahead must be >= 0 (0: no prefetch), got {{-1|-16}}{{$}}}}
func.func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  return %x : tensor<8x32xf32>
}
