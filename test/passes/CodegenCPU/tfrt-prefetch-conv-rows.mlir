// RUN: tfrt-opt %s -split-input-file -tfrt-prefetch-conv-rows | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-prefetch-conv-rows="rows-ahead=2" | FileCheck %s --check-prefix=TWO
// RUN: tfrt-opt %s -split-input-file -tfrt-prefetch-conv-rows="rows-ahead=0" | FileCheck %s --check-prefix=OFF
// RUN: not tfrt-opt %s -split-input-file -tfrt-prefetch-conv-rows="rows-ahead=-1" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tfrt-prefetch-conv-rows: rows-ahead must not be negative, got -1

// A 3x3 conv register tile (8 output channels x 32 columns) on a rows-outer
// [1, 18, 16, 34] input, as tfrt-vectorize-conv leaves it after the
// accumulator hoisting: the read of the input rows gets one prefetch per
// channel (4) of the row below, at column ow + 16 * kw, clamped to the
// tile's last column (ow + 33) and the row's last line (34 - 16 = 18).
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0) -> (d0 + 1, 17)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 15, d0 - d1 + 33, 18)>
// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[IN:.*]]: tensor<1x18x16x34xf32>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[IN]] read_only : tensor<1x18x16x34xf32> to memref<1x18x16x34xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3
// CHECK: %[[R:.*]] = affine.apply {{.*}}(%[[OH:.*]], %[[KH]])
// CHECK: %[[C:.*]] = affine.apply {{.*}}(%[[OW:.*]], %[[KW]])
// CHECK: %[[R1:.*]] = affine.min #[[ROW]](%[[R]])
// CHECK: %[[C1:.*]] = affine.min #[[COL]](%[[C]], %[[KW]])
// CHECK: memref.prefetch %[[BUF]][%c0, %[[R1]], %[[CH:.*]], %[[C1]]], read, locality<3>, data
// CHECK-COUNT-3: memref.prefetch %[[BUF]][%c0, %[[R1]], %{{.*}}, %[[C1]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[IN]][%c0, %[[R]], %[[CH]], %[[C]]]
// CHECK: vector.contract
// TWO: affine_map<(d0) -> (d0 + 2, 17)>
// TWO-COUNT-4: memref.prefetch
// OFF-LABEL: func.func @tile
// OFF-NOT: memref.prefetch
// OFF-NOT: bufferization.to_buffer
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
#tap = affine_map<(d0, d1) -> (d0 + d1)>
func.func @tile(%in: tensor<1x18x16x34xf32>, %w: tensor<3x3x16x8xf32>, %oh: index, %ow: index, %ch: index, %init: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a0 = %init) -> (vector<8x32xf32>) {
    %s = scf.for %kw = %c0 to %c3 step %c1 iter_args(%a1 = %a0) -> (vector<8x32xf32>) {
      %x = vector.transfer_read %w[%kh, %kw, %ch, %c0], %z {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d3, d2)>} : tensor<3x3x16x8xf32>, vector<8x4xf32>
      %row = affine.apply #tap(%oh, %kh)
      %col = affine.apply #tap(%ow, %kw)
      %y = vector.transfer_read %in[%c0, %row, %ch, %col], %z {in_bounds = [true, true]} : tensor<1x18x16x34xf32>, vector<4x32xf32>
      %n = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %a1 : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    scf.yield %s : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// Not a register tile's input: the row comes from a loop that carries a
// tensor (an output row loop, not a tap loop), so nothing is prefetched.
// CHECK-LABEL: func.func @row_loop_carries_tensor
// CHECK-NOT: memref.prefetch
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
#tap = affine_map<(d0, d1) -> (d0 + d1)>
func.func @row_loop_carries_tensor(%in: tensor<1x18x16x34xf32>, %x: vector<8x4xf32>, %ow: index, %out: tensor<4x8x32xf32>, %init: vector<8x32xf32>) -> tensor<4x8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o = %out) -> (tensor<4x8x32xf32>) {
    %s = scf.for %kw = %c0 to %c3 step %c1 iter_args(%a1 = %init) -> (vector<8x32xf32>) {
      %col = affine.apply #tap(%ow, %kw)
      %y = vector.transfer_read %in[%c0, %oh, %c0, %col], %z {in_bounds = [true, true]} : tensor<1x18x16x34xf32>, vector<4x32xf32>
      %n = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %a1 : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    %w = vector.transfer_write %s, %o[%oh, %c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<4x8x32xf32>
    scf.yield %w : tensor<4x8x32xf32>
  }
  return %r : tensor<4x8x32xf32>
}

// -----

// The read is the left operand of the contraction (a weight tile), not the
// input rows: nothing is prefetched.
// CHECK-LABEL: func.func @left_operand
// CHECK-NOT: memref.prefetch
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc = affine_map<(d0, d1, d2) -> (d0, d1)>
#tap = affine_map<(d0, d1) -> (d0 + d1)>
func.func @left_operand(%in: tensor<1x18x16x34xf32>, %y: vector<4x32xf32>, %oh: index, %ow: index, %init: vector<4x4xf32>) -> vector<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a0 = %init) -> (vector<4x4xf32>) {
    %s = scf.for %kw = %c0 to %c3 step %c1 iter_args(%a1 = %a0) -> (vector<4x4xf32>) {
      %row = affine.apply #tap(%oh, %kh)
      %col = affine.apply #tap(%ow, %kw)
      %x = vector.transfer_read %in[%c0, %row, %c0, %col], %z {in_bounds = [true, true]} : tensor<1x18x16x34xf32>, vector<4x4xf32>
      %yy = vector.extract_strided_slice %y {offsets = [0, 0], sizes = [4, 4], strides = [1, 1]} : vector<4x32xf32> to vector<4x4xf32>
      %n = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %yy, %a1 : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
      scf.yield %n : vector<4x4xf32>
    }
    scf.yield %s : vector<4x4xf32>
  }
  return %r : vector<4x4xf32>
}
