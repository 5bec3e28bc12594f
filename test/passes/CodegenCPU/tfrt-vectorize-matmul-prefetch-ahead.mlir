// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="prefetch-k-ahead=0" -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="prefetch-ahead=128 prefetch-k-ahead=0" -canonicalize -cse | FileCheck %s --check-prefix=FAR
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="prefetch-ahead=0 prefetch-k-ahead=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF

// 16 rows of 4096 columns (a 1x1 conv with 16 input channels on a 64x64
// map): the first 8 register rows of the cache tile prefetch row k of the
// right operand 64 columns on, one prefetch per 64-byte line of their 32
// columns, clamped to the row; the next 8 rows do not prefetch.
// CHECK-LABEL: func.func @stream
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C80:.*]] = arith.constant 80 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 4080 : index
// CHECK: %[[VIEW:.*]] = bufferization.to_buffer %arg1 read_only : tensor<16x4096xf32> to memref<16x4096xf32, strided<[?, ?], offset: ?>>
// CHECK: scf.for %[[NB:.*]] = %c0 to %c4096 step %c256
// CHECK: scf.for %[[NO:.*]] = %c0 to %c256 step %c32
// CHECK: %[[COL:.*]] = arith.addi %[[NB]], %[[NO]]
// CHECK: scf.for %[[K:.*]] = %c0 to %c16 step %c1
// CHECK: vector.transfer_read %arg0[%c0, %[[K]]]
// CHECK: %[[A0:.*]] = arith.addi %[[COL]], %[[C64]]
// CHECK: %[[P0:.*]] = arith.minsi %[[A0]], %[[LAST]]
// CHECK: memref.prefetch %[[VIEW]][%[[K]], %[[P0]]], read, locality<3>, data
// CHECK: %[[A1:.*]] = arith.addi %[[COL]], %[[C80]]
// CHECK: %[[P1:.*]] = arith.minsi %[[A1]], %[[LAST]]
// CHECK: memref.prefetch %[[VIEW]][%[[K]], %[[P1]]], read, locality<3>, data
// CHECK: vector.contract
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %[[COL]]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read %arg0[%c8,
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c8,
// FAR-LABEL: func.func @stream
// FAR-DAG: arith.constant 128 : index
// FAR-DAG: arith.constant 144 : index
// FAR-COUNT-2: memref.prefetch
// FAR-NOT: memref.prefetch
// OFF-LABEL: func.func @stream
// OFF-NOT: bufferization.to_buffer
// OFF-NOT: memref.prefetch
func.func @stream(%a: tensor<16x16xf32>, %b: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}

// -----

// 80 rows in cache tiles of 16 with the columns outermost (the left
// operand stays in L1): only the first 8 rows of the first tile of each
// block of columns prefetch; the tiles of rows 16-79 find the columns in
// cache. (K = 16 and 80 >= 2K rows: blocks of 1024 columns.)
// CHECK-LABEL: func.func @columns_outer
// FAR-LABEL: func.func @columns_outer
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c1024
// CHECK: vector.transfer_read %arg0[%c0,
// CHECK-COUNT-2: memref.prefetch
// CHECK: vector.transfer_read %arg0[%c8,
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %{{.*}} = %c16 to %c80 step %c16
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @columns_outer(%a: tensor<80x16xf32>, %b: tensor<16x4096xf32>) -> tensor<80x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<80x4096xf32>) -> tensor<80x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<80x16xf32>, tensor<16x4096xf32>) outs(%c : tensor<80x4096xf32>) -> tensor<80x4096xf32>
  return %r : tensor<80x4096xf32>
}

// -----

// Short rows (2048 columns, L2-resident tiles) and deep K (96 rows, a
// compute-bound 1x1 conv) do not prefetch ahead along the columns (with
// prefetch-k-ahead, by default, they prefetch along K instead:
// tfrt-vectorize-matmul-prefetch-k-ahead.mlir).
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @deep_k
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @short_rows(%a: tensor<16x16xf32>, %b: tensor<16x2048xf32>) -> tensor<16x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x2048xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x2048xf32>) -> tensor<16x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x2048xf32>) outs(%c : tensor<16x2048xf32>) -> tensor<16x2048xf32>
  return %r : tensor<16x2048xf32>
}

func.func @deep_k(%a: tensor<16x96xf32>, %b: tensor<96x4096xf32>) -> tensor<16x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x96xf32>, tensor<96x4096xf32>) outs(%c : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}
