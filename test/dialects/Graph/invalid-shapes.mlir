// RUN: tfrt-opt %s -split-input-file -verify-diagnostics

// Every shape-inference and verifier diagnostic of the graph dialect not
// covered by invalid.mlir. Inference errors come with the generic
// "failed to infer returned types" from the verifier.

func.func @clip_elem(%x: tensor<4xf32>, %b: tensor<f64>) -> tensor<4xf32> {
  // expected-error @below {{'graph.clip' op bound element type must match the input's}}
  %r = graph.clip %x, %b, %b : (tensor<4xf32>, tensor<f64>, tensor<f64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @matmul_elem(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> tensor<2x4xf32> {
  // expected-error @below {{matmul operands have different element types}}
  // expected-error @below {{'graph.matmul' op failed to infer returned types}}
  %r = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @below {{matmul operands must have rank >= 1}}
  // expected-error @below {{'graph.matmul' op failed to infer returned types}}
  %r = graph.matmul %a, %b : (tensor<f32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @below {{matmul batch dimensions are not broadcast-compatible}}
  // expected-error @below {{'graph.matmul' op failed to infer returned types}}
  %r = graph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// -----

func.func @gemm_rank(%a: tensor<1x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{gemm operands must be 2-D}}
  // expected-error @below {{'graph.gemm' op failed to infer returned types}}
  %r = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<1x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @gemm_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{gemm bias of shape [3] does not broadcast to [2,4]}}
  // expected-error @below {{'graph.gemm' op failed to infer returned types}}
  %r = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @conv_rank(%x: tensor<3x8xf32>, %w: tensor<3x8xf32>) -> tensor<3x8xf32> {
  // expected-error @below {{conv input must have rank >= 3, got 2}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64>, group = 1 : i64, pads = array<i64>, strides = array<i64>} : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  return %r : tensor<3x8xf32>
}

// -----

func.func @conv_wrank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{conv weight rank 3 does not match input rank 4}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{conv strides and dilations must be positive and pads non-negative}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_group0(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{conv group must be positive}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 0 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_groupdiv(%x: tensor<1x4x8x8xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32> {
  // expected-error @below {{conv output channels 5 not divisible by group 2}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %r : tensor<1x5x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{conv bias must have shape [4]}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_window(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @below {{conv window is larger than the padded input}}
  // expected-error @below {{'graph.conv' op failed to infer returned types}}
  %r = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32>
  return %r : tensor<1x1x1x1xf32>
}

// -----

func.func @bn_rank(%x: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'graph.batch_norm' op input must have rank >= 2}}
  %r = graph.batch_norm %x, %v, %v, %v, %v {epsilon = 1.0e-05 : f32} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @pool_rank(%x: tensor<3x8xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{pooling input must have rank >= 3}}
  // expected-error @below {{'graph.max_pool' op failed to infer returned types}}
  %r = graph.max_pool %x {ceil_mode = false, dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @pool_attrs(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @below {{pooling needs 2 kernel sizes, strides and dilations and 4 pads}}
  // expected-error @below {{'graph.max_pool' op failed to infer returned types}}
  %r = graph.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

func.func @pool_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @below {{pooling kernel, strides and dilations must be positive and pads non-negative}}
  // expected-error @below {{'graph.average_pool' op failed to infer returned types}}
  %r = graph.average_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 0, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}

// -----

func.func @pool_window(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32> {
  // expected-error @below {{pooling window is larger than the padded input}}
  // expected-error @below {{'graph.max_pool' op failed to infer returned types}}
  %r = graph.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32>
  return %r : tensor<1x3x1x1xf32>
}

// -----

func.func @gpool_rank(%x: tensor<3x8xf32>) -> tensor<3x1xf32> {
  // expected-error @below {{global pooling input must have rank >= 3}}
  // expected-error @below {{'graph.global_average_pool' op failed to infer returned types}}
  %r = graph.global_average_pool %x : (tensor<3x8xf32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

// -----

func.func @reshape_two(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = graph.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @below {{reshape shape has more than one -1}}
  // expected-error @below {{'graph.reshape' op failed to infer returned types}}
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

func.func @reshape_neg(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = graph.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @below {{reshape shape has invalid dimension -2}}
  // expected-error @below {{'graph.reshape' op failed to infer returned types}}
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

func.func @reshape_copy(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %s = graph.constant dense<[0, 0, 0]> : tensor<3xi64>
  // expected-error @below {{reshape copies dimension 2 which the input does not have}}
  // expected-error @below {{'graph.reshape' op failed to infer returned types}}
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3x1xf32>
  return %r : tensor<2x3x1xf32>
}

// -----

func.func @reshape_infer(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %s = graph.constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @below {{cannot reshape [2,3] to [4,-1]}}
  // expected-error @below {{'graph.reshape' op failed to infer returned types}}
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @flatten_axis(%x: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @below {{flatten axis 3 is out of range for rank 2}}
  // expected-error @below {{'graph.flatten' op failed to infer returned types}}
  %r = graph.flatten %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return %r : tensor<6x1xf32>
}

// -----

func.func @transpose_size(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{transpose perm has 1 entries for rank 2}}
  // expected-error @below {{'graph.transpose' op failed to infer returned types}}
  %r = graph.transpose %x {perm = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @concat_elem(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @below {{concat inputs have different element types}}
  // expected-error @below {{'graph.concat' op failed to infer returned types}}
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @concat_rank(%a: tensor<2xf32>, %b: tensor<2x1xf32>) -> tensor<4xf32> {
  // expected-error @below {{concat inputs have different ranks}}
  // expected-error @below {{'graph.concat' op failed to infer returned types}}
  %r = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @slice_len(%x: tensor<4xf32>) -> tensor<2xf32> {
  %s = graph.constant dense<0> : tensor<1xi64>
  %e = graph.constant dense<2> : tensor<2xi64>
  %a = graph.constant dense<0> : tensor<1xi64>
  // expected-error @below {{slice starts, ends, axes and steps differ in length}}
  // expected-error @below {{'graph.slice' op failed to infer returned types}}
  %r = graph.slice %x, %s, %e, %a, %a : (tensor<4xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @slice_axis(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %s = graph.constant dense<0> : tensor<2xi64>
  %a = graph.constant dense<[1, 1]> : tensor<2xi64>
  %o = graph.constant dense<1> : tensor<2xi64>
  // expected-error @below {{slice axis 1 repeated}}
  // expected-error @below {{'graph.slice' op failed to infer returned types}}
  %r = graph.slice %x, %s, %s, %a, %o : (tensor<4x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @unsqueeze_rep(%x: tensor<4xf32>) -> tensor<1x1x4xf32> {
  %a = graph.constant dense<[0, 0]> : tensor<2xi64>
  // expected-error @below {{unsqueeze axis 0 repeated}}
  // expected-error @below {{'graph.unsqueeze' op failed to infer returned types}}
  %r = graph.unsqueeze %x, %a : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x1x4xf32>
  return %r : tensor<1x1x4xf32>
}


// -----

func.func @pad_mode(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x5xf32> {
  // expected-error @below {{pad mode 'mirror' is not supported}}
  // expected-error @below {{'graph.pad' op failed to infer returned types}}
  %r = graph.pad %x, %v {mode = "mirror", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

func.func @pad_wrap_nothing_left(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @below {{wrap pad of dimension 1 has nothing left to repeat after its crops}}
  // expected-error @below {{'graph.pad' op failed to infer returned types}}
  %r = graph.pad %x, %v {mode = "wrap", pads = array<i64: 0, -3, 0, 3>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @scatter_nd_updates_shape(%x: tensor<4x5xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<4x5xf32> {
  // expected-error @below {{scatter_nd updates must have shape indices[:-1] + input[1:]}}
  // expected-error @below {{'graph.scatter_nd' op failed to infer returned types}}
  %r = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x5xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

func.func @scatter_nd_tuples_too_long(%x: tensor<4x5xf32>, %i: tensor<3x3xi64>, %u: tensor<3xf32>) -> tensor<4x5xf32> {
  // expected-error @below {{scatter_nd index tuples of length 3 for an input of rank 2}}
  // expected-error @below {{'graph.scatter_nd' op failed to infer returned types}}
  %r = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x5xf32>, tensor<3x3xi64>, tensor<3xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @below {{scatter reduction 'avg' is not supported}}
  // expected-error @below {{'graph.scatter_elements' op failed to infer returned types}}
  %r = graph.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "avg"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
