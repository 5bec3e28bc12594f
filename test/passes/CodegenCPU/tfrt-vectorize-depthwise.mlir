// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise=rows=1 -canonicalize -cse | FileCheck %s

// These cases check one output row per step (rows=1); two rows per step,
// the default, are in tfrt-vectorize-depthwise-rows.mlir.

// Stride 1, 3x3, 32 output columns: loops over n (one trip, folded), c and
// oh; per row two
// vectors of 16 lanes read from the init, nine taps (an unaligned row read
// at the tap's column and an FMA with the broadcast weight) each, one write.
// CHECK-LABEL: func.func @dw3x3
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x18x34xf32>, %[[W:.*]]: tensor<8x3x3xf32>, %[[B:.*]]: tensor<1x8x16x32xf32>)
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c1
// CHECK: tensor.extract %[[W]][%[[C]], %c0, %c0]
// CHECK: scf.for %[[OH:.*]] = %c0 to %c16 step %c1
// CHECK: %[[A0:.*]] = vector.transfer_read %{{.*}}[%c0, %[[C]], %[[OH]], %c0]{{.*}}{in_bounds = [true]} : tensor<1x8x16x32xf32>, vector<16xf32>
// CHECK: %[[A1:.*]] = vector.transfer_read %{{.*}}[%c0, %[[C]], %[[OH]], %c16]{{.*}}{in_bounds = [true]} : tensor<1x8x16x32xf32>, vector<16xf32>
// CHECK: %[[X0:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[OH]], %c0]{{.*}}{in_bounds = [true]} : tensor<1x8x18x34xf32>, vector<16xf32>
// CHECK: vector.fma %[[X0]], %{{.*}}, %[[A0]] : vector<16xf32>
// CHECK: %[[X1:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[OH]], %c16]{{.*}} : tensor<1x8x18x34xf32>, vector<16xf32>
// CHECK: vector.fma %[[X1]], %{{.*}}, %[[A1]] : vector<16xf32>
// CHECK: vector.transfer_read %[[X]][%c0, %[[C]], %[[OH]], %c1]
// CHECK-COUNT-16: vector.fma
// CHECK-NOT: vector.fma
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH]], %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x8x16x32xf32>
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH]], %c16] {in_bounds = [true]} : vector<16xf32>, tensor<1x8x16x32xf32>
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @dw3x3(%x: tensor<1x8x18x34xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x18x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  return %r : tensor<1x8x16x32xf32>
}

// -----

// Stride 2 with a tail: 20 output columns are a 16-lane vector and a 4-lane
// one; each reads twice its lanes and keeps the even ones. The input has the
// extra column of the graph lowering, so every read is in bounds.
// CHECK-LABEL: func.func @dw3x3_s2
// CHECK: scf.for %[[OH:.*]] = %c0 to %c10 step %c1
// CHECK: %[[R:.*]] = arith.muli %[[OH]], %c2
// CHECK: %[[V:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %[[R]], %c0]{{.*}}{in_bounds = [true]} : tensor<1x4x21x42xf32>, vector<32xf32>
// CHECK: vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK: vector.transfer_read %arg0[%{{.*}}, %{{.*}}, %[[R]], %c32]{{.*}}{in_bounds = [true]} : tensor<1x4x21x42xf32>, vector<8xf32>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4xf32>, tensor<1x4x10x20xf32>
func.func @dw3x3_s2(%x: tensor<1x4x21x42xf32>, %w: tensor<4x3x3xf32>, %b: tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x21x42xf32>, tensor<4x3x3xf32>) outs(%b : tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32>
  return %r : tensor<1x4x10x20xf32>
}

// -----

// Ten vectors per row are two groups of five in a loop over the columns.
// CHECK-LABEL: func.func @dw5x5_wide
// CHECK: scf.for %{{.*}} = %c0 to %c160 step %c80
// CHECK-COUNT-125: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
func.func @dw5x5_wide(%x: tensor<1x2x5x164xf32>, %w: tensor<2x5x5xf32>, %b: tensor<1x2x1x160xf32>) -> tensor<1x2x1x160xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x5x164xf32>, tensor<2x5x5xf32>) outs(%b : tensor<1x2x1x160xf32>) -> tensor<1x2x1x160xf32>
  return %r : tensor<1x2x1x160xf32>
}

// -----

