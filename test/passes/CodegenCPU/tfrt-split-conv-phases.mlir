// RUN: tfrt-opt %s -split-input-file -tfrt-split-conv-phases | FileCheck %s

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 3x3 stride-2 conv: the 65 input columns become 33 even (channels 0-2)
// and 32 odd ones (channels 3-5, one zero column), the taps 0 and 2 of the
// weight go to channels 0-2 and tap 1 to channels 3-5 (the second tap there
// stays zero); the conv then reads columns ow + kw with stride 1.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func @stride2
// CHECK-SAME: (%[[IN:.*]]: tensor<1x3x9x65xf32>, %[[WT:.*]]: tensor<16x3x3x3xf32>, %[[O:.*]]: tensor<1x16x4x32xf32>)
// CHECK: %[[XZ:.*]] = linalg.fill {{.*}} -> tensor<1x6x9x33xf32>
// CHECK: %[[WZ:.*]] = linalg.fill {{.*}} -> tensor<16x6x3x2xf32>
// CHECK: %[[XE:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 0] [1, 3, 9, 33] [1, 1, 1, 2]
// CHECK: %[[X0:.*]] = tensor.insert_slice %[[XE]] into %[[XZ]][0, 0, 0, 0] [1, 3, 9, 33] [1, 1, 1, 1]
// CHECK: %[[WE:.*]] = tensor.extract_slice %[[WT]][0, 0, 0, 0] [16, 3, 3, 2] [1, 1, 1, 2]
// CHECK: %[[W0:.*]] = tensor.insert_slice %[[WE]] into %[[WZ]][0, 0, 0, 0] [16, 3, 3, 2] [1, 1, 1, 1]
// CHECK: %[[XO:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 1] [1, 3, 9, 32] [1, 1, 1, 2]
// CHECK: %[[X1:.*]] = tensor.insert_slice %[[XO]] into %[[X0]][0, 3, 0, 0] [1, 3, 9, 32] [1, 1, 1, 1]
// CHECK: %[[WO:.*]] = tensor.extract_slice %[[WT]][0, 0, 0, 1] [16, 3, 3, 1] [1, 1, 1, 2]
// CHECK: %[[W1:.*]] = tensor.insert_slice %[[WO]] into %[[W0]][0, 3, 0, 0] [16, 3, 3, 1] [1, 1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #{{.*}}]
// CHECK-SAME: ins(%[[X1]], %[[W1]] : tensor<1x6x9x33xf32>, tensor<16x6x3x2xf32>) outs(%[[O]] : tensor<1x16x4x32xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @stride2(%x: tensor<1x3x9x65xf32>, %w: tensor<16x3x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x9x65xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}

// -----

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// No register tile for 3 output columns: left as it is.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]{{.*}} ins(%arg0, %arg1
func.func @narrow(%x: tensor<1x3x9x7xf32>, %w: tensor<16x3x3x3xf32>, %o: tensor<1x16x4x3xf32>) -> tensor<1x16x4x3xf32> {
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x9x7xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<1x16x4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x3xf32>
  return %r : tensor<1x16x4x3xf32>
}
