// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-transpose-pairs="min-bytes=0 band-rows=2 max-chunks=2" -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-transpose-pairs | FileCheck %s --check-prefix=SMALL
// RUN: not tfrt-opt %s -split-input-file -tfrt-fuse-conv-transpose-pairs=band-rows=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfrt-opt %s -split-input-file -tfrt-fuse-conv-transpose-pairs=min-bytes=-1 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: tfrt-fuse-conv-transpose-pairs: band-rows and max-chunks must be >= 1, min-bytes >= 0

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#bc6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>

// The graph lowering's DB head: ConvTranspose 4 -> 3 (2x2, stride 2) from
// a zero fill, a bias + ReLU on the collapsed [1, 3, 16, 32] image, then
// ConvTranspose 3 -> 1 with a sigmoid-like epilogue on its 6-D result. The
// pair runs as 2 chunks of 4 input rows, each 2 bands of 2 rows: the first
// ConvTranspose on the band's input rows into a band tensor, its epilogue
// rebuilt on the 6-D shape (the bias read per channel), the collapse of the
// band the second one's input, and the second one's epilogue writing the
// band's 8 rows of the result viewed as its 6-D shape.
// CHECK-LABEL: func.func @head
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x16xf32>, %[[W1:.*]]: tensor<4x3x2x2xf32>, %[[B:.*]]: tensor<3x1x1xf32>, %[[W2:.*]]: tensor<3x1x2x2xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x1x32x64xf32>
// CHECK: %[[F:.*]] = scf.forall (%[[I:.*]]) in (2) shared_outs(%[[SH:.*]] = %[[OUT]])
// CHECK: %[[R0:.*]] = arith.muli %[[I]], %c4
// CHECK: %[[O0:.*]] = arith.muli %[[R0]], %c4
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[SH]][0, 0, %[[O0]], 0] [1, 1, 16, 64] [1, 1, 1, 1]
// CHECK: %[[L:.*]] = scf.for %[[BI:.*]] = %c0 to %c4 step %c2 iter_args(%[[P:.*]] = %[[PART]])
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %[[BI]]
// CHECK: %[[XIN:.*]] = tensor.extract_slice %[[X]][0, 0, %[[ROW]], 0] [1, 4, 2, 16] [1, 1, 1, 1]
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x3x2x2x16x2xf32>
// CHECK: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<1x3x2x2x16x2xf32>)
// CHECK: %[[C1:.*]] = linalg.generic {{.*}} ins(%[[XIN]], %[[W1]] : tensor<1x4x2x16xf32>, tensor<4x3x2x2xf32>) outs(%[[Z1]] : tensor<1x3x2x2x16x2xf32>)
// CHECK: %[[EP1:.*]] = linalg.generic {{.*}} ins(%[[C1]], %[[B]] : tensor<1x3x2x2x16x2xf32>, tensor<3x1x1xf32>) outs(%[[E1]] : tensor<1x3x2x2x16x2xf32>)
// CHECK: %[[MID:.*]] = tensor.collapse_shape %[[EP1]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x3x2x2x16x2xf32> into tensor<1x3x4x32xf32>
// CHECK: %[[OL:.*]] = arith.muli %[[BI]], %c4
// CHECK: %[[OB:.*]] = tensor.extract_slice %[[P]][0, 0, %[[OL]], 0] [1, 1, 8, 64] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = tensor.expand_shape %[[OB]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 1, 4, 2, 32, 2] : tensor<1x1x8x64xf32> into tensor<1x1x4x2x32x2xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<1x1x4x2x32x2xf32>
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<1x1x4x2x32x2xf32>)
// CHECK: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[MID]], %[[W2]] : tensor<1x3x4x32xf32>, tensor<3x1x2x2xf32>) outs(%[[Z2]] : tensor<1x1x4x2x32x2xf32>)
// CHECK: %[[EP2:.*]] = linalg.generic {{.*}} ins(%[[C2]] : tensor<1x1x4x2x32x2xf32>) outs(%[[T]] : tensor<1x1x4x2x32x2xf32>)
// CHECK: %[[BACK:.*]] = tensor.collapse_shape %[[EP2]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x1x4x2x32x2xf32> into tensor<1x1x8x64xf32>
// CHECK: %[[NEXT:.*]] = tensor.insert_slice %[[BACK]] into %[[P]][0, 0, %[[OL]], 0] [1, 1, 8, 64] [1, 1, 1, 1]
// CHECK: scf.yield %[[NEXT]]
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[L]] into %[[SH]][0, 0, %[[O0]], 0] [1, 1, 16, 64] [1, 1, 1, 1]
// CHECK: return %[[F]]
// CHECK-NOT: linalg.generic
// The intermediate (1 x 3 x 16 x 32 floats) is under the default 1 MiB:
// nothing changes.
// SMALL-LABEL: func.func @head
// SMALL-NOT: scf.forall
// SMALL: tensor<1x3x16x32xf32>
func.func @head(%x: tensor<1x4x8x16xf32>, %w1: tensor<4x3x2x2xf32>,
                %b: tensor<3x1x1xf32>, %w2: tensor<3x1x2x2xf32>)
    -> tensor<1x1x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x8x2x16x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x8x2x16x2xf32>) -> tensor<1x3x8x2x16x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w1 : tensor<1x4x8x16xf32>, tensor<4x3x2x2xf32>) outs(%f0 : tensor<1x3x8x2x16x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x8x2x16x2xf32>
  %img = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x3x8x2x16x2xf32> into tensor<1x3x16x32xf32>
  %e1 = tensor.empty() : tensor<1x3x16x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %b : tensor<1x3x16x32xf32>, tensor<3x1x1xf32>) outs(%e1 : tensor<1x3x16x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x3x16x32xf32>
  %e2 = tensor.empty() : tensor<1x1x16x2x32x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x16x2x32x2xf32>) -> tensor<1x1x16x2x32x2xf32>
  %u = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%r, %w2 : tensor<1x3x16x32xf32>, tensor<3x1x2x2xf32>) outs(%f2 : tensor<1x1x16x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x16x2x32x2xf32>
  %v = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<1x1x16x2x32x2xf32>) outs(%e2 : tensor<1x1x16x2x32x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    linalg.yield %x1 : f32
  } -> tensor<1x1x16x2x32x2xf32>
  %y = tensor.collapse_shape %v [[0], [1], [2, 3], [4, 5]] : tensor<1x1x16x2x32x2xf32> into tensor<1x1x32x64xf32>
  return %y : tensor<1x1x32x64xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#bc6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>

