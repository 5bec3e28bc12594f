// A two-input model used by the tool tests: y = relu(a + b) with a broadcast
// bias, and z = a * 2.
func.func @main(%a: tensor<?x4xf32> {graph.name = "a"}, %b: tensor<4xf32> {graph.name = "b"})
    -> (tensor<?x4xf32> {graph.name = "y"}, tensor<?x4xf32> {graph.name = "z"}) {
  %s = graph.add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %r = graph.relu %s : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %z = graph.mul %a, %two : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %r, %z : tensor<?x4xf32>, tensor<?x4xf32>
}
