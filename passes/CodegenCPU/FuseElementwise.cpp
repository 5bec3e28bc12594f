//===- FuseElementwise.cpp - elementwise fusion without recomputation -----===//
//
// Implements tfrt-fuse-elementwise: upstream's elementwise fusion and reshape
// propagation patterns (the set of linalg-fuse-elementwise-ops) with a
// control that keeps producers out of contractions that would recompute
// them (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Whether folding the producer of `operand` into its owner would evaluate
/// the producer more than once per element: the owner reads the operand
/// through a map that leaves some loops out and has reduction loops (a
/// convolution, a matrix product), or is an elementwise op of at least
/// kMinRecomputeIterations iterations and the producer computes something.
constexpr int64_t kMinRecomputeIterations = 65536;

bool recomputes(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  if (!consumer || consumer.getMatchingIndexingMap(operand).isPermutation())
    return false;
  if (consumer.getNumReductionLoops() != 0)
    return true;
  // An elementwise consumer that broadcasts the operand (a per-channel
  // scale over a feature map) would evaluate the producer's arithmetic once
  // per element of its larger iteration space; a producer that only moves
  // values (a broadcast, a transpose) costs nothing there. Below
  // kMinRecomputeIterations the separate small loop costs more than the
  // recomputation (PP-OCR cls, whose largest map has 36864 elements, ran
  // 4% slower with its squeeze-excitation scales kept apart).
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  if (!producer)
    return false;
  auto iterations = [](linalg::LinalgOp op) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t r : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(r))
        return std::nullopt;
      n *= r;
    }
    return n;
  };
  std::optional<int64_t> produced = iterations(producer);
  std::optional<int64_t> consumed = iterations(consumer);
  if (!produced || !consumed || *consumed <= *produced ||
      *consumed < kMinRecomputeIterations)
    return false;
  return llvm::any_of(
      producer.getBody()->without_terminator(),
      [](Operation &op) { return !isa<arith::ConstantOp>(op); });
}

struct FuseElementwisePass
    : public tfrt::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto countLinalg = [&] {
      int64_t n = 0;
      getOperation().walk([&](linalg::LinalgOp) { ++n; });
      return n;
    };
    int64_t before = countLinalg();
    numBefore += before;
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse() && !recomputes(operand);
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
    int64_t after = countLinalg();
    numAfter += after;
    if (remarks)
      getOperation().emitRemark()
          << "elementwise fusion: " << before << " linalg ops -> " << after;
  }
};
} // namespace
