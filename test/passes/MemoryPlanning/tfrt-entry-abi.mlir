// RUN: tfrt-opt %s -split-input-file -tfrt-entry-abi=symbol=m_compute | FileCheck %s

// The tensor entry becomes a function over caller buffers: inputs are read
// through restrict to_tensor, results materialize into the output buffers.
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: (%[[X:.*]]: memref<4xf32> {graph.name = "x", tfrt.io = "input"},
// CHECK-SAME: %[[Y:.*]]: memref<4xf32> {graph.name = "y", tfrt.io = "output"})
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[X]] restrict
// CHECK: %[[R:.*]] = graph.relu %[[T]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[Y]]
// CHECK: return
func.func @main(%x: tensor<4xf32> {graph.name = "x"}) -> (tensor<4xf32> {graph.name = "y"}) {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A result without elements has nothing to write: the function only
// returns, and the return stays last.
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: (%{{.*}}: memref<4xf32> {{.*}}, %{{.*}}: memref<0xi8> {graph.name = "y", tfrt.io = "output"})
// CHECK-NOT: materialize_in_destination
// CHECK: return
// CHECK-NEXT: }
func.func @main(%x: tensor<4xf32> {graph.name = "x"}) -> (tensor<0x3xf32> {graph.name = "y"}) {
  %e = tensor.empty() : tensor<0x3xf32>
  return %e : tensor<0x3xf32>
}
