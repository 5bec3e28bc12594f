//===- ApproximateMath.cpp - polynomial approximations of math ops --------===//
//
// Implements tfrt-approximate-math on top of MLIR's math approximation
// patterns.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace tfrt {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Builds float arithmetic on scalars or vectors of `type` (f32 or f64).
struct FloatBuilder {
  OpBuilder &b;
  Location loc;
  Type type;
  Value c(double v) {
    TypedAttr attr = b.getFloatAttr(getElementTypeOrSelf(type), v);
    if (auto vec = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vec, ArrayRef<Attribute>{attr});
    return arith::ConstantOp::create(b, loc, type, attr);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  /// c0 + z * (c1 + z * (c2 + ...)) (Horner).
  Value poly(Value z, ArrayRef<double> coeffs) {
    Value r = c(coeffs.back());
    for (double k : llvm::reverse(coeffs.drop_back()))
      r = add(mul(r, z), c(k));
    return r;
  }
};

/// The ops of the given types under `root` whose result is f32 (scalar or
/// vector), collected before any of them is rewritten.
template <typename... OpTys> SmallVector<Operation *> f32Ops(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<OpTys...>(op) &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      ops.push_back(op);
  });
  return ops;
}

/// The polynomial log and log2 clamp their argument to the smallest normal
/// float, so a subnormal x gave log(2^-126) (-87.34 for log(1e-45), whose
/// value is -103.28). Subnormal arguments are scaled by 2^24 first and the
/// result corrected by 24 * log(2) (or 24); zero, negative and NaN
/// arguments keep their results (-inf, NaN), as the scaling leaves them.
template <typename LogOpTy>
void scaleSubnormalArguments(Operation *root, double correction) {
  for (Operation *o : f32Ops<LogOpTy>(root)) {
    auto op = cast<LogOpTy>(o);
    OpBuilder b(op);
    FloatBuilder f{b, op.getLoc(), op.getType()};
    Value x = op.getOperand();
    Value small = f.cmp(arith::CmpFPredicate::OLT, x, f.c(0x1p-126));
    Value scaled = f.select(small, f.mul(x, f.c(0x1p24)), x);
    auto log = LogOpTy::create(b, f.loc, scaled, op.getFastmathAttr());
    Value result = f.select(small, f.sub(log, f.c(correction)), log);
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// The polynomial exp returns 0 where exp(x) is below the smallest normal
/// float (x < -87.34), though the float value is subnormal down to x =
/// -103.97 (exp(-100) = 3.8e-44). Arguments below -87 are raised by 32
/// first (exactly: x + 32 keeps x's bits for |x| in [64, 128)) and the
/// result scaled by exp(-32), one rounding into the subnormal range. -inf
/// still gives 0 and NaN NaN.
void subnormalExpResults(Operation *root) {
  for (Operation *o : f32Ops<math::ExpOp>(root)) {
    auto op = cast<math::ExpOp>(o);
    OpBuilder b(op);
    FloatBuilder f{b, op.getLoc(), op.getType()};
    Value x = op.getOperand();
    Value small = f.cmp(arith::CmpFPredicate::OLT, x, f.c(-87.0));
    Value raised = f.select(small, f.add(x, f.c(32.0)), x);
    auto exp = math::ExpOp::create(b, f.loc, raised, op.getFastmathAttr());
    Value result = f.select(small, f.mul(exp, f.c(std::exp(-32.0))), exp);
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// 2/pi in seven parts of 28 bits each (196 bits; their sum is 2/pi within
/// 2^-196), so that an f32 (24 significant bits) times any part is exact in
/// f64.
constexpr double kTwoOverPiParts[] = {
    0x1.45f306cp-1,   0x1.c9c882ap-29,  0x1.4fe13a8p-59, 0x1.f47d4d0p-86,
    0x1.bb81b6cp-113, 0x1.4acc9e0p-143, 0x1.0e4107cp-170};

/// x = k * pi/2 + r for an f32 `x` extended to f64 (`xd`, scalar or
/// vector): k an integer congruent to the quadrant, |r| <= pi/4 plus
/// rounding, both f64. Exact for every f32, Payne-Hanek style without a
/// table (gathers by exponent measured slower than the arithmetic): |x| *
/// 2/pi is the sum of the exact products |x| * part_i, each taken modulo 4
/// (p - 4 floor(p / 4), exact) and added with their rounding errors kept
/// (two-sum), so that the fraction keeps about 100 bits after k cancels;
/// the parts beyond the seventh would add less than 2^-68 for the largest
/// float. The sign of x goes to k and r. Infinities and NaN give NaN.
std::pair<Value, Value> reduceByHalfPi(FloatBuilder &d, Value xd) {
  OpBuilder &b = d.b;
  Location loc = d.loc;
  Value ax = math::AbsFOp::create(b, loc, xd);
  auto mod4 = [&](Value p) {
    Value whole = math::FloorOp::create(b, loc, d.mul(p, d.c(0.25)));
    return math::FmaOp::create(b, loc, d.c(-4.0), whole, p).getResult();
  };
  Value hi, lo;
  for (double part : kTwoOverPiParts) {
    Value r = mod4(d.mul(ax, d.c(part)));
    if (!hi) {
      hi = r;
      continue;
    }
    // (hi, err) = two-sum(hi, r).
    Value s = d.add(hi, r);
    Value bb = d.sub(s, hi);
    Value err = d.add(d.sub(hi, d.sub(s, bb)), d.sub(r, bb));
    hi = s;
    lo = lo ? d.add(lo, err) : err;
  }
  Value k = math::RoundEvenOp::create(b, loc, hi);
  Value r = d.mul(d.add(d.sub(hi, k), lo), d.c(M_PI / 2));
  Value neg = d.cmp(arith::CmpFPredicate::OLT, xd, d.c(0.0));
  return {d.select(neg, d.neg(k), k), d.select(neg, d.neg(r), r)};
}

/// sin and cos of f32. Upstream's polynomials reduce the argument by one
/// rounded pi/2, which left errors of 4e-7 at |x| = 6 and 6e-6 at |x| =
/// 100 (rotary and sinusoidal position encodings reach thousands). Here
/// the reduction is exact for every f32 (reduceByHalfPi, in f64), then r
/// (clamped to [-pi/4, pi/4], so that rounding cannot leave the polynomials'
/// interval) goes through the minimax polynomials of sin and cos on [-pi/4,
/// pi/4] (Cephes' sinf/cosf coefficients) in f32, and the quadrant k mod 4
/// picks +-sin r or +-cos r. Infinities and NaN give NaN, and sin keeps the
/// sign of a zero.
void expandSinCos(Operation *root) {
  for (Operation *op : f32Ops<math::SinOp, math::CosOp>(root)) {
    OpBuilder b(op);
    Type type = op->getResult(0).getType();
    Type wide = b.getF64Type();
    if (auto vec = dyn_cast<VectorType>(type))
      wide = vec.clone(b.getF64Type());
    FloatBuilder f{b, op->getLoc(), type};
    FloatBuilder d{b, op->getLoc(), wide};
    Location loc = f.loc;
    Value xd = arith::ExtFOp::create(b, loc, wide, op->getOperand(0));
    auto [k, rd] = reduceByHalfPi(d, xd);
    Value r = arith::TruncFOp::create(b, loc, type, rd);
    r = arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, r, f.c(-M_PI / 4)),
        f.c(M_PI / 4));
    Value z = f.mul(r, r);
    // sin r = r + r z P(z), cos r = 1 - z / 2 + z^2 Q(z).
    Value sinR = f.add(
        r, f.mul(f.mul(r, z), f.poly(z, {-1.6666654611e-1, 8.3321608736e-3,
                                         -1.9515295891e-4})));
    Value cosR = f.add(f.sub(f.c(1.0), f.mul(f.c(0.5), z)),
                       f.mul(f.mul(z, z), f.poly(z, {4.166664568298827e-2,
                                                     -1.388731625493765e-3,
                                                     2.443315711809948e-5})));
    // The quadrant q = k mod 4 in [0, 4), exact in f64.
    Value q = d.sub(
        k, d.mul(d.c(4.0), math::FloorOp::create(b, loc, d.mul(k, d.c(0.25)))));
    auto is = [&](double v) {
      return d.cmp(arith::CmpFPredicate::OEQ, q, d.c(v));
    };
    Value odd = f.orI(is(1.0), is(3.0));
    Value result;
    if (isa<math::SinOp>(op)) {
      // sin: q = 0: sin r, 1: cos r, 2: -sin r, 3: -cos r.
      Value v = f.select(odd, cosR, sinR);
      result = f.select(f.orI(is(2.0), is(3.0)), f.neg(v), v);
      // sin(+-0) = +-0 (the reduction's x - k * pi/2 lost the sign).
      result = f.select(
          f.cmp(arith::CmpFPredicate::OEQ, op->getOperand(0), f.c(0.0)),
          op->getOperand(0), result);
    } else {
      // cos: q = 0: cos r, 1: -sin r, 2: -cos r, 3: sin r.
      Value v = f.select(odd, sinR, cosR);
      result = f.select(f.orI(is(1.0), is(2.0)), f.neg(v), v);
    }
    // Infinities and NaN: NaN.
    Value x = op->getOperand(0);
    Value notFinite =
        f.cmp(arith::CmpFPredicate::UEQ, math::AbsFOp::create(b, loc, x),
              f.c(std::numeric_limits<double>::infinity()));
    result = f.select(notFinite, f.c(std::numeric_limits<double>::quiet_NaN()),
                      result);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// atan of f32: upstream's polynomial was off by up to 4e-6 relative (at
/// x = 0.66). The argument is reduced to |t| <= tan(pi/8) by
/// atan(a) = pi/2 + atan(-1/a) (a > tan(3 pi/8)) or pi/4 + atan((a - 1) /
/// (a + 1)) (a > tan(pi/8)), then t + t^3 P(t^2) (Cephes' atanf
/// coefficients), with the sign of x.
void expandAtan(Operation *root) {
  for (Operation *o : f32Ops<math::AtanOp>(root)) {
    auto op = cast<math::AtanOp>(o);
    OpBuilder b(op);
    FloatBuilder f{b, op.getLoc(), op.getType()};
    Value x = op.getOperand();
    Value a = math::AbsFOp::create(b, f.loc, x);
    Value big = f.cmp(arith::CmpFPredicate::OGT, a, f.c(2.414213562373095));
    Value mid = f.cmp(arith::CmpFPredicate::OGT, a, f.c(0.4142135623730950));
    Value base =
        f.select(big, f.c(M_PI / 2), f.select(mid, f.c(M_PI / 4), f.c(0.0)));
    Value t = f.select(
        big, f.neg(f.div(f.c(1.0), a)),
        f.select(mid, f.div(f.sub(a, f.c(1.0)), f.add(a, f.c(1.0))), a));
    Value z = f.mul(t, t);
    Value p = f.add(t, f.mul(f.mul(t, z),
                             f.poly(z, {-3.33329491539e-1, 1.99777106478e-1,
                                        -1.38776856032e-1, 8.05374449538e-2})));
    Value result =
        math::CopySignOp::create(b, f.loc, f.add(base, p), x).getResult();
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// erf(+-0) = +-0: upstream's polynomial returns +0 for -0. The op is kept
/// (upstream's patterns then rewrite it) behind a select on x == 0.
void keepErfZeroSign(Operation *root) {
  for (Operation *o : f32Ops<math::ErfOp>(root)) {
    auto op = cast<math::ErfOp>(o);
    OpBuilder b(op->getBlock(), std::next(op->getIterator()));
    FloatBuilder f{b, op.getLoc(), op.getType()};
    Value x = op.getOperand();
    Value result = f.select(f.cmp(arith::CmpFPredicate::OEQ, x, f.c(0.0)), x,
                            op.getResult());
    op.getResult().replaceAllUsesExcept(result, result.getDefiningOp());
  }
}

struct ApproximateMathPass
    : public tfrt::impl::ApproximateMathBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // Functions with f32 transcendentals (before they are rewritten).
    SmallVector<func::FuncOp> wide;
    if (wideVectors)
      getOperation()->walk([&](func::FuncOp f) {
        WalkResult found = f.walk([](Operation *op) {
          if (isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                  math::Log1pOp, math::Log2Op, math::TanhOp, math::ErfOp,
                  math::ErfcOp, math::SinOp, math::CosOp, math::AtanOp,
                  math::Atan2Op, math::AsinOp, math::AcosOp>(op) &&
              getElementTypeOrSelf(op->getResult(0).getType()).isF32())
            return WalkResult::interrupt();
          return WalkResult::advance();
        });
        if (found.wasInterrupted())
          wide.push_back(f);
      });
    expandSinCos(getOperation());
    expandAtan(getOperation());
    keepErfZeroSign(getOperation());
    subnormalExpResults(getOperation());
    scaleSubnormalArguments<math::LogOp>(getOperation(), 24 * M_LN2);
    scaleSubnormalArguments<math::Log2Op>(getOperation(), 24);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Their polynomials are compute-bound: let LLVM's loop vectorizer use
    // the widest vectors (it prefers 256 bits on AVX-512 cores otherwise).
    MLIRContext *ctx = &getContext();
    for (func::FuncOp f : wide) {
      SmallVector<Attribute> entries;
      if (auto old = f->getAttrOfType<ArrayAttr>("passthrough"))
        entries.assign(old.begin(), old.end());
      bool present = llvm::any_of(entries, [](Attribute e) {
        auto pair = dyn_cast<ArrayAttr>(e);
        return pair && pair.size() == 2 &&
               pair[0] ==
                   StringAttr::get(e.getContext(), "prefer-vector-width");
      });
      if (present)
        continue;
      entries.push_back(
          ArrayAttr::get(ctx, {StringAttr::get(ctx, "prefer-vector-width"),
                               StringAttr::get(ctx, "512")}));
      f->setAttr("passthrough", ArrayAttr::get(ctx, entries));
    }
  }
};
} // namespace
