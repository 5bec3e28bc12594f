// RUN: tfrt-opt %s --pass-pipeline="builtin.module(func.func(tfrt-cuda-emulate-launches))" | FileCheck %s

// A launch becomes six nested loops (blocks x, y, z, threads x, y, z) with
// the body inside, the ids replaced by the induction variables.
// CHECK-LABEL: func.func @f
// CHECK-NOT: gpu.launch
// CHECK: scf.for %[[BX:.*]] = %c0 to %c3
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX:.*]] = %c0 to %c4
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[M:.*]] = arith.muli %[[BX]], %c4
// CHECK: %[[I:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]]]
func.func @f(%out: memref<12xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %m = arith.muli %bx, %sx : index
    %i = arith.addi %m, %tx : index
    %v = arith.constant 1.0 : f32
    memref.store %v, %out[%i] : memref<12xf32>
    gpu.terminator
  }
  return
}
