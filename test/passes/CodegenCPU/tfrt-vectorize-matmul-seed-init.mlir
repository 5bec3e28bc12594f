// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="seed-init=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF

// A 1x1 conv (tfrt-vectorize-conv's matmul on the collapsed output) split
// into parallel chunks of 16 output channels, whose output starts as the
// bias broadcast: the accumulators start from a broadcasting read of the
// chunk's bias elements, and the broadcast pass over the output is gone.
// CHECK: #[[BCAST:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @bias
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x32x32x32xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (16) shared_outs(%{{.*}} = %[[E]])
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: %[[ROW:.*]] = arith.addi %[[I]], %[[M]]
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%[[ROW]]], %{{.*}} {in_bounds = [true, true], permutation_map = #[[BCAST]]} : tensor<32xf32>, vector<8x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.contract
// OFF-LABEL: func.func @bias
// OFF: linalg.generic
// OFF-NOT: permutation_map
#map = affine_map<(d0, d1, d2, d3) -> (d1)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @bias(%x: tensor<16x1024xf32>, %w: tensor<32x16xf32>, %bias: tensor<32xf32>) -> tensor<1x32x32x32xf32> {
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %b = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x32x32xf32>
  %r = scf.forall (%i) = (0) to (32) step (16) shared_outs(%o = %b) -> (tensor<1x32x32x32xf32>) {
    %ws = tensor.extract_slice %w[%i, 0] [16, 16] [1, 1] : tensor<32x16xf32> to tensor<16x16xf32>
    %os = tensor.extract_slice %o[0, %i, 0, 0] [1, 16, 32, 32] [1, 1, 1, 1] : tensor<1x32x32x32xf32> to tensor<1x16x32x32xf32>
    %c = tensor.collapse_shape %os [[0, 1], [2, 3]] : tensor<1x16x32x32xf32> into tensor<16x1024xf32>
    %m = linalg.matmul ins(%ws, %x : tensor<16x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<16x1024xf32>) -> tensor<16x1024xf32>
    %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 32, 32] : tensor<16x1024xf32> into tensor<1x16x32x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[0, %i, 0, 0] [1, 16, 32, 32] [1, 1, 1, 1] : tensor<1x16x32x32xf32> into tensor<1x32x32x32xf32>
    }
  }
  return %r : tensor<1x32x32x32xf32>
}

// -----

// The same conv split into chunks of 8 rows of its 32x32 map (as
// tfrt-async-tile-loops splits 1x1 convs with few output channels): each
// chunk's rows start from the biases of all 32 channels, and the broadcast
// pass over the output is gone here too.
// CHECK-LABEL: func.func @bias_map_rows
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8) shared_outs
// CHECK: scf.for %[[M:.*]] = %c0 to %c32 step %c8
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%[[M]]], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<32xf32>, vector<8x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// OFF-LABEL: func.func @bias_map_rows
// OFF: linalg.generic
func.func @bias_map_rows(%x: tensor<16x1024xf32>, %w: tensor<32x16xf32>, %bias: tensor<32xf32>) -> tensor<1x32x32x32xf32> {
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x32x32xf32>
  %r = scf.forall (%i) = (0) to (32) step (8) shared_outs(%o = %b) -> (tensor<1x32x32x32xf32>) {
    %col = affine.apply affine_map<(d0) -> (d0 * 32)>(%i)
    %xs = tensor.extract_slice %x[0, %col] [16, 256] [1, 1] : tensor<16x1024xf32> to tensor<16x256xf32>
    %os = tensor.extract_slice %o[0, 0, %i, 0] [1, 32, 8, 32] [1, 1, 1, 1] : tensor<1x32x32x32xf32> to tensor<1x32x8x32xf32>
    %c = tensor.collapse_shape %os [[0, 1], [2, 3]] : tensor<1x32x8x32xf32> into tensor<32x256xf32>
    %m = linalg.matmul ins(%w, %xs : tensor<32x16xf32>, tensor<16x256xf32>) outs(%c : tensor<32x256xf32>) -> tensor<32x256xf32>
    %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 8, 32] : tensor<32x256xf32> into tensor<1x32x8x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[0, 0, %i, 0] [1, 32, 8, 32] [1, 1, 1, 1] : tensor<1x32x8x32xf32> into tensor<1x32x32x32xf32>
    }
  }
  return %r : tensor<1x32x32x32xf32>
}

// -----

// A zero fill as the init: the accumulators start as zero vectors, the
// fill is gone. With K = 1024 (above 512, split into K blocks) the init is
// read.
// CHECK-LABEL: func.func @fill
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<6x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (vector<6x16xf32>)
// CHECK-LABEL: func.func @long_k
// CHECK: linalg.fill
// OFF-LABEL: func.func @fill
// OFF: linalg.fill
func.func @fill(%a: tensor<12x96xf32>, %b: tensor<96x48xf32>) -> tensor<12x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<12x48xf32>) -> tensor<12x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<12x96xf32>, tensor<96x48xf32>) outs(%c : tensor<12x48xf32>) -> tensor<12x48xf32>
  return %r : tensor<12x48xf32>
}

