// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="prefetch-k-ahead=4" -canonicalize -cse | FileCheck %s --check-prefix=NEAR
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="prefetch-k-ahead=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF

// A seeded 1x1-conv-like product with deep K (96 rows of 6400 columns, an
// 80x80 map): each K step of a register tile prefetches the tile's 32
// columns of row k + 16, clamped to the last row, one prefetch per 64-byte
// line, through a read-only view of the right operand.
// CHECK-LABEL: func.func @deep_k
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C95:.*]] = arith.constant 95 : index
// CHECK: %[[VIEW:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK: scf.for %[[K:.*]] = %c0 to %c96 step %c1
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %[[C16]] : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[AHEAD]], %[[C95]] : index
// CHECK: memref.prefetch %[[VIEW]][%[[ROW]], %[[COL:.*]]], read, locality<3>, data
// CHECK: %[[COL16:.*]] = arith.addi %[[COL]], %c16 : index
// CHECK: memref.prefetch %[[VIEW]][%[[ROW]], %[[COL16]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
// NEAR-LABEL: func.func @deep_k
// NEAR: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c4 : index
// NEAR: arith.minsi %[[AHEAD]], %c95 : index
// NEAR-COUNT-2: memref.prefetch
// OFF-LABEL: func.func @deep_k
// OFF-NOT: memref.prefetch
// OFF: return
func.func @deep_k(%a: tensor<16x96xf32>, %b: tensor<96x6400xf32>) -> tensor<16x6400xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x6400xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x6400xf32>) -> tensor<16x6400xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x96xf32>, tensor<96x6400xf32>) outs(%c : tensor<16x6400xf32>) -> tensor<16x6400xf32>
  return %r : tensor<16x6400xf32>
}

// -----

// A right operand of 64 KiB or less (32 x 512) stays in L1 across the row
// tiles: no prefetch.
// CHECK-LABEL: func.func @small
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @small(%a: tensor<16x32xf32>, %b: tensor<32x512xf32>) -> tensor<16x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %r : tensor<16x512xf32>
}

// -----

// Few K rows of long rows (16 x 4096) prefetch ahead along the columns
// (prefetch-ahead, tfrt-vectorize-matmul-prefetch-ahead.mlir) instead:
// 64 columns on in row k itself, not rows further down.
// CHECK-LABEL: func.func @columns_ahead
// CHECK-NOT: arith.minsi %{{.*}}, %c15
// CHECK: arith.minsi %{{.*}}, %c4080 : index
// CHECK-NOT: arith.minsi %{{.*}}, %c15
// CHECK: return
func.func @columns_ahead(%a: tensor<16x16xf32>, %b: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}
