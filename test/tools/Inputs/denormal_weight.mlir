// A model whose weight vector holds subnormal floats (below 2^-126): used by
// tfrt-compile-flush-denormals.test.
func.func @main(%a: tensor<4xf32> {graph.name = "a"}) -> (tensor<4xf32> {graph.name = "y"}) {
  %w = graph.constant dense<[1.0e-40, -2.0e-41, 5.0e-01, 0.0]> : tensor<4xf32>
  %y = graph.mul %a, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
