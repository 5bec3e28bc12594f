// RUN: tfrt-opt %s -verify-diagnostics -tfrt-plan-workspace

func.func @dynamic(%in: memref<?xf32> {tfrt.io = "input"}, %n: index) {
  // expected-error @below {{cannot place allocation of type 'memref<?xf32>' in the static workspace}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %in, %a : memref<?xf32> to memref<?xf32>
  return
}
