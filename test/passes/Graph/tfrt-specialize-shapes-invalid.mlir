// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-specialize-shapes="input-shapes=y=2x4"

// An unknown input name lists the model's inputs.
// expected-error @below {{unknown input 'y' in input shape; the model's inputs are: x}}
func.func @main(%x: tensor<?x4xf32> {graph.name = "x"}) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