func.func @long_k(%a: tensor<16x1024xf32>, %b: tensor<1024x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x1024xf32>, tensor<1024x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// Blocks of rows (16 of 48) and columns (256 of 512): a left operand of
// 48x96 floats stays in L1, so the blocks of columns run outermost and the
// right operand is read once; a 128x128 one does not, so the blocks of rows
// do. (K = 96: with K <= 64 and no epilogue the tiles would have 12 rows,
// one block of rows, see @thin_rows.)
// CHECK-LABEL: func.func @columns_outer
// CHECK: scf.for %[[NB:.*]] = %c0 to %c512 step %c256
// CHECK-NEXT: scf.for %[[MB:.*]] = %c0 to %c48 step %c16
// CHECK-LABEL: func.func @rows_outer
// CHECK: scf.for %[[MB:.*]] = %c0 to %c128 step %c64
// CHECK-NEXT: scf.for %[[NB:.*]] = %c0 to %c512 step %c256
func.func @columns_outer(%a: tensor<48x96xf32>, %b: tensor<96x512xf32>) -> tensor<48x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x512xf32>) -> tensor<48x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<48x96xf32>, tensor<96x512xf32>) outs(%c : tensor<48x512xf32>) -> tensor<48x512xf32>
  return %r : tensor<48x512xf32>
}

func.func @rows_outer(%a: tensor<128x128xf32>, %b: tensor<128x512xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x512xf32>) outs(%c : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}

// -----

// 400 columns (a 1x1 conv on a 20x20 map, which tfrt-split-matmul-columns
// leaves whole when its init is seeded) and K = 384: 8x32 tiles over the
// first 384 columns, then one column of 8x16 tiles, all starting from the
// bias; the broadcast pass is gone.
// CHECK-LABEL: func.func @bias_tail_columns
// CHECK-NOT: linalg.generic
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %c0 to %c384 step %c128
// CHECK: vector.transfer_read %arg2[%{{.*}}], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<32xf32>, vector<8x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c384 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK: scf.for %[[R:.*]] = %c0 to %c32 step %c8 iter_args(%{{.*}} = %[[MAIN]])
// CHECK: vector.transfer_read %arg2[%[[R]]], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<32xf32>, vector<8x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c384 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<8x16xf32>)
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %c384], %{{.*}} {in_bounds = [true, true]} : tensor<384x400xf32>, vector<1x16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[R]], %c384] {in_bounds = [true, true]} : vector<8x16xf32>, tensor<32x400xf32>
// OFF-LABEL: func.func @bias_tail_columns
// OFF: linalg.generic
func.func @bias_tail_columns(%x: tensor<384x400xf32>, %w: tensor<32x384xf32>, %bias: tensor<32xf32>) -> tensor<1x32x20x20xf32> {
  %e = tensor.empty() : tensor<1x32x20x20xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x20x20xf32>
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x32x20x20xf32> into tensor<32x400xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x384xf32>, tensor<384x400xf32>) outs(%c : tensor<32x400xf32>) -> tensor<32x400xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 20, 20] : tensor<32x400xf32> into tensor<1x32x20x20xf32>
  return %ex : tensor<1x32x20x20xf32>
}

// -----

// Few input channels and at least twice as many output channels per chunk
// (K = 12, 32 rows): blocks of 1024 columns instead of 256, so that each
// output channel's block streams out in 4 KiB runs. @bias above (K = 16,
// 16 rows) keeps 256.
// CHECK-LABEL: func.func @wide_blocks
// CHECK: scf.forall (%{{.*}}) = (0) to (96) step (32) shared_outs
// CHECK: scf.for %{{.*}} = %c0 to %c2048 step %c1024
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args
func.func @wide_blocks(%x: tensor<12x2048xf32>, %w: tensor<96x12xf32>, %bias: tensor<96xf32>) -> tensor<1x96x32x64xf32> {
  %e = tensor.empty() : tensor<1x96x32x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<96xf32>) outs(%e : tensor<1x96x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x96x32x64xf32>
  %r = scf.forall (%i) = (0) to (96) step (32) shared_outs(%o = %b) -> (tensor<1x96x32x64xf32>) {
    %ws = tensor.extract_slice %w[%i, 0] [32, 12] [1, 1] : tensor<96x12xf32> to tensor<32x12xf32>
    %os = tensor.extract_slice %o[0, %i, 0, 0] [1, 32, 32, 64] [1, 1, 1, 1] : tensor<1x96x32x64xf32> to tensor<1x32x32x64xf32>
    %c = tensor.collapse_shape %os [[0, 1], [2, 3]] : tensor<1x32x32x64xf32> into tensor<32x2048xf32>
    %m = linalg.matmul ins(%ws, %x : tensor<32x12xf32>, tensor<12x2048xf32>) outs(%c : tensor<32x2048xf32>) -> tensor<32x2048xf32>
    %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 32, 64] : tensor<32x2048xf32> into tensor<1x32x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[0, %i, 0, 0] [1, 32, 32, 64] [1, 1, 1, 1] : tensor<1x32x32x64xf32> into tensor<1x96x32x64xf32>
    }
  }
  return %r : tensor<1x96x32x64xf32>
}

