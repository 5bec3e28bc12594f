// RUN: tfrt-opt %s -split-input-file -tfrt-approximate-math | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-approximate-math="wide-vectors=false" | FileCheck %s --check-prefix=NARROW

// f32 transcendental functions become polynomial arithmetic, not calls, and
// the function asks LLVM for 512-bit vectors (wide-vectors).
// CHECK-LABEL: func.func @approx
// CHECK-SAME: passthrough = {{\[\["prefer-vector-width", "512"\]\]}}
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: return
// NARROW-LABEL: func.func @approx
// NARROW-NOT: passthrough
// NARROW: return
func.func @approx(%x: f32) -> (f32, f32) {
  %t = math.tanh %x : f32
  %e = math.exp %x : f32
  return %t, %e : f32, f32
}

// -----

// An existing passthrough list keeps its entries, and a width already
// asked for stays; a function without transcendentals (a square root is
// an instruction) gets nothing.
// CHECK-LABEL: func.func @keeps
// CHECK-SAME: passthrough = {{\["noinline", \["prefer-vector-width", "512"\]\]}}
// CHECK-LABEL: func.func @given
// CHECK-SAME: passthrough = {{\[\["prefer-vector-width", "256"\]\]}}
// CHECK-LABEL: func.func @plain
// CHECK-NOT: passthrough
// CHECK: return
func.func @keeps(%x: vector<16xf32>) -> vector<16xf32> attributes {passthrough = ["noinline"]} {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}
func.func @given(%x: f32) -> f32 attributes {passthrough = [["prefer-vector-width", "256"]]} {
  %e = math.exp %x : f32
  return %e : f32
}
func.func @plain(%x: f32) -> f32 {
  %y = math.sqrt %x : f32
  return %y : f32
}
