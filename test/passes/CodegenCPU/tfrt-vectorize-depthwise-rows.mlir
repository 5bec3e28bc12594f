// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise=rows=3 -canonicalize -cse | FileCheck %s --check-prefix=THREE

// Two output rows per step (the default): 4 rows are a loop over rows 0-3
// in steps of 2. Each tap's weight feeds the accumulators of both rows
// (2 rows x 2 vectors x 9 taps, 36 FMAs), and the accumulators are
// written at rows oh and oh + 1.
// CHECK-LABEL: func.func @dw3x3_rows
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c1
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c2
// CHECK: %[[OH1:.*]] = arith.addi %[[OH]], %c1 : index
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[C]], %[[OH]], %c0]{{.*}} : tensor<1x8x4x32xf32>, vector<16xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[C]], %[[OH1]], %c16]{{.*}} : tensor<1x8x4x32xf32>, vector<16xf32>
// CHECK-COUNT-36: vector.fma
// CHECK-NOT: vector.fma
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH]], %c0]
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH]], %c16]
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH1]], %c0]
// CHECK: vector.transfer_write %{{.*}}[%c0, %[[C]], %[[OH1]], %c16]
// Three rows do not divide 4: one row per step.
// THREE-LABEL: func.func @dw3x3_rows
// THREE: scf.for %{{.*}} = %c0 to %c4 step %c1
// THREE-COUNT-18: vector.fma
// THREE-NOT: vector.fma
func.func @dw3x3_rows(%x: tensor<1x8x6x34xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x6x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}

// -----

// Five rows are not a multiple of two: one row per step.
// CHECK-LABEL: func.func @dw3x3_odd_rows
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1
// CHECK-COUNT-18: vector.fma
// CHECK-NOT: vector.fma
// THREE-LABEL: func.func @dw3x3_odd_rows
// THREE: scf.for %{{.*}} = %c0 to %c5 step %c1
func.func @dw3x3_odd_rows(%x: tensor<1x8x7x34xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x5x32xf32>) -> tensor<1x8x5x32xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x7x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x5x32xf32>) -> tensor<1x8x5x32xf32>
  return %r : tensor<1x8x5x32xf32>
}

// -----

// Stride 2: the second row of a step reads input rows 2 (oh + 1) + kh.
// CHECK-LABEL: func.func @dw3x3_s2_rows
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c2
// CHECK-DAG: %[[OH1:.*]] = arith.addi %[[OH]], %c1 : index
// CHECK-DAG: %[[R0:.*]] = arith.muli %[[OH]], %c2 : index
// CHECK-DAG: %[[R1:.*]] = arith.muli %[[OH1]], %c2 : index
// CHECK-DAG: vector.transfer_read %arg0[%c0, %{{.*}}, %[[R0]], %c0]
// CHECK-DAG: vector.transfer_read %arg0[%c0, %{{.*}}, %[[R1]], %c0]
// CHECK: scf.yield
func.func @dw3x3_s2_rows(%x: tensor<1x4x9x34xf32>, %w: tensor<4x3x3xf32>, %b: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x9x34xf32>, tensor<4x3x3xf32>) outs(%b : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %r : tensor<1x4x4x16xf32>
}

// -----

// Stride 2 on an input plane of 64 KiB or more (129 x 130 floats: 67080
// bytes) takes one row per step whatever the option says; the same conv on
// a plane under 64 KiB (9 x 130) keeps two.
// CHECK-LABEL: func.func @dw_s2_big_plane
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// THREE-LABEL: func.func @dw_s2_big_plane
// THREE: scf.for %{{.*}} = %c0 to %c64 step %c1
func.func @dw_s2_big_plane(%x: tensor<1x1x129x130xf32>, %w: tensor<1x3x3xf32>, %b: tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x129x130xf32>, tensor<1x3x3xf32>) outs(%b : tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32>
  return %r : tensor<1x1x64x64xf32>
}

// CHECK-LABEL: func.func @dw_s2_small_plane
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c2
func.func @dw_s2_small_plane(%x: tensor<1x1x9x130xf32>, %w: tensor<1x3x3xf32>, %b: tensor<1x1x4x64xf32>) -> tensor<1x1x4x64xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x9x130xf32>, tensor<1x3x3xf32>) outs(%b : tensor<1x1x4x64xf32>) -> tensor<1x1x4x64xf32>
  return %r : tensor<1x1x4x64xf32>
}

// -----

// A plane under 64 KiB whose rows run in groups of five vectors (80
// columns, 9 x 162 input floats: det's stride-2 conv in the band of
// tfrt-fuse-conv-bands) takes one row per step: two rows of five
// accumulators with their reads' lane shuffles spill. Stride 2 along the
// rows only (no shuffles) keeps two.
// CHECK-LABEL: func.func @dw_s2_wide_groups
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK-LABEL: func.func @dw_s2_rows_only_wide_groups
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c2
func.func @dw_s2_wide_groups(%x: tensor<1x1x9x162xf32>, %w: tensor<1x3x3xf32>, %b: tensor<1x1x4x80xf32>) -> tensor<1x1x4x80xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x9x162xf32>, tensor<1x3x3xf32>) outs(%b : tensor<1x1x4x80xf32>) -> tensor<1x1x4x80xf32>
  return %r : tensor<1x1x4x80xf32>
}

func.func @dw_s2_rows_only_wide_groups(%x: tensor<1x1x9x82xf32>, %w: tensor<1x3x3xf32>, %b: tensor<1x1x4x80xf32>) -> tensor<1x1x4x80xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x9x82xf32>, tensor<1x3x3xf32>) outs(%b : tensor<1x1x4x80xf32>) -> tensor<1x1x4x80xf32>
  return %r : tensor<1x1x4x80xf32>
}
