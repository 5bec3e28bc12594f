// RUN: tfrt-opt %s -tfrt-lower-graph-to-linalg=scatter-loops -split-input-file | FileCheck %s

// With scatter-loops, scatters are loops over their updates that carry the
// input and write into it (linear in the updates), not reductions over
// output x updates.

// ScatterND with tuples shorter than the rank: one scf.for per batch dim of
// the indices; each tuple's index read, normalised (negative counted from
// the dim, then clamped) and its row of updates combined with the row there
// by an elementwise generic written in place.

// CHECK-LABEL: func.func @scatter_nd_rows_add
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<5x1xi64>, %[[U:.*]]: tensor<5x8xf32>)
// CHECK-NOT: iterator_types = ["parallel", "reduction"]
// CHECK: %[[R:.*]] = scf.for %[[N:.*]] = %{{.*}} to %c5 step %{{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (tensor<16x8xf32>)
// CHECK: %[[T:.*]] = tensor.extract %[[I]][%[[N]], %{{.*}}] : tensor<5x1xi64>
// CHECK: arith.index_cast %[[T]]
// CHECK: arith.cmpi slt
// CHECK: arith.maxsi
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %c15
// CHECK: %[[UPD:.*]] = tensor.extract_slice %[[U]][%[[N]], 0] [1, 8] [1, 1] : tensor<5x8xf32> to tensor<8xf32>
// CHECK: %[[CUR:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[UPD]] : tensor<8xf32>) outs(%[[CUR]] : tensor<8xf32>)
// CHECK: arith.addf
// CHECK: %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 8] [1, 1]
// CHECK: scf.yield %[[NEW]]
// CHECK: return %[[R]]
func.func @scatter_nd_rows_add(%x: tensor<16x8xf32>, %i: tensor<5x1xi64>, %u: tensor<5x8xf32>) -> tensor<16x8xf32> {
  %0 = graph.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<16x8xf32>, tensor<5x1xi64>, tensor<5x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Without a reduction the updates' row is inserted as it is.

// CHECK-LABEL: func.func @scatter_nd_rows_none
// CHECK: scf.for
// CHECK: %[[UPD:.*]] = tensor.extract_slice %arg2
// CHECK-NOT: linalg.generic
// CHECK: tensor.insert_slice %[[UPD]] into
func.func @scatter_nd_rows_none(%x: tensor<16x8xf32>, %i: tensor<5x1xi64>, %u: tensor<5x8xf32>) -> tensor<16x8xf32> {
  %0 = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<16x8xf32>, tensor<5x1xi64>, tensor<5x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Whole tuples (length == rank) over two batch dims: two loops, scalar
// reads and writes; max on a signed integer type.

// CHECK-LABEL: func.func @scatter_nd_elements_max
// CHECK: scf.for %[[A:.*]] = %{{.*}} to %c2
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c3
// CHECK: tensor.extract %arg1[%[[A]], %[[B]], %c0{{.*}}]
// CHECK: tensor.extract %arg1[%[[A]], %[[B]], %c1{{.*}}]
// CHECK: %[[V:.*]] = tensor.extract %arg2[%[[A]], %[[B]]] : tensor<2x3xi32>
// CHECK: %[[OLD:.*]] = tensor.extract
// CHECK: %[[M:.*]] = arith.maxsi %[[OLD]], %[[V]] : i32
// CHECK: tensor.insert %[[M]] into
func.func @scatter_nd_elements_max(%x: tensor<4x5xi32>, %i: tensor<2x3x2xi64>, %u: tensor<2x3xi32>) -> tensor<4x5xi32> {
  %0 = graph.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<4x5xi32>, tensor<2x3x2xi64>, tensor<2x3xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// ScatterElements: one loop per dim of the updates, bounded by the input
// where the updates are larger along a dim other than the axis (those
// updates are dropped); the index replaces the axis coordinate. min on an
// unsigned type (signless after the lowering) compares unsigned.

// CHECK-LABEL: func.func @scatter_elements_min_unsigned
// CHECK: scf.for %[[A:.*]] = %{{.*}} to %c3
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c2
// CHECK: %[[T:.*]] = tensor.extract %arg1[%[[A]], %[[B]]] : tensor<5x2xi64>
// CHECK: arith.index_cast %[[T]]
// CHECK: %[[AXIS:.*]] = arith.minsi %{{.*}}, %c3
// CHECK: %[[V:.*]] = tensor.extract %arg2[%[[A]], %[[B]]] : tensor<5x2xi8>
// CHECK: %[[OLD:.*]] = tensor.extract %{{.*}}[%[[A]], %[[AXIS]]] : tensor<3x4xi8>
// CHECK: %[[M:.*]] = arith.minui %[[OLD]], %[[V]] : i8
// CHECK: tensor.insert %[[M]] into %{{.*}}[%[[A]], %[[AXIS]]]
func.func @scatter_elements_min_unsigned(%x: tensor<3x4xui8>, %i: tensor<5x2xi64>, %u: tensor<5x2xui8>) -> tensor<3x4xui8> {
  %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "min"} : (tensor<3x4xui8>, tensor<5x2xi64>, tensor<5x2xui8>) -> tensor<3x4xui8>
  return %0 : tensor<3x4xui8>
}
