// RUN: tfrt-opt %s -split-input-file -tfrt-entry-abi=symbol=m_compute | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-entry-abi=symbol=m_compute \
// RUN:   -eliminate-empty-tensors -one-shot-bufferize -canonicalize | FileCheck %s --check-prefix=BUF

// A result that collapses (or expands) another tensor: that tensor is
// materialised into the inverse reshape of the output buffer, so its
// producer writes the caller's buffer and no copy is left.
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<2x8xf32> {graph.name = "y", tfrt.io = "output"})
// CHECK: %[[E:.*]] = memref.expand_shape %[[Y]] {{\[\[}}0], [1, 2]] output_shape [2, 4, 2] : memref<2x8xf32> into memref<2x4x2xf32>
// CHECK: %[[C:.*]] = memref.collapse_shape %[[E]] {{\[\[}}0, 1], [2]] : memref<2x4x2xf32> into memref<8x2xf32>
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: bufferization.materialize_in_destination %[[G]] in restrict writable %[[C]]
// BUF-LABEL: func.func @m_compute
// BUF-NOT: memref.copy
// BUF-NOT: memref.alloc
// BUF: linalg.generic
// BUF-NOT: memref.copy
// BUF: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x2xf32> {graph.name = "x"}) -> (tensor<2x8xf32> {graph.name = "y"}) {
  %e = tensor.empty() : tensor<8x2xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x2xf32>) outs(%e : tensor<8x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<8x2xf32>
  %s = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 2] : tensor<8x2xf32> into tensor<2x4x2xf32>
  %c = tensor.collapse_shape %s [[0], [1, 2]] : tensor<2x4x2xf32> into tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// -----

// A reshaped input is copied once, into the reshaped output buffer.
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: (%[[X:.*]]: memref<2x4x2xf32> {{.*}}, %[[Y:.*]]: memref<2x8xf32>
// CHECK: %[[E:.*]] = memref.expand_shape %[[Y]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[X]] restrict
// CHECK: bufferization.materialize_in_destination %[[T]] in restrict writable %[[E]]
// BUF-LABEL: func.func @m_compute
// BUF-SAME: (%[[X:.*]]: memref<2x4x2xf32> {{.*}}, %[[Y:.*]]: memref<2x8xf32>
// BUF: %[[E:.*]] = memref.expand_shape %[[Y]]
// BUF-NEXT: memref.copy %[[X]], %[[E]]
// BUF-NEXT: return
func.func @main(%x: tensor<2x4x2xf32> {graph.name = "x"}) -> (tensor<2x8xf32> {graph.name = "y"}) {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x4x2xf32> into tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}
