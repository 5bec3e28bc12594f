// An op the graph dialect does not have (used by the error tests).
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.nope %x : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
