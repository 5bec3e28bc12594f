// RUN: tfrt-opt %s -split-input-file -tfrt-winograd-conv | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-winograd-conv | FileCheck %s --check-prefix=PF
// RUN: tfrt-opt %s -split-input-file -tfrt-winograd-conv=min-channels=16 | FileCheck %s --check-prefix=MIN16
// RUN: tfrt-opt %s -split-input-file -tfrt-winograd-conv=block-bytes=4096 | FileCheck %s --check-prefix=SMALL
// RUN: tfrt-opt %s -split-input-file -tfrt-winograd-conv=max-tile=4 | FileCheck %s --check-prefix=F4
// RUN: not tfrt-opt %s -split-input-file -tfrt-winograd-conv=max-chunks=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfrt-opt %s -split-input-file -tfrt-winograd-conv=max-tile=3 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: tfrt-winograd-conv: max-chunks, min-channels and block-bytes must be >= 1, max-tile 2 or 4

#rows = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A 3x3 conv 32 -> 8 on the rows-outer input [1, H + 2, C, W + 2], 4 x 32
// outputs: one chunk, one block of 2 x 16 tiles. The weights become
// U = G g G^T as [M, C, 16]: for an all-ones kernel every (m, c) is the
// outer product of G's row sums (1, 1.5, 0.5, 1). The bias broadcast is
// not read: each output channel starts from its bias element.
// CHECK-LABEL: func.func @rows_outer_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x32x34xf32>)
// CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x4x32xf32>
// 1, 1.5, 0.5, 1, 1.5, 2.25, 0.75, 1.5, 0.5, 0.75, 0.25, 0.5, 1, 1.5, 0.5, 1:
// CHECK: %[[U:.*]] = arith.constant dense<"0x0000803F0000C03F0000003F0000803F0000C03F000010400000403F0000C03F0000003F0000403F0000803E0000003F0000803F0000C03F0000003F0000803F{{.*}}"> : tensor<8x32x16xf32>
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%[[S:.*]] = %[[E]])
// The transformed input's scratch takes 33 rows per point, not 32 (an odd
// number of 128-byte rows: a channel's 16 points in different L1 sets).
// CHECK: %[[V0:.*]] = bufferization.alloc_tensor() : tensor<16x33x32xf32>
// CHECK: %[[M0:.*]] = bufferization.alloc_tensor() : tensor<16x8x32xf32>
// Input transform, per channel: 2 tile rows x 4 patch rows x 2 reads of 32
// columns, split into even and odd ones; 16 points written per tile row.
// CHECK: scf.for %[[C:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x33x32xf32>)
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %[[C]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x6x32x34xf32>, vector<32xf32>
// CHECK-COUNT-8: vector.deinterleave {{.*}} : vector<32xf32> -> vector<16xf32>
// CHECK-COUNT-16: vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x33x32xf32>
// CHECK-COUNT-8: vector.deinterleave {{.*}} : vector<32xf32> -> vector<16xf32>
// CHECK-COUNT-16: vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x33x32xf32>
// The 16 products, 8 output channels x 32 tiles, over the channels.
// CHECK: vector.transfer_read %[[U]]{{.*}} : tensor<8x32x16xf32>, vector<8x1xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<16x33x32xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<16x8x32xf32>
// Output transform per channel: the bias element, two rows of 32 columns
// from the interleaved even and odd outputs.
// CHECK: tensor.extract %[[B]][%{{.*}}] : tensor<8xf32>
// CHECK: vector.interleave {{.*}} : vector<16xf32> -> vector<32xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<32xf32>, tensor<1x8x4x32xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[S]][0, 0, %{{.*}}, 0] [1, 8, 4, 32] [1, 1, 1, 1]
// CHECK-NOT: "reduction"
// Each patch row also prefetches two lines of the next block's columns
// (clamped to the row's last column), through a read-only view of the
// input: 2 for each of the 8 patch rows a channel reads here.
// PF-LABEL: func.func @rows_outer_bias
// PF-SAME: (%[[X:.*]]: tensor<1x6x32x34xf32>)
// PF: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only
// PF: scf.for %[[C:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x33x32xf32>)
// PF: arith.minsi %{{.*}}, %[[LAST:c33[_0-9]*]]
// PF-COUNT-16: memref.prefetch %[[XB]][%{{.*}}, %{{.*}}, %[[C]], %{{.*}}], read, locality<3>, data
// PF: scf.yield
// SMALL-LABEL: func.func @rows_outer_bias
// SMALL-NOT: scf.forall
// SMALL: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @rows_outer_bias(%x: tensor<1x6x32x34xf32>) -> tensor<1x8x4x32xf32> {
  %w = arith.constant dense<1.0> : tensor<8x32x3x3xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %init = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x4x32xf32>
  %r = linalg.generic {indexing_maps = [#rows, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x32x34xf32>, tensor<8x32x3x3xf32>) outs(%init : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}

// -----

#nchw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// On the padded NCHW input, 8 x 80 outputs from an init the conv reads
// (a function argument): 2 chunks of 4 rows (one block each); 40 tiles
// per row, two whole blocks of 16 in a loop and a last one whose input and
// output accesses are masked at the row's end (48 tiles computed for 40).
// CHECK-LABEL: func.func @nchw_masked_tail
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x10x82xf32>, %[[I:.*]]: tensor<1x8x8x80xf32>)
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %[[I]])
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WHOLE:.*]] step %[[C16:.*]] iter_args(
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x32x10x82xf32>, vector<32xf32>
// CHECK: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<1x8x4x80xf32>, vector<32xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<32xf32>, tensor<1x8x4x80xf32>
// Masked: no in_bounds attribute.
// CHECK: vector.transfer_read %[[X]][%{{.*}}], %{{[a-z0-9_]+}} : tensor<1x32x10x82xf32>, vector<32xf32>
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}], %{{[a-z0-9_]+}} : tensor<1x8x4x80xf32>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}] : vector<32xf32>, tensor<1x8x4x80xf32>
// CHECK: tensor.parallel_insert_slice
func.func @nchw_masked_tail(%x: tensor<1x32x10x82xf32>, %init: tensor<1x8x8x80xf32>) -> tensor<1x8x8x80xf32> {
  %w = arith.constant dense<0.5> : tensor<8x32x3x3xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x32x10x82xf32>, tensor<8x32x3x3xf32>) outs(%init : tensor<1x8x8x80xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x80xf32>
  return %r : tensor<1x8x8x80xf32>
}

