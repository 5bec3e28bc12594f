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

// -----

// sin and cos: the argument reduced exactly in f64 (|x| times seven 28-bit
// parts of 2/pi, 0.63661976903676987 first, each product modulo 4 by a
// floor and an fma, summed with two-sum), r back in f32 and clamped to
// [-pi/4, pi/4], the quadrant k mod 4 selecting +-sin r or +-cos r;
// infinities and NaN give NaN.
// CHECK-LABEL: func.func @sin_cos
// CHECK-NOT: math.sin
// CHECK-NOT: math.cos
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0.63661976903676987> : vector<16xf64>
// CHECK-DAG: %[[C1:.*]] = arith.constant dense<3.3308114738561656E-9> : vector<16xf64>
// CHECK-DAG: %[[C6:.*]] = arith.constant dense<7.0539591744042953E-52> : vector<16xf64>
// CHECK-DAG: %[[QUARTER:.*]] = arith.constant dense<2.500000e-01> : vector<16xf64>
// CHECK-DAG: %[[MINUS4:.*]] = arith.constant dense<-4.000000e+00> : vector<16xf64>
// CHECK: %[[XD:.*]] = arith.extf %[[X:.*]] : vector<16xf32> to vector<16xf64>
// CHECK: %[[AX:.*]] = math.absf %[[XD]] : vector<16xf64>
// CHECK: %[[P0:.*]] = arith.mulf %[[AX]], %[[C0]] : vector<16xf64>
// CHECK: %[[Q0:.*]] = arith.mulf %[[P0]], %[[QUARTER]] : vector<16xf64>
// CHECK: %[[F0:.*]] = math.floor %[[Q0]] : vector<16xf64>
// CHECK: %[[R0:.*]] = math.fma %[[MINUS4]], %[[F0]], %[[P0]] : vector<16xf64>
// CHECK: %[[P1:.*]] = arith.mulf %[[AX]], %[[C1]] : vector<16xf64>
// CHECK: %[[R1:.*]] = math.fma %[[MINUS4]], %{{.*}}, %[[P1]] : vector<16xf64>
// CHECK: %[[S:.*]] = arith.addf %[[R0]], %[[R1]] : vector<16xf64>
// CHECK: %[[BB:.*]] = arith.subf %[[S]], %[[R0]] : vector<16xf64>
// CHECK: arith.mulf %[[AX]], %[[C6]] : vector<16xf64>
// CHECK: %[[K:.*]] = math.roundeven %{{.*}} : vector<16xf64>
// CHECK: arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.floor %{{.*}} : vector<16xf64>
// CHECK: arith.select
// CHECK: arith.cmpf ueq, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: return
func.func @sin_cos(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %s = math.sin %x : vector<16xf32>
  %c = math.cos %x : vector<16xf32>
  return %s, %c : vector<16xf32>, vector<16xf32>
}

// -----

// atan: the argument reduced by tan(pi/8) and tan(3 pi/8), the sign of x.
// CHECK-LABEL: func.func @atan
// CHECK-NOT: math.atan
// CHECK: math.absf
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK: math.copysign
// CHECK: return
func.func @atan(%x: f32) -> f32 {
  %a = math.atan %x : f32
  return %a : f32
}

// -----

// log and log2 of subnormal arguments (below 2^-126): scaled by 2^24
// (0x4B800000) first, the result corrected by 24 * log(2) or 24 (the
// polynomial clamps its argument to the smallest normal float).
// CHECK-LABEL: func.func @log_subnormal
// CHECK-NOT: math.log
// CHECK-DAG: %[[C24:.*]] = arith.constant 2.400000e+01 : f32
// CHECK-DAG: %[[CLN:.*]] = arith.constant 16.6355324 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK-DAG: %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[X:.*]], %[[MIN]] : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK: arith.select %[[SMALL]], %[[SCALED]], %[[X]] : f32
// CHECK: arith.subf %{{.*}}, %[[CLN]] : f32
// CHECK: arith.subf %{{.*}}, %[[C24]] : f32
// CHECK: return
func.func @log_subnormal(%x: f32) -> (f32, f32) {
  %l = math.log %x : f32
  %l2 = math.log2 %x : f32
  return %l, %l2 : f32, f32
}

// -----

// erf keeps the sign of a zero: the polynomial's result behind a select on
// x == 0 (upstream's gave +0 for -0).
// CHECK-LABEL: func.func @erf_zero
// CHECK-NOT: math.erf
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %[[X:.*]], %{{.*}} : f32
// CHECK: arith.select %[[ZERO]], %[[X]], %{{.*}} : f32
// CHECK: return
func.func @erf_zero(%x: f32) -> f32 {
  %e = math.erf %x : f32
  return %e : f32
}

// -----

// exp with subnormal results: arguments below -87 are raised by 32 before
// the polynomial (which returns 0 where exp(x) < 2^-126) and its result is
// scaled by exp(-32), one rounding into the subnormal range.
// CHECK-LABEL: func.func @exp_subnormal
// CHECK-NOT: math.exp
// CHECK-DAG: %[[LOW:.*]] = arith.constant -8.700000e+01 : f32
// CHECK-DAG: %[[C32:.*]] = arith.constant 3.200000e+01 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.26641658E-14 : f32
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[X:.*]], %[[LOW]] : f32
// CHECK: %[[RAISED:.*]] = arith.addf %[[X]], %[[C32]] : f32
// CHECK: arith.select %[[SMALL]], %[[RAISED]], %[[X]] : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[Y:.*]], %[[SCALE]] : f32
// CHECK: arith.select %[[SMALL]], %[[SCALED]], %[[Y]] : f32
// CHECK: return
func.func @exp_subnormal(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
