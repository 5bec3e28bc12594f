// RUN: tfrt-opt %s -split-input-file -tfrt-outputs-in-place | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-outputs-in-place -one-shot-bufferize | FileCheck %s --check-prefix=BUF

#id = affine_map<(d0) -> (d0)>

// A result's producer chain (fill, then an elementwise op on it) starts from
// the caller's buffer instead of its tensor.empty; bufferization then writes
// the output in place and allocates nothing (what it leaves is a copy of the
// buffer onto itself, which canonicalization erases).
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%{{[a-z0-9]+}}: memref<8xf32> {{.*}}, %[[Y:[a-z0-9]+]]: memref<8xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}}) outs(%[[T]] : tensor<8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<8xf32>)
// CHECK: bufferization.materialize_in_destination %[[R]] in writable %[[Y]]
// BUF-LABEL: func.func @chain
// BUF-NOT: memref.alloc
// BUF: linalg.fill {{.*}} outs(%arg1 : memref<8xf32>)
// BUF: linalg.generic {{.*}} outs(%arg1 : memref<8xf32>)
// BUF-NOT: memref.alloc
// BUF: return
func.func @chain(%x: memref<8xf32> {tfrt.io = "input"}, %y: memref<8xf32> {tfrt.io = "output"}) {
  %cst = arith.constant 1.0 : f32
  %t = bufferization.to_tensor %x restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %y : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Through an scf.forall's shared output (parallel chunks) and a concat: the
// producers of both halves write their slices of the caller's buffer. The
// second half's slice needs the first insert's result, which is moved up to
// the second producer.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<8xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[T]][0] [4] [1]
// CHECK: %[[A:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[S0]])
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[T]][0] [4] [1]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[I0]][4] [4] [1]
// CHECK: %[[B:.*]] = linalg.fill ins(%{{.*}}) outs(%[[S1]] : tensor<4xf32>)
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][4] [4] [1]
// CHECK: bufferization.materialize_in_destination %[[I1]] in writable %[[Y]]
// (Upstream eliminate-empty-tensors leaves one buffer of 8 here, then
// copied into the caller's; without either pass there are three.)
// BUF-LABEL: func.func @concat
// BUF-NOT: memref.alloc
// BUF: return
func.func @concat(%x: memref<4xf32> {tfrt.io = "input"}, %y: memref<8xf32> {tfrt.io = "output"}) {
  %cst = arith.constant 2.0 : f32
  %t = bufferization.to_tensor %x restrict : memref<4xf32> to tensor<4xf32>
  %e0 = tensor.empty() : tensor<4xf32>
  %a = scf.forall (%i) in (2) shared_outs(%o = %e0) -> (tensor<4xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %in = tensor.extract_slice %t[%off] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %out = tensor.extract_slice %o[%off] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %c = linalg.copy ins(%in : tensor<2xf32>) outs(%out : tensor<2xf32>) -> tensor<2xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %c into %o[%off] [2] [1] : tensor<2xf32> into tensor<4xf32>
    }
  }
  %e1 = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<8xf32>
  %i0 = tensor.insert_slice %a into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %i1 = tensor.insert_slice %b into %i0[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  bufferization.materialize_in_destination %i1 in restrict writable %y : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// A result reached through a reshape is left alone (tfrt-entry-abi writes
// such results through a reshape of the buffer instead), and so is a
// function that is not the entry.
// CHECK-LABEL: func.func @reshaped
// CHECK-NOT: bufferization.to_tensor %arg1
// CHECK: materialize_in_destination %{{.*}} in restrict writable %arg1
func.func @reshaped(%x: memref<8xf32> {tfrt.io = "input"}, %y: memref<2x4xf32> {tfrt.io = "output"}) {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = tensor.expand_shape %f [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  bufferization.materialize_in_destination %r in restrict writable %y : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @not_entry
// CHECK-NOT: bufferization.to_tensor
// CHECK: materialize_in_destination %{{.*}} in restrict writable %arg0
func.func @not_entry(%y: memref<8xf32>) {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  bufferization.materialize_in_destination %f in restrict writable %y : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}
