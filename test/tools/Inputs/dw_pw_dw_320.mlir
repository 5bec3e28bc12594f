func.func @main(%x: tensor<1x16x320x320xf32> {graph.name = "x"}) -> (tensor<1x32x160x160xf32> {graph.name = "y"}) {
  %wd = graph.constant dense<0.125> : tensor<16x1x3x3xf32>
  %bd = graph.constant dense<0.5> : tensor<16xf32>
  %wp = graph.constant dense<0.25> : tensor<32x16x1x1xf32>
  %bp = graph.constant dense<0.75> : tensor<32xf32>
  %w2 = graph.constant dense<0.0625> : tensor<32x1x3x3xf32>
  %d = graph.conv %x, %wd, %bd {dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x320x320xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x320x320xf32>
  %r = graph.relu %d : (tensor<1x16x320x320xf32>) -> tensor<1x16x320x320xf32>
  %p = graph.conv %r, %wp, %bp {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x320x320xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x320x320xf32>
  %q = graph.relu %p : (tensor<1x32x320x320xf32>) -> tensor<1x32x320x320xf32>
  %y = graph.conv %q, %w2 {dilations = array<i64: 1, 1>, group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x320x320xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x160x160xf32>
  return %y : tensor<1x32x160x160xf32>
}
