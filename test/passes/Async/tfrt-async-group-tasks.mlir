// RUN: tfrt-opt %s -split-input-file -tfrt-async-group-tasks="min-task-cost=64" | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-async-group-tasks="min-task-cost=1000000 kernel-min-cost=64" | FileCheck %s --check-prefix=KERNELS
// RUN: tfrt-opt %s -split-input-file -tfrt-async-group-tasks="min-task-cost=64 max-members=1" | FileCheck %s --check-prefix=MAX

// Two expensive ops on different buffers form a group; the op that reads
// the first one's result ends it.
// CHECK-LABEL: func.func @independent
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<16x16xf32>) attrs = {tfrt.task_group = 0 : i64}
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<16x16xf32>) attrs = {tfrt.task_group = 0 : i64}
// CHECK: linalg.generic
// CHECK-NOT: tfrt.task_group
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @independent(%x: memref<16x16xf32> {tfrt.io = "input"}, %y: memref<16x16xf32> {tfrt.io = "output"}) {
  %t1 = memref.alloc() : memref<16x16xf32>
  %t2 = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%t1 : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%t2 : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t1, %t2 : memref<16x16xf32>, memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}

// -----
#id = affine_map<(d0, d1) -> (d0, d1)>

// A write-after-read through a view keeps two ops apart: the second writes
// (a subview of) the buffer the first reads.
// CHECK-LABEL: func.func @war
// CHECK-NOT: tfrt.task_group
func.func @war(%x: memref<16x16xf32> {tfrt.io = "input"}, %y: memref<16x16xf32> {tfrt.io = "output"}) {
  %t = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  }
  %v = memref.subview %t[0, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%v : memref<8x16xf32, strided<[16, 1]>>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----
#id = affine_map<(d0, d1) -> (d0, d1)>

// An op with unknown effects (a call) is a barrier; cheap ops never form a
// task of their own.
// CHECK-LABEL: func.func @barrier
// CHECK-NOT: tfrt.task_group
func.func private @opaque(memref<16x16xf32>)
func.func @barrier(%x: memref<16x16xf32> {tfrt.io = "input"}, %y: memref<16x16xf32> {tfrt.io = "output"}) {
  %t = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  }
  func.call @opaque(%x) : (memref<16x16xf32>) -> ()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  }
  %small = memref.alloc() : memref<4xf32>
  %c = arith.constant 0.0 : f32
  linalg.fill ins(%c : f32) outs(%small : memref<4xf32>)
  return
}

// -----
#id = affine_map<(d0, d1) -> (d0, d1)>

// With kernel-min-cost, a kernel that neither splits nor groups still gets a
// group of its own (to be outlined with noalias buffers); cheaper ones stay.
// KERNELS-LABEL: func.func @kernels
// KERNELS: linalg.generic {{.*}} outs(%{{.*}} : memref<16x16xf32>) attrs = {tfrt.task_group = 0 : i64}
// KERNELS: linalg.generic {{.*}} outs(%{{.*}} : memref<4xf32>) {
func.func @kernels(%x: memref<16x16xf32> {tfrt.io = "input"}, %y: memref<16x16xf32> {tfrt.io = "output"}, %z: memref<4xf32> {tfrt.io = "output"}) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%z : memref<4xf32>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----
#id = affine_map<(d0, d1) -> (d0, d1)>

// Two independent parallel loops form one group; with max-members=1 (as in
// profiling builds) each is a launch of its own, so each is timed alone.
// CHECK-LABEL: func.func @loops
// CHECK: scf.forall
// CHECK: } {tfrt.task_group = 0 : i64}
// CHECK: scf.forall
// CHECK: } {tfrt.task_group = 0 : i64}
// MAX-LABEL: func.func @loops
// MAX: scf.forall
// MAX: } {tfrt.task_group = 0 : i64}
// MAX: scf.forall
// MAX: } {tfrt.task_group = 1 : i64}
func.func @loops(%x: memref<64x16xf32> {tfrt.io = "input"}, %y: memref<64x16xf32> {tfrt.io = "output"}, %z: memref<64x16xf32> {tfrt.io = "output"}) {
  scf.forall (%i) = (0) to (64) step (16) {
    %xs = memref.subview %x[%i, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<16x16xf32, strided<[16, 1], offset: ?>>) outs(%ys : memref<16x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    }
  }
  scf.forall (%i) = (0) to (64) step (16) {
    %xs = memref.subview %x[%i, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    %zs = memref.subview %z[%i, 0] [16, 16] [1, 1] : memref<64x16xf32> to memref<16x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<16x16xf32, strided<[16, 1], offset: ?>>) outs(%zs : memref<16x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %r = math.exp %a : f32
      linalg.yield %r : f32
    }
  }
  return
}
