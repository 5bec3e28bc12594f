// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="k-unroll=8" -canonicalize -cse | FileCheck %s --check-prefix=EIGHT
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="k-unroll=1" -canonicalize -cse | FileCheck %s --check-prefix=OFF

// A seeded 1x1-conv-like product (K = 16, the fill starts the
// accumulators): the K loop takes four steps per iteration by default,
// eight with k-unroll=8, one with k-unroll=1.
// CHECK-LABEL: func.func @seeded
// CHECK: scf.for %[[K:.*]] = %c0 to %c16 step %c4 iter_args(%[[A0:.*]] = %{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-4: vector.contract
// CHECK-NOT: vector.contract
// CHECK: scf.yield
// EIGHT-LABEL: func.func @seeded
// EIGHT: scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args
// EIGHT-COUNT-8: vector.contract
// EIGHT-NOT: vector.contract
// EIGHT: scf.yield
// OFF-LABEL: func.func @seeded
// OFF: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// OFF-COUNT-1: vector.contract
// OFF-NOT: vector.contract
// OFF: scf.yield
func.func @seeded(%w: tensor<16x16xf32>, %x: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1024xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %m = linalg.matmul ins(%w, %x : tensor<16x16xf32>, tensor<16x1024xf32>) outs(%f : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  return %m : tensor<16x1024xf32>
}

// -----

// K = 6 does not divide by 4: the factor halves to 2.
// CHECK-LABEL: func.func @six
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args
// CHECK-COUNT-2: vector.contract
// CHECK-NOT: vector.contract
// CHECK: scf.yield
// EIGHT-LABEL: func.func @six
// EIGHT: scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args
func.func @six(%w: tensor<8x6xf32>, %x: tensor<6x256xf32>) -> tensor<8x256xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %m = linalg.matmul ins(%w, %x : tensor<8x6xf32>, tensor<6x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %m : tensor<8x256xf32>
}

// -----

// The packed path (N a multiple of 1024, 256 rows): the K block's loop
// runs from 0 with the block's offset added inside, unrolled by four.
// CHECK-LABEL: func.func @packed
// CHECK: scf.for %[[KB:.*]] = %c0 to %c512 step %c256
// CHECK: scf.for %[[KK:.*]] = %c0 to %c256 step %c4 iter_args
// CHECK: arith.addi %[[KB]], %[[KK]]
// CHECK-COUNT-4: vector.contract
// CHECK-NOT: vector.contract
// CHECK: scf.yield
func.func @packed(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %m : tensor<256x1024xf32>
}
