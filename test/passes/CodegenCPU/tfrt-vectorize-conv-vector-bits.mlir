// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv -canonicalize -cse | FileCheck %s --check-prefix=AVX512
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv="vector-bits=256 vector-registers=16" -canonicalize -cse | FileCheck %s --check-prefix=AVX2
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv="vector-bits=128 vector-registers=32" -canonicalize -cse | FileCheck %s --check-prefix=NEON
// RUN: not tfrt-opt %s -split-input-file -tfrt-vectorize-conv="vector-registers=0" 2>&1 | FileCheck %s --check-prefix=BAD

// tfrt-vectorize-conv's vector-bits and vector-registers: the register
// tile's output channels and columns follow the target's registers (see
// tfrt-vectorize-matmul-vector-bits.mlir). 24 output channels: AVX-512 8 x
// 32; AVX2 6 x 16 (12 ymm accumulators; 32 columns would allow 2 rows);
// NEON 2 x 32 (16 q registers).

// Rows-outer input [N, H, C, W], 32 output columns.
// AVX512-LABEL: func.func @rows_outer
// AVX512: vector.contract {{.*}} : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// AVX2-LABEL: func.func @rows_outer
// AVX2: scf.for %{{.*}} = %c0 to %c32 step %c16
// AVX2: scf.for %{{.*}} = %c0 to %c24 step %c6
// AVX2: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// NEON-LABEL: func.func @rows_outer
// NEON: scf.for %{{.*}} = %c0 to %c24 step %c2
// NEON: vector.contract {{.*}} : vector<2x8xf32>, vector<8x32xf32> into vector<2x32xf32>
// BAD: error: tfrt-vectorize-conv: vector-bits must be a positive multiple of 32 and vector-registers positive
#xr = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, oh + kh, c, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @rows_outer(%x: tensor<1x6x16x34xf32>, %w: tensor<24x16x3x3xf32>, %o: tensor<1x24x4x32xf32>) -> tensor<1x24x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#xr, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x16x34xf32>, tensor<24x16x3x3xf32>) outs(%o : tensor<1x24x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x24x4x32xf32>
  return %r : tensor<1x24x4x32xf32>
}

// -----

// Flat rows (86 positions): AVX-512 two 32-column tiles and two 16-column
// tails (at 64 and 70); AVX2 five 16-column tiles and one tail at 70, 6
// rows each.
// AVX512-LABEL: func.func @flat
// AVX512: scf.for %{{.*}} = %c0 to %c64 step %c32
// AVX512: vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// AVX512: vector.contract {{.*}} : vector<8x4xf32>, vector<4x16xf32> into vector<8x16xf32>
// AVX2-LABEL: func.func @flat
// AVX2: scf.for %{{.*}} = %c0 to %c80 step %c16
// AVX2: scf.for %{{.*}} = %c0 to %c24 step %c6
// AVX2: vector.contract {{.*}} : vector<6x4xf32>, vector<4x16xf32> into vector<6x16xf32>
// AVX2-NOT: vector<4x32xf32>
// AVX2: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c70] {{.*}} : vector<6x16xf32>, tensor<24x88xf32>
// NEON-LABEL: func.func @flat
// NEON: scf.for %{{.*}} = %c0 to %c64 step %c32
// NEON: vector.contract {{.*}} : vector<2x4xf32>, vector<4x32xf32> into vector<2x32xf32>
#x = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @flat(%x: tensor<1x16x6x22xf32>, %w: tensor<24x16x3x3xf32>, %o: tensor<1x24x4x20xf32>) -> tensor<1x24x4x20xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x6x22xf32>, tensor<24x16x3x3xf32>) outs(%o : tensor<1x24x4x20xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x24x4x20xf32>
  return %r : tensor<1x24x4x20xf32>
}
