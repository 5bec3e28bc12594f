// RUN: tfrt-opt %s -split-input-file -tfrt-hoist-shrinking-ops | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-hoist-shrinking-ops="min-bytes=0" | FileCheck %s --check-prefix=ANY

// A feature pyramid's lateral 1x1 conv (48 -> 12 channels: 786432 bytes
// in, 196608 out) reads the backbone stage's output long after the
// backbone's next op did: it moves up to right after the stage's output,
// with the weights defined after that, so that it reads the output while
// it is still in the cache.
// CHECK-LABEL: func.func @lateral
// CHECK: %[[S:.*]] = graph.relu %arg0
// CHECK-NEXT: %[[W:.*]] = graph.constant dense<1.000000e+00> : tensor<12x48x1x1xf32>
// CHECK-NEXT: %[[N:.*]] = graph.conv %[[S]], %[[W]]
// CHECK-NEXT: %[[B1:.*]] = graph.relu %[[S]]
// CHECK-NEXT: %[[B2:.*]] = graph.relu %[[B1]]
// CHECK-NEXT: return %[[B2]], %[[N]]
func.func @lateral(%x: tensor<1x48x64x64xf32>) -> (tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>) {
  %s = graph.relu %x : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b1 = graph.relu %s : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b2 = graph.relu %b1 : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %w = graph.constant dense<1.0> : tensor<12x48x1x1xf32>
  %n = graph.conv %s, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x48x64x64xf32>, tensor<12x48x1x1xf32>) -> tensor<1x12x64x64xf32>
  return %b2, %n : tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>
}

// -----

// With two computed operands it goes right after the one defined last,
// when that is the large one.
// CHECK-LABEL: func.func @two_operands
// CHECK: %[[W:.*]] = graph.relu %{{.*}} : (tensor<12x48x1x1xf32>)
// CHECK-NEXT: %[[A:.*]] = graph.relu %arg0
// CHECK-NEXT: %[[N:.*]] = graph.conv %[[A]], %[[W]]
// CHECK-NEXT: %[[B:.*]] = graph.relu %[[A]]
// CHECK-NEXT: %[[C:.*]] = graph.relu %[[B]]
// CHECK-NEXT: return %[[C]], %[[N]]
func.func @two_operands(%x: tensor<1x48x64x64xf32>) -> (tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>) {
  %k = graph.constant dense<1.0> : tensor<12x48x1x1xf32>
  %w = graph.relu %k : (tensor<12x48x1x1xf32>) -> tensor<12x48x1x1xf32>
  %a = graph.relu %x : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b = graph.relu %a : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %c = graph.relu %b : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %n = graph.conv %a, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x48x64x64xf32>, tensor<12x48x1x1xf32>) -> tensor<1x12x64x64xf32>
  return %c, %n : tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>
}

// The same op stays where the operand defined last is the small one: the
// large operand would not be read any sooner after its producer.
// CHECK-LABEL: func.func @small_last
// CHECK: graph.relu %arg0
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.relu %{{.*}} : (tensor<12x48x1x1xf32>)
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.conv
func.func @small_last(%x: tensor<1x48x64x64xf32>) -> (tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>) {
  %k = graph.constant dense<1.0> : tensor<12x48x1x1xf32>
  %a = graph.relu %x : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b = graph.relu %a : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %w = graph.relu %k : (tensor<12x48x1x1xf32>) -> tensor<12x48x1x1xf32>
  %c = graph.relu %b : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %n = graph.conv %a, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x48x64x64xf32>, tensor<12x48x1x1xf32>) -> tensor<1x12x64x64xf32>
  return %c, %n : tensor<1x48x64x64xf32>, tensor<1x12x64x64xf32>
}

// -----

