// RUN: tfrt-opt %s -split-input-file -tfrt-async-schedule="min-task-cost=16" | FileCheck %s

// Two expensive branches listed one after the other come out interleaved by
// level: a1, b1 (level 1), a2, b2 (level 2), then their sum.
// CHECK-LABEL: func.func @branches
// CHECK: %[[A1:.*]] = linalg.generic {{.*}} ins(%[[X:.*]] : tensor<4x4xf32>)
// CHECK: math.tanh
// CHECK: %[[B1:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x4xf32>)
// CHECK: math.exp
// CHECK: %[[A2:.*]] = linalg.generic {{.*}} ins(%[[A1]] : tensor<4x4xf32>)
// CHECK: %[[B2:.*]] = linalg.generic {{.*}} ins(%[[B1]] : tensor<4x4xf32>)
// CHECK: arith.addf %[[A2]], %[[B2]] : tensor<4x4xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @branches(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %a1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %a2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a1 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %b1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %b2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b1 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %s = arith.addf %a2, %b2 : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// Without two expensive ops on one level the order stays (locality).
// CHECK-LABEL: func.func @cheap
// CHECK: %[[A1:.*]] = math.tanh
// CHECK-NEXT: %[[A2:.*]] = math.tanh %[[A1]]
// CHECK-NEXT: %[[B1:.*]] = math.exp
// CHECK-NEXT: %[[B2:.*]] = math.exp %[[B1]]
func.func @cheap(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a1 = math.tanh %x : tensor<8xf32>
  %a2 = math.tanh %a1 : tensor<8xf32>
  %b1 = math.exp %x : tensor<8xf32>
  %b2 = math.exp %b1 : tensor<8xf32>
  %s = arith.addf %a2, %b2 : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Interleaving would keep both branches' large intermediates alive at once
// (twice the peak of live tensor bytes): the order stays depth-first.
// CHECK-LABEL: func.func @memory_bound
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @memory_bound(%x: tensor<64x64xf32>, %z: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %a1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %a2 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%a1 : tensor<64x64xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %b1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %b2 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%b1 : tensor<64x64xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %s = arith.addf %a2, %b2 : tensor<64xf32>
  return %s : tensor<64xf32>
}
