// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-depthwise=unpadded=false -canonicalize -cse | FileCheck %s --check-prefix=PADDED

// A zero tensor.pad of the input is read through: its source is read
// directly and the pad goes. The first and last output rows have a tap row
// outside the input: they come one by one before and after the loop over
// the other rows (two at a time), with those taps left out (6 of 9 taps
// for both vectors: 12 FMAs each). The first vector of a row starts one
// column left of the input: it reads from column 0 and a shuffle with
// zeros moves the lanes into place.
// CHECK-LABEL: func.func @dw3x3_unpadded
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x6x32xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.for %[[C:.*]] = %c0 to %c8 step %c1
// CHECK: %[[R:.*]] = vector.transfer_read %[[X]][%c0, %[[C]], %c0, %c0]
// CHECK: vector.shuffle %[[ZERO]], %[[R]] [0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
// CHECK-COUNT-12: vector.fma
// CHECK: scf.for %{{.*}} = %c1 to %c5 step %c2
// CHECK-COUNT-36: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-12: vector.fma
// CHECK-NOT: vector.fma
// CHECK: return
// Without the option the conv reads the padded tensor, all rows in a loop.
// PADDED-LABEL: func.func @dw3x3_unpadded
// PADDED: tensor.pad
// PADDED: scf.for %{{.*}} = %c0 to %c6 step %c2
// PADDED-COUNT-36: vector.fma
// PADDED-NOT: vector.fma
// PADDED: return
func.func @dw3x3_unpadded(%x: tensor<1x8x6x32xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x6x32xf32>) -> tensor<1x8x6x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x32xf32> to tensor<1x8x8x34xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x8x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x6x32xf32>) -> tensor<1x8x6x32xf32>
  return %r : tensor<1x8x6x32xf32>
}

// -----

// A pad of one, not zero, is kept. A row of 160 columns is two groups of
// five vectors: with left padding the first group comes at constant
// columns (its first vector shifting in a zero) ahead of the others, whose
// last reads past the right end are masked.
// CHECK-LABEL: func.func @dw3x3_pad_one
// CHECK: tensor.pad
// CHECK-LABEL: func.func @dw3x3_groups
// CHECK-NOT: tensor.pad
// CHECK: %[[R:.*]] = vector.transfer_read %arg0[%c0, %{{.*}}, %c0, %c0]{{.*}}in_bounds = [true]
// CHECK: vector.shuffle %{{.*}}, %[[R]] [0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
// CHECK: vector.transfer_read %arg0[%c0, %{{.*}}, %c0, %c79]{{.*}}in_bounds = [true]
// CHECK: vector.transfer_read %arg0[%c0, %{{.*}}, %c0, %c145], %{{[a-z_0-9]+}} : tensor
func.func @dw3x3_pad_one(%x: tensor<1x8x6x32xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x6x32xf32>) -> tensor<1x8x6x32xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x8x6x32xf32> to tensor<1x8x8x34xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x8x34xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x6x32xf32>) -> tensor<1x8x6x32xf32>
  return %r : tensor<1x8x6x32xf32>
}
func.func @dw3x3_groups(%x: tensor<1x8x6x160xf32>, %w: tensor<8x3x3xf32>, %b: tensor<1x8x6x160xf32>) -> tensor<1x8x6x160xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x160xf32> to tensor<1x8x8x162xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x8x162xf32>, tensor<8x3x3xf32>) outs(%b : tensor<1x8x6x160xf32>) -> tensor<1x8x6x160xf32>
  return %r : tensor<1x8x6x160xf32>
}