// The second ConvTranspose without an epilogue, its init the broadcast of
// a [2] bias (recomputed on each band), and the first one's epilogue on its
// 6-D result already: 1 chunk (3 rows: bands of 1, the largest divisor of
// 3 up to 2, and chunks of 3 bands, the largest divisor of 3 up to 2 being
// 1), the result's band written by the second ConvTranspose itself.
// CHECK-LABEL: func.func @bias_only
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: %[[EP1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x1x2x16x2xf32>) outs(
// CHECK: %[[MID:.*]] = tensor.collapse_shape %[[EP1]]
// CHECK: %[[T:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 2, 2, 32, 2] : tensor<1x2x4x64xf32> into tensor<1x2x2x2x32x2xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2xf32>) outs(%[[T]] : tensor<1x2x2x2x32x2xf32>)
// CHECK: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[MID]], %{{.*}} : tensor<1x3x2x32xf32>, tensor<3x2x2x2xf32>) outs(%[[INIT]] : tensor<1x2x2x2x32x2xf32>)
// CHECK: tensor.collapse_shape %[[C2]]
func.func @bias_only(%x: tensor<1x4x3x16xf32>, %w1: tensor<4x3x2x2xf32>,
                     %w2: tensor<3x2x2x2xf32>, %b2: tensor<2xf32>)
    -> tensor<1x2x12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x3x2x16x2xf32>) -> tensor<1x3x3x2x16x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w1 : tensor<1x4x3x16xf32>, tensor<4x3x2x2xf32>) outs(%f0 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %e1 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %r = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%t : tensor<1x3x3x2x16x2xf32>) outs(%e1 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %img = tensor.collapse_shape %r [[0], [1], [2, 3], [4, 5]] : tensor<1x3x3x2x16x2xf32> into tensor<1x3x6x32xf32>
  %e2 = tensor.empty() : tensor<1x2x6x2x32x2xf32>
  %bias = linalg.generic {indexing_maps = [#bc6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<2xf32>) outs(%e2 : tensor<1x2x6x2x32x2xf32>) {
  ^bb0(%c: f32, %o: f32):
    linalg.yield %c : f32
  } -> tensor<1x2x6x2x32x2xf32>
  %u = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%img, %w2 : tensor<1x3x6x32xf32>, tensor<3x2x2x2xf32>) outs(%bias : tensor<1x2x6x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x2x32x2xf32>
  %y = tensor.collapse_shape %u [[0], [1], [2, 3], [4, 5]] : tensor<1x2x6x2x32x2xf32> into tensor<1x2x12x64xf32>
  return %y : tensor<1x2x12x64xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#bc6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>

// Left alone: the first ConvTranspose without an epilogue (its image read
// directly by the second), the first one's epilogue reading a full-size
// tensor, and an intermediate with a second user.
// CHECK-LABEL: func.func @no_first_epilogue
// CHECK-NOT: scf.forall
// CHECK: return
func.func @no_first_epilogue(%x: tensor<1x4x3x16xf32>, %w1: tensor<4x3x2x2xf32>,
                             %w2: tensor<3x1x2x2xf32>)
    -> tensor<1x1x12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x3x2x16x2xf32>) -> tensor<1x3x3x2x16x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w1 : tensor<1x4x3x16xf32>, tensor<4x3x2x2xf32>) outs(%f0 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %img = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x3x3x2x16x2xf32> into tensor<1x3x6x32xf32>
  %e2 = tensor.empty() : tensor<1x1x6x2x32x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x6x2x32x2xf32>) -> tensor<1x1x6x2x32x2xf32>
  %u = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%img, %w2 : tensor<1x3x6x32xf32>, tensor<3x1x2x2xf32>) outs(%f2 : tensor<1x1x6x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x2x32x2xf32>
  %y = tensor.collapse_shape %u [[0], [1], [2, 3], [4, 5]] : tensor<1x1x6x2x32x2xf32> into tensor<1x1x12x64xf32>
  return %y : tensor<1x1x12x64xf32>
}

