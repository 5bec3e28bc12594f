// RUN: tfrt-opt %s -split-input-file -verify-diagnostics

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{operand shapes [2,3] and [4] are not broadcast-compatible}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @elem_types(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @below {{operand element types differ: f32 vs i64}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.mul %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @declared_type(%a: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.relu' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @below {{'graph.relu' op failed to infer returned types}}
  %0 = graph.relu %a : (tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{matmul contraction dimensions differ: [2,3] x [4,5]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @gemm(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{gemm contraction dimensions differ: 3 vs 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{conv input has 4 channels but weight expects 3 x 1 groups}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_attrs(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{conv needs 2 strides and dilations and 4 pads}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @pool_pads(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @below {{pooling pads must be smaller than the kernel}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @batch_norm(%x: tensor<1x3x8x8xf32>, %v: tensor<4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @below {{'graph.batch_norm' op parameters must have shape [3], got [4]}}
  %0 = graph.batch_norm %x, %v, %v, %v, %v {epsilon = 1.0e-05 : f32} : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @clip_bounds(%x: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.clip' op bounds must be scalars, got shape [2]}}
  %0 = graph.clip %x, %b, %b : (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{'graph.transpose' op perm must be a permutation of [0, rank)}}
  %0 = graph.transpose %x {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<5x3xf32> {
  // expected-error @below {{concat inputs differ in dimension 1: [2,3] vs [3,4]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @reshape(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %s = graph.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @below {{cannot reshape [2,3] (6 elements) to [4,2]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @slice_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = graph.constant dense<0> : tensor<1xi64>
  // expected-error @below {{slice step must not be 0}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.slice %x, %z, %z, %z, %z : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @squeeze(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %a = graph.constant dense<0> : tensor<1xi64>
  // expected-error @below {{cannot squeeze dimension 0 of size 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.squeeze %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{softmax axis 2 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<i64>) -> tensor<2xf32> {
  // expected-error @below {{gather axis -3 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.gather %x, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_axis_repeated(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{reduction axis 1 repeated}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1, -1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @resize_mode(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @below {{resize mode 'area' is not one of nearest, linear, cubic}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>, roi = array<f64>,
                        mode = "area", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                        exclude_outside = false, extrapolation_value = 0.0 : f32}
      : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x2x4x4xf32>, %w: tensor<3x3x2x2xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @below {{conv_transpose input has 2 channels but the weight has 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                    dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
                                    group = 1 : i64}
      : (tensor<1x2x4x4xf32>, tensor<3x3x2x2xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @where_condition(%c: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{where condition must be a tensor of i1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = graph.where %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
