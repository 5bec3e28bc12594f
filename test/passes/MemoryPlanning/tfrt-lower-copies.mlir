// RUN: tfrt-opt %s -tfrt-lower-copies | FileCheck %s

// Strided copies become linalg.copy (plain loops later), never a runtime call.
// CHECK-LABEL: func.func @strided
// CHECK-SAME: (%[[A:.*]]: memref<4xf32, strided<[2]>>, %[[B:.*]]: memref<4xf32>)
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32, strided<[2]>>) outs(%[[B]] : memref<4xf32>)
// CHECK-NOT: memref.copy
func.func @strided(%a: memref<4xf32, strided<[2]>>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32, strided<[2]>> to memref<4xf32>
  return
}

// A buffer copied onto itself (a border slab of a padded input after
// bufferization) does nothing: the copy is erased, in the entry function
// and with chunking on alike.
// CHECK-LABEL: func.func @self
// CHECK: memref.subview
// CHECK-NOT: copy
// CHECK: return
func.func @self(%a: memref<4x64xf32>) {
  %v = memref.subview %a[0, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<1x64xf32, strided<[64, 1]>>
  memref.copy %v, %v : memref<1x64xf32, strided<[64, 1]>> to memref<1x64xf32, strided<[64, 1]>>
  return
}

// The same through reshapes of one buffer (a 1x1 conv's chunk written
// through the collapse of its output slice and copied back through the
// expand): erased. A copy between reshapes of two different slices stays.
// CHECK-LABEL: func.func @self_reshaped
// CHECK-COUNT-1: linalg.copy
// CHECK-NOT: copy
// CHECK: return
func.func @self_reshaped(%a: memref<1x8x4x4xf32>) {
  %v = memref.subview %a[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32> to memref<1x4x4x4xf32, strided<[128, 16, 4, 1]>>
  %c = memref.collapse_shape %v [[0, 1], [2, 3]] : memref<1x4x4x4xf32, strided<[128, 16, 4, 1]>> into memref<4x16xf32, strided<[16, 1]>>
  %e = memref.expand_shape %c [[0, 1], [2, 3]] output_shape [1, 4, 4, 4] : memref<4x16xf32, strided<[16, 1]>> into memref<1x4x4x4xf32, strided<[64, 16, 4, 1]>>
  memref.copy %e, %v : memref<1x4x4x4xf32, strided<[64, 16, 4, 1]>> to memref<1x4x4x4xf32, strided<[128, 16, 4, 1]>>
  %w = memref.subview %a[0, 4, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32> to memref<1x4x4x4xf32, strided<[128, 16, 4, 1], offset: 64>>
  memref.copy %e, %w : memref<1x4x4x4xf32, strided<[64, 16, 4, 1]>> to memref<1x4x4x4xf32, strided<[128, 16, 4, 1], offset: 64>>
  return
}

// RUN: tfrt-opt %s -split-input-file -tfrt-lower-copies="min-bytes=1024 chunk-bytes=1024 max-chunks=8 fuse-fills=1" | FileCheck %s --check-prefix=CHUNK

// -----

// A padded input: the fill of the whole buffer (the linalg.map of a
// bufferized tensor.pad) folds into the copy's loop, which fills only the
// border. 2 x 2048 copied + 1152 filled bytes = 5248: 5 chunks wanted, 4
// divide the 8 channels.
// CHUNK-LABEL: func.func @pad
// CHUNK-SAME: (%[[X:.*]]: memref<1x8x8x8xf32> {{.*}}, %[[Y:.*]]: memref<1x8x10x10xf32>
// CHUNK-NOT: linalg.map
// CHUNK: scf.forall (%[[I:.*]]) in (4) {
// CHUNK: %[[C:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHUNK: %[[TOP:.*]] = memref.subview %[[Y]][0, %[[C]], 0, 0] [1, 2, 1, 10] [1, 1, 1, 1]
// CHUNK: linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]]
// CHUNK: %[[BOTTOM:.*]] = memref.subview %[[Y]][0, %[[C]], 9, 0] [1, 2, 1, 10] [1, 1, 1, 1]
// CHUNK: linalg.fill ins(%{{.*}} : f32) outs(%[[BOTTOM]]
// CHUNK: %[[LEFT:.*]] = memref.subview %[[Y]][0, %[[C]], 1, 0] [1, 2, 8, 1] [1, 1, 1, 1]
// CHUNK: linalg.fill ins(%{{.*}} : f32) outs(%[[LEFT]]
// CHUNK: %[[RIGHT:.*]] = memref.subview %[[Y]][0, %[[C]], 1, 9] [1, 2, 8, 1] [1, 1, 1, 1]
// CHUNK: linalg.fill ins(%{{.*}} : f32) outs(%[[RIGHT]]
// CHUNK: %[[SRC:.*]] = memref.subview %[[X]][0, %[[C]], 0, 0] [1, 2, 8, 8] [1, 1, 1, 1]
// CHUNK: %[[DST:.*]] = memref.subview %{{.*}}[0, %[[C]], 0, 0] [1, 2, 8, 8] [1, 1, 1, 1]
// CHUNK: linalg.copy ins(%[[SRC]] : {{.*}}) outs(%[[DST]] : {{.*}})
// CHUNK-NOT: memref.copy
func.func @pad(%x: memref<1x8x8x8xf32> {tfrt.io = "input"}, %y: memref<1x8x10x10xf32> {tfrt.io = "output"}) {
  %z = arith.constant 0.0 : f32
  linalg.map outs(%y : memref<1x8x10x10xf32>) (%init: f32) {
    linalg.yield %z : f32
  }
  %box = memref.subview %y[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x10x10xf32> to memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>
  memref.copy %x, %box : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>
  return
}

// -----

// Something else touches the buffer between the fill and the copy: the
// fill stays, the copy is still chunked (along rows: 2 x 4096 bytes into 8
// chunks, the leading dim has 1).
// CHUNK-LABEL: func.func @used_between
// CHUNK: linalg.fill
// CHUNK: memref.load
// CHUNK: scf.forall (%{{.*}}) in (8) {
// CHUNK-NOT: linalg.fill
// CHUNK: linalg.copy
func.func @used_between(%x: memref<1x32x32xf32> {tfrt.io = "input"}, %y: memref<1x34x32xf32> {tfrt.io = "output"}, %out: memref<f32> {tfrt.io = "output"}) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%z : f32) outs(%y : memref<1x34x32xf32>)
  %v = memref.load %y[%c0, %c0, %c0] : memref<1x34x32xf32>
  memref.store %v, %out[] : memref<f32>
  %box = memref.subview %y[0, 1, 0] [1, 32, 32] [1, 1, 1] : memref<1x34x32xf32> to memref<1x32x32xf32, strided<[1088, 32, 1], offset: 32>>
  memref.copy %x, %box : memref<1x32x32xf32> to memref<1x32x32xf32, strided<[1088, 32, 1], offset: 32>>
  return
}

// -----

// Copies below min-bytes, and copies outside the entry function, stay one
// linalg.copy.
// CHUNK-LABEL: func.func @small
// CHUNK-NOT: scf.forall
// CHUNK: linalg.copy
// CHUNK-LABEL: func.func @not_entry
// CHUNK-NOT: scf.forall
// CHUNK: linalg.copy
func.func @small(%x: memref<8xf32> {tfrt.io = "input"}, %y: memref<8xf32> {tfrt.io = "output"}) {
  memref.copy %x, %y : memref<8xf32> to memref<8xf32>
  return
}
func.func @not_entry(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  memref.copy %x, %y : memref<1024xf32> to memref<1024xf32>
  return
}
