// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv="epilogues=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-conv="remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#bcast = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>

// An image stem whose accumulators start from its bias (a broadcast of a
// [16] tensor), followed by a per-channel scale and a ReLU: each register
// tile's vectors are scaled by their channel's element and clamped before
// they are written into the consumer's destination. Neither the bias
// broadcast nor the consumer's pass remains.
// CHECK-LABEL: func.func @stem_bias_scale_relu
// CHECK-SAME: %[[B:[^:]*]]: tensor<16xf32>, %[[S:[^:]*]]: tensor<1x16x1x1xf32>
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c8 step %c1
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: tensor.extract %[[B]][%[[M]]] : tensor<16xf32>
// CHECK: vector.fma
// CHECK: %[[SC:.*]] = tensor.extract %[[S]][%c0, %[[M]], %c0, %c0] : tensor<1x16x1x1xf32>
// CHECK: %[[SV:.*]] = vector.broadcast %[[SC]] : f32 to vector<32xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %[[SV]]
// CHECK: %[[Y:.*]] = arith.maximumf %[[P]]
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %[[M]], %[[ROW]], %c0] {in_bounds = [true]} : vector<32xf32>, tensor<1x16x8x64xf32>
// CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @stem_bias_scale_relu
// OFF: scf.for
// OFF: linalg.generic
// OFF-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x16x8x64xf32>, tensor<1x16x1x1xf32>)
// REMARK: remark: epilogue (unnamed) runs on the register tiles of the image stem
func.func @stem_bias_scale_relu(%in: tensor<1x3x16x128xf32>, %w: tensor<16x3x3x3xf32>, %bias: tensor<16xf32>, %s: tensor<1x16x1x1xf32>) -> tensor<1x16x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %in low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x16x128xf32> to tensor<1x3x17x129xf32>
  %e = tensor.empty() : tensor<1x16x8x64xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%e : tensor<1x16x8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x16x8x64xf32>
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x17x129xf32>, tensor<16x3x3x3xf32>) outs(%b : tensor<1x16x8x64xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %sum = arith.addf %c, %m : f32
    linalg.yield %sum : f32
  } -> tensor<1x16x8x64xf32>
  %e2 = tensor.empty() : tensor<1x16x8x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %s : tensor<1x16x8x64xf32>, tensor<1x16x1x1xf32>) outs(%e2 : tensor<1x16x8x64xf32>) {
  ^bb0(%v: f32, %sv: f32, %o: f32):
    %p = arith.mulf %v, %sv : f32
    %q = arith.maximumf %p, %zero : f32
    linalg.yield %q : f32
  } -> tensor<1x16x8x64xf32>
  return %y : tensor<1x16x8x64xf32>
}

// -----

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A stem whose init is a function argument (not a fill or bias: the
// accumulators read it) keeps its consumer apart.
// CHECK-LABEL: func.func @stem_init_read
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<1x16x8x64xf32>)
func.func @stem_init_read(%in: tensor<1x3x16x128xf32>, %w: tensor<16x3x3x3xf32>, %acc: tensor<1x16x8x64xf32>) -> tensor<1x16x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %in low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x16x128xf32> to tensor<1x3x17x129xf32>
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x17x129xf32>, tensor<16x3x3x3xf32>) outs(%acc : tensor<1x16x8x64xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %sum = arith.addf %c, %m : f32
    linalg.yield %sum : f32
  } -> tensor<1x16x8x64xf32>
  %e2 = tensor.empty() : tensor<1x16x8x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x16x8x64xf32>) outs(%e2 : tensor<1x16x8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = arith.maximumf %v, %zero : f32
    linalg.yield %q : f32
  } -> tensor<1x16x8x64xf32>
  return %y : tensor<1x16x8x64xf32>
}
