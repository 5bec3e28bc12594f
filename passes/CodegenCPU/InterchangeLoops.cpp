//===- InterchangeLoops.cpp - contiguous dimension innermost --------------===//
//
// Implements tfrt-interchange-loops: permutes the iterators of reduction
// generics so that the output's contiguous dimension is the innermost loop,
// and those of all-parallel generics that write a transposed layout so that
// their loops follow the output's memory order (see Passes.td for the rules
// and their rationale).
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

/// For an all-parallel generic with one init written through a permutation
/// other than the identity whose last result is already the innermost loop
/// (a copy or upsampling into a transposed layout, e.g. the rows-outer
/// [N, H, C, W] input of a convolution written from NCHW): the order of the
/// loops that makes that map the identity, so that the outer loops walk the
/// output in its memory order. Empty when the rule does not apply.
SmallVector<unsigned> outputOrder(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
    return {};
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isPermutation() || outMap.isIdentity())
    return {};
  SmallVector<unsigned> perm;
  for (AffineExpr e : outMap.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  if (perm.back() != op.getNumLoops() - 1)
    return {};
  return perm;
}

struct InterchangeLoopsPass
    : public tfrt::impl::InterchangeLoopsBase<InterchangeLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<unsigned> order = outputOrder(op);
      if (!order.empty()) {
        rewriter.setInsertionPoint(op);
        (void)linalg::interchangeGenericOp(rewriter, op, order);
        continue;
      }
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
