// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv=flat-rows=0 -canonicalize -cse -loop-invariant-subset-hoisting -canonicalize | FileCheck %s
// flat-rows=0: the column-tile lowering; tfrt-vectorize-conv-flat-rows.mlir
// covers the default for output widths that are not a multiple of 32.

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 3x3 stride-1 conv: loops (oh, m step 8) around (c step 4, kh, kw) (ow is
// one 32-wide tile here); the 8x32 accumulator is read once per output tile,
// carried through the reduction loops as a vector and written once; each
// step is one contraction of an 8x4 weight block and a 4x32 input block.
// CHECK-LABEL: func.func @conv3x3
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x34xf32>, %[[W:.*]]: tensor<16x8x3x3xf32>, %[[O:.*]]: tensor<1x16x4x32xf32>)
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8 iter_args(%[[OT:.*]] =
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[OT]][%c0, %[[M]], %[[OH]], %c0]{{.*}} vector<8x32xf32>
// CHECK: %[[R:.*]] = scf.for %[[C:.*]] = %c0 to %c8 step %c4 iter_args(%[[A0:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(%[[A1:.*]] = %[[A0]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 iter_args(%[[A2:.*]] = %[[A1]]) -> (vector<8x32xf32>)
// CHECK: %[[WV:.*]] = vector.transfer_read %[[W]][%[[M]], %[[C]], %[[KH]], %[[KW]]]{{.*}} vector<8x4xf32>
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}(%[[OH]], %[[KH]])
// CHECK: %[[XV:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[ROW]], %[[KW]]]{{.*}} vector<4x32xf32>
// CHECK: vector.contract {{.*}} %[[WV]], %[[XV]], %[[A2]] : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: vector.transfer_write %[[R]], %[[OT]][%c0, %[[M]], %[[OH]], %c0]
func.func @conv3x3(%x: tensor<1x8x6x34xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x6x34xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// Odd shapes: 12 output channels take 6-row tiles, 48 columns 16-wide ones,
// 6 input channels steps of 2; ow tiles come before m tiles.
// CHECK-LABEL: func.func @conv_odd
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args(%{{.*}}) -> (vector<6x16xf32>)
// CHECK: vector.contract {{.*}} : vector<6x2xf32>, vector<2x16xf32> into vector<6x16xf32>
func.func @conv_odd(%x: tensor<1x6x3x50xf32>, %w: tensor<12x6x3x3xf32>, %o: tensor<1x12x1x48xf32>) -> tensor<1x12x1x48xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x3x50xf32>, tensor<12x6x3x3xf32>) outs(%o : tensor<1x12x1x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x12x1x48xf32>
  return %r : tensor<1x12x1x48xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 1x1 conv becomes a linalg.matmul of the collapsed weight [M, C] and
// input [C, H*W] into the collapsed output, expanded back (for
// tfrt-vectorize-matmul).
// CHECK-LABEL: func.func @conv1x1
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x4x8xf32>, %[[W:.*]]: tensor<16x8x1x1xf32>, %[[O:.*]]: tensor<1x16x4x8xf32>)
// CHECK-DAG: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<8x32xf32>
// CHECK-DAG: %[[WC:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8xf32>
// CHECK-DAG: %[[OC:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2, 3]] : tensor<1x16x4x8xf32> into tensor<16x32xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[WC]], %[[XC]] : tensor<16x8xf32>, tensor<8x32xf32>) outs(%[[OC]] : tensor<16x32xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 4, 8]
func.func @conv1x1(%x: tensor<1x8x4x8xf32>, %w: tensor<16x8x1x1xf32>, %o: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x4x8xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x8xf32>
  return %r : tensor<1x16x4x8xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 1x1 conv on a 1x1 map with constant weights (a squeeze-excitation
// layer) becomes the single-row product in[1, C] x w^T[C, M]: the weights
// [3, 2] = [[1, 2], [3, 4], [5, 6]] transposed at compile time.
// CHECK-LABEL: func.func @conv1x1_on_1x1
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x1x1xf32>, %[[O:.*]]: tensor<1x3x1x1xf32>)
// CHECK-DAG: %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[XR:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3]] : tensor<1x2x1x1xf32> into tensor<1x2xf32>
// CHECK-DAG: %[[OR:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0], [1, 2, 3]] : tensor<1x3x1x1xf32> into tensor<1x3xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[XR]], %[[WT]] : tensor<1x2xf32>, tensor<2x3xf32>) outs(%[[OR]] : tensor<1x3xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0], [1, 2, 3]] output_shape [1, 3, 1, 1]
func.func @conv1x1_on_1x1(%x: tensor<1x2x1x1xf32>, %o: tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32> {
  %w = arith.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x1x1xf32>, tensor<3x2x1x1xf32>) outs(%o : tensor<1x3x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x1x1xf32>
  return %r : tensor<1x3x1x1xf32>
}

// -----

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// Left to the loop lowering: stride 2 along the columns, 20 columns (no
// 8-, 16- or 32-wide tile), and a body that is not a multiply-accumulate.
// CHECK-LABEL: func.func @stride2
// CHECK: linalg.generic
// CHECK-NOT: vector.contract
// CHECK-LABEL: func.func @narrow
// CHECK: linalg.generic
// CHECK-NOT: vector.contract
// CHECK-LABEL: func.func @not_mul_add
// CHECK: linalg.generic
// CHECK-NOT: vector.contract
func.func @stride2(%x: tensor<1x8x9x65xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x9x65xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}
func.func @narrow(%x: tensor<1x8x6x22xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x20xf32>) -> tensor<1x16x4x20xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x6x22xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x20xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x20xf32>
  return %r : tensor<1x16x4x20xf32>
}
func.func @not_mul_add(%x: tensor<1x8x6x34xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x6x34xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.maximumf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// On the rows-outer input [N, H, C, W] of tfrt-split-conv-phases the channel
// loop is innermost, in steps of 8: (kh, kw, c step 8) inside (oh, m); each
// step contracts an 8x8 weight block with 8 input rows [c, ow + kw] of one
// input row oh + kh.
// CHECK-LABEL: func.func @conv3x3_rows_outer
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x16x34xf32>, %[[W:.*]]: tensor<16x16x3x3xf32>, %[[O:.*]]: tensor<1x16x4x32xf32>)
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8 iter_args(%[[OT:.*]] =
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[OT]][%c0, %[[M]], %[[OH]], %c0]{{.*}} vector<8x32xf32>
// CHECK: %[[R:.*]] = scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(%[[A0:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 iter_args(%[[A1:.*]] = %[[A0]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[C:.*]] = %c0 to %c16 step %c8 iter_args(%[[A2:.*]] = %[[A1]]) -> (vector<8x32xf32>)
// CHECK: %[[WV:.*]] = vector.transfer_read %[[W]][%[[M]], %[[C]], %[[KH]], %[[KW]]]{{.*}} vector<8x8xf32>
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}(%[[OH]], %[[KH]])
// CHECK: %[[XV:.*]] = vector.transfer_read %[[X]][%c0, %[[ROW]], %[[C]], %[[KW]]]{{.*}} vector<8x32xf32>
// CHECK: vector.contract {{.*}} %[[WV]], %[[XV]], %[[A2]] : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: vector.transfer_write %[[R]], %[[OT]][%c0, %[[M]], %[[OH]], %c0]
func.func @conv3x3_rows_outer(%x: tensor<1x6x16x34xf32>, %w: tensor<16x16x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x16x34xf32>, tensor<16x16x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}

// -----

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// An image stem (3 input channels, 3x3, stride 2, zero padding with one
// column on the left): computed from the unpadded input, 8 output channels
// x 32 columns per tile. Per (channel, kernel row): 64 input columns from
// 2 * ow, split into even (kw = 1) and odd (kw = 2) lanes; kw = 0 is the odd
// lanes one lane on, behind the padding's zero in the first column tile and
// the odd lanes of the columns from 2 * ow - 2 in the others. Kernel rows in
// the padding are skipped (the kh loop's bounds), the next output row's
// input rows are prefetched, and the padded input is never built.
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
