// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="const-pack-min-bytes=1" -canonicalize -cse -mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="const-pack-min-bytes=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul | FileCheck %s --check-prefix=DEFAULT

// Weights [2, 65] (rows of 65 floats, not whole cache lines) read by the
// chunks of an scf.forall along N, 32 columns each, and by the matmul of
// the last column: the weights become panels [2, 2, 32] at compile time
// (row 1 of panel 0 starts with element [1, 0] = 65), each chunk reads
// panels from its offset / 32 on, and the last column becomes a [2, 1]
// constant of its own, so the unpacked weights are gone.
// CHECK-LABEL: func.func @chunks
// CHECK-NOT: tensor<2x65xf32>
// CHECK-DAG: %[[TAIL:.*]] = arith.constant dense<{{\[\[}}6.400000e+01], [1.290000e+02]]> : tensor<2x1xf32>
// CHECK-DAG: %[[P:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, {{.*}}3.100000e+01], [6.500000e+01, {{.*}}> : tensor<2x2x32xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (64) step (32)
// CHECK: %[[BASE:.*]] = arith.divui %[[I]], %c32
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK: vector.transfer_read %[[P]][%[[BASE]], %{{.*}}, %c0]{{.*}} : tensor<2x2x32xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[TAIL]] : tensor<8x2xf32>, tensor<2x1xf32>)
// CHECK-NOT: tensor<2x65xf32>
// OFF-LABEL: func.func @chunks
// OFF: arith.constant {{.*}} : tensor<2x65xf32>
// OFF-NOT: tensor<2x2x32xf32>
// The default threshold (1 MiB) leaves these 520 bytes alone.
// DEFAULT-LABEL: func.func @chunks
// DEFAULT-NOT: tensor<2x2x32xf32>
func.func @chunks(%a: tensor<8x2xf32>, %o: tensor<8x65xf32>) -> tensor<8x65xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0], [65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0]]> : tensor<2x65xf32>
  %head = tensor.extract_slice %o[0, 0] [8, 64] [1, 1] : tensor<8x65xf32> to tensor<8x64xf32>
  %r = scf.forall (%i) = (0) to (64) step (32) shared_outs(%s = %head) -> (tensor<8x64xf32>) {
    %wi = tensor.extract_slice %w[0, %i] [2, 32] [1, 1] : tensor<2x65xf32> to tensor<2x32xf32>
    %si = tensor.extract_slice %s[0, %i] [8, 32] [1, 1] : tensor<8x64xf32> to tensor<8x32xf32>
    %ri = linalg.matmul ins(%a, %wi : tensor<8x2xf32>, tensor<2x32xf32>) outs(%si : tensor<8x32xf32>) -> tensor<8x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ri into %s[0, %i] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<8x64xf32>
    }
  }
  %o1 = tensor.insert_slice %r into %o[0, 0] [8, 64] [1, 1] : tensor<8x64xf32> into tensor<8x65xf32>
  %wt = tensor.extract_slice %w[0, 64] [2, 1] [1, 1] : tensor<2x65xf32> to tensor<2x1xf32>
  %ot = tensor.extract_slice %o1[0, 64] [8, 1] [1, 1] : tensor<8x65xf32> to tensor<8x1xf32>
  %rt = linalg.matmul ins(%a, %wt : tensor<8x2xf32>, tensor<2x1xf32>) outs(%ot : tensor<8x1xf32>) -> tensor<8x1xf32>
  %o2 = tensor.insert_slice %rt into %o1[0, 64] [8, 1] [1, 1] : tensor<8x1xf32> into tensor<8x65xf32>
  return %o2 : tensor<8x65xf32>
}

// -----

// Rows that are whole cache lines (48 floats) are not packed by this rule,
// nor are slices at a column offset that is not a multiple of 32.
// CHECK-LABEL: func.func @aligned_rows
// CHECK-NOT: tensor<{{.*}}x2x32xf32>
// CHECK-LABEL: func.func @odd_offset
// CHECK-NOT: tensor<{{.*}}x2x32xf32>
// CHECK: return
func.func @aligned_rows(%a: tensor<8x2xf32>, %o: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0], [48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0]]> : tensor<2x48xf32>
  %ws = tensor.extract_slice %w[0, 0] [2, 32] [1, 1] : tensor<2x48xf32> to tensor<2x32xf32>
  %r = linalg.matmul ins(%a, %ws : tensor<8x2xf32>, tensor<2x32xf32>) outs(%o : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
func.func @odd_offset(%a: tensor<8x2xf32>, %o: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0], [65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0]]> : tensor<2x65xf32>
  %ws = tensor.extract_slice %w[0, 16] [2, 32] [1, 1] : tensor<2x65xf32> to tensor<2x32xf32>
  %r = linalg.matmul ins(%a, %ws : tensor<8x2xf32>, tensor<2x32xf32>) outs(%o : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
