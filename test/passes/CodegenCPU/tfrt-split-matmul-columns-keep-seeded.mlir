// RUN: tfrt-opt %s -split-input-file -tfrt-split-matmul-columns | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-split-matmul-columns=keep-seeded=0 | FileCheck %s --check-prefix=SPLIT

// A 1x1 conv on a 20x20 map whose init is its bias broadcast, which only
// it reads: left whole for tfrt-vectorize-matmul to seed (and to cover the
// last 16 columns itself). With keep-seeded=0 it is split as any other.
// CHECK-LABEL: func.func @bias
// CHECK: linalg.generic
// CHECK: %[[C:.*]] = tensor.collapse_shape
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x384xf32>, tensor<384x400xf32>) outs(%[[C]] : tensor<32x400xf32>)
// CHECK-NOT: linalg.matmul
// SPLIT-LABEL: func.func @bias
// SPLIT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x384xf32>, tensor<384x384xf32>) outs(%{{.*}} : tensor<32x384xf32>)
// SPLIT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x384xf32>, tensor<384x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
func.func @bias(%x: tensor<384x400xf32>, %w: tensor<32x384xf32>, %bias: tensor<32xf32>) -> tensor<1x32x20x20xf32> {
  %e = tensor.empty() : tensor<1x32x20x20xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x20x20xf32>
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x32x20x20xf32> into tensor<32x400xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x384xf32>, tensor<384x400xf32>) outs(%c : tensor<32x400xf32>) -> tensor<32x400xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 20, 20] : tensor<32x400xf32> into tensor<1x32x20x20xf32>
  return %ex : tensor<1x32x20x20xf32>
}

// -----

// The same with K = 1024: tfrt-vectorize-matmul splits K into blocks and
// reads the init, so nothing is seeded and the columns are split.
// CHECK-LABEL: func.func @long_k
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x1024xf32>, tensor<1024x384xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x1024xf32>, tensor<1024x16xf32>)
func.func @long_k(%x: tensor<1024x400xf32>, %w: tensor<32x1024xf32>, %bias: tensor<32xf32>) -> tensor<1x32x20x20xf32> {
  %e = tensor.empty() : tensor<1x32x20x20xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x20x20xf32>
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x32x20x20xf32> into tensor<32x400xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x1024xf32>, tensor<1024x400xf32>) outs(%c : tensor<32x400xf32>) -> tensor<32x400xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 20, 20] : tensor<32x400xf32> into tensor<1x32x20x20xf32>
  return %ex : tensor<1x32x20x20xf32>
}

// -----

// A bias broadcast that something else reads too is not seeded: split.
// CHECK-LABEL: func.func @shared_init
// CHECK-COUNT-2: linalg.matmul
func.func @shared_init(%x: tensor<384x400xf32>, %w: tensor<32x384xf32>, %bias: tensor<32xf32>) -> (tensor<32x400xf32>, tensor<32x400xf32>) {
  %e = tensor.empty() : tensor<32x400xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<32x400xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x400xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x384xf32>, tensor<384x400xf32>) outs(%b : tensor<32x400xf32>) -> tensor<32x400xf32>
  return %m, %b : tensor<32x400xf32>, tensor<32x400xf32>
}
