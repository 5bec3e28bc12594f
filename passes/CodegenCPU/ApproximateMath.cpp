//===- ApproximateMath.cpp - polynomial approximations of math ops --------===//
//
// Implements tfrt-approximate-math on top of MLIR's math approximation
// patterns.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

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
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
