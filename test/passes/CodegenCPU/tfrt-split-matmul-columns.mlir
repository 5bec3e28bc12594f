// RUN: tfrt-opt %s -split-input-file -tfrt-split-matmul-columns | FileCheck %s

// 40 columns: a linalg.matmul over the first 32 and a contraction generic
// over the last 8, both inserted into the init.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<24x48xf32>, %[[Y:.*]]: tensor<48x40xf32>, %[[Z:.*]]: tensor<24x40xf32>)
// CHECK: %[[Y0:.*]] = tensor.extract_slice %[[Y]][0, 0] [48, 32] [1, 1]
// CHECK: %[[Z0:.*]] = tensor.extract_slice %[[Z]][0, 0] [24, 32] [1, 1]
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[Y0]] : tensor<24x48xf32>, tensor<48x32xf32>) outs(%[[Z0]] : tensor<24x32xf32>)
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[M]] into %[[Z]][0, 0] [24, 32] [1, 1]
// CHECK: %[[Y1:.*]] = tensor.extract_slice %[[Y]][0, 32] [48, 8] [1, 1]
// CHECK: %[[Z1:.*]] = tensor.extract_slice %[[R0]][0, 32] [24, 8] [1, 1]
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[Y1]] : tensor<24x48xf32>, tensor<48x8xf32>) outs(%[[Z1]] : tensor<24x8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[G]] into %[[R0]][0, 32] [24, 8] [1, 1]
// CHECK: return %[[R1]]
func.func @split(%x: tensor<24x48xf32>, %y: tensor<48x40xf32>, %z: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %r = linalg.matmul ins(%x, %y : tensor<24x48xf32>, tensor<48x40xf32>) outs(%z : tensor<24x40xf32>) -> tensor<24x40xf32>
  return %r : tensor<24x40xf32>
}

// -----

// Multiples of 32 (16 with tile=16) and narrow products are left alone.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @kept(%x: tensor<8x16xf32>, %y: tensor<16x64xf32>, %z: tensor<8x64xf32>, %v: tensor<16x1xf32>, %w: tensor<8x1xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
  %r = linalg.matmul ins(%x, %y : tensor<8x16xf32>, tensor<16x64xf32>) outs(%z : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = linalg.matmul ins(%x, %v : tensor<8x16xf32>, tensor<16x1xf32>) outs(%w : tensor<8x1xf32>) -> tensor<8x1xf32>
  return %r, %s : tensor<8x64xf32>, tensor<8x1xf32>
}
