//===- InterchangeLoops.cpp - contiguous dimension innermost --------------===//
//
// Implements tfrt-interchange-loops: permutes the iterators of reduction
// generics so that the output's contiguous dimension is the innermost loop
// (see Passes.td for the rule and its rationale).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_INTERCHANGELOOPS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// The parallel dimension to move innermost, if the rule applies.
std::optional<unsigned> innermostCandidate(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (iters.empty() || !linalg::isReductionIterator(iters.back()))
    return std::nullopt;
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last || !linalg::isParallelIterator(iters[last.getPosition()]))
    return std::nullopt;
  unsigned dim = last.getPosition();
  // Some input must also walk contiguous memory along `dim`.
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (m.getNumResults() == 0)
      continue;
    if (m.getResults().back().isFunctionOfDim(dim))
      return dim;
  }
  return std::nullopt;
}

struct InterchangeLoopsPass
    : public tfrt::impl::InterchangeLoopsBase<InterchangeLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      std::optional<unsigned> dim = innermostCandidate(op);
      if (!dim)
        continue;
      SmallVector<unsigned> perm;
      for (unsigned i = 0; i < op.getNumLoops(); ++i)
        if (i != *dim)
          perm.push_back(i);
      perm.push_back(*dim);
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, perm);
    }
  }
};
} // namespace
