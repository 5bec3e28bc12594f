// RUN: tfrt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tfrt-cuda-map-to-gpu))" | FileCheck %s
// RUN: not tfrt-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tfrt-cuda-map-to-gpu{block-size=100}))" 2>&1 | FileCheck %s --check-prefix=BS

// A 2-D parallel loop (2x300 = 600 iterations) becomes one launch of
// 3 blocks x 256 threads; the linear id is split with the last dimension
// fastest (remainder by 300), the view is recomputed inside the launch and
// the inner parallel loop runs sequentially.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C3]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK: memref.view
// CHECK: %[[B:.*]] = arith.index_castui %[[BX]] : index to i32
// CHECK: %[[T:.*]] = arith.index_castui %[[TX]] : index to i32
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c256_i32 : i32
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[T]] : i32
// CHECK: arith.cmpi ult, %[[L]], %c600_i32 : i32
// CHECK: scf.if
// CHECK: arith.remui %[[L]], %c300_i32
// CHECK: arith.divui %[[L]], %c300_i32
// CHECK: scf.for
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
func.func @elementwise(%ws: memref<4800xi8>, %out: memref<2x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c300 = arith.constant 300 : index
  %in = memref.view %ws[%c0][] : memref<4800xi8> to memref<2x300x2xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c300) step (%c1, %c1) {
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %out[%i, %j] : memref<2x300xf32>
    scf.parallel (%k) = (%c0) to (%c2) step (%c1) {
      %v = memref.load %in[%i, %j, %k] : memref<2x300x2xf32>
      %a = memref.load %out[%i, %j] : memref<2x300xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %out[%i, %j] : memref<2x300xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}
// BS: block-size must be a multiple of 32

// -----

// Loose memory ops (a rank-0 op) run in a one-thread launch; host-only ops
// (constants) stay outside.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK: memref.load
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK: return
func.func @scalar(%a: memref<f32>, %b: memref<f32>) {
  %x = memref.load %a[] : memref<f32>
  %two = arith.constant 2.0 : f32
  %y = arith.mulf %x, %two : f32
  memref.store %y, %b[] : memref<f32>
  return
}
