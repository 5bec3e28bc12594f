// RUN: tfrt-opt %s -split-input-file -tfrt-seed-conv-tiles | FileCheck %s

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// Register tiles in blocks of input channels (the outer loop does not move
// the tile) over an output that a bias broadcast filled: the first block
// starts from the bias elements broadcast along the columns, the later
// ones read the partial sums; the loops start from the broadcast's own
// init, and the broadcast goes.
// CHECK-DAG: #[[BC:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @blocks_from_bias
// CHECK-SAME: (%[[B:.*]]: tensor<8xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x4x32xf32>
// CHECK: scf.for %[[CB:.*]] = %c0 to %c16 step %c8 iter_args(%{{.*}} = %[[E]])
// CHECK: scf.for %[[OH:.*]] = %c0 to %c4 step %c1 iter_args(%[[O:.*]] = %{{.*}})
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[CB]], %c0 : index
// CHECK: %[[ACC:.*]] = scf.if %[[FIRST]] -> (vector<8x32xf32>) {
// CHECK: %[[S:.*]] = vector.transfer_read %[[B]][%c0], %{{.*}} {in_bounds = [true, true], permutation_map = #[[BC]]} : tensor<8xf32>, vector<8x32xf32>
// CHECK: scf.yield %[[S]]
// CHECK: } else {
// CHECK: %[[R:.*]] = vector.transfer_read %[[O]][%c0, %c0, %[[OH]], %c0]
// CHECK: scf.yield %[[R]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
func.func @blocks_from_bias(%bias: tensor<8xf32>, %v: vector<8x32xf32>) -> tensor<1x8x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %b = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x4x32xf32>
  %r = scf.for %cb = %c0 to %c16 step %c8 iter_args(%o = %b) -> (tensor<1x8x4x32xf32>) {
    %r2 = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o2 = %o) -> (tensor<1x8x4x32xf32>) {
      %acc = vector.transfer_read %o2[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
      %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
        %n = arith.addf %a, %v : vector<8x32xf32>
        scf.yield %n : vector<8x32xf32>
      }
      %w = vector.transfer_write %s, %o2[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
      scf.yield %w : tensor<1x8x4x32xf32>
    }
    scf.yield %r2 : tensor<1x8x4x32xf32>
  }
  return %r : tensor<1x8x4x32xf32>
}

// -----

