// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv-transpose -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv-transpose=copy-rows=false -canonicalize -cse | FileCheck %s --check-prefix=NOCOPY

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>

// A 2x2 stride-2 ConvTranspose, 4 -> 2 channels on 3x32 inputs, init a zero
// fill: loops (n, ih, m), two 16-column vectors per step and one
// accumulator per tap and vector (8), started from zero (the fill is not
// read); per input channel two reads, four broadcast weights and eight
// FMAs. Each (kh, vector) pair of column taps is interleaved into 32
// contiguous outputs of the [1, 2, 3, 2, 64] rows.
// CHECK-LABEL: func.func @k2s2
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x32xf32>, %[[W:.*]]: tensor<4x2x2x2xf32>)
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x3x2x32x2xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[E]] {{\[}}[0], [1], [2], [3], [4, 5]] : tensor<1x2x3x2x32x2xf32> into tensor<1x2x3x2x64xf32>
// CHECK: scf.for %[[IH:.*]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[M:.*]] = %c0 to %c2 step %c1
// CHECK: %[[R:.*]]:8 = scf.for %[[C:.*]] = %c0 to %c4 step %c1 iter_args(%{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]])
// CHECK: %[[X0:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[IH]], %c0]{{.*}} vector<16xf32>
// CHECK: %[[X1:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[IH]], %c16]{{.*}} vector<16xf32>
// CHECK: %[[T00:.*]] = tensor.extract %[[W]][%[[C]], %[[M]], %c0, %c0]
// CHECK: %[[B00:.*]] = vector.broadcast %[[T00]] : f32 to vector<16xf32>
// CHECK: vector.fma %[[X0]], %[[B00]]
// CHECK: vector.fma %[[X1]], %[[B00]]
// CHECK-COUNT-6: vector.fma
// CHECK: scf.yield
// CHECK: %[[I0:.*]] = vector.interleave %[[R]]#0, %[[R]]#2 : vector<16xf32> -> vector<32xf32>
// CHECK: vector.transfer_write %[[I0]], %{{.*}}[%c0, %[[M]], %[[IH]], %c0, %c0] {in_bounds = [true]} : vector<32xf32>, tensor<1x2x3x2x64xf32>
// CHECK: %[[I1:.*]] = vector.interleave %[[R]]#1, %[[R]]#3 : vector<16xf32> -> vector<32xf32>
// CHECK: vector.transfer_write %[[I1]], %{{.*}}[%c0, %[[M]], %[[IH]], %c0, %c32]
// CHECK: vector.interleave %[[R]]#4, %[[R]]#6
// CHECK: vector.transfer_write {{.*}}[%c0, %[[M]], %[[IH]], %c1, %c0]
// CHECK: vector.interleave %[[R]]#5, %[[R]]#7
// CHECK: vector.transfer_write {{.*}}[%c0, %[[M]], %[[IH]], %c1, %c32]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2], [3], [4, 5]] output_shape [1, 2, 3, 2, 32, 2] : tensor<1x2x3x2x64xf32> into tensor<1x2x3x2x32x2xf32>
func.func @k2s2(%x: tensor<1x4x3x32xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x2x3x2x32x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x2x32x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x3x2x32x2xf32>) -> tensor<1x2x3x2x32x2xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x4x3x32xf32>, tensor<4x2x2x2xf32>) outs(%f : tensor<1x2x3x2x32x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x2x32x2xf32>
  return %r : tensor<1x2x3x2x32x2xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>

// An init that is not a fill: the sums are added to it as read.
// CHECK-LABEL: func.func @any_init
// CHECK-SAME: %[[O:[a-z0-9]+]]: tensor<1x1x2x2x16x2xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[O]]
// CHECK: %[[V:.*]] = vector.interleave
// CHECK: %[[OLD:.*]] = vector.transfer_read %{{.*}}[%c0, %c0, %{{.*}}, %c0, %c0]{{.*}} vector<32xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[V]], %[[OLD]] : vector<32xf32>
// CHECK: vector.transfer_write %[[SUM]]
func.func @any_init(%x: tensor<1x2x2x16xf32>, %w: tensor<2x1x2x2xf32>, %o: tensor<1x1x2x2x16x2xf32>) -> tensor<1x1x2x2x16x2xf32> {
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x2x2x16xf32>, tensor<2x1x2x2xf32>) outs(%o : tensor<1x1x2x2x16x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x2x2x16x2xf32>
  return %r : tensor<1x1x2x2x16x2xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>

// Rows that are not a multiple of 16 columns, and 3-wide kernels, keep the
// generic.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: vector.fma
func.func @kept(%x: tensor<1x2x2x20xf32>, %w: tensor<2x1x2x2xf32>, %o: tensor<1x1x2x2x20x2xf32>, %w3: tensor<2x1x3x3xf32>, %o3: tensor<1x1x2x3x16x3xf32>, %x3: tensor<1x2x2x16xf32>) -> (tensor<1x1x2x2x20x2xf32>, tensor<1x1x2x3x16x3xf32>) {
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x2x2x20xf32>, tensor<2x1x2x2xf32>) outs(%o : tensor<1x1x2x2x20x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x2x2x20x2xf32>
  %r3 = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x3, %w3 : tensor<1x2x2x16xf32>, tensor<2x1x3x3xf32>) outs(%o3 : tensor<1x1x2x3x16x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x2x3x16x3xf32>
  return %r, %r3 : tensor<1x1x2x2x20x2xf32>, tensor<1x1x2x3x16x3xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>

// 16 -> 4 channels on 4x256 maps: the 16 channel planes are 4 KiB apart,
// so a column's lines all fall into one L1 set; each input row of all 16
// channels is first copied into a [16, 272] scratch (rows 272 floats
// apart), which the 4 output channels then read. With copy-rows=false the
// steps read the input.
// CHECK-LABEL: func.func @rows_copied
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x4x256xf32>
// CHECK: scf.for %[[IH:.*]] = %c0 to %c4 step %c1
// CHECK: %[[S:.*]] = tensor.empty() : tensor<16x272xf32>
// CHECK: %[[ROW:.*]] = scf.for %[[C:.*]] = %c0 to %c16 step %c1 iter_args(%[[T:.*]] = %[[S]])
// CHECK: %[[V:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[IH]], %c0]{{.*}} vector<16xf32>
// CHECK: vector.transfer_write %[[V]], %[[T]][%[[C]], %c0]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: vector.transfer_read %[[ROW]][%{{.*}}, %{{.*}}]{{.*}} : tensor<16x272xf32>, vector<16xf32>
// NOCOPY-LABEL: func.func @rows_copied
// NOCOPY-NOT: tensor<16x272xf32>
// NOCOPY: vector.transfer_read %{{.*}} : tensor<1x16x4x256xf32>, vector<16xf32>
func.func @rows_copied(%x: tensor<1x16x4x256xf32>, %w: tensor<16x4x2x2xf32>) -> tensor<1x4x4x2x256x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x2x256x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x2x256x2xf32>) -> tensor<1x4x4x2x256x2xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x16x4x256xf32>, tensor<16x4x2x2xf32>) outs(%f : tensor<1x4x4x2x256x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2x256x2xf32>
  return %r : tensor<1x4x4x2x256x2xf32>
}
