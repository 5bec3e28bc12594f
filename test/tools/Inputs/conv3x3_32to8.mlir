func.func @main(%x: tensor<1x32x8x64xf32> {graph.name = "x"}) -> (tensor<1x8x8x64xf32> {graph.name = "y"}) {
  %w = graph.constant dense<0.25> : tensor<8x32x3x3xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x32x8x64xf32>, tensor<8x32x3x3xf32>) -> tensor<1x8x8x64xf32>
  return %y : tensor<1x8x8x64xf32>
}
