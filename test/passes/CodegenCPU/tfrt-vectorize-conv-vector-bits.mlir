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

// -----

// An image stem (3 input channels, 3x3, stride 2, computed from the
// unpadded input): AVX-512 8 output channels x 32 columns from 64-column
// reads; AVX2 4 x 16 from 32-column reads (8 ymm accumulators beside the
// three tap vectors); NEON 4 x 16 (16 q registers).
// AVX512-LABEL: func.func @stem
// AVX512: scf.for %{{.*}} = %c0 to %c16 step %c8
// AVX512: vector.transfer_read {{.*}} : tensor<1x3x16x128xf32>, vector<64xf32>
// AVX512: vector.fma {{.*}} : vector<32xf32>
// AVX2-LABEL: func.func @stem
// AVX2: scf.for %{{.*}} = %c0 to %c16 step %c4
// AVX2: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2: vector.transfer_read {{.*}} : tensor<1x3x16x128xf32>, vector<32xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 17,
// AVX2: vector.fma {{.*}} : vector<16xf32>
// AVX2: vector.transfer_write {{.*}}[%c0, %{{.*}}, %{{.*}}, %c48] {{.*}} : vector<16xf32>, tensor<1x16x8x64xf32>
// NEON-LABEL: func.func @stem
// NEON: scf.for %{{.*}} = %c0 to %c16 step %c4
// NEON: vector.fma {{.*}} : vector<16xf32>
#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @stem
// CHECK-SAME: (%[[IN:[^:]*]]: tensor<1x3x16x128xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[IN]] read_only
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1
// CHECK: %[[LO:.*]] = arith.maxsi
// CHECK: %[[HI:.*]] = arith.minsi
// CHECK: memref.prefetch %[[BUF]]
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c1
// CHECK: %[[A:.*]] = vector.transfer_read %[[IN]]{{.*}} {in_bounds = [true]} : tensor<1x3x16x128xf32>, vector<64xf32>
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[A]], %[[A]] [0, 2, 4,
// CHECK: %[[ODD:.*]] = vector.shuffle %[[A]], %[[A]] [1, 3, 5,
// CHECK: %[[LEFT:.*]] = vector.shuffle %{{.*}}, %[[ODD]] [0, 32, 33,
// CHECK: vector.fma %[[LEFT]]
// CHECK: vector.fma %[[EVEN]]
// CHECK: vector.fma %[[ODD]]
// CHECK-COUNT-8: vector.transfer_write {{.*}} : vector<32xf32>, tensor<1x16x8x64xf32>
// The other column tile: kw = 0 from the 64 columns two before.
// CHECK: %[[P:.*]] = vector.transfer_read %[[IN]]{{.*}} : tensor<1x3x16x128xf32>, vector<64xf32>
// CHECK: vector.shuffle %[[P]], %[[P]] [1, 3, 5,
func.func @stem(%in: tensor<1x3x16x128xf32>, %w: tensor<16x3x3x3xf32>, %o: tensor<1x16x8x64xf32>) -> tensor<1x16x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %in low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x16x128xf32> to tensor<1x3x17x129xf32>
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x17x129xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<1x16x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x64xf32>
  return %r : tensor<1x16x8x64xf32>
}
