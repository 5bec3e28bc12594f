// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=8" | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=1000 min-chunk-cost=1000 max-chunks=16" | FileCheck %s --check-prefix=MANY

// An expensive elementwise op is split along its first parallel loop whose
// range gives equal chunks: 64 rows into 8 chunks of 8.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.forall (%[[I:.*]]) = (0) to (64) step (8) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<64x256xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0] [8, 256] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x256xf32>) outs(%{{.*}} : tensor<8x256xf32>)
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[O]][%[[I]], 0] [8, 256] [1, 1]
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%a: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Below min-cost an op stays sequential (whole small models run on one
// thread).
// CHECK-LABEL: func.func @cheap
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @cheap(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A batch of 1 is skipped in favour of the next parallel loop (channels);
// reductions are never split.
// CHECK-LABEL: func.func @conv
// CHECK: scf.forall (%[[F:.*]]) = (0) to (16) step (2)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x2x30x30xf32>)
func.func @conv(%x: tensor<1x8x32x32xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x30x30xf32>) -> tensor<1x16x30x30xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x32x32xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x30x30xf32>) -> tensor<1x16x30x30xf32>
  return %r : tensor<1x16x30x30xf32>
}

// -----

// A matmul is split along M only, into multiples of 8 rows of at least 32
// (64 rows: 2 chunks of 32, not 8 of 8), keeping tfrt-vectorize-matmul's
// register and cache tiles intact.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x64xf32>)
func.func @matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A matmul whose rows cannot be split into such chunks is split along N in
// whole 32-column register tiles; with neither it stays whole.
// CHECK-LABEL: func.func @small_matmul
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<24x64xf32>, tensor<64x32xf32>)
// CHECK-LABEL: func.func @narrow_matmul
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul
func.func @small_matmul(%a: tensor<24x64xf32>, %b: tensor<64x64xf32>, %c: tensor<24x64xf32>) -> tensor<24x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x64xf32>, tensor<64x64xf32>) outs(%c : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %r : tensor<24x64xf32>
}
func.func @narrow_matmul(%a: tensor<24x64xf32>, %b: tensor<64x48xf32>, %c: tensor<24x48xf32>) -> tensor<24x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x64xf32>, tensor<64x48xf32>) outs(%c : tensor<24x48xf32>) -> tensor<24x48xf32>
  return %r : tensor<24x48xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// The dense conv generic of the graph lowering: with a 3x3 window it is
// split along output rows (every chunk keeps all 16 output channels for
// tfrt-vectorize-conv's register tile), a 1x1 one along output channels
// like a matmul along M (2 chunks of 8 here, half of M).
// CHECK-LABEL: func.func @conv_generic
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (4)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x4x32xf32>)
// CHECK-LABEL: func.func @conv1x1_generic
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (8)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x32x32xf32>)
func.func @conv_generic(%x: tensor<1x8x34x34xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x34x34xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}
func.func @conv1x1_generic(%x: tensor<1x8x32x32xf32>, %w: tensor<16x8x1x1xf32>, %o: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x32x32xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 1x1 conv whose 12 output channels allow no chunks of 8 is split along
// rows such that a chunk's rows x columns are whole 16-column register tiles
// of the matmul it becomes: 6 chunks of 4 rows (96 columns), not 8 of 3.
// CHECK-LABEL: func.func @conv1x1_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (24) step (4)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x12x4x24xf32>)
func.func @conv1x1_rows(%x: tensor<1x8x24x24xf32>, %w: tensor<12x8x1x1xf32>, %o: tensor<1x12x24x24xf32>) -> tensor<1x12x24x24xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x24x24xf32>, tensor<12x8x1x1xf32>) outs(%o : tensor<1x12x24x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x12x24x24xf32>
  return %r : tensor<1x12x24x24xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// The conv generic on the rows-outer input [N, H, C, W] of
// tfrt-split-conv-phases splits along output rows like the NCHW one.
// CHECK-LABEL: func.func @conv_rows_outer
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (4)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x4x32xf32>)
func.func @conv_rows_outer(%x: tensor<1x34x8x34xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x34x8x34xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}

// -----

// A ConvTranspose with kernel = stride (loops n, m, ih, kh, c, iw, kw)
// splits along input rows (d2), not output channels: every chunk then reads
// only its own input rows.
// CHECK-LABEL: func.func @conv_transpose
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (4)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %[[I]], 0] [1, 8, 4, 32] [1, 1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: tensor<1x8x4x2x32x2xf32>
#ctin = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
#ctw = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
#cto = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
func.func @conv_transpose(%x: tensor<1x8x32x32xf32>, %w: tensor<8x8x2x2xf32>, %o: tensor<1x8x32x2x32x2xf32>) -> tensor<1x8x32x2x32x2xf32> {
  %r = linalg.generic {indexing_maps = [#ctin, #ctw, #cto], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%x, %w : tensor<1x8x32x32xf32>, tensor<8x8x2x2xf32>) outs(%o : tensor<1x8x32x2x32x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x32x2x32x2xf32>
  return %r : tensor<1x8x32x2x32x2xf32>
}

// -----

// A windowed conv on 40-column rows (tfrt-vectorize-conv runs it over
// flattened rows): a chunk needs at least 320 output positions, so 4 chunks
// of 8 rows, also where max-chunks=8 or 16 would allow 8 chunks of 4 or 16
// of 2.
// CHECK-LABEL: func.func @conv_narrow_rows
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x8x40xf32>)
// MANY-LABEL: func.func @conv_narrow_rows
// MANY: scf.forall (%{{.*}}) = (0) to (32) step (8)
#xn = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#wn = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#on = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @conv_narrow_rows(%x: tensor<1x8x34x42xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x32x40xf32>) -> tensor<1x16x32x40xf32> {
  %r = linalg.generic {indexing_maps = [#xn, #wn, #on], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x34x42xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x32x40xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x40xf32>
  return %r : tensor<1x16x32x40xf32>
}

// -----

// A nearest-neighbour upsampling fused into an elementwise op reads its
// input through d2 floordiv 3; chunks keep their maps on slice-relative
// indices, so they must start at multiples of 3 rows: 2 chunks of 3 rows,
// not 6 of one.
// CHECK-LABEL: func.func @upsample_alignment
// CHECK: scf.forall (%[[J:.*]]) = (0) to (6) step (3)
// CHECK: tensor.extract_slice %arg0[0, 0, %{{.*}}, 0] [1, 1, 1, 2048]
// CHECK-NOT: scf.forall (
// MANY-LABEL: func.func @upsample_alignment
// MANY: scf.forall (%{{.*}}) = (0) to (6) step (3)
#id4u = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#upu = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 3, d3)>
func.func @upsample_alignment(%lo: tensor<1x1x2x2048xf32>, %x: tensor<1x1x6x2048xf32>) -> tensor<1x1x6x2048xf32> {
  %e = tensor.empty() : tensor<1x1x6x2048xf32>
  %r = linalg.generic {indexing_maps = [#upu, #id4u, #id4u], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%lo, %x : tensor<1x1x2x2048xf32>, tensor<1x1x6x2048xf32>) outs(%e : tensor<1x1x6x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<1x1x6x2048xf32>
  return %r : tensor<1x1x6x2048xf32>
}
