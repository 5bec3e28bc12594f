// RUN: tfrt-opt %s -split-input-file -tfrt-split-conv-phases | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-split-conv-phases=rows-outer=0 | FileCheck %s --check-prefix=OFF

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

// The input is a zero padding (1 row above, 1 column left) of an 8x64 map
// with 5 channels (a stem, with at most 4, is left to tfrt-vectorize-conv):
// the phases are strided slices of the unpadded input at the padding's
// offsets, the padded input is never built, and only what the slices do not
// cover is zeroed. Phase 0 (padded columns 0, 2, ...) starts with the
// padding column, then input columns 1, 3, ..., 63; phase 1 is input
// columns 0, 2, ..., 62 and one zero column past the end.
// CHECK-LABEL: func.func @stride2_padded
// CHECK-SAME: (%[[IN:.*]]: tensor<1x5x8x64xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<1x10x9x33xf32>
// CHECK: %[[T:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [1, 10, 1, 33] [1, 1, 1, 1]
// CHECK: %[[TZ:.*]] = linalg.fill {{.*}} outs(%[[T]]
// CHECK: %[[A0:.*]] = tensor.insert_slice %[[TZ]] into %[[A]][0, 0, 0, 0] [1, 10, 1, 33]
// CHECK: %[[E:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 1] [1, 5, 8, 32] [1, 1, 1, 2]
// CHECK: %[[A1:.*]] = tensor.insert_slice %[[E]] into %[[A0]][0, 0, 1, 1] [1, 5, 8, 32] [1, 1, 1, 1]
// CHECK: %[[L:.*]] = tensor.extract_slice %[[A1]][0, 0, 1, 0] [1, 5, 8, 1]
// CHECK: %[[LZ:.*]] = linalg.fill {{.*}} outs(%[[L]]
// CHECK: %[[A2:.*]] = tensor.insert_slice %[[LZ]] into %[[A1]][0, 0, 1, 0] [1, 5, 8, 1]
// CHECK: %[[O:.*]] = tensor.extract_slice %[[IN]][0, 0, 0, 0] [1, 5, 8, 32] [1, 1, 1, 2]
// CHECK: %[[A3:.*]] = tensor.insert_slice %[[O]] into %[[A2]][0, 5, 1, 0] [1, 5, 8, 32] [1, 1, 1, 1]
// CHECK: %[[R:.*]] = tensor.extract_slice %[[A3]][0, 5, 1, 32] [1, 5, 8, 1]
// CHECK: %[[RZ:.*]] = linalg.fill {{.*}} outs(%[[R]]
// CHECK: %[[A4:.*]] = tensor.insert_slice %[[RZ]] into %[[A3]][0, 5, 1, 32] [1, 5, 8, 1]
// CHECK: linalg.generic {{.*}} ins(%[[A4]], %{{.*}} : tensor<1x10x9x33xf32>, tensor<16x10x3x2xf32>)
func.func @stride2_padded(%in: tensor<1x5x8x64xf32>, %w: tensor<16x5x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %in low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x5x8x64xf32> to tensor<1x5x9x65xf32>
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x5x9x65xf32>, tensor<16x5x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
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

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 3x3 stride-1 conv with 32-column register tiles on a zero-padded input:
// the padding becomes the rows-outer re-layout. The [1, 6, 16, 34] tensor
// gets zeros only on its border (rows 0 and 5, columns 0 and 33 of the rows
// between), one transposing copy of the unpadded input into its interior,
// and the conv reads it at (n, oh + kh, c, ow + kw).
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d4, d3 + d6)>
// With rows-outer=0 the pad and the NCHW read stay.
// OFF-LABEL: func.func @rows_outer
// OFF: tensor.pad
// OFF-NOT: alloc_tensor
// OFF: linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<1x16x6x34xf32>, tensor<8x16x3x3xf32>)
// CHECK-LABEL: func.func @rows_outer
// CHECK-SAME: (%[[IN:.*]]: tensor<1x16x4x32xf32>, %[[WT:.*]]: tensor<8x16x3x3xf32>
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<1x6x16x34xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[A]][0, 0, 0, 0] [1, 1, 16, 34]
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} outs(%[[S0]]
// CHECK: %[[A0:.*]] = tensor.insert_slice %[[F0]] into %[[A]][0, 0, 0, 0] [1, 1, 16, 34]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[A0]][0, 5, 0, 0] [1, 1, 16, 34]
// CHECK: %[[F1:.*]] = linalg.fill {{.*}} outs(%[[S1]]
// CHECK: %[[A1:.*]] = tensor.insert_slice %[[F1]] into %[[A0]][0, 5, 0, 0] [1, 1, 16, 34]
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[A1]][0, 1, 0, 0] [1, 4, 16, 1]
// CHECK: %[[F2:.*]] = linalg.fill {{.*}} outs(%[[S2]]
// CHECK: %[[A2:.*]] = tensor.insert_slice %[[F2]] into %[[A1]][0, 1, 0, 0] [1, 4, 16, 1]
// CHECK: %[[S3:.*]] = tensor.extract_slice %[[A2]][0, 1, 0, 33] [1, 4, 16, 1]
// CHECK: %[[F3:.*]] = linalg.fill {{.*}} outs(%[[S3]]
// CHECK: %[[A3:.*]] = tensor.insert_slice %[[F3]] into %[[A2]][0, 1, 0, 33] [1, 4, 16, 1]
// CHECK: %[[MID:.*]] = tensor.extract_slice %[[A3]][0, 1, 0, 1] [1, 4, 16, 32]
// CHECK: %[[CP:.*]] = linalg.generic {indexing_maps = [#[[T]], #{{.*}}], {{.*}} ins(%[[IN]] : tensor<1x16x4x32xf32>) outs(%[[MID]] : tensor<1x4x16x32xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: %[[LAID:.*]] = tensor.insert_slice %[[CP]] into %[[A3]][0, 1, 0, 1] [1, 4, 16, 32]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #{{.*}}, #{{.*}}]
// CHECK-SAME: ins(%[[LAID]], %[[WT]] : tensor<1x6x16x34xf32>, tensor<8x16x3x3xf32>)
func.func @rows_outer(%x: tensor<1x16x4x32xf32>, %w: tensor<8x16x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x16x4x32xf32> to tensor<1x16x6x34xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : tensor<1x16x6x34xf32>, tensor<8x16x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// Without padding the re-layout is the transposing copy alone; 16-column
// register tiles keep NCHW.
// CHECK-LABEL: func.func @rows_outer_unpadded
// CHECK-NOT: linalg.fill
// CHECK: %[[CP:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x16x6x34xf32>) outs(%{{.*}} : tensor<1x6x16x34xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[CP]], %arg1 : tensor<1x6x16x34xf32>, tensor<8x16x3x3xf32>)
// CHECK-LABEL: func.func @narrow_tiles
// CHECK-NOT: alloc_tensor
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x16x6x18xf32>, tensor<8x16x3x3xf32>)
func.func @rows_outer_unpadded(%x: tensor<1x16x6x34xf32>, %w: tensor<8x16x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x6x34xf32>, tensor<8x16x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}
func.func @narrow_tiles(%x: tensor<1x16x6x18xf32>, %w: tensor<8x16x3x3xf32>, %o: tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x6x18xf32>, tensor<8x16x3x3xf32>) outs(%o : tensor<1x8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x16xf32>
  return %r : tensor<1x8x4x16xf32>
}

