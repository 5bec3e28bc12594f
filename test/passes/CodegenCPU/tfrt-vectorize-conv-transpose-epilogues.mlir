// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv-transpose -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv-transpose="epilogues=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv-transpose="remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#bcast = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#chan = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, 0)>

// A 2x2 stride-2 ConvTranspose whose accumulators start from its bias (a
// broadcast of a [C] tensor over the 6-D result), followed by a
// per-channel scale and a ReLU on the 6-D result: each interleaved row
// vector is scaled by the channel's element and clamped before it is
// written into the consumer's destination, viewed as [1, 2, 3, 2, 64]
// rows. The consumer's pass is gone.
// CHECK-LABEL: func.func @bias_scale_relu
// CHECK-SAME: %[[S:[^:]*]]: tensor<2x1x1xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x3x2x32x2xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[E]] {{\[}}[0], [1], [2], [3], [4, 5]] : tensor<1x2x3x2x32x2xf32> into tensor<1x2x3x2x64xf32>
// CHECK: scf.for %[[IH:.*]] = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[ROWS]])
// CHECK: scf.for %[[M:.*]] = %c0 to %c2 step %c1
// CHECK: %[[I0:.*]] = vector.interleave
// CHECK: %[[SC:.*]] = tensor.extract %[[S]][%[[M]], %c0, %c0] : tensor<2x1x1xf32>
// CHECK: %[[SV:.*]] = vector.broadcast %[[SC]] : f32 to vector<32xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[I0]], %[[SV]] fastmath<contract> : vector<32xf32>
// CHECK: %[[Y:.*]] = arith.maximumf %[[P]], %{{.*}} fastmath<contract> : vector<32xf32>
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %[[M]], %[[IH]], %c0, %c0] {in_bounds = [true]} : vector<32xf32>, tensor<1x2x3x2x64xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2], [3], [4, 5]] output_shape [1, 2, 3, 2, 32, 2] : tensor<1x2x3x2x64xf32> into tensor<1x2x3x2x32x2xf32>
// CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @bias_scale_relu
// OFF: linalg.generic
func.func @bias_scale_relu(%x: tensor<1x4x3x32xf32>, %w: tensor<4x2x2x2xf32>, %bias: tensor<2xf32>, %s: tensor<2x1x1xf32>) -> tensor<1x2x3x2x32x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x2x32x2xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<2xf32>) outs(%e : tensor<1x2x3x2x32x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x3x2x32x2xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x4x3x32xf32>, tensor<4x2x2x2xf32>) outs(%b : tensor<1x2x3x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %sum = arith.addf %c, %m : f32
    linalg.yield %sum : f32
  } -> tensor<1x2x3x2x32x2xf32>
  %e2 = tensor.empty() : tensor<1x2x3x2x32x2xf32>
  %y = linalg.generic {indexing_maps = [#id6, #chan, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%r, %s : tensor<1x2x3x2x32x2xf32>, tensor<2x1x1xf32>) outs(%e2 : tensor<1x2x3x2x32x2xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %p = arith.mulf %in, %sv : f32
    %q = arith.maximumf %p, %z : f32
    linalg.yield %q : f32
  } -> tensor<1x2x3x2x32x2xf32>
  return %y : tensor<1x2x3x2x32x2xf32>
}

// With `remarks`, each fused epilogue is reported on its producer (a
// fusion report, tfrt-compile --fusion-report).
// REMARK: remark: epilogue (unnamed) runs on the register tiles of the transposed convolution

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// The broadcast of a one-element bias, folded into a generic without
// inputs that yields the constant: the accumulators start from it (the
// init is not computed) and the sigmoid-like consumer still runs on the
// output rows.
// CHECK-LABEL: func.func @constant_bias
// CHECK: %[[B:.*]] = arith.constant dense<2.500000e-01> : vector<16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %[[B]], %{{.*}} = %[[B]]
// CHECK: math.exp
// CHECK-NOT: linalg.generic
func.func @constant_bias(%x: tensor<1x4x3x32xf32>, %w: tensor<4x1x2x2xf32>) -> tensor<1x1x3x2x32x2xf32> {
  %bias = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<1x1x3x2x32x2xf32>
  %b = linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x1x3x2x32x2xf32>) {
  ^bb0(%o: f32):
    linalg.yield %bias : f32
  } -> tensor<1x1x3x2x32x2xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x4x3x32xf32>, tensor<4x1x2x2xf32>) outs(%b : tensor<1x1x3x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %sum = arith.addf %c, %m : f32
    linalg.yield %sum : f32
  } -> tensor<1x1x3x2x32x2xf32>
  %e2 = tensor.empty() : tensor<1x1x3x2x32x2xf32>
  %y = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x1x3x2x32x2xf32>) outs(%e2 : tensor<1x1x3x2x32x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    %x1 = math.exp %n : f32
    linalg.yield %x1 : f32
  } -> tensor<1x1x3x2x32x2xf32>
  return %y : tensor<1x1x3x2x32x2xf32>
}
