// RUN: tfrt-opt %s -split-input-file -tfrt-plan-workspace | FileCheck %s

// Two temporaries that are live at the same time get disjoint bytes; a third
// one, born after the first died, reuses its bytes. The workspace becomes a
// trailing argument and its size an attribute.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<192xi8> {tfrt.io = "workspace"}
// CHECK-SAME: tfrt.workspace_size = 192 : i64
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%[[C0]]][] : memref<192xi8> to memref<32xf32>
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: memref.view %[[WS]][%[[C128]]][] : memref<192xi8> to memref<16xf32>
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%[[C0B]]][] : memref<192xi8> to memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
func.func @chain(%in: memref<32xf32> {tfrt.io = "input"}, %out: memref<8xf32> {tfrt.io = "output"}) {
  %a = memref.alloc() : memref<32xf32>
  memref.copy %in, %a : memref<32xf32> to memref<32xf32>
  %b = memref.alloc() : memref<16xf32>
  %sa = memref.subview %a[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
  memref.copy %sa, %b : memref<16xf32, strided<[1]>> to memref<16xf32>
  %c = memref.alloc() : memref<8xf32>
  %sb = memref.subview %b[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  memref.copy %sb, %c : memref<8xf32, strided<[1]>> to memref<8xf32>
  memref.copy %c, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %c : memref<8xf32>
  return
}

// -----

// Functions that are not entry points (no tfrt.io arguments) are left alone.
// CHECK-LABEL: func.func @helper
// CHECK: memref.alloc
func.func @helper(%in: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Scratch in the body of a top-level scf.forall (one parallel chunk's) gets
// a slot per iteration: two iterations of a 64-byte buffer take 128 bytes,
// the slot is (i - 0) / 2 and the view starts at slot * 64. The buffer after
// the loop reuses those bytes.
// CHECK-LABEL: func.func @chunk_scratch
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<128xi8> {tfrt.io = "workspace"}
// CHECK-SAME: tfrt.workspace_size = 128
// CHECK: scf.forall (%[[I:.*]]) = (0) to (4) step (2)
// CHECK: %[[D:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.divui %[[D]], %{{.*}} : index
// CHECK: %[[SLOT:.*]] = arith.addi %{{.*}}, %[[S]] : index
// CHECK: %[[B:.*]] = arith.muli %[[SLOT]], %{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[B]] : index
// CHECK: memref.view %[[WS]][%[[OFF]]][] : memref<128xi8> to memref<2x8xf32>
// CHECK: memref.view %[[WS]][%{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK-NOT: memref.alloc
func.func @chunk_scratch(%in: memref<4x8xf32> {tfrt.io = "input"}, %out: memref<4x8xf32> {tfrt.io = "output"}) {
  scf.forall (%i) = (0) to (4) step (2) {
    %s = memref.alloc() {alignment = 64 : i64} : memref<2x8xf32>
    %a = memref.subview %in[%i, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
    memref.copy %a, %s : memref<2x8xf32, strided<[8, 1], offset: ?>> to memref<2x8xf32>
    %b = memref.subview %out[%i, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
    memref.copy %s, %b : memref<2x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
  }
  %t = memref.alloc() : memref<16xf32>
  memref.copy %t, %t : memref<16xf32> to memref<16xf32>
  return
}
