// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands="min-bytes=0 band-rows=2 max-chunks=2" -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands="min-bytes=0 band-rows=2 max-chunks=2 max-stride=2" -cse | FileCheck %s --check-prefix=S2
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands="min-bytes=0 max-channels=2" | FileCheck %s --check-prefix=NARROW
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands | FileCheck %s --check-prefix=SMALL
// RUN: not tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands=band-rows=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands=max-stride=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands="min-bytes=0 band-rows=2 max-chunks=2" -cse | FileCheck %s --check-prefix=TAIL
// RUN: tfrt-opt %s -split-input-file -tfrt-fuse-conv-bands="min-bytes=0 band-rows=2 max-chunks=2 tails=0" -cse | FileCheck %s --check-prefix=NOTAIL

// BAD: tfrt-fuse-conv-bands: band-rows, max-chunks and max-channels must be >= 1, min-bytes >= 0, max-stride 1 or 2

#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
#ch = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A depthwise 3x3 conv (4 channels, 8 x 16 outputs) with its bias and a
// ReLU-like epilogue, read only by a 1x1 conv 4 -> 8 whose epilogue adds a
// residual of the output's shape and multiplies by a per-channel scale:
// 2 chunks of 4 rows, each 2 bands of 2 rows (-cse merges the band-sized
// tensor.empty ops of the same type). The depthwise conv reads the
// band's 4 padded input rows; the residual is sliced at the band's rows;
// the per-channel scale is read whole.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x10x18xf32>, %[[R:.*]]: tensor<1x8x8x16xf32>, %[[S:.*]]: tensor<1x8x1x1xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x8x8x16xf32>
// CHECK: %[[F:.*]] = scf.forall (%[[I:.*]]) in (2) shared_outs(%[[SH:.*]] = %[[OUT]])
// CHECK: %[[R0:.*]] = arith.muli %[[I]], %c4
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[SH]][0, 0, %[[R0]], 0] [1, 8, 4, 16] [1, 1, 1, 1]
// CHECK: %[[L:.*]] = scf.for %[[B:.*]] = %c0 to %c4 step %c2 iter_args(%[[P:.*]] = %[[PART]])
// CHECK: %[[ROW:.*]] = arith.addi %[[R0]], %[[B]]
// CHECK: %[[XIN:.*]] = tensor.extract_slice %[[X]][0, 0, %[[ROW]], 0] [1, 4, 4, 18] [1, 1, 1, 1]
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<1x4x2x16xf32>
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<1x4x2x16xf32>)
// CHECK: %[[DW:.*]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%[[XIN]], %{{.*}} : tensor<1x4x4x18xf32>, tensor<4x3x3xf32>) outs(%[[DB]] : tensor<1x4x2x16xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[DW]] : tensor<1x4x2x16xf32>) outs(%{{.*}} : tensor<1x4x2x16xf32>)
// CHECK: %[[OB:.*]] = tensor.extract_slice %[[P]][0, 0, %[[B]], 0] [1, 8, 2, 16] [1, 1, 1, 1]
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<1x8x2x16xf32>
// CHECK: %[[PB:.*]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<1x8x2x16xf32>)
// CHECK: %[[PW:.*]] = linalg.generic {{.*}} ins(%[[RELU]], %{{.*}} : tensor<1x4x2x16xf32>, tensor<8x4x1x1xf32>) outs(%[[PB]] : tensor<1x8x2x16xf32>)
// CHECK: %[[RS:.*]] = tensor.extract_slice %[[R]][0, 0, %[[ROW]], 0] [1, 8, 2, 16] [1, 1, 1, 1]
// CHECK: %[[EP:.*]] = linalg.generic {{.*}} ins(%[[PW]], %[[RS]], %[[S]] : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x1x1xf32>) outs(%[[OB]] : tensor<1x8x2x16xf32>)
// CHECK: %[[NEXT:.*]] = tensor.insert_slice %[[EP]] into %[[P]][0, 0, %[[B]], 0] [1, 8, 2, 16] [1, 1, 1, 1]
// CHECK: scf.yield %[[NEXT]]
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %[[L]] into %[[SH]][0, 0, %[[R0]], 0] [1, 8, 4, 16] [1, 1, 1, 1]
// CHECK: return %[[F]]
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// NARROW-LABEL: func.func @chain
// NARROW-NOT: scf.forall
// SMALL-LABEL: func.func @chain
// SMALL-NOT: scf.forall
func.func @chain(%x: tensor<1x4x10x18xf32>, %r: tensor<1x8x8x16xf32>, %s: tensor<1x8x1x1xf32>) -> tensor<1x8x8x16xf32> {
  %bd = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wd = arith.constant dense<0.5> : tensor<4x3x3xf32>
  %bp = arith.constant dense<0.25> : tensor<8xf32>
  %wp = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %b0 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bd : tensor<4xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x16xf32>
  %dw = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wd : tensor<1x4x10x18xf32>, tensor<4x3x3xf32>) outs(%b0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dw : tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x16xf32>
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %b1 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bp : tensor<8xf32>) outs(%e2 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x8x8x16xf32>
  %pw = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%relu, %wp : tensor<1x4x8x16xf32>, tensor<8x4x1x1xf32>) outs(%b1 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x8x8x16xf32>
  %out = tensor.empty() : tensor<1x8x8x16xf32>
  %ep = linalg.generic {indexing_maps = [#id, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pw, %r, %s : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x1x1xf32>) outs(%out : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    %u = arith.mulf %t, %c : f32
    linalg.yield %u : f32
  } -> tensor<1x8x8x16xf32>
  return %ep : tensor<1x8x8x16xf32>
}

// -----

#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A stride-2 depthwise conv (fills as inits, no epilogues): left alone by
// default (max-stride=1); with max-stride=2 each band of 2 output rows reads
// 2 * (2 - 1) + 3 = 5 input rows from row 2 * row.
// CHECK-LABEL: func.func @stride2
// CHECK-NOT: scf.forall
// S2-LABEL: func.func @stride2
// S2: scf.forall (%{{.*}}) in (2)
// S2: scf.for %[[B:.*]] = %c0 to %c4 step %c2
// S2: %[[ROW:.*]] = arith.addi %{{.*}}, %[[B]]
// S2: %[[IN:.*]] = arith.muli %[[ROW]], %c2
// S2: tensor.extract_slice %{{.*}}[0, 0, %[[IN]], 0] [1, 4, 5, 33] [1, 1, 1, 1]
// S2: linalg.fill {{.*}} -> tensor<1x4x2x16xf32>
// S2: linalg.depthwise_conv_2d_nchw_chw {{.*}} strides = dense<2> {{.*}} -> tensor<1x4x2x16xf32>
// S2: linalg.fill {{.*}} -> tensor<1x8x2x16xf32>
// S2: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x2x16xf32>)
// S2: tensor.insert_slice
func.func @stride2(%x: tensor<1x4x17x33xf32>) -> tensor<1x8x8x16xf32> {
  %wd = arith.constant dense<0.5> : tensor<4x3x3xf32>
  %wp = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %dw = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %wd : tensor<1x4x17x33xf32>, tensor<4x3x3xf32>) outs(%f0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %pw = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dw, %wp : tensor<1x4x8x16xf32>, tensor<8x4x1x1xf32>) outs(%f1 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x8x8x16xf32>
  return %pw : tensor<1x8x8x16xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// The depthwise output is also a result of the function: it must be
// written whole, so nothing is fused.
// CHECK-LABEL: func.func @two_users
// CHECK-NOT: scf.forall
// S2-LABEL: func.func @two_users
// S2-NOT: scf.forall
func.func @two_users(%x: tensor<1x4x10x18xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x4x8x16xf32>) {
  %wd = arith.constant dense<0.5> : tensor<4x3x3xf32>
  %wp = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %dw = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wd : tensor<1x4x10x18xf32>, tensor<4x3x3xf32>) outs(%f0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %pw = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dw, %wp : tensor<1x4x8x16xf32>, tensor<8x4x1x1xf32>) outs(%f1 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x8x8x16xf32>
  return %pw, %dw : tensor<1x8x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A tail: the 1x1 conv's ReLU writes the interior of a zero-bordered
// tensor (tfrt-pad-in-place's padding, one row above and a column on each
// side) that only a 3x3 stride-2 depthwise conv reads. The bands are that
// conv's output rows (2 chunks of 4 rows, bands of 2): each computes the
// 5 rows of the 1x1 conv its windows read, from row 2 * r - 1, or in the
// first band from row 0 placed one row down under a zero row, into a
// 1x8x6x18 tensor with zero borders; the second depthwise conv reads its
// first 5 rows. The whole padded tensor is gone. With `tails=0` the chain
// stops at the ReLU.
// CHECK-LABEL: func.func @tail
// S2-LABEL: func.func @tail
// NARROW-LABEL: func.func @tail
// SMALL-LABEL: func.func @tail
// TAIL-LABEL: func.func @tail
// TAIL-SAME: (%[[X:.*]]: tensor<1x4x10x18xf32>)
// TAIL-NOT: tensor<1x8x9x18xf32>
// TAIL: %[[OUT:.*]] = tensor.empty() : tensor<1x8x4x8xf32>
// TAIL: scf.forall (%[[I:.*]]) in (2) shared_outs(%[[SH:.*]] = %[[OUT]])
// TAIL: scf.for %[[B:.*]] = %c0 to %c2 step %c2
// TAIL: %[[ROW:.*]] = arith.addi
// TAIL: %[[FIRST:.*]] = arith.cmpi eq, %[[ROW]], %c0
// TAIL: %[[PLACE:.*]] = arith.select %[[FIRST]], %c1, %c0
// TAIL: %[[TWICE:.*]] = arith.muli %[[ROW]], %c2
// TAIL: %[[ABOVE:.*]] = arith.subi %[[TWICE]], %c1
// TAIL: %[[PWROW:.*]] = arith.addi %[[ABOVE]], %[[PLACE]]
// TAIL: tensor.extract_slice %[[X]][0, 0, %[[PWROW]], 0] [1, 4, 7, 18]
// TAIL: linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<1x4x5x16xf32>
// TAIL: %[[PB:.*]] = tensor.empty() : tensor<1x8x6x18xf32>
// TAIL: linalg.fill {{.*}} -> tensor<1x8x1x18xf32>
// TAIL: linalg.fill {{.*}} -> tensor<1x8x6x1xf32>
// TAIL: linalg.fill {{.*}} -> tensor<1x8x6x1xf32>
// TAIL: %[[SLOT:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[PLACE]], 1] [1, 8, 5, 16]
// TAIL: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x5x16xf32>, tensor<8x4x1x1xf32>)
// TAIL: %[[RELU:.*]] = linalg.generic {{.*}} outs(%[[SLOT]] : tensor<1x8x5x16xf32>)
// TAIL: %[[PAD:.*]] = tensor.insert_slice %[[RELU]] into %{{.*}}[0, 0, %[[PLACE]], 1] [1, 8, 5, 16]
// TAIL: %[[X3:.*]] = tensor.extract_slice %[[PAD]][0, 0, 0, 0] [1, 8, 5, 18]
// TAIL: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X3]], %{{.*}} : tensor<1x8x5x18xf32>, tensor<8x3x3xf32>) outs(%{{.*}} : tensor<1x8x2x8xf32>)
// TAIL: tensor.parallel_insert_slice
// TAIL-NOT: linalg.depthwise_conv_2d_nchw_chw
// NOTAIL-LABEL: func.func @tail
// NOTAIL: scf.forall
// NOTAIL: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 8, 8, 16]
// NOTAIL: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x8x9x18xf32>
func.func @tail(%x: tensor<1x4x10x18xf32>) -> tensor<1x8x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %dwb = arith.constant dense<0.5> : tensor<4xf32>
  %dww = arith.constant dense<0.25> : tensor<4x3x3xf32>
  %pww = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %dw3w = arith.constant dense<0.75> : tensor<8x3x3xf32>
  %e0 = tensor.empty() : tensor<1x4x8x16xf32>
  %b0 = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%dwb : tensor<4xf32>) outs(%e0 : tensor<1x4x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x4x8x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dww : tensor<1x4x10x18xf32>, tensor<4x3x3xf32>) outs(%b0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %e1 = tensor.empty() : tensor<1x8x8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %p = linalg.generic {indexing_maps = [#in, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%d, %pww : tensor<1x4x8x16xf32>, tensor<8x4x1x1xf32>) outs(%f1 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x16xf32>
  %alloc = bufferization.alloc_tensor() : tensor<1x8x9x18xf32>
  %top = tensor.extract_slice %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x1x18xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%top : tensor<1x8x1x18xf32>) -> tensor<1x8x1x18xf32>
  %a1 = tensor.insert_slice %ft into %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x1x18xf32> into tensor<1x8x9x18xf32>
  %left = tensor.extract_slice %a1[0, 0, 0, 0] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x9x1xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%left : tensor<1x8x9x1xf32>) -> tensor<1x8x9x1xf32>
  %a2 = tensor.insert_slice %fl into %a1[0, 0, 0, 0] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x1xf32> into tensor<1x8x9x18xf32>
  %right = tensor.extract_slice %a2[0, 0, 0, 17] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x9x1xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%right : tensor<1x8x9x1xf32>) -> tensor<1x8x9x1xf32>
  %a3 = tensor.insert_slice %fr into %a2[0, 0, 0, 17] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x1xf32> into tensor<1x8x9x18xf32>
  %slot = tensor.extract_slice %a3[0, 0, 1, 1] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x8x8x16xf32>) outs(%slot : tensor<1x8x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x16xf32>
  %padded = tensor.insert_slice %r into %a3[0, 0, 1, 1] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x16xf32> into tensor<1x8x9x18xf32>
  %e3 = tensor.empty() : tensor<1x8x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %dw3w : tensor<1x8x9x18xf32>, tensor<8x3x3xf32>) outs(%f3 : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  return %y : tensor<1x8x4x8xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A padded tensor whose left border is not zeroed is no tail: the chain
// stops at the 1x1 conv's epilogue.
// CHECK-LABEL: func.func @tail_unzeroed
// S2-LABEL: func.func @tail_unzeroed
// NARROW-LABEL: func.func @tail_unzeroed
// SMALL-LABEL: func.func @tail_unzeroed
// TAIL-LABEL: func.func @tail_unzeroed
// TAIL: scf.forall
// TAIL: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 8, 8, 16]
// TAIL: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x9x18xf32>
#in2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @tail_unzeroed(%x: tensor<1x4x10x18xf32>) -> tensor<1x8x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %dww = arith.constant dense<0.25> : tensor<4x3x3xf32>
  %pww = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %dw3w = arith.constant dense<0.75> : tensor<8x3x3xf32>
  %e0 = tensor.empty() : tensor<1x4x8x16xf32>
  %b0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dww : tensor<1x4x10x18xf32>, tensor<4x3x3xf32>) outs(%b0 : tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %e1 = tensor.empty() : tensor<1x8x8x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %p = linalg.generic {indexing_maps = [#in2, #w2, #o2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%d, %pww : tensor<1x4x8x16xf32>, tensor<8x4x1x1xf32>) outs(%f1 : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x16xf32>
  %alloc = bufferization.alloc_tensor() : tensor<1x8x9x18xf32>
  %top = tensor.extract_slice %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x1x18xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%top : tensor<1x8x1x18xf32>) -> tensor<1x8x1x18xf32>
  %a1 = tensor.insert_slice %ft into %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x1x18xf32> into tensor<1x8x9x18xf32>
  %right = tensor.extract_slice %a1[0, 0, 0, 17] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x9x1xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%right : tensor<1x8x9x1xf32>) -> tensor<1x8x9x1xf32>
  %a3 = tensor.insert_slice %fr into %a1[0, 0, 0, 17] [1, 8, 9, 1] [1, 1, 1, 1] : tensor<1x8x9x1xf32> into tensor<1x8x9x18xf32>
  %slot = tensor.extract_slice %a3[0, 0, 1, 1] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x9x18xf32> to tensor<1x8x8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x8x8x16xf32>) outs(%slot : tensor<1x8x8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x16xf32>
  %padded = tensor.insert_slice %r into %a3[0, 0, 1, 1] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x16xf32> into tensor<1x8x9x18xf32>
  %e3 = tensor.empty() : tensor<1x8x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %dw3w : tensor<1x8x9x18xf32>, tensor<8x3x3xf32>) outs(%f3 : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  return %y : tensor<1x8x4x8xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#w4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#o4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// A 2-row map: a band of the second depthwise conv's one output row would
// read 3 rows of the 1x1 conv, which has 2, so the tail stays apart (the
// padded tensor is built whole) and the chain is fused alone.
// CHECK-LABEL: func.func @tail_too_short
// S2-LABEL: func.func @tail_too_short
// NARROW-LABEL: func.func @tail_too_short
// SMALL-LABEL: func.func @tail_too_short
// TAIL-LABEL: func.func @tail_too_short
// TAIL: scf.forall
// TAIL: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 8, 2, 16]
// TAIL: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x3x18xf32>
func.func @tail_too_short(%x: tensor<1x4x4x18xf32>) -> tensor<1x8x1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %dww = arith.constant dense<0.25> : tensor<4x3x3xf32>
  %pww = arith.constant dense<0.125> : tensor<8x4x1x1xf32>
  %dw3w = arith.constant dense<0.75> : tensor<8x3x3xf32>
  %e0 = tensor.empty() : tensor<1x4x2x16xf32>
  %b0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dww : tensor<1x4x4x18xf32>, tensor<4x3x3xf32>) outs(%b0 : tensor<1x4x2x16xf32>) -> tensor<1x4x2x16xf32>
  %e1 = tensor.empty() : tensor<1x8x2x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32>
  %p = linalg.generic {indexing_maps = [#in4, #w4, #o4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%d, %pww : tensor<1x4x2x16xf32>, tensor<8x4x1x1xf32>) outs(%f1 : tensor<1x8x2x16xf32>) {
  ^bb0(%a: f32, %k: f32, %c: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x2x16xf32>
  %alloc = bufferization.alloc_tensor() : tensor<1x8x3x18xf32>
  %top = tensor.extract_slice %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x3x18xf32> to tensor<1x8x1x18xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%top : tensor<1x8x1x18xf32>) -> tensor<1x8x1x18xf32>
  %a1 = tensor.insert_slice %ft into %alloc[0, 0, 0, 0] [1, 8, 1, 18] [1, 1, 1, 1] : tensor<1x8x1x18xf32> into tensor<1x8x3x18xf32>
  %left = tensor.extract_slice %a1[0, 0, 0, 0] [1, 8, 3, 1] [1, 1, 1, 1] : tensor<1x8x3x18xf32> to tensor<1x8x3x1xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%left : tensor<1x8x3x1xf32>) -> tensor<1x8x3x1xf32>
  %a2 = tensor.insert_slice %fl into %a1[0, 0, 0, 0] [1, 8, 3, 1] [1, 1, 1, 1] : tensor<1x8x3x1xf32> into tensor<1x8x3x18xf32>
  %right = tensor.extract_slice %a2[0, 0, 0, 17] [1, 8, 3, 1] [1, 1, 1, 1] : tensor<1x8x3x18xf32> to tensor<1x8x3x1xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%right : tensor<1x8x3x1xf32>) -> tensor<1x8x3x1xf32>
  %a3 = tensor.insert_slice %fr into %a2[0, 0, 0, 17] [1, 8, 3, 1] [1, 1, 1, 1] : tensor<1x8x3x1xf32> into tensor<1x8x3x18xf32>
  %slot = tensor.extract_slice %a3[0, 0, 1, 1] [1, 8, 2, 16] [1, 1, 1, 1] : tensor<1x8x3x18xf32> to tensor<1x8x2x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x8x2x16xf32>) outs(%slot : tensor<1x8x2x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = arith.maximumf %v, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x2x16xf32>
  %padded = tensor.insert_slice %r into %a3[0, 0, 1, 1] [1, 8, 2, 16] [1, 1, 1, 1] : tensor<1x8x2x16xf32> into tensor<1x8x3x18xf32>
  %e3 = tensor.empty() : tensor<1x8x1x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8x1x8xf32>) -> tensor<1x8x1x8xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %dw3w : tensor<1x8x3x18xf32>, tensor<8x3x3xf32>) outs(%f3 : tensor<1x8x1x8xf32>) -> tensor<1x8x1x8xf32>
  return %y : tensor<1x8x1x8xf32>
}
