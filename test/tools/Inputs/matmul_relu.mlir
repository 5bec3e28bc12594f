// A MatMul followed by a ReLU: used by tfrt-compile-fuse-epilogues.test.
func.func @main(%a: tensor<64x96xf32> {graph.name = "a"}, %b: tensor<96x128xf32> {graph.name = "b"}) -> (tensor<64x128xf32> {graph.name = "y"}) {
  %m = graph.matmul %a, %b : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  %y = graph.relu %m : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
