// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv=flat-rows=0 -canonicalize -cse | FileCheck %s --check-prefix=OFF

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 3x3 stride-1 conv with 20 output columns (22 input columns): the input
// becomes [8, 6 * 22] and output position p = oh * 22 + ow reads input
// p + kh * 22 + kw. The 4 * 22 - 2 = 86 positions are two 32-column tiles,
// a 16-column tile at 64 and another at 70 (overlapping the first by ten
// columns: a 16-column tile costs an AVX-512 FMA per row and channel, as an
// 8-column one does); each starts from zero. The [16, 88] result is
// expanded to [16, 4, 22], its first 20 columns are added onto the init.
// CHECK-LABEL: func.func @narrow
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x22xf32>, %[[W:.*]]: tensor<16x8x3x3xf32>, %[[O:.*]]: tensor<1x16x4x20xf32>)
// CHECK-DAG: %[[Z32:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-DAG: %[[Z16:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK: %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x6x22xf32> into tensor<8x132xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x88xf32>
// CHECK: %[[T32:.*]] = scf.for %[[P:.*]] = %c0 to %c64 step %c32 iter_args(%{{.*}} = %[[E]])
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c4 iter_args(%{{.*}} = %[[Z32]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1
// CHECK: %[[ROW:.*]] = arith.muli %[[KH]], %c22
// CHECK: %[[RS:.*]] = arith.addi %[[P]], %[[ROW]]
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3 step %c1
// CHECK: %[[WV:.*]] = vector.transfer_read %[[W]][%[[M]], %[[C]], %[[KH]], %[[KW]]]{{.*}} vector<8x4xf32>
// CHECK: %[[COL:.*]] = arith.addi %[[RS]], %[[KW]]
// CHECK: %[[XV:.*]] = vector.transfer_read %[[XF]][%[[C]], %[[COL]]]{{.*}} vector<4x32xf32>
// CHECK: vector.contract {{.*}} %[[WV]], %[[XV]], %{{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[M]], %[[P]]] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<16x88xf32>
// CHECK: %[[T16:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %[[T32]])
// CHECK: iter_args(%{{.*}} = %[[Z16]]) -> (vector<8x16xf32>)
// CHECK: vector.transfer_read %[[XF]]{{.*}} vector<4x16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c64] {{.*}} : vector<8x16xf32>, tensor<16x88xf32>
// CHECK: %[[T16B:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c8 iter_args(%{{.*}} = %[[T16]])
// CHECK: iter_args(%{{.*}} = %[[Z16]]) -> (vector<8x16xf32>)
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c70] {{.*}} : vector<8x16xf32>, tensor<16x88xf32>
// CHECK-NOT: vector<8x8xf32>
// CHECK: %[[EX:.*]] = tensor.expand_shape %[[T16B]] {{\[}}[0], [1, 2]] output_shape [16, 4, 22] : tensor<16x88xf32> into tensor<16x4x22xf32>
// CHECK: %[[V:.*]] = tensor.extract_slice %[[EX]][0, 0, 0] [16, 4, 20] [1, 1, 1] : tensor<16x4x22xf32> to tensor<16x4x20xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<16x4x20xf32>) outs(%[[O]] : tensor<1x16x4x20xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
// OFF-LABEL: func.func @narrow
// OFF-NOT: vector.contract
// OFF: linalg.generic
func.func @narrow(%x: tensor<1x8x6x22xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x20xf32>) -> tensor<1x16x4x20xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x6x22xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x20xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x20xf32>
  return %r : tensor<1x16x4x20xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// 32-column outputs keep the column tiles; so does a dilated window (its
// taps are not a plain shift of the flattened rows).
// CHECK-LABEL: func.func @wide
// CHECK-NOT: tensor.collapse_shape
// CHECK: vector.contract {{.*}} into vector<8x32xf32>
// CHECK-LABEL: func.func @dilated
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @wide(%x: tensor<1x8x6x34xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x6x34xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}

#xd = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5 * 2, d3 + d6 * 2)>
func.func @dilated(%x: tensor<1x8x8x24xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x20xf32>) -> tensor<1x16x4x20xf32> {
  %r = linalg.generic {indexing_maps = [#xd, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x8x24xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x20xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x20xf32>
  return %r : tensor<1x16x4x20xf32>
}
