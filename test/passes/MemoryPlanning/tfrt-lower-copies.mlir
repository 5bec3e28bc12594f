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
