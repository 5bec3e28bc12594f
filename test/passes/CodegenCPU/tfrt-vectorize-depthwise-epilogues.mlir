// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise=rows=1 -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise="epilogues=0 rows=1" -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise="remarks=1 rows=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A 3x3 depthwise conv whose accumulators start from its bias, followed by
// a per-channel scale and a ReLU: each accumulator vector is scaled by the
// channel's element (extracted and broadcast) and clamped before it is
// written, into the consumer's destination; the consumer's pass is gone.
// CHECK-LABEL: func.func @dw_scale_relu
// CHECK-SAME: %[[S:[^:]*]]: tensor<1x8x1x1xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x16x32xf32>
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c1 iter_args(%{{.*}} = %[[E]])
// CHECK: scf.for %[[OH:.*]] = %c0 to %c16 step %c1
// CHECK-COUNT-18: vector.fma
// CHECK: %[[SC:.*]] = tensor.extract %[[S]][%c0, %[[C]], %c0, %c0] : tensor<1x8x1x1xf32>
// CHECK: %[[SV:.*]] = vector.broadcast %[[SC]] : f32 to vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %[[SV]] fastmath<contract> : vector<16xf32>
// CHECK: %[[Y:.*]] = arith.maximumf %[[P]], %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %[[C]], %[[OH]], %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x8x16x32xf32>
// CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @dw_scale_relu
// OFF: linalg.generic
#bcast = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @dw_scale_relu(%x: tensor<1x8x18x34xf32>, %w: tensor<8x3x3xf32>, %bias: tensor<8xf32>, %s: tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x32xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x16x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x16x32xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x18x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %e2 = tensor.empty() : tensor<1x8x16x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %s : tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) outs(%e2 : tensor<1x8x16x32xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %p = arith.mulf %in, %sv : f32
    %y = arith.maximumf %p, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x16x32xf32>
  return %r : tensor<1x8x16x32xf32>
}

// -----

// A 5x5 kernel (25 taps, whose weights already hold most vector registers)
// writes its accumulators into the consumer's destination and runs the
// consumer's body over each channel's plane after its rows: a second loop
// over the rows inside the channel loop reads each vector back, clamps it
// and writes it in place; the consumer's pass is gone. A conv whose init
// is not a fill or bias keeps its consumer apart (its accumulators start
// from the init, which the consumer's destination cannot stand in for).
// CHECK-LABEL: func.func @dw5x5
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x4x16xf32>
// CHECK: scf.for %[[C:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[E]])
// CHECK: %[[ROWS:.*]] = scf.for %[[OH:.*]] = %c0 to %c4 step %c1
// CHECK-COUNT-25: vector.fma
// CHECK-NOT: arith.maximumf
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %[[C]], %[[OH]], %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x2x4x16xf32>
// CHECK: scf.for %[[OH2:.*]] = %c0 to %c4 step %c1 iter_args(%[[P:.*]] = %[[ROWS]])
// CHECK: %[[V:.*]] = vector.transfer_read %[[P]][%c0, %[[C]], %[[OH2]], %c0]
// CHECK: %[[Y:.*]] = arith.maximumf %[[V]], %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK: vector.transfer_write %[[Y]], %[[P]][%c0, %[[C]], %[[OH2]], %c0]
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @init_read
// CHECK: vector.transfer_read %{{.*}} : tensor<1x2x4x16xf32>, vector<16xf32>
// CHECK: linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dw5x5(%x: tensor<1x2x8x20xf32>, %w: tensor<2x5x5xf32>) -> tensor<1x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x8x20xf32>, tensor<2x5x5xf32>) outs(%f : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}

func.func @init_read(%x: tensor<1x2x6x18xf32>, %w: tensor<2x3x3xf32>, %acc: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x6x18xf32>, tensor<2x3x3xf32>) outs(%acc : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}

// With `remarks`, each fused epilogue is reported on its producer (a
// fusion report, tfrt-compile --fusion-report).
// REMARK: remark: epilogue (unnamed) runs on the register tiles of the depthwise convolution
