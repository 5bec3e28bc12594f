// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=4" | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=4 epilogues=0" | FileCheck %s --check-prefix=OFF

// A 1x1 conv whose output starts as its bias broadcast, followed by a
// ReLU: the ReLU is split along output channels as the conv would be, and
// each chunk computes its slice of the bias broadcast, the conv and the
// ReLU, so that tfrt-vectorize-matmul can apply the ReLU to the conv's
// register tiles. Without `epilogues` the conv and the ReLU are split on
// their own, the ReLU reading the conv's whole result.
// CHECK-LABEL: func.func @conv_relu
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x32x16x16xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (16) shared_outs(%[[O:.*]] = %[[E]])
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<1x16x16x16xf32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x16x16xf32>, tensor<16x16x1x1xf32>) outs(%[[B]] : tensor<1x16x16x16xf32>)
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[O]][0, %[[I]], 0, 0] [1, 16, 16, 16]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x16x16x16xf32>) outs(%[[OS]] : tensor<1x16x16x16xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[O]][0, %[[I]], 0, 0] [1, 16, 16, 16]
// CHECK-NOT: scf.forall (
// OFF-LABEL: func.func @conv_relu
// OFF: scf.forall
// OFF: scf.forall
#bcast = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @conv_relu(%x: tensor<1x16x16x16xf32>, %w: tensor<32x16x1x1xf32>, %bias: tensor<32xf32>) -> tensor<1x32x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x16x16xf32>
  %c = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>) outs(%b : tensor<1x32x16x16xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16x16xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x16x16xf32>) outs(%e : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}

// -----

// A matmul with a zero fill as its init and an elementwise consumer that
// also reads a per-row input: the fill joins the chunks (of rows) too.
// A matmul with two users keeps its consumer apart.
// CHECK-LABEL: func.func @matmul_scale
// CHECK: scf.forall (%{{.*}}) = (0) to (256) step (64)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x1xf32>)
// CHECK-NOT: scf.forall (
// CHECK-LABEL: func.func @two_users
// CHECK: scf.forall
// CHECK: linalg.matmul
// CHECK: scf.forall
// CHECK: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @matmul_scale(%a: tensor<256x64xf32>, %b: tensor<64x64xf32>, %s: tensor<256x1xf32>) -> tensor<256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %s : tensor<256x64xf32>, tensor<256x1xf32>) outs(%e : tensor<256x64xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %y = arith.mulf %in, %sv : f32
    linalg.yield %y : f32
  } -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}

func.func @two_users(%a: tensor<256x64xf32>, %b: tensor<64x64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x64xf32>) outs(%e : tensor<256x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<256x64xf32>
  return %r, %m : tensor<256x64xf32>, tensor<256x64xf32>
}

// -----

// The fill that the matmul accumulates into is also returned: it stays
// out of the matmul's chunks (a copy in each chunk would repeat its work;
// it is split on its own), and the chunks read their slice of it.
// CHECK-LABEL: func.func @shared_init
// CHECK: %[[F:.*]] = scf.forall
// CHECK: linalg.fill
// CHECK: scf.forall (%[[I:.*]]) = (0) to (256) step (64)
// CHECK-NOT: linalg.fill
// CHECK: %[[FS:.*]] = tensor.extract_slice %[[F]][%[[I]], 0] [64, 64]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[FS]] : tensor<64x64xf32>)
// CHECK: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_init(%a: tensor<256x64xf32>, %b: tensor<64x64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x64xf32>) outs(%e : tensor<256x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<256x64xf32>
  return %r, %f : tensor<256x64xf32>, tensor<256x64xf32>
}

// -----

