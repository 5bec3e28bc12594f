// A 24 x 64 x 64 MatMul: used by tfrt-compile-vector-unit.test (24 rows
// give different register tiles on AVX-512, AVX2, NEON and SSE).
func.func @main(%a: tensor<24x64xf32> {graph.name = "a"}, %b: tensor<64x64xf32> {graph.name = "b"}) -> (tensor<24x64xf32> {graph.name = "y"}) {
  %y = graph.matmul %a, %b : (tensor<24x64xf32>, tensor<64x64xf32>) -> tensor<24x64xf32>
  return %y : tensor<24x64xf32>
}