// CHECK-LABEL: func.func @full_size_residual
// CHECK-NOT: scf.forall
// CHECK: return
func.func @full_size_residual(%x: tensor<1x4x3x16xf32>, %w1: tensor<4x3x2x2xf32>,
                              %res: tensor<1x3x6x32xf32>,
                              %w2: tensor<3x1x2x2xf32>)
    -> tensor<1x1x12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x3x2x16x2xf32>) -> tensor<1x3x3x2x16x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w1 : tensor<1x4x3x16xf32>, tensor<4x3x2x2xf32>) outs(%f0 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %img = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x3x3x2x16x2xf32> into tensor<1x3x6x32xf32>
  %e1 = tensor.empty() : tensor<1x3x6x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %res : tensor<1x3x6x32xf32>, tensor<1x3x6x32xf32>) outs(%e1 : tensor<1x3x6x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x3x6x32xf32>
  %e2 = tensor.empty() : tensor<1x1x6x2x32x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x6x2x32x2xf32>) -> tensor<1x1x6x2x32x2xf32>
  %u = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%r, %w2 : tensor<1x3x6x32xf32>, tensor<3x1x2x2xf32>) outs(%f2 : tensor<1x1x6x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x2x32x2xf32>
  %y = tensor.collapse_shape %u [[0], [1], [2, 3], [4, 5]] : tensor<1x1x6x2x32x2xf32> into tensor<1x1x12x64xf32>
  return %y : tensor<1x1x12x64xf32>
}

// CHECK-LABEL: func.func @intermediate_used_twice
// CHECK-NOT: scf.forall
// CHECK: return
func.func @intermediate_used_twice(%x: tensor<1x4x3x16xf32>,
                                   %w1: tensor<4x3x2x2xf32>,
                                   %w2: tensor<3x1x2x2xf32>)
    -> (tensor<1x1x12x64xf32>, tensor<1x3x6x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x3x2x16x2xf32>) -> tensor<1x3x3x2x16x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w1 : tensor<1x4x3x16xf32>, tensor<4x3x2x2xf32>) outs(%f0 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %e1 = tensor.empty() : tensor<1x3x3x2x16x2xf32>
  %r = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%t : tensor<1x3x3x2x16x2xf32>) outs(%e1 : tensor<1x3x3x2x16x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x3x3x2x16x2xf32>
  %img = tensor.collapse_shape %r [[0], [1], [2, 3], [4, 5]] : tensor<1x3x3x2x16x2xf32> into tensor<1x3x6x32xf32>
  %e2 = tensor.empty() : tensor<1x1x6x2x32x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x6x2x32x2xf32>) -> tensor<1x1x6x2x32x2xf32>
  %u = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%img, %w2 : tensor<1x3x6x32xf32>, tensor<3x1x2x2xf32>) outs(%f2 : tensor<1x1x6x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x2x32x2xf32>
  %y = tensor.collapse_shape %u [[0], [1], [2, 3], [4, 5]] : tensor<1x1x6x2x32x2xf32> into tensor<1x1x12x64xf32>
  return %y, %img : tensor<1x1x12x64xf32>, tensor<1x3x6x32xf32>
}
