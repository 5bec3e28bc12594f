// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-specialize-shapes="require-static=1"

// An input left symbolic is reported with the flag that fixes it.
// expected-error @below {{input 'x' has unknown dimensions [?,4]; fix them with --input-shape x=D0xD1x...}}
func.func @main(%x: tensor<?x4xf32> {graph.name = "x"}) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// A reshape whose shape is a run-time value cannot become static.
func.func @main(%x: tensor<2x4xf32> {graph.name = "x"}, %s: tensor<2xi64> {graph.name = "s"}) -> tensor<?x?xf32> {
  // expected-error @below {{could not infer a static shape for the result of 'graph.reshape' (got [?,?])}}
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
