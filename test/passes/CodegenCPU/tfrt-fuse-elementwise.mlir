// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-elementwise | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-elementwise="remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A hard swish feeding a 1x1 convolution (a contraction that reads its input
// once per output channel) stays a generic of its own: the convolution's
// body remains a multiply-add.
// CHECK-LABEL: func.func @no_fusion_into_conv
// CHECK: %[[HS:.*]] = linalg.generic
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} ins(%[[HS]], %{{.*}} : tensor<1x4x2x8xf32>, tensor<6x4x1x1xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: f32, %[[W:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[I]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[O]], %[[M]]
// CHECK-NEXT: linalg.yield %[[A]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(n, m, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#wt = affine_map<(n, m, h, w, c, kh, kw) -> (m, c, kh, kw)>
#o = affine_map<(n, m, h, w, c, kh, kw) -> (n, m, h, w)>
func.func @no_fusion_into_conv(%x: tensor<1x4x2x8xf32>, %w: tensor<6x4x1x1xf32>, %init: tensor<1x6x2x8xf32>) -> tensor<1x6x2x8xf32> {
  %c3 = arith.constant 3.0 : f32
  %c6 = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<1x4x2x8xf32>
  %hs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x2x8xf32>) outs(%e : tensor<1x4x2x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.addf %a, %c3 : f32
    %1 = arith.minimumf %0, %c6 : f32
    %2 = arith.mulf %a, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<1x4x2x8xf32>
  %r = linalg.generic {indexing_maps = [#x, #wt, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%hs, %w : tensor<1x4x2x8xf32>, tensor<6x4x1x1xf32>) outs(%init : tensor<1x6x2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x6x2x8xf32>
  return %r : tensor<1x6x2x8xf32>
}

// -----

// Elementwise chains still fuse, and so does a producer of a reduction that
// reads each of its elements once (a row sum).
// CHECK-LABEL: func.func @fusion_kept
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#r2 = affine_map<(d0, d1) -> (d0)>
func.func @fusion_kept(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %1 = math.exp %a : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#m2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%0 : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %1 = arith.addf %b, %a : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// With `remarks`, each function reports its linalg ops before and after
// fusion (a fusion report, tfrt-compile --fusion-report): the conv and its
// producer stay two, the chain into the row sum becomes one.
// REMARK: tfrt-fuse-elementwise.mlir:{{[0-9]+}}:1: remark: elementwise fusion: 2 linalg ops -> 2
// REMARK: tfrt-fuse-elementwise.mlir:{{[0-9]+}}:1: remark: elementwise fusion: 2 linalg ops -> 1

// -----

// A per-channel hard sigmoid (a squeeze-excitation scale) broadcast over a
// feature map of 65536 elements stays a generic of its own, computed once
// per channel; the multiply by it still fuses with the add that follows. A
// plain broadcast producer (no arithmetic) fuses, and on a map of fewer
// than 65536 elements so does the hard sigmoid.
// CHECK-LABEL: func.func @broadcast_producer
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x1x1xf32>)
// CHECK: arith.minimumf
// CHECK: linalg.yield
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%arg0, %[[S]], %arg2 : tensor<1x16x64x64xf32>, tensor<1x16x1x1xf32>, tensor<16xf32>)
// CHECK-NOT: arith.minimumf
// CHECK: linalg.yield
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>)
// CHECK: arith.minimumf
// CHECK-NOT: linalg.generic
#id4b = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @broadcast_producer(%x: tensor<1x16x64x64xf32>, %u: tensor<1x16x1x1xf32>, %b: tensor<16xf32>, %x2: tensor<1x16x8x8xf32>) -> (tensor<1x16x64x64xf32>, tensor<1x16x8x8xf32>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<1x16x1x1xf32>
  %s = linalg.generic {indexing_maps = [#id4b, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%u : tensor<1x16x1x1xf32>) outs(%es : tensor<1x16x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %half : f32
    %1 = arith.minimumf %0, %one : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  } -> tensor<1x16x1x1xf32>
  %eb = tensor.empty() : tensor<1x16x64x64xf32>
  %bb = linalg.generic {indexing_maps = [#bc, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%eb : tensor<1x16x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x16x64x64xf32>
  %e = tensor.empty() : tensor<1x16x64x64xf32>
  %m = linalg.generic {indexing_maps = [#id4b, #ch, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<1x16x64x64xf32>, tensor<1x16x1x1xf32>) outs(%e : tensor<1x16x64x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x64x64xf32>
  %y = linalg.generic {indexing_maps = [#id4b, #id4b, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m, %bb : tensor<1x16x64x64xf32>, tensor<1x16x64x64xf32>) outs(%e : tensor<1x16x64x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x64x64xf32>
  %s2 = linalg.generic {indexing_maps = [#id4b, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%u : tensor<1x16x1x1xf32>) outs(%es : tensor<1x16x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %half : f32
    %1 = arith.minimumf %0, %one : f32
    linalg.yield %1 : f32
  } -> tensor<1x16x1x1xf32>
  %e2 = tensor.empty() : tensor<1x16x8x8xf32>
  %y2 = linalg.generic {indexing_maps = [#id4b, #ch, #id4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x2, %s2 : tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) outs(%e2 : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x8x8xf32>
  return %y, %y2 : tensor<1x16x64x64xf32>, tensor<1x16x8x8xf32>
}
// REMARK: tfrt-fuse-elementwise.mlir:{{[0-9]+}}:1: remark: elementwise fusion: 6 linalg ops -> 3
