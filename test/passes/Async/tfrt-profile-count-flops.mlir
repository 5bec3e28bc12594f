// RUN: tfrt-opt %s -tfrt-profile-count-flops -mlir-print-debuginfo | FileCheck %s

// Every linalg op gets {tfrt.kernel = ID, tfrt.flops = N} around its own
// location. A matmul counts 2 per multiply-accumulate (2 * 4 * 16 * 8); an
// elementwise op every float op of its body (2 * 4 * 16); a reduction only
// the accumulation and the op feeding it, not the exp fused into its body
// (2 * 4 * 16); a fill nothing.
// CHECK-LABEL: func.func @main
// CHECK: linalg.fill {{.*}} loc(#[[FILL:loc[0-9]+]])
// CHECK: linalg.matmul {{.*}} loc(#[[MM:loc[0-9]+]])
// CHECK: linalg.generic
// CHECK: } -> tensor<4x16xf32> loc(#[[EW:loc[0-9]+]])
// CHECK: linalg.generic
// CHECK: } -> tensor<4xf32> loc(#[[RED:loc[0-9]+]])
// CHECK-DAG: #[[FILL]] = loc(fused<{tfrt.flops = 0 : i64, tfrt.kernel = 0 : i64}>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[MM]] = loc(fused<{tfrt.flops = 1024 : i64, tfrt.kernel = 1 : i64}>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[EW]] = loc(fused<{tfrt.flops = 128 : i64, tfrt.kernel = 2 : i64}>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[RED]] = loc(fused<{tfrt.flops = 128 : i64, tfrt.kernel = 3 : i64}>[#{{loc[0-9]*}}])
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %w: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32> loc("fill")
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32> loc("mm")
  %ew = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %w : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32> loc("relu")
  %e1 = tensor.empty() : tensor<4xf32>
  %red = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ew, %w : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %x2 = math.exp %x : f32
    %m = arith.mulf %x2, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32> loc("dot")
  return %ew, %red : tensor<4x16xf32>, tensor<4xf32>
}
