// RUN: tfrt-opt %s -split-input-file -tfrt-unroll-accumulator-loops | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-unroll-accumulator-loops="factor=8" | FileCheck %s --check-prefix=EIGHT
// RUN: tfrt-opt %s -split-input-file -tfrt-unroll-accumulator-loops="factor=1" | FileCheck %s --check-prefix=OFF
// RUN: not tfrt-opt %s -split-input-file -tfrt-unroll-accumulator-loops="factor=0" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tfrt-unroll-accumulator-loops: factor must be at least 1, got 0

// A register tile's K loop (as tfrt-vectorize-matmul leaves it after
// loop-invariant-subset-hoisting): four steps per iteration by default,
// eight with factor=8, one with factor=1.
// CHECK-LABEL: func.func @tile
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c4 iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-4: vector.contract
// CHECK-NOT: vector.contract
// CHECK: scf.yield
// EIGHT-LABEL: func.func @tile
// EIGHT: scf.for %{{.*}} = %c0 to %c256 step %c8 iter_args
// EIGHT-COUNT-8: vector.contract
// EIGHT-NOT: vector.contract
// EIGHT: scf.yield
// OFF-LABEL: func.func @tile
// OFF: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args
// OFF-COUNT-1: vector.contract
// OFF-NOT: vector.contract
// OFF: scf.yield
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @tile(%a: tensor<8x256xf32>, %b: tensor<256x32xf32>, %init: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
    %n = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %n : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// Six steps: the factor halves to 2 (no remainder loop), also for factor=8.
// CHECK-LABEL: func.func @six
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args
// CHECK-COUNT-2: vector.contract
// CHECK-NOT: scf.for
// EIGHT-LABEL: func.func @six
// EIGHT: scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @six(%a: tensor<8x6xf32>, %b: tensor<6x32xf32>, %init: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x6xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<6x32xf32>, vector<1x32xf32>
    %n = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %n : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// Left alone: a dynamic trip count, a prime trip count, two contractions
// per step, a nested region, and a tensor iter_arg.
// CHECK-LABEL: func.func @not_unrolled
// CHECK-COUNT-5: step %c1
// CHECK-NOT: step %c2
// CHECK-NOT: step %c4
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @not_unrolled(%a: tensor<8x256xf32>, %b: tensor<256x32xf32>, %init: vector<8x32xf32>, %t: tensor<8x32xf32>, %n: index, %p: i1) -> (vector<8x32xf32>, vector<8x32xf32>, vector<8x32xf32>, vector<8x32xf32>, tensor<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %r0 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
    %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %m : vector<8x32xf32>
  }
  %r1 = scf.for %k = %c0 to %c7 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
    %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %m : vector<8x32xf32>
  }
  %r2 = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
    %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    %m2 = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %m : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %m2 : vector<8x32xf32>
  }
  %r3 = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = scf.if %p -> (vector<1x32xf32>) {
      %v = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
      scf.yield %v : vector<1x32xf32>
    } else {
      %v = vector.broadcast %z : f32 to vector<1x32xf32>
      scf.yield %v : vector<1x32xf32>
    }
    %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %m : vector<8x32xf32>
  }
  %r4 = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %t) -> (tensor<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : tensor<8x256xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : tensor<256x32xf32>, vector<1x32xf32>
    %v = vector.transfer_read %acc[%c0, %c0], %z {in_bounds = [true, true]} : tensor<8x32xf32>, vector<8x32xf32>
    %m = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %v : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    %w = vector.transfer_write %m, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<8x32xf32>
    scf.yield %w : tensor<8x32xf32>
  }
  return %r0, %r1, %r2, %r3, %r4 : vector<8x32xf32>, vector<8x32xf32>, vector<8x32xf32>, vector<8x32xf32>, tensor<8x32xf32>
}
