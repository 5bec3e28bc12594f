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

// Shapes the register tile does not divide are left alone.
// CHECK-LABEL: func.func @small
// CHECK: linalg.matmul
// CHECK-NOT: vector.contract
func.func @small(%a: tensor<1x64xf32>, %b: tensor<64x2xf32>, %c: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x2xf32>) outs(%c : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}