// Stride 2 on a padded input: the three taps of a kernel row share one
// read of 32 columns (even lanes, odd lanes, and the even lanes from the
// third column on), the third tap's last lane (column 32) comes from a
// one-element read, in bounds since the input has that column.
// CHECK-LABEL: func.func @dw_s2_exact
// CHECK: %[[R:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c0], %cst{{.*}} {in_bounds = [true]} : tensor<1x1x3x33xf32>, vector<32xf32>
// CHECK: vector.shuffle %[[R]], %[[R]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: vector.shuffle %[[R]], %[[R]] [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
// CHECK: %[[T:.*]] = vector.shuffle %[[R]], %[[R]] [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 0]
// CHECK: %[[E:.*]] = vector.transfer_read %arg0[%c0, %c0, %c0, %c32], %cst{{.*}} {in_bounds = [true]} : tensor<1x1x3x33xf32>, vector<1xf32>
// CHECK: %[[B:.*]] = vector.broadcast %[[E]] : vector<1xf32> to vector<16xf32>
// CHECK: arith.select %{{.*}}, %[[B]], %[[T]] : vector<16xi1>, vector<16xf32>
// CHECK-NOT: %c2], %cst
func.func @dw_s2_exact(%x: tensor<1x1x3x33xf32>, %w: tensor<1x3x3xf32>, %b: tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x3x33xf32>, tensor<1x3x3xf32>) outs(%b : tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf32>
  return %r : tensor<1x1x1x16xf32>
}

// -----

// Other element types are left alone.
// CHECK-LABEL: func.func @f16
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @f16(%x: tensor<1x2x3x18xf16>, %w: tensor<2x3x3xf16>, %b: tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x3x18xf16>, tensor<2x3x3xf16>) outs(%b : tensor<1x2x1x16xf16>) -> tensor<1x2x1x16xf16>
  return %r : tensor<1x2x1x16xf16>
}

// -----

// A zero-filled init: the accumulators start as a broadcast of the fill
// value, the output is neither filled nor read (the fill is left dead).
// CHECK-LABEL: func.func @fill_init
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x1x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK-NOT: vector.transfer_read %{{.*}} : tensor<1x2x1x16xf32>
// CHECK: vector.fma %{{.*}}, %{{.*}}, %[[Z]]
func.func @fill_init(%x: tensor<1x2x3x18xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x1x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x3x18xf32>, tensor<2x3x3xf32>) outs(%f : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

// The bias broadcast of the graph lowering as init: one bias element per
// channel, broadcast into the accumulators.
// CHECK-LABEL: func.func @bias_init
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<2xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x1x16xf32>
// CHECK: scf.for %[[C:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[E]])
// CHECK: %[[B:.*]] = tensor.extract %[[BIAS]][%[[C]]] : tensor<2xf32>
// CHECK: vector.broadcast %[[B]] : f32 to vector<16xf32>
// CHECK-NOT: linalg.generic
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @bias_init(%x: tensor<1x2x3x18xf32>, %w: tensor<2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x1x16xf32> {
  %e = tensor.empty() : tensor<1x2x1x16xf32>
  %i = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<2xf32>) outs(%e : tensor<1x2x1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x1x16xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x3x18xf32>, tensor<2x3x3xf32>) outs(%i : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
  return %r : tensor<1x2x1x16xf32>
}

// -----

// A chunk of the async tiling (channels split in two): the forall's shared
// output starts from the bias generic's empty init, and each chunk reads
// the bias at its channel offset.
// CHECK-LABEL: func.func @bias_init_chunk
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x1x16xf32>
// CHECK: scf.forall (%[[I:.*]]) in (2) shared_outs(%{{.*}} = %[[E]])
// CHECK: %[[OFF:.*]] = affine.apply
// CHECK: scf.for %[[C:.*]] = %c0 to %c2 step %c1
// CHECK: %[[CH:.*]] = arith.addi %[[C]], %[[OFF]]
// CHECK: tensor.extract %[[BIAS]][%[[CH]]] : tensor<4xf32>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map = affine_map<(d0) -> (d0 * 2)>
func.func @bias_init_chunk(%x: tensor<1x4x3x18xf32>, %w: tensor<4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x1x16xf32> {
  %e = tensor.empty() : tensor<1x4x1x16xf32>
  %i = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<1x4x1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x1x16xf32>
  %r = scf.forall (%t) in (2) shared_outs(%o = %i) -> (tensor<1x4x1x16xf32>) {
    %c = affine.apply #map(%t)
    %xs = tensor.extract_slice %x[0, %c, 0, 0] [1, 2, 3, 18] [1, 1, 1, 1] : tensor<1x4x3x18xf32> to tensor<1x2x3x18xf32>
    %ws = tensor.extract_slice %w[%c, 0, 0] [2, 3, 3] [1, 1, 1] : tensor<4x3x3xf32> to tensor<2x3x3xf32>
    %os = tensor.extract_slice %o[0, %c, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : tensor<1x4x1x16xf32> to tensor<1x2x1x16xf32>
    %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%xs, %ws : tensor<1x2x3x18xf32>, tensor<2x3x3xf32>) outs(%os : tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %d into %o[0, %c, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : tensor<1x2x1x16xf32> into tensor<1x4x1x16xf32>
    }
  }
  return %r : tensor<1x4x1x16xf32>
}
