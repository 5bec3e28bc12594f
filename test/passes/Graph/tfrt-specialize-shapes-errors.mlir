// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-specialize-shapes="input-shapes=x=3x4"

// A fixed dimension that disagrees with the requested shape.
// expected-error @below {{input 'x': shape 3x4 does not match the model's [2,?]}}
func.func @main(%x: tensor<2x?xf32> {graph.name = "x"}) -> tensor<2x?xf32> {
  return %x : tensor<2x?xf32>
}