// -----

// A thin 1x1 conv without an epilogue (as det's 48 -> 12 on 160x160), here
// in chunks of 12 output channels: register tiles of 12 rows (24
// accumulators of the 32 zmm), so that each block of its 48 input rows is
// read in one pass instead of two passes of 6 rows. With K above 64
// (@thin_long_k) the tiles stay at 6 rows.
// CHECK-LABEL: func.func @thin_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (24) step (12) shared_outs
// CHECK-NOT: step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<12x32xf32>)
// CHECK-LABEL: func.func @thin_long_k
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<6x32xf32>)
func.func @thin_rows(%x: tensor<48x2048xf32>, %w: tensor<24x48xf32>, %bias: tensor<24xf32>) -> tensor<1x24x32x64xf32> {
  %e = tensor.empty() : tensor<1x24x32x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<24xf32>) outs(%e : tensor<1x24x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x24x32x64xf32>
  %r = scf.forall (%i) = (0) to (24) step (12) shared_outs(%o = %b) -> (tensor<1x24x32x64xf32>) {
    %ws = tensor.extract_slice %w[%i, 0] [12, 48] [1, 1] : tensor<24x48xf32> to tensor<12x48xf32>
    %os = tensor.extract_slice %o[0, %i, 0, 0] [1, 12, 32, 64] [1, 1, 1, 1] : tensor<1x24x32x64xf32> to tensor<1x12x32x64xf32>
    %c = tensor.collapse_shape %os [[0, 1], [2, 3]] : tensor<1x12x32x64xf32> into tensor<12x2048xf32>
    %m = linalg.matmul ins(%ws, %x : tensor<12x48xf32>, tensor<48x2048xf32>) outs(%c : tensor<12x2048xf32>) -> tensor<12x2048xf32>
    %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 12, 32, 64] : tensor<12x2048xf32> into tensor<1x12x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[0, %i, 0, 0] [1, 12, 32, 64] [1, 1, 1, 1] : tensor<1x12x32x64xf32> into tensor<1x24x32x64xf32>
    }
  }
  return %r : tensor<1x24x32x64xf32>
}
func.func @thin_long_k(%x: tensor<96x2048xf32>, %w: tensor<24x96xf32>, %bias: tensor<24xf32>) -> tensor<1x24x32x64xf32> {
  %e = tensor.empty() : tensor<1x24x32x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<24xf32>) outs(%e : tensor<1x24x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x24x32x64xf32>
  %r = scf.forall (%i) = (0) to (24) step (12) shared_outs(%o = %b) -> (tensor<1x24x32x64xf32>) {
    %ws = tensor.extract_slice %w[%i, 0] [12, 96] [1, 1] : tensor<24x96xf32> to tensor<12x96xf32>
    %os = tensor.extract_slice %o[0, %i, 0, 0] [1, 12, 32, 64] [1, 1, 1, 1] : tensor<1x24x32x64xf32> to tensor<1x12x32x64xf32>
    %c = tensor.collapse_shape %os [[0, 1], [2, 3]] : tensor<1x12x32x64xf32> into tensor<12x2048xf32>
    %m = linalg.matmul ins(%ws, %x : tensor<12x96xf32>, tensor<96x2048xf32>) outs(%c : tensor<12x2048xf32>) -> tensor<12x2048xf32>
    %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 12, 32, 64] : tensor<12x2048xf32> into tensor<1x12x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[0, %i, 0, 0] [1, 12, 32, 64] [1, 1, 1, 1] : tensor<1x12x32x64xf32> into tensor<1x24x32x64xf32>
    }
  }
  return %r : tensor<1x24x32x64xf32>
}

// -----

// A thin 1x1 conv with 18 output channels (as det's 96 -> 18 on 80x80):
// 8 does not divide 18, so the tiles take rows of 9 (18 accumulators) and
// read each block of the 96 input rows in two passes instead of three
// passes of 6 rows. With 12 output channels and the same K (@thin_long_k
// above) the tiles stay at 6 rows.
// CHECK-LABEL: func.func @thin_nine
// CHECK-NOT: step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c18 step %c9
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<9x32xf32>)
func.func @thin_nine(%x: tensor<96x2048xf32>, %w: tensor<18x96xf32>, %bias: tensor<18xf32>) -> tensor<1x18x32x64xf32> {
  %e = tensor.empty() : tensor<1x18x32x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<18xf32>) outs(%e : tensor<1x18x32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x18x32x64xf32>
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x18x32x64xf32> into tensor<18x2048xf32>
  %m = linalg.matmul ins(%w, %x : tensor<18x96xf32>, tensor<96x2048xf32>) outs(%c : tensor<18x2048xf32>) -> tensor<18x2048xf32>
  %r = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 18, 32, 64] : tensor<18x2048xf32> into tensor<1x18x32x64xf32>
  return %r : tensor<1x18x32x64xf32>
}
