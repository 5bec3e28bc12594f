//===- ApproximateMath.cpp - polynomial approximations of math ops --------===//
//
// Implements tfrt-approximate-math on top of MLIR's math approximation
// patterns.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
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