#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// One sweep of the channels (the outer loop moves the tile) over a filled
// output: every tile starts from the fill value, unconditionally.
// CHECK-LABEL: func.func @sweep_from_fill
// CHECK-SAME: (%[[F:.*]]: f32
// CHECK-NOT: linalg.fill
// CHECK-NOT: scf.if
// CHECK: %[[S:.*]] = vector.broadcast %[[F]] : f32 to vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[S]]) -> (vector<8x32xf32>)
func.func @sweep_from_fill(%f: f32, %v: vector<8x32xf32>) -> tensor<1x8x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %b = linalg.fill ins(%f : f32) outs(%e : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  %r = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o = %b) -> (tensor<1x8x4x32xf32>) {
    %acc = vector.transfer_read %o[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
    %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
      %n = arith.addf %a, %v : vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    %w = vector.transfer_write %s, %o[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
    scf.yield %w : tensor<1x8x4x32xf32>
  }
  return %r : tensor<1x8x4x32xf32>
}

// -----

#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// An output that is not a per-channel value (here an argument: a residual
// the conv accumulates into) is read as before.
// CHECK-LABEL: func.func @from_argument
// CHECK-NOT: scf.if
// CHECK: %[[R:.*]] = vector.transfer_read %{{.*}}[%c0, %c0, %{{.*}}, %c0]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[R]]) -> (vector<8x32xf32>)
func.func @from_argument(%out: tensor<1x8x4x32xf32>, %v: vector<8x32xf32>) -> tensor<1x8x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o = %out) -> (tensor<1x8x4x32xf32>) {
    %acc = vector.transfer_read %o[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
    %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
      %n = arith.addf %a, %v : vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    %w = vector.transfer_write %s, %o[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
    scf.yield %w : tensor<1x8x4x32xf32>
  }
  return %r : tensor<1x8x4x32xf32>
}

// -----

#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// Another reader of the filled output in the same loops (here a scalar
// read, as a tail the tiles do not cover would be): the fill must stay, so
// nothing changes.
// CHECK-LABEL: func.func @other_reader
// CHECK: linalg.fill
// CHECK-NOT: scf.if
// CHECK-NOT: vector.broadcast
func.func @other_reader(%f: f32, %v: vector<8x32xf32>) -> (tensor<1x8x4x32xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %b = linalg.fill ins(%f : f32) outs(%e : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  %r:2 = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o = %b, %t = %z) -> (tensor<1x8x4x32xf32>, f32) {
    %x = tensor.extract %o[%c0, %c0, %oh, %c0] : tensor<1x8x4x32xf32>
    %acc = vector.transfer_read %o[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
    %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
      %n = arith.addf %a, %v : vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    %w = vector.transfer_write %s, %o[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
    scf.yield %w, %x : tensor<1x8x4x32xf32>, f32
  }
  return %r#0, %r#1 : tensor<1x8x4x32xf32>, f32
}

// -----

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// The conv's only user is a ReLU: the tiles of the last channel block
// (8 of [0, 16) in steps of 8) apply it before they write, and the ReLU's
// own pass goes.
// CHECK-LABEL: func.func @relu_epilogue
// CHECK: scf.for %[[CB:.*]] = %c0 to %c16 step %c8
// CHECK: %[[T:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[CB]], %c8{{.*}} : index
// CHECK: %[[E:.*]] = scf.if %[[LAST]] -> (vector<8x32xf32>) {
// CHECK: %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8x32xf32>
// CHECK: %[[M:.*]] = arith.maximumf %[[T]], %[[Z]] : vector<8x32xf32>
// CHECK: scf.yield %[[M]]
// CHECK: } else {
// CHECK: scf.yield %[[T]]
// CHECK: vector.transfer_write %[[E]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu_epilogue(%bias: tensor<8xf32>, %v: vector<8x32xf32>) -> tensor<1x8x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %b = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x4x32xf32>
  %r = scf.for %cb = %c0 to %c16 step %c8 iter_args(%o = %b) -> (tensor<1x8x4x32xf32>) {
    %r2 = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o2 = %o) -> (tensor<1x8x4x32xf32>) {
      %acc = vector.transfer_read %o2[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
      %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
        %n = arith.addf %a, %v : vector<8x32xf32>
        scf.yield %n : vector<8x32xf32>
      }
      %w = vector.transfer_write %s, %o2[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
      scf.yield %w : tensor<1x8x4x32xf32>
    }
    scf.yield %r2 : tensor<1x8x4x32xf32>
  }
  %e2 = tensor.empty() : tensor<1x8x4x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x8x4x32xf32>) outs(%e2 : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x32xf32>
  return %relu : tensor<1x8x4x32xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d1, d3)>

// A consumer that reads a second tensor (a residual add) is not applied in
// the tiles; it keeps its own pass.
// CHECK-LABEL: func.func @binary_consumer
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8x32xf32>
// CHECK-NOT: scf.if
// CHECK: linalg.generic
func.func @binary_consumer(%f: f32, %v: vector<8x32xf32>, %res: tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x32xf32>
  %b = linalg.fill ins(%f : f32) outs(%e : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  %r = scf.for %oh = %c0 to %c4 step %c1 iter_args(%o = %b) -> (tensor<1x8x4x32xf32>) {
    %acc = vector.transfer_read %o[%c0, %c0, %oh, %c0], %z {in_bounds = [true, true], permutation_map = #acc} : tensor<1x8x4x32xf32>, vector<8x32xf32>
    %s = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8x32xf32>) {
      %n = arith.addf %a, %v : vector<8x32xf32>
      scf.yield %n : vector<8x32xf32>
    }
    %w = vector.transfer_write %s, %o[%c0, %c0, %oh, %c0] {in_bounds = [true, true], permutation_map = #acc} : vector<8x32xf32>, tensor<1x8x4x32xf32>
    scf.yield %w : tensor<1x8x4x32xf32>
  }
  %e2 = tensor.empty() : tensor<1x8x4x32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %res : tensor<1x8x4x32xf32>, tensor<1x8x4x32xf32>) outs(%e2 : tensor<1x8x4x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.addf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x32xf32>
  return %sum : tensor<1x8x4x32xf32>
}
