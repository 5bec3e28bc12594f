// RUN: tfrt-opt %s -split-input-file -tfrt-split-matmul-columns | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-split-matmul-columns=tile=16 | FileCheck %s --check-prefix=NARROW

// 400 columns (det's 1x1 convs on 20x20 maps): a matmul over the first 384
// (12 register tiles of 32) and one over the last 16, both inserted into
// the init. With tile=16 the matmul stays whole.
// CHECK-LABEL: func.func @tail16
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[Y:.*]]: tensor<8x400xf32>, %[[Z:.*]]: tensor<16x400xf32>)
// CHECK: %[[Y0:.*]] = tensor.extract_slice %[[Y]][0, 0] [8, 384] [1, 1]
// CHECK: %[[Z0:.*]] = tensor.extract_slice %[[Z]][0, 0] [16, 384] [1, 1]
// CHECK: %[[M0:.*]] = linalg.matmul ins(%[[X]], %[[Y0]] : tensor<16x8xf32>, tensor<8x384xf32>) outs(%[[Z0]] : tensor<16x384xf32>)
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[M0]] into %[[Z]][0, 0] [16, 384] [1, 1]
// CHECK: %[[Y1:.*]] = tensor.extract_slice %[[Y]][0, 384] [8, 16] [1, 1]
// CHECK: %[[Z1:.*]] = tensor.extract_slice %[[R0]][0, 384] [16, 16] [1, 1]
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[X]], %[[Y1]] : tensor<16x8xf32>, tensor<8x16xf32>) outs(%[[Z1]] : tensor<16x16xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[M1]] into %[[R0]][0, 384] [16, 16] [1, 1]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R1]]
// NARROW-LABEL: func.func @tail16
// NARROW-COUNT-1: linalg.matmul
// NARROW-NOT: tensor.insert_slice
func.func @tail16(%x: tensor<16x8xf32>, %y: tensor<8x400xf32>, %z: tensor<16x400xf32>) -> tensor<16x400xf32> {
  %r = linalg.matmul ins(%x, %y : tensor<16x8xf32>, tensor<8x400xf32>) outs(%z : tensor<16x400xf32>) -> tensor<16x400xf32>
  return %r : tensor<16x400xf32>
}

// -----

// 56 columns: 32 in the wide matmul, 16 in the narrow one, the last 8 in
// the contraction generic.
// CHECK-LABEL: func.func @three
// NARROW-LABEL: func.func @three
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [8, 32] [1, 1]
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 32] [8, 16] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 48] [8, 8] [1, 1]
func.func @three(%x: tensor<8x8xf32>, %y: tensor<8x56xf32>, %z: tensor<8x56xf32>) -> tensor<8x56xf32> {
  %r = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x56xf32>) outs(%z : tensor<8x56xf32>) -> tensor<8x56xf32>
  return %r : tensor<8x56xf32>
}
