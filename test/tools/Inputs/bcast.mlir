// Inputs whose shapes, once fixed, do not broadcast (used by the error tests).
func.func @main(%a: tensor<?xf32> {graph.name = "a"}, %b: tensor<?xf32> {graph.name = "b"}) -> tensor<?xf32> {
  %s = graph.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
