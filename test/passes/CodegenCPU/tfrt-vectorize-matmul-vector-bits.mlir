// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s --check-prefix=AVX512
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="vector-bits=256 vector-registers=16" -canonicalize -cse | FileCheck %s --check-prefix=AVX2
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="vector-bits=128 vector-registers=32" -canonicalize -cse | FileCheck %s --check-prefix=NEON
// RUN: not tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="vector-bits=100" 2>&1 | FileCheck %s --check-prefix=BAD

// tfrt-vectorize-matmul's vector-bits and vector-registers: the register
// tile takes as many accumulator rows as the target's registers hold (at
// most 16 accumulators, one row of the streamed operand and a broadcast
// beside them), and the width (32 or 16 columns) whose tile holds more.
// AVX-512 (512 x 32): 8 x 32. AVX2 (256 x 16): 6 x 16 (2 x 32 would hold 8
// ymm accumulators, 6 x 16 holds 12). NEON (128 x 32): 2 x 32 (16 q
// registers; 4 x 16 ties, the wider wins).
// AVX512-LABEL: func.func @matmul
// AVX512: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX2-LABEL: func.func @matmul
// AVX2: scf.for %{{.*}} = %c0 to %c24 step %c6
// AVX2: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// NEON-LABEL: func.func @matmul
// NEON: vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
// BAD: error: tfrt-vectorize-matmul: vector-bits must be a positive multiple of 32 and vector-registers positive
func.func @matmul(%a: tensor<24x64xf32>, %b: tensor<64x64xf32>, %c: tensor<24x64xf32>) -> tensor<24x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x64xf32>, tensor<64x64xf32>) outs(%c : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %r : tensor<24x64xf32>
}

// -----

// A single-row product: blocks of vectors of vector-bits / 32 lanes.
// AVX512-LABEL: func.func @fc
// AVX512: vector.fma {{.*}} : vector<16xf32>
// AVX2-LABEL: func.func @fc
// AVX2: vector.fma {{.*}} : vector<8xf32>
// NEON-LABEL: func.func @fc
// NEON: vector.fma {{.*}} : vector<4xf32>
func.func @fc(%a: tensor<1x64xf32>, %b: tensor<64x64xf32>, %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x64xf32>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// The packed path (N a multiple of 1024) keeps 32-column panels: 8 rows on
// AVX-512, 2 on AVX2 and NEON.
// AVX512-LABEL: func.func @packed
// AVX512: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX2-LABEL: func.func @packed
// AVX2: tensor.empty() : tensor<32x64x32xf32>
// AVX2: vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
// NEON-LABEL: func.func @packed
// NEON: vector.contract {{.*}} : vector<2x1xf32>, vector<1x32xf32> into vector<2x32xf32>
func.func @packed(%a: tensor<256x64xf32>, %b: tensor<64x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}
