// RUN: tfrt-opt %s -split-input-file -tfrt-simplify-graph | FileCheck %s

// conv -> batch_norm folds into the conv: s = 2 / sqrt(3 + 1) = 1,
// W' = W * s, b' = (b - mean) * s + beta = (1 - 1) * 1 + 5 = 5 for channel 0;
// channel 1: s = 4 / sqrt(15 + 1) = 1, W' = 2 * 1, b' = (0 - 2) + 1 = -1.
// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]]], {{\[}}{{\[}}[2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[5.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = graph.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: graph.batch_norm
// CHECK: return %[[C]]
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %g = graph.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta = graph.constant dense<[5.0, 1.0]> : tensor<2xf32>
  %m = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %c = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %g, %beta, %m, %v {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A conv without bias gets one; the weights scale per output channel.
// CHECK-LABEL: func.func @conv_no_bias_bn
// s = [2 / sqrt(3 + 1), 0.5 / sqrt(0 + 1)] = [1, 0.5], b' = [-1, 1].
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00]]], {{\[}}{{\[}}[1.500000e+00, 2.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: graph.constant dense<[-1.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK: graph.conv %arg0, %{{.*}}, %{{.*}} {
// CHECK-NOT: graph.batch_norm
func.func @conv_no_bias_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %g = graph.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %beta = graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %m = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = graph.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %y = graph.batch_norm %c, %g, %beta, %m, %v {epsilon = 1.0 : f32} : (tensor<1x2x4x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32>
  return %y : tensor<1x2x4x3xf32>
}

// -----

// A conv with a second user keeps its output: the batch norm becomes a
// per-channel scale and shift shaped [C, 1, 1].
// CHECK-LABEL: func.func @shared_conv
// CHECK: %[[C:.*]] = graph.conv %arg0
// CHECK-DAG: %[[S:.*]] = graph.constant dense<{{\[}}{{\[}}[2.000000e+00]], {{\[}}[1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[T:.*]] = graph.constant dense<{{\[}}{{\[}}[-2.000000e+00]], {{\[}}[1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[M:.*]] = graph.mul %[[C]], %[[S]]
// CHECK: %[[A:.*]] = graph.add %[[M]], %[[T]]
// CHECK: graph.add %[[A]], %[[C]]
func.func @shared_conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %beta = graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %m = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = graph.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %c = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %g, %beta, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.add %y, %c : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Batch norm with non-constant statistics stays.
// CHECK-LABEL: func.func @dynamic_stats
// CHECK: graph.batch_norm
func.func @dynamic_stats(%x: tensor<1x2x4x4xf32>, %g: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %beta = graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %m = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = graph.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %y = graph.batch_norm %x, %g, %beta, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Transposes of constants fold; identities disappear.
// CHECK-LABEL: func.func @transpose_identity
// CHECK: %[[T:.*]] = graph.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT: graph.transpose
// CHECK-NOT: graph.identity
// CHECK: graph.matmul %arg0, %[[T]]
func.func @transpose_identity(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %c = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = graph.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %i = graph.identity %t : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = graph.matmul %x, %i : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Global average pooling of a pointwise conv pools the conv's input (12
// channels) and convolves the pooled tensor; the full-size conv stays for
// its other user (the squeeze-excitation scale).
// CHECK-LABEL: func.func @pool_before_conv
// CHECK: %[[C:.*]] = graph.conv %arg0, %[[W:.*]] {{{.*}}} : (tensor<1x12x8x8xf32>, tensor<96x12x1x1xf32>) -> tensor<1x96x8x8xf32>
// CHECK: %[[P:.*]] = graph.global_average_pool %arg0 : (tensor<1x12x8x8xf32>) -> tensor<1x12x1x1xf32>
// CHECK: %[[S:.*]] = graph.conv %[[P]], %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x12x1x1xf32>, tensor<96x12x1x1xf32>) -> tensor<1x96x1x1xf32>
// CHECK: graph.mul %[[C]], %[[S]]
func.func @pool_before_conv(%x: tensor<1x12x8x8xf32>) -> tensor<1x96x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<96x12x1x1xf32>
  %c = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x12x8x8xf32>, tensor<96x12x1x1xf32>) -> tensor<1x96x8x8xf32>
  %p = graph.global_average_pool %c : (tensor<1x96x8x8xf32>) -> tensor<1x96x1x1xf32>
  %y = graph.mul %c, %p : (tensor<1x96x8x8xf32>, tensor<1x96x1x1xf32>) -> tensor<1x96x8x8xf32>
  return %y : tensor<1x96x8x8xf32>
}

// -----

// The pooling's only user: the full-size conv (bias, groups, dilation)
// disappears.
// CHECK-LABEL: func.func @pool_only_user
// CHECK: %[[P:.*]] = graph.global_average_pool %arg0 : (tensor<1x8x5x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK: %[[S:.*]] = graph.conv %[[P]], %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x1x1xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NOT: graph.conv
// CHECK: return %[[S]]
func.func @pool_only_user(%x: tensor<1x8x5x7xf32>) -> tensor<1x4x1x1xf32> {
  %w = graph.constant dense<0.25> : tensor<4x4x1x1xf32>
  %b = graph.constant dense<1.0> : tensor<4xf32>
  %c = graph.conv %x, %w, %b {dilations = array<i64: 2, 2>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x7xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x5x7xf32>
  %p = graph.global_average_pool %c : (tensor<1x4x5x7xf32>) -> tensor<1x4x1x1xf32>
  return %p : tensor<1x4x1x1xf32>
}

// -----

// Not moved: a 3x3 kernel (padding borders), a strided pointwise conv (it
// skips positions), a padded one, and a shared conv with more input than
// output channels (the pooling would read more).
// CHECK-LABEL: func.func @pool_stays
// CHECK-NOT: graph.global_average_pool %arg0
// CHECK: return
func.func @pool_stays(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>) {
  %w3 = graph.constant dense<0.5> : tensor<4x4x3x3xf32>
  %w1 = graph.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = graph.constant dense<0.5> : tensor<2x4x1x1xf32>
  %a = graph.conv %x, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %pa = graph.global_average_pool %a : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %b = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %pb = graph.global_average_pool %b : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  %c = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x10x10xf32>
  %pc = graph.global_average_pool %c : (tensor<1x4x10x10xf32>) -> tensor<1x4x1x1xf32>
  %d = graph.conv %x, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  %pd = graph.global_average_pool %d : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  return %pa, %pb, %pc, %d, %pd : tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x2x8x8xf32>, tensor<1x2x1x1xf32>
}

// -----

// c + c * s with a broadcast s becomes c * (s + 1), whichever operand order
// (s + 1 on s's shape): c then has one user.
// CHECK-LABEL: func.func @factor_scaled_sum
// CHECK-DAG: %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[T:.*]] = graph.add %arg1, %[[ONE]] : (tensor<1x4x1x1xf32>, tensor<f32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[Y:.*]] = graph.mul %arg0, %[[T]] : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
// CHECK: %[[T2:.*]] = graph.add %arg1, %{{.*}} : (tensor<1x4x1x1xf32>, tensor<f32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[Y2:.*]] = graph.mul %arg0, %[[T2]]
// CHECK: return %[[Y]], %[[Y2]]
func.func @factor_scaled_sum(%c: tensor<1x4x3x3xf32>, %s: tensor<1x4x1x1xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %m = graph.mul %c, %s : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %y = graph.add %c, %m : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m2 = graph.mul %s, %c : (tensor<1x4x1x1xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %y2 = graph.add %m2, %c : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %y, %y2 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// -----

// Left alone: a product with another user, and a scale as large as c.
// CHECK-LABEL: func.func @scaled_sum_stays
// CHECK: %[[M:.*]] = graph.mul %arg0, %arg1
// CHECK: graph.add %arg0, %[[M]]
// CHECK: %[[M2:.*]] = graph.mul %arg0, %arg2
// CHECK: graph.add %arg0, %[[M2]]
// CHECK-NOT: graph.constant
func.func @scaled_sum_stays(%c: tensor<1x4x3x3xf32>, %s: tensor<1x4x1x1xf32>, %t: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %m = graph.mul %c, %s : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %y = graph.add %c, %m : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m2 = graph.mul %c, %t : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %y2 = graph.add %c, %m2 : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %y, %m, %y2 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// -----

// Affine ops by per-output-channel constants after a conv (its only user,
// in a chain; padded or not) go into its weights and bias:
// W' = W * [2, 3], b' = ([1, -1] * [2, 3] - 1) + [0.5, 0.25] = [1.5, -3.75].
// CHECK-LABEL: func.func @conv_affine_after
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00, 2.000000e+00, 2.000000e+00]]], {{\[}}{{\[}}[6.000000e+00, 6.000000e+00, 6.000000e+00]]]]> : tensor<2x1x1x3xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[1.500000e+00, -3.750000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = graph.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: graph.mul
// CHECK-NOT: graph.sub
// CHECK-NOT: graph.add
// CHECK: return %[[C]]
func.func @conv_affine_after(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0, 1.0, 1.0]]], [[[2.0, 2.0, 2.0]]]]> : tensor<2x1x1x3xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %s = graph.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %t = graph.constant dense<[[[[0.5]], [[0.25]]]]> : tensor<1x2x1x1xf32>
  %c = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %m = graph.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %d = graph.sub %m, %one : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %y = graph.add %t, %d : (tensor<1x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// An affine chain before an unpadded conv goes into its weights and bias:
// input = x / 2 + [1, 3], so W' = [4, 5] / 2 = [2, 2.5] and
// b' = 4 * 1 + 5 * 3 = 19 (the conv had no bias).
// CHECK-LABEL: func.func @conv_affine_input
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00]], {{\[}}[2.500000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<1.900000e+01> : tensor<1xf32>
// CHECK: %[[C:.*]] = graph.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: graph.div
// CHECK-NOT: graph.add
// CHECK: return %[[C]]
func.func @conv_affine_input(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %w = graph.constant dense<[[[[4.0]], [[5.0]]]]> : tensor<1x2x1x1xf32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %t = graph.constant dense<[[[[1.0]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %q = graph.div %x, %two : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %a = graph.add %q, %t : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = graph.conv %a, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %c : tensor<1x1x4x4xf32>
}

// -----

// A grouped (depthwise) conv without padding: each output channel's
// weights scale by its own input channel's factor, [2, 10].
// CHECK-LABEL: func.func @depthwise_affine_input
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00, 4.000000e+00]]], {{\[}}{{\[}}[3.000000e+01, 4.000000e+01]]]]> : tensor<2x1x1x2xf32>
// CHECK: graph.conv %arg0, %[[W]]
// CHECK-NOT: graph.mul
func.func @depthwise_affine_input(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = graph.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %s = graph.constant dense<[[[[2.0]], [[10.0]]]]> : tensor<1x2x1x1xf32>
  %m = graph.mul %s, %x : (tensor<1x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = graph.conv %m, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32>
  return %c : tensor<1x2x4x3xf32>
}

// -----

// Left alone: an affine input of a padded conv (the zeros at the border
// are not affine values), a conv output with a second user, and a
// division by zero. The division by 6 and the scale by 3 before the padded
// conv become one multiplication by 0.5.
// CHECK-LABEL: func.func @affine_stays
// CHECK-DAG: %[[HALF:.*]] = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[M:.*]] = graph.mul %arg0, %[[HALF]]
// CHECK: %[[A:.*]] = graph.add %[[M]], %{{.*}}
// CHECK: %[[C:.*]] = graph.conv %[[A]], %{{.*}}, %{{.*}} {{.*}}pads = array<i64: 1, 1, 1, 1>
// CHECK: %[[C2:.*]] = graph.conv %[[C]], %{{.*}}, %{{.*}} {{.*}}pads = array<i64: 0, 0, 0, 0>
// CHECK: %[[S:.*]] = graph.mul %[[C2]], %{{.*}}
// CHECK: %[[C3:.*]] = graph.conv %arg0
// CHECK: %[[D:.*]] = graph.div %[[C3]], %{{.*}}
// CHECK: return %[[S]], %[[C2]], %[[D]]
func.func @affine_stays(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %w3 = graph.constant dense<1.0> : tensor<1x1x3x3xf32>
  %w1 = graph.constant dense<[[[[2.0]]]]> : tensor<1x1x1x1xf32>
  %b = graph.constant dense<[1.0]> : tensor<1xf32>
  %six = graph.constant dense<6.0> : tensor<f32>
  %three = graph.constant dense<3.0> : tensor<1xf32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %q = graph.div %x, %six : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>
  %m = graph.mul %q, %three : (tensor<1x1x4x4xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %a = graph.add %m, %three : (tensor<1x1x4x4xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %c = graph.conv %a, %w3, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %c2 = graph.conv %c, %w1, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %s = graph.mul %c2, %three : (tensor<1x1x4x4xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %c3 = graph.conv %x, %w1, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %d = graph.div %c3, %zero : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>
  return %s, %c2, %d : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// Affine ops by per-output-channel constants after a ConvTranspose (its
// weight [C, M/group, kh, kw]; here 2 groups of one input and one output
// channel) go into its weights and bias: add [1, 2] then mul [2, 3] is
// x * [2, 3] + [2, 6], so W'[c] = W[c] * s[group of c] = [2, 4], [9, 12]
// and b' = [1, -1] * [2, 3] + [2, 6] = [4, 3].
// CHECK-LABEL: func.func @conv_transpose_affine_after
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00, 4.000000e+00]]], {{\[}}{{\[}}[9.000000e+00, 1.200000e+01]]]]> : tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[4.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = graph.conv_transpose %arg0, %[[W]], %[[B]]
// CHECK-NOT: graph.mul
// CHECK-NOT: graph.add
// CHECK: return %[[C]]
func.func @conv_transpose_affine_after(%x: tensor<1x2x1x2xf32>) -> tensor<1x2x1x4xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %t = graph.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %s = graph.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %c = graph.conv_transpose %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : (tensor<1x2x1x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x1x4xf32>
  %a = graph.add %c, %t : (tensor<1x2x1x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x4xf32>
  %y = graph.mul %a, %s : (tensor<1x2x1x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x4xf32>
  return %y : tensor<1x2x1x4xf32>
}

// -----

// A ConvTranspose whose result has another user keeps its weights; a
// batch norm after one without constant weights stays a scale and shift.
// CHECK-LABEL: func.func @conv_transpose_affine_stays
// CHECK: %[[C:.*]] = graph.conv_transpose %arg0, %arg1
// CHECK: graph.mul %[[C]]
// CHECK: graph.add
// CHECK-LABEL: func.func @conv_transpose_shared
// CHECK: %[[C:.*]] = graph.conv_transpose
// CHECK: %[[M:.*]] = graph.mul %[[C]]
// CHECK: return %[[M]], %[[C]]
func.func @conv_transpose_affine_stays(%x: tensor<1x1x1x2xf32>, %w: tensor<1x2x1x2xf32>) -> tensor<1x2x1x4xf32> {
  %g = graph.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %be = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %mu = graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = graph.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %c = graph.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : (tensor<1x1x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x1x4xf32>
  %y = graph.batch_norm %c, %g, %be, %mu, %v {epsilon = 0.0 : f32} : (tensor<1x2x1x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x4xf32>
  return %y : tensor<1x2x1x4xf32>
}
func.func @conv_transpose_shared(%x: tensor<1x1x1x2xf32>) -> (tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>) {
  %w = graph.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]]]> : tensor<1x2x1x2xf32>
  %s = graph.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %c = graph.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : (tensor<1x1x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x1x4xf32>
  %m = graph.mul %c, %s : (tensor<1x2x1x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x4xf32>
  return %m, %c : tensor<1x2x1x4xf32>, tensor<1x2x1x4xf32>
}
