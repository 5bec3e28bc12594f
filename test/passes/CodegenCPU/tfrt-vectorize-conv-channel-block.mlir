// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv=channel-block=8 -canonicalize -cse | FileCheck %s --check-prefix=B8
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv=channel-block=0 -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv=channel-block=12 -canonicalize -cse | FileCheck %s --check-prefix=B12

// tfrt-vectorize-conv's channel-block option: the input channels of a
// windowed conv on the rows-outer input or over flat rows are swept in
// blocks (the largest multiple of the register tile's channel step that
// divides C and is at most the option) when a register tile's weights for
// all channels exceed 16 KiB, the block loop outermost.

// Rows-outer input [N, H, C, W], 64 channels in steps of 8 (8 x 64 x 3 x 3
// weights per tile: 18 KiB): blocks of 16 (default), 8, none (0), and 8 for
// 12 (the largest multiple of 8 at most 12).
// CHECK-LABEL: func.func @rows_outer
// CHECK: scf.for %[[B:.*]] = %c0 to %c64 step %c16 iter_args(%{{.*}} = %{{.*}}) -> (tensor<1x8x4x32xf32>)
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[C:.*]] = %c0 to %c16 step %c8
// CHECK: %[[CI:.*]] = affine.apply #{{.*}}()[%[[C]], %[[B]]]
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[CI]], %[[KH]], %[[KW]]]{{.*}} vector<8x8xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %{{.*}}, %[[CI]], %[[KW]]]{{.*}} vector<8x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// B8-LABEL: func.func @rows_outer
// B8: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args
// B8-NOT: scf.for %{{.*}} = %c0 to %c8 step %c8
// B8: vector.contract
// OFF-LABEL: func.func @rows_outer
// OFF-NOT: step %c16
// OFF: scf.for %{{.*}} = %c0 to %c64 step %c8
// OFF: vector.contract
// B12-LABEL: func.func @rows_outer
// B12: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args
#xr = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, oh + kh, c, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @rows_outer(%x: tensor<1x6x64x34xf32>, %w: tensor<8x64x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#xr, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x64x34xf32>, tensor<8x64x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}

// -----

// Flat rows (NCHW, 20-wide rows of a 22-wide padded input: 78 positions,
// two 32-column tiles and two 16-column tails at 64 and 70), 64 channels
// in steps of 4. The 32-column tiles run inside the block loop, start from
// zero in the first block and from the scratch after it; the overlapping
// tails run after all blocks over all 64 channels from zero.
// CHECK-LABEL: func.func @flat
// CHECK-DAG: %[[Z32:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-DAG: %[[Z16:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x88xf32>
// CHECK: %[[BL:.*]] = scf.for %[[B:.*]] = %c0 to %c64 step %c16 iter_args(%{{.*}} = %[[E]])
// CHECK: scf.for %[[P:.*]] = %c0 to %c64 step %c32
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8 iter_args(%[[S:.*]] = %{{.*}})
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[B]], %c0
// CHECK: %[[ACC:.*]] = scf.if %[[FIRST]] -> (vector<8x32xf32>)
// CHECK: scf.yield %[[Z32]]
// CHECK: } else {
// CHECK: %[[OLD:.*]] = vector.transfer_read %[[S]][%[[M]], %[[P]]]
// CHECK: scf.yield %[[OLD]]
// CHECK: scf.for %[[C:.*]] = %c0 to %c16 step %c4 iter_args(%{{.*}} = %[[ACC]])
// CHECK: %[[CI:.*]] = arith.addi %[[B]], %[[C]]
// CHECK: vector.transfer_read %{{.*}}[%[[M]], %[[CI]], %{{.*}}, %{{.*}}]{{.*}} vector<8x4xf32>
// CHECK: vector.transfer_read %{{.*}}[%[[CI]], %{{.*}}]{{.*}} vector<4x32xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[S]][%[[M]], %[[P]]]
// CHECK: %[[T1:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %[[BL]])
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}} = %[[Z16]]) -> (vector<8x16xf32>)
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c64] {{.*}} : vector<8x16xf32>, tensor<16x88xf32>
// CHECK: %[[T2:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %[[T1]])
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}} = %[[Z16]]) -> (vector<8x16xf32>)
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c70] {{.*}} : vector<8x16xf32>, tensor<16x88xf32>
// CHECK: tensor.expand_shape %[[T2]]
// B8-LABEL: func.func @flat
// B8: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args
// B8: scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args
// OFF-LABEL: func.func @flat
// OFF-NOT: scf.if
// OFF: scf.for %{{.*}} = %c0 to %c64 step %c32
// OFF: scf.for %{{.*}} = %c0 to %c64 step %c4 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// B12-LABEL: func.func @flat
// B12: scf.for %{{.*}} = %c0 to %c64 step %c8 iter_args
#x = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @flat(%x: tensor<1x64x6x22xf32>, %w: tensor<16x64x3x3xf32>, %o: tensor<1x16x4x20xf32>) -> tensor<1x16x4x20xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x64x6x22xf32>, tensor<16x64x3x3xf32>) outs(%o : tensor<1x16x4x20xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x20xf32>
  return %r : tensor<1x16x4x20xf32>
}

// -----

// 40 channels in steps of 8 (rows-outer, 11.25 KiB of weights per tile):
// one sweep at any channel-block. 80 channels (22.5 KiB): 16 divides 80;
// with channel-block=12 the block is 8.
// CHECK-LABEL: func.func @small
// CHECK-NOT: step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c40 step %c8
// CHECK-LABEL: func.func @wide
// CHECK: scf.for %{{.*}} = %c0 to %c80 step %c16 iter_args
// B12-LABEL: func.func @small
// B12-NOT: step %c8
// B12: scf.for %{{.*}} = %c0 to %c4 step %c1
// B12-LABEL: func.func @wide
// B12: scf.for %{{.*}} = %c0 to %c80 step %c8 iter_args
#xr = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, oh + kh, c, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @small(%x: tensor<1x6x40x34xf32>, %w: tensor<8x40x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#xr, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x40x34xf32>, tensor<8x40x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}
func.func @wide(%x: tensor<1x6x80x34xf32>, %w: tensor<8x80x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#xr, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x80x34xf32>, tensor<8x80x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}