// -----

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The padded input is a concat of two elementwise results that nothing else
// reads: each producer writes its channels of the rows-outer interior
// itself (output map with c and h swapped), no transposing copy; the pad,
// the concat and the old producers are gone.
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @rows_outer_producers
// CHECK-SAME: (%[[A:.*]]: tensor<1x8x4x32xf32>, %[[B:.*]]: tensor<1x8x4x32xf32>,
// CHECK-NOT: into tensor<1x16x4x32xf32>
// CHECK: %[[L:.*]] = bufferization.alloc_tensor() : tensor<1x6x16x34xf32>
// CHECK: %[[T1:.*]] = tensor.extract_slice %{{.*}}[0, 1, 8, 1] [1, 4, 8, 32]
// CHECK: %[[G1:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SWAP]]], {{.*}} ins(%[[B]] : tensor<1x8x4x32xf32>) outs(%[[T1]] : tensor<1x4x8x32xf32>)
// CHECK: arith.negf
// CHECK: %[[L1:.*]] = tensor.insert_slice %[[G1]] into %{{.*}}[0, 1, 8, 1] [1, 4, 8, 32]
// CHECK: %[[T0:.*]] = tensor.extract_slice %[[L1]][0, 1, 0, 1] [1, 4, 8, 32]
// CHECK: %[[G0:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SWAP]]], {{.*}} ins(%[[A]] : tensor<1x8x4x32xf32>) outs(%[[T0]] : tensor<1x4x8x32xf32>)
// CHECK: arith.maximumf
// CHECK: %[[L0:.*]] = tensor.insert_slice %[[G0]] into %[[L1]][0, 1, 0, 1] [1, 4, 8, 32]
// CHECK: linalg.generic {{.*}} ins(%[[L0]], %{{.*}} : tensor<1x6x16x34xf32>, tensor<8x16x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK-NOT: into tensor<1x16x4x32xf32>
func.func @rows_outer_producers(%a: tensor<1x8x4x32xf32>, %b: tensor<1x8x4x32xf32>, %w: tensor<8x16x3x3xf32>, %o: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x8x4x32xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x8x4x32xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<1x8x4x32xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<1x8x4x32xf32>
  %cat0 = tensor.empty() : tensor<1x16x4x32xf32>
  %cat1 = tensor.insert_slice %ra into %cat0[0, 0, 0, 0] [1, 8, 4, 32] [1, 1, 1, 1] : tensor<1x8x4x32xf32> into tensor<1x16x4x32xf32>
  %cat2 = tensor.insert_slice %rb into %cat1[0, 8, 0, 0] [1, 8, 4, 32] [1, 1, 1, 1] : tensor<1x8x4x32xf32> into tensor<1x16x4x32xf32>
  %p = tensor.pad %cat2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x16x4x32xf32> to tensor<1x16x6x34xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : tensor<1x16x6x34xf32>, tensor<8x16x3x3xf32>) outs(%o : tensor<1x8x4x32xf32>) {
  ^bb0(%a0: f32, %b0: f32, %c0: f32):
    %m = arith.mulf %a0, %b0 : f32
    %s = arith.addf %c0, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x32xf32>
  return %r : tensor<1x8x4x32xf32>
}

// -----

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// An image stem (3 input channels, 3x3, stride 2, one padding column on the
// left, 32 output columns): tfrt-vectorize-conv computes it from the
// unpadded input, so it is neither split nor is its padding folded.
// CHECK-LABEL: func.func @stem
// CHECK: tensor.pad
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<1x3x9x65xf32>, tensor<16x3x3x3xf32>)
func.func @stem(%in: tensor<1x3x8x64xf32>, %w: tensor<16x3x3x3xf32>, %o: tensor<1x16x4x32xf32>) -> tensor<1x16x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %in low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x64xf32> to tensor<1x3x9x65xf32>
  %r = linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x9x65xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<1x16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x32xf32>
  return %r : tensor<1x16x4x32xf32>
}
