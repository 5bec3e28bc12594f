// RUN: tfrt-opt %s -split-input-file -tfrt-async-outline | FileCheck %s

// The entry function gets the run context argument; the top-level parallel loop
// becomes a call of its launch with the trip count and the captured buffers:
// function arguments and whole workspace views are passed (each its own
// pointer, so that the emitter can mark them noalias); the offset constant
// and the subviews are recomputed inside the body. The output is not
// captured: only the copy after the loop uses it.
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: (%[[IN:.*]]: memref<64x256xf32> {tfrt.io = "input"}, %[[OUT:.*]]: memref<64x256xf32> {tfrt.io = "output"}, %[[WS:.*]]: memref<65536xi8>, %[[CTX:.*]]: !llvm.ptr {tfrt.run})
// CHECK: %[[TMP:.*]] = memref.view %[[WS]]
// CHECK: %[[N:.*]] = arith.constant 8 : index
// CHECK: call @m_compute_par0_launch(%[[CTX]], %[[N]], %[[IN]], %[[TMP]])
// CHECK-NOT: scf.forall
// CHECK: return
// CHECK: func.func private @m_compute_par0_body(%[[B:.*]]: index, %[[E:.*]]: index, %[[A0:.*]]: memref<64x256xf32>, %[[A1:.*]]: memref<64x256xf32>)
// CHECK: %[[LO:.*]] = arith.maxsi %[[B]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %[[E]], %{{.*}} : index
// CHECK: scf.for %[[J:.*]] = %[[LO]] to %[[HI]] step %{{.*}} {
// CHECK: %[[L:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.muli %[[L]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK: memref.subview %[[A0]][%[[I]], 0] [8, 256] [1, 1]
// CHECK: memref.subview %[[A1]][%[[I]], 0] [8, 256] [1, 1]
// CHECK: linalg.generic
// CHECK: func.func private @m_compute_par0_launch(!llvm.ptr, index, memref<64x256xf32>, memref<64x256xf32>)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @m_compute(%in: memref<64x256xf32> {tfrt.io = "input"}, %out: memref<64x256xf32> {tfrt.io = "output"}, %ws: memref<65536xi8>) {
  %c0 = arith.constant 0 : index
  %tmp = memref.view %ws[%c0][] : memref<65536xi8> to memref<64x256xf32>
  scf.forall (%i) = (0) to (64) step (8) {
    %a = memref.subview %in[%i, 0] [8, 256] [1, 1] : memref<64x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    %t = memref.subview %tmp[%i, 0] [8, 256] [1, 1] : memref<64x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<8x256xf32, strided<[256, 1], offset: ?>>) outs(%t : memref<8x256xf32, strided<[256, 1], offset: ?>>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %x : f32
      linalg.yield %y : f32
    }
  }
  memref.copy %tmp, %out : memref<64x256xf32> to memref<64x256xf32>
  return
}

// -----

// Functions without tfrt.io arguments are not entries: left alone.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%{{.*}}: memref<8xf32>)
// CHECK: scf.forall
func.func @helper(%a: memref<8xf32>) {
  scf.forall (%i) in (8) {
    %c = arith.constant 1.0 : f32
    memref.store %c, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// A task group (tfrt-async-group-tasks) is one launch: iterations [0, 4)
// are the loop's chunks, iteration 4 is the plain op. The cheap op between
// the members runs before the launch.
// CHECK-LABEL: func.func @g_compute
// CHECK: linalg.fill
// CHECK: %[[N:.*]] = arith.constant 5 : index
// CHECK: call @g_compute_par0_launch(%{{.*}}, %[[N]], %arg1, %arg2)
// CHECK-NOT: scf.forall
// CHECK-NOT: tfrt.task_group
// CHECK: func.func private @g_compute_par0_body(%[[B:.*]]: index, %[[E:.*]]: index,
// CHECK: arith.maxsi %[[B]], %[[C0:.*]] : index
// CHECK: arith.minsi %[[E]], %[[C4:.*]] : index
// CHECK: scf.for
// CHECK: memref.store
// CHECK: arith.maxsi %[[B]], %[[C4B:.*]] : index
// CHECK: arith.minsi %[[E]], %{{.*}} : index
// CHECK: scf.for
// CHECK: linalg.generic
func.func @g_compute(%a: memref<4xf32> {tfrt.io = "input"}, %b: memref<4xf32> {tfrt.io = "output"}, %c: memref<4xf32> {tfrt.io = "output"}) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i) in (4) {
    memref.store %one, %b[%i] : memref<4xf32>
  } {tfrt.task_group = 0 : i64}
  linalg.fill ins(%one : f32) outs(%a : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%c : memref<4xf32>) attrs = {tfrt.task_group = 0 : i64} {
  ^bb0(%o: f32):
    %y = arith.addf %o, %o : f32
    linalg.yield %y : f32
  }
  return
}
