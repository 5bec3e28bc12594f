// RUN: tfrt-opt %s -split-input-file -tfrt-interchange-loops | FileCheck %s

// A matmul-like generic (m, n, k) becomes (m, k, n): the output's contiguous
// dimension n, along which B is contiguous too, is now the innermost loop.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction along the innermost input axis (a softmax row sum) keeps its
// order: no input is contiguous along the output's last dimension.
// CHECK-LABEL: func.func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @row_sum(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An all-parallel generic writing a transposed layout (a nearest 2x
// upsampling from NCHW into the rows-outer [N, H, C, W] input of a conv):
// its loops (n, c, h, w) become (n, h, c, w), the output's memory order,
// so that consecutive rows go to consecutive memory; w stays innermost.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1 floordiv 2, d3 floordiv 2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @upsample_rows_outer
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
func.func @upsample_rows_outer(%x: memref<1x4x8x8xf32>, %y: memref<1x16x4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h floordiv 2, w floordiv 2)>, affine_map<(n, c, h, w) -> (n, h, c, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x4x8x8xf32>) outs(%y : memref<1x16x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A transposition whose output's contiguous dimension is not the innermost
// loop keeps its order (the rule would move the innermost loop, and with
// it which side of the copy is contiguous).
// CHECK: #[[TI:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[TO:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.generic {indexing_maps = [#[[TI]], #[[TO]]], iterator_types = ["parallel", "parallel"]}
func.func @transpose(%x: memref<8x16xf32>, %y: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