// What stays: a result more than half its operand's size (48 -> 48
// channels), an operand below min-bytes (8192 bytes: moved with
// min-bytes=0), and ops with only constants between them and their
// producer or none at all.
// CHECK-LABEL: func.func @stays
// CHECK: graph.relu %arg0
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.constant
// CHECK-NEXT: graph.conv
// CHECK-NEXT: graph.relu %arg1
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.global_average_pool
// CHECK-NEXT: graph.relu %arg2
// CHECK-NEXT: graph.constant
// CHECK-NEXT: graph.global_average_pool
// ANY-LABEL: func.func @stays
// ANY: graph.relu %arg1
// ANY-NEXT: graph.global_average_pool
// ANY-NEXT: graph.relu
func.func @stays(%x: tensor<1x48x64x64xf32>, %y: tensor<1x32x8x8xf32>, %z: tensor<1x48x64x64xf32>) -> (tensor<1x48x64x64xf32>, tensor<1x48x64x64xf32>, tensor<1x32x8x8xf32>, tensor<1x32x1x1xf32>, tensor<1x48x1x1xf32>, tensor<4xf32>) {
  %s = graph.relu %x : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b1 = graph.relu %s : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %b2 = graph.relu %b1 : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %w = graph.constant dense<1.0> : tensor<48x48x1x1xf32>
  %n = graph.conv %s, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x48x64x64xf32>, tensor<48x48x1x1xf32>) -> tensor<1x48x64x64xf32>
  %t = graph.relu %y : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %t2 = graph.relu %t : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %tp = graph.global_average_pool %t : (tensor<1x32x8x8xf32>) -> tensor<1x32x1x1xf32>
  %u = graph.relu %z : (tensor<1x48x64x64xf32>) -> tensor<1x48x64x64xf32>
  %k = graph.constant dense<1.0> : tensor<4xf32>
  %up = graph.global_average_pool %u : (tensor<1x48x64x64xf32>) -> tensor<1x48x1x1xf32>
  return %b2, %n, %t2, %tp, %up, %k : tensor<1x48x64x64xf32>, tensor<1x48x64x64xf32>, tensor<1x32x8x8xf32>, tensor<1x32x1x1xf32>, tensor<1x48x1x1xf32>, tensor<4xf32>
}

// -----

// The default min-bytes is 128 KiB: det's 3x3 conv of the neck's smallest
// map (96 -> 24 channels on 20x20: 153600 bytes in) moves; the same conv
// on 96 x 20 x 10 (76800 bytes) stays.
// CHECK-LABEL: func.func @boundary
// CHECK: %[[A:.*]] = graph.relu %arg0
// CHECK-NEXT: %[[W:.*]] = graph.constant
// CHECK-NEXT: graph.conv %[[A]], %[[W]]
// CHECK-NEXT: graph.relu %[[A]]
// CHECK: %[[S:.*]] = graph.relu %arg1
// CHECK-NEXT: graph.relu %[[S]]
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.constant
// CHECK-NEXT: graph.conv %[[S]]
func.func @boundary(%x: tensor<1x96x20x20xf32>, %y: tensor<1x96x20x10xf32>) -> (tensor<1x96x20x20xf32>, tensor<1x24x20x20xf32>, tensor<1x96x20x10xf32>, tensor<1x24x20x10xf32>) {
  %a = graph.relu %x : (tensor<1x96x20x20xf32>) -> tensor<1x96x20x20xf32>
  %b1 = graph.relu %a : (tensor<1x96x20x20xf32>) -> tensor<1x96x20x20xf32>
  %b2 = graph.relu %b1 : (tensor<1x96x20x20xf32>) -> tensor<1x96x20x20xf32>
  %w = graph.constant dense<1.0> : tensor<24x96x3x3xf32>
  %n = graph.conv %a, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x96x20x20xf32>, tensor<24x96x3x3xf32>) -> tensor<1x24x20x20xf32>
  %s = graph.relu %y : (tensor<1x96x20x10xf32>) -> tensor<1x96x20x10xf32>
  %c1 = graph.relu %s : (tensor<1x96x20x10xf32>) -> tensor<1x96x20x10xf32>
  %c2 = graph.relu %c1 : (tensor<1x96x20x10xf32>) -> tensor<1x96x20x10xf32>
  %v = graph.constant dense<1.0> : tensor<24x96x3x3xf32>
  %m = graph.conv %s, %v {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x96x20x10xf32>, tensor<24x96x3x3xf32>) -> tensor<1x24x20x10xf32>
  return %b2, %n, %c2, %m : tensor<1x96x20x20xf32>, tensor<1x24x20x20xf32>, tensor<1x96x20x10xf32>, tensor<1x24x20x10xf32>
}
