// RUN: tfrt-opt %s -tfrt-approximate-math | FileCheck %s

// f32 transcendental functions become polynomial arithmetic, not calls.
// CHECK-LABEL: func.func @approx
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: return
func.func @approx(%x: f32) -> (f32, f32) {
  %t = math.tanh %x : f32
  %e = math.exp %x : f32
  return %t, %e : f32, f32
}
