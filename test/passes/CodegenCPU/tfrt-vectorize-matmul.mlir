// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse -loop-invariant-subset-hoisting -canonicalize | FileCheck %s

// An 8x32-divisible matmul becomes 8x32 register tiles: the accumulator is
// read once per tile, carried through the K loop as a vector and written once.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: scf.for %[[N:.*]] = %c0 to %c64 step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read %{{.*}}[%[[M]], %[[N]]]{{.*}} vector<8x32xf32>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%[[A:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read %arg0[%[[M]], %[[K]]]{{.*}} vector<8x1xf32>
// CHECK: vector.transfer_read %arg1[%[[K]], %[[N]]]{{.*}} vector<1x32xf32>
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write %[[R]]
func.func @matmul(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// Shapes no register tile divides (N not a multiple of 16) are left alone.
// CHECK-LABEL: func.func @small
// CHECK: linalg.matmul
// CHECK-NOT: vector.contract
func.func @small(%a: tensor<1x64xf32>, %b: tensor<64x2xf32>, %c: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x2xf32>) outs(%c : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// -----

// Odd shapes (det's 1x1 convs): M = 12 takes 6-row register tiles, N = 48
// 16-column ones; K = 96 stays whole, so the accumulator is read and
// written once per tile.
// CHECK-LABEL: func.func @odd
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: scf.for %[[M:.*]] = %c0 to %c12 step %c6
// CHECK: %[[ACC:.*]] = vector.transfer_read %{{.*}}[%[[M]], %c0]{{.*}} vector<6x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<6x16xf32>)
// CHECK: vector.contract {{.*}} vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
func.func @odd(%a: tensor<12x96xf32>, %b: tensor<96x48xf32>, %c: tensor<12x48xf32>) -> tensor<12x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<12x96xf32>, tensor<96x48xf32>) outs(%c : tensor<12x48xf32>) -> tensor<12x48xf32>
  return %r : tensor<12x48xf32>
}

// -----

// A single-row product (a batch-1 fully connected layer) runs as 1-D
// 16-lane accumulators, 8 of them for 128 columns: each k broadcasts x[0, k]
// and adds it times row k of the block; no vector<1x...> contraction.
// CHECK-LABEL: func.func @single_row
// CHECK: scf.for %[[COL:.*]] = %c0 to %c256 step %c128 iter_args(%[[OUT:.*]] = %arg2) -> (tensor<1x256xf32>)
// CHECK-COUNT-8: vector.transfer_read %[[OUT]]{{.*}} : tensor<1x256xf32>, vector<16xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c40 step %c1 iter_args
// CHECK: %[[XK:.*]] = tensor.extract %arg0[%c0, %[[K]]] : tensor<1x40xf32>
// CHECK: %[[XV:.*]] = vector.broadcast %[[XK]] : f32 to vector<16xf32>
// CHECK-COUNT-8: vector.fma %[[XV]], %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: vector.contract
// CHECK-COUNT-8: vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x256xf32>
func.func @single_row(%x: tensor<1x40xf32>, %w: tensor<40x256xf32>, %o: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<1x40xf32>, tensor<40x256xf32>) outs(%o : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %r : tensor<1x256xf32>
}
