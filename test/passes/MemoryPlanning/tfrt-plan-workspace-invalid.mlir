// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-plan-workspace

func.func @dynamic(%in: memref<?xf32> {tfrt.io = "input"}, %n: index) {
  // expected-error @below {{cannot place allocation of type 'memref<?xf32>' in the static workspace}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %in, %a : memref<?xf32> to memref<?xf32>
  return
}

// -----

func.func @in_loop(%in: memref<8xf32> {tfrt.io = "input"}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{allocation inside a nested region cannot be planned statically}}
    %a = memref.alloc() : memref<8xf32>
    memref.copy %in, %a : memref<8xf32> to memref<8xf32>
  }
  return
}

// -----

func.func @dynamic_chunks(%in: memref<8xf32> {tfrt.io = "input"}, %n: index) {
  scf.forall (%i) in (%n) {
    // expected-error @below {{allocation inside a nested region cannot be planned statically}}
    %a = memref.alloc() : memref<8xf32>
    memref.copy %in, %a : memref<8xf32> to memref<8xf32>
  }
  return
}
