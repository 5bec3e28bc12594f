// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-reductions | FileCheck %s

// GlobalAveragePool's sum: 400 elements per row are six 64-lane vectors of
// the main loop, one 16-lane vector and no scalar tail.
// CHECK-LABEL: func.func @gap
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x20x20xf32>, %[[I:.*]]: tensor<1x8xf32>)
// CHECK: %[[IN:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2, 3]] : tensor<1x8x20x20xf32> into tensor<8x400xf32>
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[I]] {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: %[[R:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[OUT]]) -> (tensor<8xf32>)
// CHECK: %[[ACC:.*]] = scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<64xf32>)
// CHECK: %[[V:.*]] = vector.transfer_read %[[IN]][%[[ROW]], %[[COL]]], %{{.*}} {in_bounds = [true]} : tensor<8x400xf32>, vector<64xf32>
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[V]] : vector<64xf32>
// CHECK: scf.yield %[[S]]
// CHECK: %[[P0:.*]] = vector.reduction <add>, %[[ACC]] fastmath<reassoc> : vector<64xf32> into f32
// CHECK: %[[W:.*]] = vector.transfer_read %[[IN]][%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x400xf32>, vector<16xf32>
// CHECK: %[[P1:.*]] = vector.reduction <add>, %[[W]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK: %[[SUM:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK: %[[OLD:.*]] = tensor.extract %[[T]][%[[ROW]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[NEW]] into %[[T]][%[[ROW]]]
// CHECK: scf.yield %[[INS]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: return %[[E]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#lead = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @gap(%x: tensor<1x8x20x20xf32>, %init: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #lead], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x8x20x20xf32>) outs(%init : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// 20 columns: no main loop, one vector and four scalars.
// CHECK-LABEL: func.func @last_axis
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<6x20xf32>, vector<16xf32>
// CHECK: vector.reduction <add>
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<6x20xf32>
// CHECK: tensor.insert
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @last_axis(%x: tensor<6x20xf32>, %init: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x20xf32>) outs(%init : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// Softmax's row maximum (rec's 40 x 6625 classifier output): the vector
// accumulator starts at -inf, combines with arith.maximumf, and the parts
// with a vector.reduction <maximumf> (exact in any order, no fast-math
// flag), then with the init element.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] = {{.*}} -> (tensor<40xf32>)
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<64xf32>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[NEG]]) -> (vector<64xf32>)
// CHECK: %[[V:.*]] = vector.transfer_read
// CHECK: %[[M:.*]] = arith.maximumf %[[A]], %[[V]] : vector<64xf32>
// CHECK: scf.yield %[[M]]
// CHECK: vector.reduction <maximumf>, %[[ACC]] : vector<64xf32> into f32
// CHECK: vector.reduction <maximumf>, %{{.*}} : vector<16xf32> into f32
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<40x6625xf32>
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK: %[[OLD:.*]] = tensor.extract
// CHECK: arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK-NOT: arith.addf
#id3m = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#lead3m = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_max(%x: tensor<1x40x6625xf32>, %init: tensor<1x40xf32>) -> tensor<1x40xf32> {
  %r = linalg.generic {indexing_maps = [#id3m, #lead3m], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x40x6625xf32>) outs(%init : tensor<1x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<1x40xf32>
  return %r : tensor<1x40xf32>
}

// -----

// Minima start at +inf; maxnumf/minnumf reduce with their own kinds.
// CHECK-LABEL: func.func @min_kinds
// CHECK: arith.constant dense<0x7F800000> : vector<64xf32>
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK: vector.reduction <minimumf>
// CHECK: arith.constant dense<0xFF800000> : vector<64xf32>
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK: vector.reduction <maxnumf>
#id2n = affine_map<(d0, d1) -> (d0, d1)>
#first2n = affine_map<(d0, d1) -> (d0)>
func.func @min_kinds(%x: tensor<4x128xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = linalg.generic {indexing_maps = [#id2n, #first2n], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id2n, #first2n], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Left alone: a product body, a reduction over a leading dim, rows shorter
// than one vector.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#first = affine_map<(d0, d1) -> (d0)>
#second = affine_map<(d0, d1) -> (d1)>
func.func @kept(%x: tensor<6x20xf32>, %i6: tensor<6xf32>, %i20: tensor<20xf32>, %y: tensor<6x8xf32>) -> (tensor<6xf32>, tensor<20xf32>, tensor<6xf32>) {
  %a = linalg.generic {indexing_maps = [#id3, #first], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x20xf32>) outs(%i6 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #first], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x20xf32>) outs(%i20 : tensor<20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<20xf32>
  %c = linalg.generic {indexing_maps = [#id3, #first], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<6x8xf32>) outs(%i6 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %a, %b, %c : tensor<6xf32>, tensor<20xf32>, tensor<6xf32>
}
