//===- LowerVectors.cpp - vector lowering for CPU code generation ---------===//
//
// Implements tfrt-lower-vectors: contraction -> outer products -> FMAs, the
// portable lowerings of the other multi-dimensional vector ops, and transfer
// lowering to rank 1 (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_LOWERVECTORS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
struct LowerVectorsPass
    : public tfrt::impl::LowerVectorsBase<LowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool any = false;
    getOperation().walk([&](Operation *op) {
      if (isa<vector::VectorDialect>(op->getDialect()))
        any = true;
    });
    if (!any)
      return;
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      for (RegisteredOperationName name : ctx->getRegisteredOperations())
        name.getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      VectorTransferToSCFOptions opts;
      opts.setTargetRank(1);
      opts.enableFullUnroll();
      populateVectorToSCFConversionPatterns(patterns, opts);
      for (RegisteredOperationName name : ctx->getRegisteredOperations())
        name.getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
