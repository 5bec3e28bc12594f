// RUN: tfrt-opt %s -split-input-file -tfrt-pack-weight-tiles -canonicalize -cse -mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

// A conv register tile: 2 output channels x 2 input channels of an OIHW
// constant at one tap, rows from a loop stepping by 2. Both reads use one
// constant packed as [O/2, KH, KW, I, 2], whose element [a, kh, kw, i, b]
// is W[2a + b, i, kh, kw]; here W[o, i, 0, k] = 4o + 2i + k.
// CHECK-LABEL: func.func @conv_tap
// CHECK-SAME: (%[[KW:.*]]: index, %[[C:.*]]: index)
// CHECK: %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}{{\[}}{{\[}}[0.000000e+00, 4.000000e+00], [2.000000e+00, 6.000000e+00]], {{\[}}[1.000000e+00, 5.000000e+00], [3.000000e+00, 7.000000e+00]]]], {{\[}}{{\[}}{{\[}}[8.000000e+00, 1.200000e+01], [1.000000e+01, 1.400000e+01]], {{\[}}[9.000000e+00, 1.300000e+01], [1.100000e+01, 1.500000e+01]]]]]> : tensor<2x1x2x2x2xf32>
// CHECK-NOT: tensor<4x2x1x2xf32>
// CHECK: scf.for %[[M:.*]] = %c0 to %c4 step %c2
// CHECK: %[[ROW:.*]] = arith.divui %[[M]], %c2
// CHECK: vector.transfer_read %[[P]][%[[ROW]], %c0, %[[KW]], %[[C]], %c0], %{{.*}} {in_bounds = [true, true], permutation_map = #[[MAP:.*]]} : tensor<2x1x2x2x2xf32>, vector<2x2xf32>
// CHECK: vector.transfer_read %[[P]][%[[ROW]], %c0, %[[KW]], %[[C]], %c0], %{{.*}} {in_bounds = [true, true], permutation_map = #[[MAP]]} : tensor<2x1x2x2x2xf32>, vector<2x1xf32>
func.func @conv_tap(%kw: index, %c: index) -> (vector<2x2xf32>, vector<2x1xf32>) {
  %w = arith.constant dense<[[[[0.0, 1.0]], [[2.0, 3.0]]], [[[4.0, 5.0]], [[6.0, 7.0]]], [[[8.0, 9.0]], [[10.0, 11.0]]], [[[12.0, 13.0]], [[14.0, 15.0]]]]> : tensor<4x2x1x2xf32>
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %z2 = arith.constant dense<0.0> : vector<2x2xf32>
  %z1 = arith.constant dense<0.0> : vector<2x1xf32>
  %r:2 = scf.for %m = %c0 to %c4 step %c2 iter_args(%a = %z2, %b = %z1) -> (vector<2x2xf32>, vector<2x1xf32>) {
    %t = vector.transfer_read %w[%m, %c, %c0, %kw], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1)>} : tensor<4x2x1x2xf32>, vector<2x2xf32>
    %u = vector.transfer_read %w[%m, %c, %c0, %kw], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1)>} : tensor<4x2x1x2xf32>, vector<2x1xf32>
    %a2 = arith.addf %a, %t : vector<2x2xf32>
    %b2 = arith.addf %b, %u : vector<2x1xf32>
    scf.yield %a2, %b2 : vector<2x2xf32>, vector<2x1xf32>
  }
  return %r#0, %r#1 : vector<2x2xf32>, vector<2x1xf32>
}

// -----

// A 1x1 conv's left operand in a parallel chunk: the chunk's slice of the
// [O, I, 1, 1] constant, collapsed to [rows, I]; the row index is the
// chunk's offset (a multiple of 8) plus a tile row (a multiple of 8).
// CHECK-LABEL: func.func @pointwise_chunk
// CHECK: %[[P:.*]] = arith.constant dense<{{.*}}> : tensor<4x1x1x16x8xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (32) step (16)
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: %[[SUM:.*]] = arith.addi %[[M]], %[[I]]
// CHECK: %[[ROW:.*]] = arith.divui %[[SUM]], %c8
// CHECK: vector.transfer_read %[[P]][%[[ROW]], %c0, %c0, %{{.*}}, %c0], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<4x1x1x16x8xf32>, vector<8x1xf32>
func.func @pointwise_chunk(%k: index) -> tensor<32x1xf32> {
  %w = arith.constant dense<1.5> : tensor<32x16x1x1xf32>
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %e = tensor.empty() : tensor<32x1xf32>
  %r = scf.forall (%i) = (0) to (32) step (16) shared_outs(%o = %e) -> (tensor<32x1xf32>) {
    %s = tensor.extract_slice %w[%i, 0, 0, 0] [16, 16, 1, 1] [1, 1, 1, 1] : tensor<32x16x1x1xf32> to tensor<16x16x1x1xf32>
    %cs = tensor.collapse_shape %s [[0], [1, 2, 3]] : tensor<16x16x1x1xf32> into tensor<16x16xf32>
    %os = tensor.extract_slice %o[%i, 0] [16, 1] [1, 1] : tensor<32x1xf32> to tensor<16x1xf32>
    %t = scf.for %m = %c0 to %c16 step %c8 iter_args(%acc = %os) -> (tensor<16x1xf32>) {
      %v = vector.transfer_read %cs[%m, %k], %pad {in_bounds = [true, true]} : tensor<16x16xf32>, vector<8x1xf32>
      %u = vector.transfer_write %v, %acc[%m, %c0] {in_bounds = [true, true]} : vector<8x1xf32>, tensor<16x1xf32>
      scf.yield %u : tensor<16x1xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i, 0] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<32x1xf32>
    }
  }
  return %r : tensor<32x1xf32>
}

// -----

// Left alone: a row index not known to be a multiple of the tile's rows,
// and a tile whose elements are contiguous rows of a 2-D constant already.
// CHECK-LABEL: func.func @unknown_row
// CHECK-NOT: tensor<2x1x2x2x2xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<4x2x1x2xf32>, vector<2x2xf32>
// CHECK-LABEL: func.func @contiguous
// CHECK: vector.transfer_read %{{.*}} : tensor<16x32xf32>, vector<8x16xf32>
func.func @unknown_row(%m: index) -> vector<2x2xf32> {
  %w = arith.constant dense<2.0> : tensor<4x2x1x2xf32>
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = vector.transfer_read %w[%m, %c0, %c0, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1)>} : tensor<4x2x1x2xf32>, vector<2x2xf32>
  return %t : vector<2x2xf32>
}

func.func @contiguous() -> vector<8x16xf32> {
  %w = arith.constant dense<2.0> : tensor<16x32xf32>
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = vector.transfer_read %w[%c8, %c0], %pad {in_bounds = [true, true]} : tensor<16x32xf32>, vector<8x16xf32>
  return %t : vector<8x16xf32>
}
