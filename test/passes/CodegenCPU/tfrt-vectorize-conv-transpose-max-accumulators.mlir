// RUN: tfrt-opt %s -tfrt-vectorize-conv-transpose="lanes=8" -canonicalize -cse | FileCheck %s --check-prefix=A16
// RUN: tfrt-opt %s -tfrt-vectorize-conv-transpose="lanes=8 max-accumulators=12" -canonicalize -cse | FileCheck %s --check-prefix=A12
// RUN: tfrt-opt %s -tfrt-vectorize-conv-transpose="lanes=8 max-accumulators=3" -canonicalize -cse | FileCheck %s --check-prefix=A3
// RUN: tfrt-opt %s -tfrt-vectorize-conv-transpose="lanes=8 max-accumulators=20" -canonicalize -cse | FileCheck %s --check-prefix=A20

// tfrt-vectorize-conv-transpose's max-accumulators: a 2x2 stride-2
// ConvTranspose on 32-column rows in 8-lane vectors (AVX2). With 16
// accumulators (the default) four input vectors per step (4 taps x 4);
// with 12 (what tfrt-compile gives AVX2's 16 ymm registers) two; with 3
// the four taps no longer fit: the loop lowering stays. Rows of five
// vectors (40 columns; det's ConvTranspose.0 has ten of 16 lanes) take all
// five per step with 20 accumulators (what tfrt-compile gives AVX-512's 32
// zmm registers), one per step with 16 or 12.
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
// A16-LABEL: func.func @k2s2
// A16-NOT: step %c16
// A16: %{{.*}}:16 = scf.for %{{.*}} = %c0 to %c4 step %c1
// A12-LABEL: func.func @k2s2
// A12: scf.for %{{.*}} = %c0 to %c32 step %c16
// A12: %{{.*}}:8 = scf.for %{{.*}} = %c0 to %c4 step %c1
// A3-LABEL: func.func @k2s2
// A3: linalg.generic
// A3-NOT: vector.fma
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

// A16-LABEL: func.func @k2s2_five
// A16: scf.for %{{.*}} = %c0 to %c40 step %c8
// A16: %{{.*}}:4 = scf.for %{{.*}} = %c0 to %c4 step %c1
// A12-LABEL: func.func @k2s2_five
// A12: scf.for %{{.*}} = %c0 to %c40 step %c8
// A12: %{{.*}}:4 = scf.for %{{.*}} = %c0 to %c4 step %c1
// A20-LABEL: func.func @k2s2_five
// A20-NOT: step %c8
// A20: %{{.*}}:20 = scf.for %{{.*}} = %c0 to %c4 step %c1
// A20-COUNT-5: vector.transfer_read %{{.*}} vector<8xf32>
// A20-COUNT-20: vector.fma
// A20-COUNT-10: vector.interleave
func.func @k2s2_five(%x: tensor<1x4x3x40xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x2x3x2x40x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x2x40x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x3x2x40x2xf32>) -> tensor<1x2x3x2x40x2xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x4x3x40xf32>, tensor<4x2x2x2xf32>) outs(%f : tensor<1x2x3x2x40x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x2x40x2xf32>
  return %r : tensor<1x2x3x2x40x2xf32>
}
