// RUN: tfrt-opt %s | tfrt-opt | FileCheck %s

// Every graph op parses, verifies and prints back.
// CHECK-LABEL: func.func @all_ops
func.func @all_ops(%x: tensor<1x3x8x8xf32>, %v: tensor<3xf32>, %m: tensor<8x8xf32>) -> tensor<1x3x8x8xf32> {
  // CHECK: graph.add
  %0 = graph.add %x, %x : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.sub
  %1 = graph.sub %0, %x : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.mul
  %2 = graph.mul %1, %x : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.div
  %3 = graph.div %2, %x : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.pow
  %4 = graph.pow %3, %x : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.relu
  %5 = graph.relu %4 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.sigmoid
  %6 = graph.sigmoid %5 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.tanh
  %7 = graph.tanh %6 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.exp
  %8 = graph.exp %7 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.log
  %9 = graph.log %8 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.sqrt
  %10 = graph.sqrt %9 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.neg
  %11 = graph.neg %10 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.abs
  %12 = graph.abs %11 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.hard_swish
  %13 = graph.hard_swish %12 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.hard_sigmoid
  %14 = graph.hard_sigmoid %13 {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %lo = graph.constant dense<0.0> : tensor<f32>
  %hi = graph.constant dense<6.0> : tensor<f32>
  // CHECK: graph.clip
  %15 = graph.clip %14, %lo, %hi : (tensor<1x3x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.batch_norm
  %16 = graph.batch_norm %15, %v, %v, %v, %v {epsilon = 1.0e-05 : f32} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  %w = graph.constant dense<1.0> : tensor<3x1x3x3xf32>
  // CHECK: graph.conv
  %17 = graph.conv %16, %w, %v {dilations = array<i64: 1, 1>, group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.max_pool
  %18 = graph.max_pool %17 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: graph.average_pool
  %19 = graph.average_pool %18 {ceil_mode = true, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32>
  // CHECK: graph.global_average_pool
  %20 = graph.global_average_pool %19 : (tensor<1x3x3x3xf32>) -> tensor<1x3x1x1xf32>
  // CHECK: graph.flatten
  %21 = graph.flatten %20 {axis = 1 : i64} : (tensor<1x3x1x1xf32>) -> tensor<1x3xf32>
  %wg = graph.constant dense<1.0> : tensor<8x3xf32>
  %bg = graph.constant dense<0.0> : tensor<8xf32>
  // CHECK: graph.gemm
  %22 = graph.gemm %21, %wg, %bg {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<1x3xf32>, tensor<8x3xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  // CHECK: graph.matmul
  %23 = graph.matmul %22, %m : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  // CHECK: graph.softmax
  %24 = graph.softmax %23 {axis = -1 : i64} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  // CHECK: graph.transpose
  %25 = graph.transpose %24 {perm = array<i64: 1, 0>} : (tensor<1x8xf32>) -> tensor<8x1xf32>
  // CHECK: graph.concat
  %26 = graph.concat %25, %25 {axis = 1 : i64} : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x2xf32>
  %ax = graph.constant dense<1> : tensor<1xi64>
  // CHECK: graph.unsqueeze
  %27 = graph.unsqueeze %26, %ax : (tensor<8x2xf32>, tensor<1xi64>) -> tensor<8x1x2xf32>
  // CHECK: graph.squeeze
  %28 = graph.squeeze %27, %ax : (tensor<8x1x2xf32>, tensor<1xi64>) -> tensor<8x2xf32>
  %s0 = graph.constant dense<0> : tensor<1xi64>
  %s1 = graph.constant dense<4> : tensor<1xi64>
  %st = graph.constant dense<2> : tensor<1xi64>
  // CHECK: graph.slice
  %29 = graph.slice %28, %s0, %s1, %s0, %st : (tensor<8x2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  // CHECK: graph.shape
  %30 = graph.shape %29 : (tensor<2x2xf32>) -> tensor<2xi64>
  // CHECK: graph.reshape
  %31 = graph.reshape %29, %30 {allowzero = false} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  // CHECK: graph.cast
  %32 = graph.cast %31 {to = i64} : (tensor<2x2xf32>) -> tensor<2x2xi64>
  %i = graph.constant dense<1> : tensor<i64>
  // CHECK: graph.gather
  %33 = graph.gather %32, %i {axis = 0 : i64} : (tensor<2x2xi64>, tensor<i64>) -> tensor<2xi64>
  // CHECK: graph.identity
  %34 = graph.identity %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %34 : tensor<1x3x8x8xf32>
}

// Ops added for PP-OCR det/rec and the wider ONNX op set.
// CHECK-LABEL: func.func @more_ops
func.func @more_ops(%x: tensor<1x2x4x4xf32>, %w: tensor<2x3x2x2xf32>, %a: tensor<2x3xf32>,
                    %b: tensor<3xf32>, %i: tensor<2x3xi64>, %c: tensor<2x3xi1>)
    -> (tensor<1x2x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x2x1x1xf32>, tensor<2x1xi64>,
        tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<4x3xf32>) {
  // CHECK: graph.resize
  %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>, roi = array<f64>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                        exclude_outside = false, extrapolation_value = 0.0 : f32}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  // CHECK: graph.conv_transpose
  %1 = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                    dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
                                    group = 1 : i64}
      : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: graph.reduce_mean
  %2 = graph.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  // CHECK: graph.arg_max
  %3 = graph.arg_max %a {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  // CHECK: graph.less
  %4 = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: graph.max
  %5 = graph.max %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: graph.sin
  %6 = graph.sin %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: graph.leaky_relu
  %7 = graph.leaky_relu %6 {alpha = 0.1 : f32, beta = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: graph.where
  %8 = graph.where %c, %7, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: graph.gather_elements
  %9 = graph.gather_elements %8, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %v = graph.constant dense<0.0> : tensor<f32>
  // CHECK: graph.pad
  %10 = graph.pad %9, %v {mode = "reflect", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
  %r = graph.constant dense<[2, 1]> : tensor<2xi64>
  // CHECK: graph.tile
  %11 = graph.tile %9, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %0, %1, %2, %3, %4, %8, %10, %11 : tensor<1x2x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x2x1x1xf32>,
      tensor<2x1xi64>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x5xf32>, tensor<4x3xf32>
}
