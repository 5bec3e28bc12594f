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
// The weights come from memory on every run: each step also prefetches the
// two lines of the same K row of the panel one block of columns further
// (here the next panel, clamped to the last).
// CHECK: scf.forall (%[[I:.*]]) = (0) to (64) step (32)
// CHECK: %[[BASE:.*]] = arith.divui %[[I]], %c32
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[P]] read_only
// CHECK: %[[AFTER:.*]] = arith.addi %[[BASE]], %c1
// CHECK: %[[NEXT:.*]] = arith.minsi %[[AFTER]], %c1
// CHECK: scf.for %[[K:.*]] = %c0 to %c2 step %c1
// CHECK: vector.transfer_read %[[P]][%[[BASE]], %[[K]], %c0]{{.*}} : tensor<2x2x32xf32>, vector<1x32xf32>
// CHECK: memref.prefetch %[[BUF]][%[[NEXT]], %[[K]], %c0], read, locality<3>, data
// CHECK: memref.prefetch %[[BUF]][%[[NEXT]], %[[K]], %c16], read, locality<3>, data
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[TAIL]] : tensor<8x2xf32>, tensor<2x1xf32>)
// CHECK-NOT: tensor<2x65xf32>
// OFF-LABEL: func.func @chunks
// OFF: arith.constant {{.*}} : tensor<2x65xf32>
// OFF-NOT: tensor<2x2x32xf32>
// OFF-NOT: memref.prefetch
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

// -----

// Two row tiles of 8 over the same 4 K rows: row tile t prefetches rows
// [2 t, 2 t + 2) of the next block's panels, step k of it row (4 t + k) / 2,
// so that the block's rows are requested across all its row tiles. The
// next block (64 columns further) is past the end: the last panel.
// CHECK-LABEL: func.func @row_tiles
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<2x4x32xf32>
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: scf.for %[[J:.*]] = %c0 to %c64 step %c32
// CHECK: %[[PANEL:.*]] = arith.divui %[[J]], %c32
// CHECK: %[[AFTER:.*]] = arith.addi %[[PANEL]], %c2
// CHECK: %[[NEXT:.*]] = arith.minsi %[[AFTER]], %c1
// CHECK: scf.for %[[K:.*]] = %c0 to %c4 step %c1
// CHECK: %[[T:.*]] = arith.divui %[[M]], %c8
// CHECK: %[[T4:.*]] = arith.muli %[[T]], %c4
// CHECK: %[[TK:.*]] = arith.addi %[[T4]], %[[K]]
// CHECK: %[[ROW:.*]] = arith.divui %[[TK]], %c2
// CHECK: memref.prefetch %[[BUF]][%[[NEXT]], %[[ROW]], %c0]
// CHECK: memref.prefetch %[[BUF]][%[[NEXT]], %[[ROW]], %c16]
// CHECK: vector.contract
func.func @row_tiles(%a: tensor<16x4xf32>, %o: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0],
    [65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0],
    [130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0, 144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0, 156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0, 168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0, 180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0, 192.0, 193.0, 194.0],
    [195.0, 196.0, 197.0, 198.0, 199.0, 200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 209.0, 210.0, 211.0, 212.0, 213.0, 214.0, 215.0, 216.0, 217.0, 218.0, 219.0, 220.0, 221.0, 222.0, 223.0, 224.0, 225.0, 226.0, 227.0, 228.0, 229.0, 230.0, 231.0, 232.0, 233.0, 234.0, 235.0, 236.0, 237.0, 238.0, 239.0, 240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0, 248.0, 249.0, 250.0, 251.0, 252.0, 253.0, 254.0, 255.0, 256.0, 257.0, 258.0, 259.0]]> : tensor<4x65xf32>
  %ws = tensor.extract_slice %w[0, 0] [4, 64] [1, 1] : tensor<4x65xf32> to tensor<4x64xf32>
  %r = linalg.matmul ins(%a, %ws : tensor<16x4xf32>, tensor<4x64xf32>) outs(%o : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