// A ConvTranspose (kernel = stride 2) whose 6-D result reaches a ReLU with
// a per-channel bias through its collapse into [1, 4, 64, 64]: the ReLU is
// rebuilt on the 6-D shape (its init expanded, the collapse after it) and
// split along the input rows with the ConvTranspose and its fill.
// CHECK-LABEL: func.func @conv_transpose_relu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x64x64xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %[[E]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 32, 2, 32, 2]
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) = (0) to (32) step (8) shared_outs(%[[O:.*]] = %[[X]])
// CHECK: linalg.fill
// CHECK: %[[T:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[O]][0, 0, %[[I]], 0, 0, 0] [1, 4, 8, 2, 32, 2]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<1x4x8x2x32x2xf32>, tensor<4xf32>) outs(%[[OS]] : tensor<1x4x8x2x32x2xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice %[[Y]] into %[[O]]
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x4x32x2x32x2xf32> into tensor<1x4x64x64xf32>
// OFF-LABEL: func.func @conv_transpose_relu
// OFF: tensor.collapse_shape
// OFF: scf.forall
// OFF: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x64x64xf32>, tensor<1xf32>)
#tin = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#tw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#to = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv_transpose_relu(%x: tensor<1x16x32x32xf32>, %w: tensor<16x4x2x2xf32>, %bias: tensor<4xf32>) -> tensor<1x4x64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<1x4x32x2x32x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e6 : tensor<1x4x32x2x32x2xf32>) -> tensor<1x4x32x2x32x2xf32>
  %t = linalg.generic {indexing_maps = [#tin, #tw, #to], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x16x32x32xf32>, tensor<16x4x2x2xf32>) outs(%f : tensor<1x4x32x2x32x2xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x32x2x32x2xf32>
  %c = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x4x32x2x32x2xf32> into tensor<1x4x64x64xf32>
  %e4 = tensor.empty() : tensor<1x4x64x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #c4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<1x4x64x64xf32>, tensor<4xf32>) outs(%e4 : tensor<1x4x64x64xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %a = arith.addf %in, %b : f32
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x4x64x64xf32>
  return %y : tensor<1x4x64x64xf32>
}

// -----

// The consumer of a 1x1 conv writes the [1, H, M, W] (rows-outer) input of
// a following windowed conv through (d0, d2, d1, d3) and adds a
// nearest-neighbour upsampling (d2 floordiv 2, d3 floordiv 2) of a smaller
// map: it still splits along the conv's output channels, each chunk
// writing its channels of every row, and reads the matching channels of
// the small map.
// CHECK-LABEL: func.func @conv_upsample_transposed
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (16) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<1x16x32x16xf32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x16x16xf32>)
// CHECK: %[[U:.*]] = tensor.extract_slice %arg2[0, %[[I]], 0, 0] [1, 16, 8, 8]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[O]][0, 0, %[[I]], 0] [1, 16, 16, 16]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[U]] : tensor<1x16x16x16xf32>, tensor<1x16x8x8xf32>) outs(%[[OS]] : tensor<1x16x16x16xf32>)
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[O]][0, 0, %[[I]], 0] [1, 16, 16, 16]
// CHECK-NOT: scf.forall (
// OFF-LABEL: func.func @conv_upsample_transposed
// OFF: scf.forall
// OFF: scf.forall
#in3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id43 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#up3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#tr3 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
func.func @conv_upsample_transposed(%x: tensor<1x16x16x16xf32>, %w: tensor<32x16x1x1xf32>, %lo: tensor<1x32x8x8xf32>) -> tensor<1x16x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %c = linalg.generic {indexing_maps = [#in3, #w3, #out3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x16x16xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16x16xf32>
  %et = tensor.empty() : tensor<1x16x32x16xf32>
  %r = linalg.generic {indexing_maps = [#id43, #up3, #tr3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %lo : tensor<1x32x16x16xf32>, tensor<1x32x8x8xf32>) outs(%et : tensor<1x16x32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<1x16x32x16xf32>
  return %r : tensor<1x16x32x16xf32>
}

// -----

// An image stem (3x3, stride 2, 3 input channels, on a zero padding with
// one column on the left) with a bias and a ReLU: the ReLU is split along
// output rows as the stem would be, each chunk computing its rows of the
// bias broadcast and of the stem (reading a row slice of the padded input),
// so that tfrt-vectorize-conv can apply the ReLU to the stem's register
// tiles. Without `epilogues` the two are split on their own.
// CHECK-LABEL: func.func @stem_relu
// CHECK: %[[PAD:.*]] = tensor.pad
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (8) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[PAD]][0, 0, %{{.*}}, 0] [1, 3, 17, 65]
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<1x16x8x32xf32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[XS]], %{{.*}} : tensor<1x3x17x65xf32>, tensor<16x3x3x3xf32>) outs(%[[B]] : tensor<1x16x8x32xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x16x8x32xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[O]][0, 0, %[[I]], 0] [1, 16, 8, 32]
// CHECK-NOT: scf.forall (
// OFF-LABEL: func.func @stem_relu
// OFF: scf.forall
// OFF: scf.forall
#sbcast = affine_map<(d0, d1, d2, d3) -> (d1)>
#sid4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sin = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#sw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#sout = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @stem_relu(%x: tensor<1x3x64x64xf32>, %w: tensor<16x3x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x64x64xf32> to tensor<1x3x65x65xf32>
  %e = tensor.empty() : tensor<1x16x32x32xf32>
  %b = linalg.generic {indexing_maps = [#sbcast, #sid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%e : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x32x32xf32>
  %c = linalg.generic {indexing_maps = [#sin, #sw, #sout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : tensor<1x3x65x65xf32>, tensor<16x3x3x3xf32>) outs(%b : tensor<1x16x32x32xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %m = arith.mulf %i, %k : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x32xf32>
  %r = linalg.generic {indexing_maps = [#sid4, #sid4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x32x32xf32>) outs(%e : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}
