// A row softmax over 40 x 6625 (rec's classifier output): its exp runs in parallel chunks.
func.func @main(%x: tensor<1x40x6625xf32> {graph.name = "x"}) -> (tensor<1x40x6625xf32> {graph.name = "y"}) {
  %y = graph.softmax %x {axis = -1 : i64} : (tensor<1x40x6625xf32>) -> tensor<1x40x6625xf32>
  return %y : tensor<1x40x6625xf32>
}
