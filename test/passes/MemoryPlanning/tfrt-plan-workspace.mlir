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
