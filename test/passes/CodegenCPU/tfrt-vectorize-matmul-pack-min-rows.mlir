// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="pack-min-rows=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF

// N = 1024 (a 4 KiB row stride) and 256 rows: the right operand is copied
// into [N/32][K][32] panels, one contiguous 32-float row per k and panel;
// the register tile reads the panel, and the accumulators start from the
// fill value (the fill is gone).
// CHECK-LABEL: func.func @packed
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x64x32xf32>
// CHECK: %[[P:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%[[T:.*]] = %[[E]])
// CHECK: scf.for %[[J:.*]] = %c0 to %c32 step %c1
// CHECK: %[[COL:.*]] = arith.muli %[[J]], %c32
// CHECK: %[[V:.*]] = vector.transfer_read %arg1[%[[K]], %[[COL]]]{{.*}} vector<32xf32>
// CHECK: vector.transfer_write %[[V]], %{{.*}}[%[[J]], %[[K]], %c0]
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %cst) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read %arg0{{.*}} vector<8x1xf32>
// CHECK: vector.transfer_read %[[P]][{{.*}}]{{.*}} : tensor<32x64x32xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// OFF-LABEL: func.func @packed
// OFF-NOT: tensor<32x64x32xf32>
// OFF: vector.transfer_read %arg1{{.*}} vector<1x32xf32>
func.func @packed(%a: tensor<256x64xf32>, %b: tensor<64x1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// -----

// Constant weights are packed at compile time: a new constant in the panel
// layout and no copy loop.
// CHECK-LABEL: func.func @weights
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<32x8x32xf32>
// CHECK-NOT: vector<32xf32>
// CHECK: vector.transfer_read %[[W]][{{.*}}]{{.*}} : tensor<32x8x32xf32>, vector<1x32xf32>
func.func @weights(%a: tensor<256x8xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %b = arith.constant dense<0.5> : tensor<8x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x8xf32>, tensor<8x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// -----

// Split into parallel chunks of 32 rows by tfrt-async-tile-loops: the rows
// of all chunks count, the panels are packed once before the loop, in 8
// parallel chunks of 4 panels, and the loop's shared output starts as the
// fill's destination.
// CHECK-LABEL: func.func @chunks
// CHECK-NOT: linalg.fill
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<256x1024xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x64x32xf32>
// CHECK: %[[P:.*]] = scf.forall (%{{.*}}) in (8) shared_outs(%{{.*}} = %[[E]]) -> (tensor<32x64x32xf32>)
// CHECK: tensor.extract_slice {{.*}} [4, 64, 32]
// CHECK: vector.transfer_read %arg1{{.*}} vector<32xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK: scf.forall (%{{.*}}) = (0) to (256) step (32) shared_outs(%{{.*}} = %[[OUT]])
// CHECK: vector.transfer_read %[[P]][{{.*}}]{{.*}} vector<1x32xf32>
func.func @chunks(%a: tensor<256x64xf32>, %b: tensor<64x1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r = scf.forall (%i) = (0) to (256) step (32) shared_outs(%o = %c) -> (tensor<256x1024xf32>) {
    %as = tensor.extract_slice %a[%i, 0] [32, 64] [1, 1] : tensor<256x64xf32> to tensor<32x64xf32>
    %os = tensor.extract_slice %o[%i, 0] [32, 1024] [1, 1] : tensor<256x1024xf32> to tensor<32x1024xf32>
    %m = linalg.matmul ins(%as, %b : tensor<32x64xf32>, tensor<64x1024xf32>) outs(%os : tensor<32x1024xf32>) -> tensor<32x1024xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %m into %o[%i, 0] [32, 1024] [1, 1] : tensor<32x1024xf32> into tensor<256x1024xf32>
    }
  }
  return %r : tensor<256x1024xf32>
}

// -----

// Fewer rows than pack-min-rows (256) and N = 512 stay on the row-major
// operand.
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: vector<32xf32>
// CHECK: vector.transfer_read %arg1{{.*}} vector<1x32xf32>
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: vector<32xf32>
// CHECK: vector.transfer_read %arg1{{.*}} vector<1x32xf32>
func.func @few_rows(%a: tensor<128x64xf32>, %b: tensor<64x1024xf32>, %c: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x1024xf32>) outs(%c : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %r : tensor<128x1024xf32>
}

func.func @narrow(%a: tensor<512x64xf32>, %b: tensor<64x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
