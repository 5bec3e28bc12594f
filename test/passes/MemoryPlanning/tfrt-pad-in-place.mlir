// RUN: tfrt-opt %s -split-input-file -tfrt-pad-in-place | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-pad-in-place -cse | FileCheck %s --check-prefix=CSE

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// An elementwise result padded by 1 on both sides of H and on the low side
// of W: the border slabs of a [1, 8, 18, 17] tensor are filled (H low, H
// high, W low), the generic writes the interior [0, 0, 1, 1] and its result
// is inserted back there; no tensor.pad is left.
// CHECK-LABEL: func.func @relu_then_pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x16x16xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() : tensor<1x8x18x17xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 8, 1, 17] [1, 1, 1, 1]
// CHECK: %[[F0:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[S0]] : tensor<1x8x1x17xf32>)
// CHECK: %[[B0:.*]] = tensor.insert_slice %[[F0]] into %[[E]][0, 0, 0, 0] [1, 8, 1, 17] [1, 1, 1, 1]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[B0]][0, 0, 17, 0] [1, 8, 1, 17] [1, 1, 1, 1]
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[S1]] : tensor<1x8x1x17xf32>)
// CHECK: %[[B1:.*]] = tensor.insert_slice %[[F1]] into %[[B0]][0, 0, 17, 0] [1, 8, 1, 17] [1, 1, 1, 1]
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[B1]][0, 0, 0, 0] [1, 8, 18, 1] [1, 1, 1, 1]
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[S2]] : tensor<1x8x18x1xf32>)
// CHECK: %[[B2:.*]] = tensor.insert_slice %[[F2]] into %[[B1]][0, 0, 0, 0] [1, 8, 18, 1] [1, 1, 1, 1]
// CHECK: %[[IN:.*]] = tensor.extract_slice %[[B2]][0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x8x16x16xf32>) outs(%[[IN]] : tensor<1x8x16x16xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[G]] into %[[B2]][0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[R]]
func.func @relu_then_pad(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x18x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x17xf32>
  return %p : tensor<1x8x18x17xf32>
}

// -----

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Left alone: a source with another use that is not a linalg op's input
// (here the return), a producer that reads its init (an accumulation), and
// a source that is a function argument.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tensor.pad
func.func @kept(%x: tensor<1x8x16x16xf32>, %acc: tensor<1x8x16x16xf32>) -> (tensor<1x8x18x18xf32>, tensor<1x8x16x16xf32>, tensor<1x8x18x18xf32>, tensor<1x8x18x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %b = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%acc : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %q = tensor.pad %b low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %s = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  return %p, %a, %q, %s : tensor<1x8x18x18xf32>, tensor<1x8x16x16xf32>, tensor<1x8x18x18xf32>, tensor<1x8x18x18xf32>
}

// -----

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d1)>

// An accumulation (a conv reading its init) into a bias broadcast: the
// broadcast writes the interior of the padded tensor and the accumulation
// runs on top of it there.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() : tensor<1x8x18x18xf32>
// CHECK-COUNT-4: linalg.fill
// CHECK: %[[IN:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<8xf32>) outs(%[[IN]] : tensor<1x8x16x16xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x8x16x16xf32>) outs(%[[BIAS]] : tensor<1x8x16x16xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[ACC]] into %{{.*}}[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[R]]
func.func @accumulate(%x: tensor<1x8x16x16xf32>, %bias: tensor<8xf32>) -> tensor<1x8x18x18xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %b = linalg.generic {indexing_maps = [#c, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%b : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  return %p : tensor<1x8x18x18xf32>
}

// -----

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Two pads of the same shape get a padded tensor each, also after CSE
// (two tensor.empty ops and their identical border fills would merge, and
// bufferization would then copy the whole padded tensor for one of them).
// CSE-LABEL: func.func @two_pads
// CSE: %[[A:.*]] = bufferization.alloc_tensor() : tensor<1x8x18x18xf32>
// CSE: %[[B:.*]] = bufferization.alloc_tensor() : tensor<1x8x18x18xf32>
// CSE-NOT: tensor.pad
// CSE: return
func.func @two_pads(%x: tensor<1x8x16x16xf32>, %y: tensor<1x8x16x16xf32>) -> (tensor<1x8x18x18xf32>, tensor<1x8x18x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %e2 = tensor.empty() : tensor<1x8x16x16xf32>
  %b = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x8x16x16xf32>) outs(%e2 : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %q = tensor.pad %b low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  return %p, %q : tensor<1x8x18x18xf32>, tensor<1x8x18x18xf32>
}

// -----

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>

// A source that an all-parallel op also reads (a nearest upsampling, as
// det's FPN maps are read beside their 3x3 conv): the producer still
// writes the padded tensor's interior, and the other reader reads the
// value from there.
// CHECK-LABEL: func.func @parallel_reader
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() : tensor<1x8x18x18xf32>
// CHECK: %[[IN:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%[[IN]] : tensor<1x8x16x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<1x8x16x16xf32>) outs(%{{.*}} : tensor<1x8x32x32xf32>)
// CHECK-NOT: tensor.pad
func.func @parallel_reader(%x: tensor<1x8x16x16xf32>) -> (tensor<1x8x18x18xf32>, tensor<1x8x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %e2 = tensor.empty() : tensor<1x8x32x32xf32>
  %u = linalg.generic {indexing_maps = [#up, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x8x16x16xf32>) outs(%e2 : tensor<1x8x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x32x32xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  return %p, %u : tensor<1x8x18x18xf32>, tensor<1x8x32x32xf32>
}

// -----

#m = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(n, m, h, w, c) -> (n, c, h, w)>
#w = affine_map<(n, m, h, w, c) -> (m, c)>
#o = affine_map<(n, m, h, w, c) -> (n, m, h, w)>

// A source that a reduction (a 1x1 conv, later a matrix product over the
// collapsed map that needs it contiguous) also reads: the pad is left alone.
// CHECK-LABEL: func.func @conv_reader
// CHECK: tensor.pad
func.func @conv_reader(%x: tensor<1x8x16x16xf32>, %wt: tensor<4x8xf32>, %acc: tensor<1x4x16x16xf32>) -> (tensor<1x8x18x18xf32>, tensor<1x4x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x16xf32>
  %a = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x16x16xf32>) outs(%e : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %wt : tensor<1x8x16x16xf32>, tensor<4x8xf32>) outs(%acc : tensor<1x4x16x16xf32>) {
  ^bb0(%in: f32, %wv: f32, %out: f32):
    %p = arith.mulf %in, %wv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16x16xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  return %p, %c : tensor<1x8x18x18xf32>, tensor<1x4x16x16xf32>
}
