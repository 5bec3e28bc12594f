// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=8 matmul-reuse-bytes=0" | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=8 matmul-reuse-bytes=8192 matmul-reuse-rows=128" | FileCheck %s --check-prefix=REUSE
// RUN: not tfrt-opt %s -split-input-file -tfrt-async-tile-loops="matmul-reuse-rows=12" 2>&1 | FileCheck %s --check-prefix=ERR

// Without the reuse rule, 256 rows split into the 8 chunks of 32 rows that
// max-chunks allows. The right operand (64x64 floats, 16 KiB) is larger
// than matmul-reuse-bytes=8192, so with the rule every chunk keeps 128 rows
// and streams that operand 2 times instead of 8.
// OFF-LABEL: func.func @big_rhs
// OFF: scf.forall (%{{.*}}) = (0) to (256) step (32)
// OFF: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x64xf32>)
// REUSE-LABEL: func.func @big_rhs
// REUSE: scf.forall (%{{.*}}) = (0) to (256) step (128)
// REUSE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x64xf32>, tensor<64x64xf32>)
// ERR: tfrt-async-tile-loops: min-chunk-cost must be >= 1, max-chunks >= 2, matmul-reuse-bytes >= 0 and matmul-reuse-rows a positive multiple of 8
func.func @big_rhs(%a: tensor<256x64xf32>, %b: tensor<64x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}

// -----

// A right operand of 32x64 floats (8 KiB) is not larger than 8192 bytes:
// the rows split into chunks of 32 either way.
// OFF-LABEL: func.func @small_rhs
// OFF: scf.forall (%{{.*}}) = (0) to (256) step (32)
// REUSE-LABEL: func.func @small_rhs
// REUSE: scf.forall (%{{.*}}) = (0) to (256) step (32)
// REUSE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x32xf32>, tensor<32x64xf32>)
func.func @small_rhs(%a: tensor<256x32xf32>, %b: tensor<32x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x32xf32>, tensor<32x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}

// -----

// Fewer rows than matmul-reuse-rows: chunks of half of M.
// REUSE-LABEL: func.func @few_rows
// REUSE: scf.forall (%{{.*}}) = (0) to (128) step (64)
func.func @few_rows(%a: tensor<128x64xf32>, %b: tensor<64x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x64xf32>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
