// RUN: tfrt-opt %s -split-input-file -tfrt-split-repeated-dims | FileCheck %s

// A 2x nearest upsampling fused into an add: the output's contiguous loop
// d3 becomes (d3, d4) with w = 2 * d3 + d4; the upsampled input is read at
// d3, the other input and the output through [.., 40, 20, 2] views at
// (d3, d4). The row loop keeps its floordiv.
// CHECK-DAG: #[[UP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @upsample_add
// CHECK-SAME: (%[[X:.*]]: memref<1x4x40x40xf32>, %[[Y:.*]]: memref<1x4x20x20xf32>, %[[O:.*]]: memref<1x4x40x40xf32>)
// CHECK-DAG: %[[XV:.*]] = memref.expand_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 40, 20, 2]
// CHECK-DAG: %[[OV:.*]] = memref.expand_shape %[[O]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 40, 20, 2]
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[UP]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[XV]], %[[Y]] : memref<1x4x40x20x2xf32>, memref<1x4x20x20xf32>) outs(%[[OV]] : memref<1x4x40x20x2xf32>)
// CHECK: arith.addf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
func.func @upsample_add(%x: memref<1x4x40x40xf32>, %y: memref<1x4x20x20xf32>, %o: memref<1x4x40x40xf32>) {
  linalg.generic {indexing_maps = [#id, #up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %y : memref<1x4x40x40xf32>, memref<1x4x20x20xf32>) outs(%o : memref<1x4x40x40xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The output written through a permutation ([N, H, C, W], a rows-outer
// padded layout) with a broadcast [C] operand: the split loop is the one of
// the output's last dimension, the broadcast operand is left alone.
// CHECK-DAG: #[[UP8:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 8, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3, d4)>
// CHECK-LABEL: func.func @upsample_rows_outer
// CHECK: %[[OV:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 16, 3, 2, 8]
// CHECK: linalg.generic {indexing_maps = [#[[UP8]], #[[B]], #[[OUT]]]
// CHECK-SAME: outs(%[[OV]] : memref<1x16x3x2x8xf32>)
#up8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 8, d3 floordiv 8)>
#b = affine_map<(d0, d1, d2, d3) -> (d1)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
func.func @upsample_rows_outer(%y: memref<1x3x2x2xf32>, %bias: memref<3xf32>, %o: memref<1x16x3x16xf32>) {
  linalg.generic {indexing_maps = [#up8, #b, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : memref<1x3x2x2xf32>, memref<3xf32>) outs(%o : memref<1x16x3x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: the divided index is not the operand's last one; the extent
// (5) is not a multiple of the factor; the body reads linalg.index of the
// split loop; two different factors.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: memref.expand_shape
// CHECK-COUNT-4: iterator_types = ["parallel", "parallel"]}
// CHECK-NOT: memref.expand_shape
#t = affine_map<(d0, d1) -> (d1 floordiv 2, d0)>
#i2 = affine_map<(d0, d1) -> (d0, d1)>
#h2 = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#h3 = affine_map<(d0, d1) -> (d0, d1 floordiv 3)>
func.func @negative(%a: memref<4x4xf32>, %b: memref<4x8xf32>, %c: memref<4x5xf32>, %d: memref<4x3xf32>, %e: memref<4x2xf32>, %f: memref<4x6xf32>) {
  linalg.generic {indexing_maps = [#t, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#h2, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<4x3xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#h2, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 1 : index
    %v = arith.index_cast %i : index to i32
    %w = arith.sitofp %v : i32 to f32
    %s = arith.addf %x, %w : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#h2, #h3, #i2], iterator_types = ["parallel", "parallel"]}
      ins(%d, %e : memref<4x3xf32>, memref<4x2xf32>) outs(%f : memref<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
