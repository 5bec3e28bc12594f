// RUN: tfrt-opt %s -split-input-file -tfrt-lower-checks | FileCheck %s

// A check in the entry becomes a report to the runtime through the run
// context argument (here added by tfrt-async-outline): the message a
// constant string of the module, the call under `scf.if` on the failure.
// CHECK-DAG: func.func private @tfrt_run_report_error(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global internal constant @tfrt_check_message_0("node 'g' (Gather): an index is outside [-3, 3)\00")
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: %[[CTX:[a-z0-9]+]]: !llvm.ptr {tfrt.run})
// CHECK-NOT: cf.assert
// CHECK: %[[OK:.*]] = memref.load
// CHECK: %[[FAILED:.*]] = arith.xori %[[OK]], %true : i1
// CHECK: scf.if %[[FAILED]] {
// CHECK: %[[MSG:.*]] = llvm.mlir.addressof @tfrt_check_message_0 : !llvm.ptr
// CHECK: func.call @tfrt_run_report_error(%[[CTX]], %[[MSG]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: return
func.func @m_compute(%i: memref<2xi64> {tfrt.io = "input"}, %ok: memref<i1> {tfrt.io = "workspace"}, %run: !llvm.ptr {tfrt.run}) {
  %b = memref.load %ok[] : memref<i1>
  cf.assert %b, "node 'g' (Gather): an index is outside [-3, 3)"
  return
}

// -----

// Without a run context argument (a --parallel=off build) the pass appends
// one; two checks get two messages.
// CHECK-DAG: llvm.mlir.global internal constant @tfrt_check_message_0("first\00")
// CHECK-DAG: llvm.mlir.global internal constant @tfrt_check_message_1("second\00")
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: (%{{.*}}: memref<i1> {tfrt.io = "workspace"}, %[[CTX:[a-z0-9]+]]: !llvm.ptr {tfrt.run})
// CHECK: func.call @tfrt_run_report_error(%[[CTX]], %{{.*}})
// CHECK: func.call @tfrt_run_report_error(%[[CTX]], %{{.*}})
func.func @m_compute(%ok: memref<i1> {tfrt.io = "workspace"}) {
  %b = memref.load %ok[] : memref<i1>
  cf.assert %b, "first"
  cf.assert %b, "second"
  return
}

// -----

// A module without checks is left alone.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: tfrt_run_report_error
func.func @plain(%x: memref<2xf32> {tfrt.io = "input"}) {
  return
}
