func.func @main(%x: tensor<1x16x8x32xf32> {graph.name = "x"}, %w: tensor<8x16x3x3xf32> {graph.name = "w"}) -> (tensor<1x8x8x32xf32> {graph.name = "y"}) {
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x32xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x8x32xf32>
  return %y : tensor<1x8x8x32xf32>
}