// -----

#nchw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// Left direct: 16 input channels (below min-channels; MIN16 takes it), 4
// output channels, weights that are not constant, and 10 tiles per row (16
// would be computed: more than a quarter for nothing).
// CHECK-LABEL: func.func @not_transformed
// CHECK-NOT: scf.forall
// CHECK-COUNT-4: "reduction"
// MIN16-LABEL: func.func @not_transformed
// MIN16: scf.forall
// MIN16-SAME: -> (tensor<1x8x4x32xf32>)
// MIN16-COUNT-3: "reduction"
func.func @not_transformed(%x16: tensor<1x16x6x34xf32>, %x: tensor<1x32x6x34xf32>, %x20: tensor<1x32x6x22xf32>, %wv: tensor<8x32x3x3xf32>,
    %o8: tensor<1x8x4x32xf32>, %o4: tensor<1x4x4x32xf32>, %o20: tensor<1x8x4x20xf32>)
    -> (tensor<1x8x4x32xf32>, tensor<1x4x4x32xf32>, tensor<1x8x4x32xf32>, tensor<1x8x4x20xf32>) {
  %w16 = arith.constant dense<0.5> : tensor<8x16x3x3xf32>
  %w4 = arith.constant dense<0.5> : tensor<4x32x3x3xf32>
  %w = arith.constant dense<0.5> : tensor<8x32x3x3xf32>
  %a = linalg.generic {indexing_maps = [#nchw, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x16, %w16 : tensor<1x16x6x34xf32>, tensor<8x16x3x3xf32>) outs(%o8 : tensor<1x8x4x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  %b = linalg.generic {indexing_maps = [#nchw, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w4 : tensor<1x32x6x34xf32>, tensor<4x32x3x3xf32>) outs(%o4 : tensor<1x4x4x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x32xf32>
  %c = linalg.generic {indexing_maps = [#nchw, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wv : tensor<1x32x6x34xf32>, tensor<8x32x3x3xf32>) outs(%o8 : tensor<1x8x4x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  %d = linalg.generic {indexing_maps = [#nchw, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x20, %w : tensor<1x32x6x22xf32>, tensor<8x32x3x3xf32>) outs(%o20 : tensor<1x8x4x20xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x20xf32>
  return %a, %b, %c, %d : tensor<1x8x4x32xf32>, tensor<1x4x4x32xf32>, tensor<1x8x4x32xf32>, tensor<1x8x4x20xf32>
}

// -----

#rows = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// 8 x 64 outputs: F(2x2, 3x3) by default (2 blocks of 2 x 16 tiles per
// pair of tile rows); with max-tile=4, F(4x4, 3x3): 6x6 patches, 36
// points, 16 tiles of 4 columns per row (64 floats per read, split into 4
// phases by two levels of vector.deinterleave; the second read from 4t + 2
// gives d2 .. d5 and stays within the padded row), the 4 output columns of
// each tile interleaved back into 64 floats. For an all-ones kernel U is
// the outer product of G's row sums (1/4, -1/2, -1/6, 7/24, 1/8, 1).
// CHECK-LABEL: func.func @f4_rows_outer
// CHECK: arith.constant dense<{{.*}}> : tensor<8x32x16xf32>
// CHECK: bufferization.alloc_tensor() : tensor<16x33x32xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<1x10x32x66xf32>, vector<32xf32>
// F4-LABEL: func.func @f4_rows_outer
// F4-SAME: (%[[X:.*]]: tensor<1x10x32x66xf32>, %[[I:.*]]: tensor<1x8x8x64xf32>)
// 1/16, -1/8, -1/24, 7/96, 1/32, 1/4 (the first row of 36):
// F4: %[[U:.*]] = arith.constant dense<"0x0000803D000000BEABAA2ABD5555953D0000003D0000803E{{.*}}"> : tensor<8x32x36xf32>
// F4: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %[[I]])
// F4: bufferization.alloc_tensor() : tensor<36x33x32xf32>
// F4: bufferization.alloc_tensor() : tensor<36x8x32xf32>
// F4: vector.transfer_read %[[X]]{{.*}} {in_bounds = [true]} : tensor<1x10x32x66xf32>, vector<64xf32>
// F4-COUNT-3: vector.deinterleave
// F4: vector.transfer_read %[[X]]{{.*}} {in_bounds = [true]} : tensor<1x10x32x66xf32>, vector<64xf32>
// F4: vector.fma
// F4: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// F4: vector.interleave {{.*}} : vector<16xf32> -> vector<32xf32>
// F4: vector.interleave {{.*}} : vector<16xf32> -> vector<32xf32>
// F4: vector.interleave {{.*}} : vector<32xf32> -> vector<64xf32>
// F4: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<64xf32>, tensor<1x8x8x64xf32>
func.func @f4_rows_outer(%x: tensor<1x10x32x66xf32>, %init: tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  %w = arith.constant dense<1.0> : tensor<8x32x3x3xf32>
  %r = linalg.generic {indexing_maps = [#rows, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x32x66xf32>, tensor<8x32x3x3xf32>) outs(%init : tensor<1x8x8x64xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x64xf32>
  return %r : tensor<1x8x8x64xf32>
}

// -----

#rows = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A ReLU that reads only the conv (det's Relu.10 after Conv.61) runs on the
// outputs in the output transform, before they are written; its own pass
// goes and the function returns the forall's result.
// CHECK-LABEL: func.func @relu_epilogue
// CHECK: %[[R:.*]] = scf.forall
// CHECK: vector.interleave {{.*}} : vector<16xf32> -> vector<32xf32>
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>, tensor<1x8x4x32xf32>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.generic
func.func @relu_epilogue(%x: tensor<1x6x32x34xf32>, %init: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %w = arith.constant dense<1.0> : tensor<8x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#rows, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x32x34xf32>, tensor<8x32x3x3xf32>) outs(%init : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x8x4x32xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<1x8x4x32xf32>
  return %y : tensor<1x8x4x32xf32>
}
