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
          if (op->getDialect() && isa<math::MathDialect>(op->getDialect()) &&
              op->getNumResults() == 1 &&
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
      entries.push_back(
          ArrayAttr::get(ctx, {StringAttr::get(ctx, "prefer-vector-width"),
                               StringAttr::get(ctx, "512")}));
      f->setAttr("passthrough", ArrayAttr::get(ctx, entries));
    }
  }
};
} // namespace
