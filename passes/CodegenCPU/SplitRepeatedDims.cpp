//===- SplitRepeatedDims.cpp - repeated reads as an inner loop ------------===//
//
// Implements tfrt-split-repeated-dims: an elementwise generic (on buffers)
// that reads an input at `w floordiv f` along the output's contiguous
// dimension `w` (a nearest resize fused into its consumers) iterates `w` as
// (w', j) with w = f * w' + j instead (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_SPLITREPEATEDDIMS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// A loop `w` (of the output's contiguous dimension) that some input reads
/// at `w floordiv factor`.
struct Repeat {
  unsigned loop;
  int64_t factor;
};

/// The repeated loop of `op`, if `op` qualifies: all loops parallel, one
/// init written through a permutation, every operand using `w` only as its
/// last result (plainly or divided by the factor), `w`'s extent a multiple
/// of the factor, no linalg.index of `w` in the body.
std::optional<Repeat> repeatedLoop(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumLoops() == 0)
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isPermutation())
    return std::nullopt;
  unsigned w = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  std::optional<int64_t> factor;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return std::nullopt;
    AffineMap m = op.getMatchingIndexingMap(&operand);
    for (auto [i, e] : llvm::enumerate(m.getResults())) {
      if (!e.isFunctionOfDim(w))
        continue;
      if (i + 1 != m.getNumResults())
        return std::nullopt;
      if (e == getAffineDimExpr(w, op.getContext()))
        continue;
      auto div = dyn_cast<AffineBinaryOpExpr>(e);
      auto f = div ? dyn_cast<AffineConstantExpr>(div.getRHS()) : nullptr;
      if (!div || e.getKind() != AffineExprKind::FloorDiv || !f ||
          div.getLHS() != getAffineDimExpr(w, op.getContext()) ||
          f.getValue() < 2 || (factor && *factor != f.getValue()))
        return std::nullopt;
      factor = f.getValue();
    }
  }
  if (!factor)
    return std::nullopt;
  int64_t extent = op.getStaticLoopRanges()[w];
  if (ShapedType::isDynamic(extent) || extent % *factor)
    return std::nullopt;
  bool indexesW = false;
  op.getBody()->walk(
      [&](linalg::IndexOp index) { indexesW |= index.getDim() == w; });
  if (indexesW)
    return std::nullopt;
  return Repeat{w, *factor};
}

/// Rewrites `op` with loop w split into (w', j), w' in w's place and j a new
/// last loop: operands read plainly at w are expanded to [..., W / f, f]
/// and read at (w', j), operands read at w floordiv f are read at w'.
void split(RewriterBase &rewriter, linalg::GenericOp op, Repeat repeat) {
  MLIRContext *ctx = op.getContext();
  unsigned w = repeat.loop, loops = op.getNumLoops() + 1;
  int64_t f = repeat.factor;
  AffineExpr wOuter = getAffineDimExpr(w, ctx),
             j = getAffineDimExpr(loops - 1, ctx);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    AffineMap m = op.getMatchingIndexingMap(&operand);
    SmallVector<AffineExpr> results(m.getResults());
    if (!results.empty() && results.back() == getAffineDimExpr(w, ctx)) {
      auto type = cast<MemRefType>(v.getType());
      int64_t rank = type.getRank();
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0; i + 1 < rank; ++i)
        groups.push_back({i});
      groups.push_back({rank - 1, rank});
      SmallVector<int64_t> shape(type.getShape());
      shape.back() /= f;
      shape.push_back(f);
      v = memref::ExpandShapeOp::create(rewriter, loc, shape, v, groups);
      results.back() = wOuter;
      results.push_back(j);
    } else if (!results.empty() && results.back().isFunctionOfDim(w)) {
      results.back() = wOuter;
    }
    operands.push_back(v);
    maps.push_back(AffineMap::get(loops, 0, results, ctx));
  }
  SmallVector<utils::IteratorType> iters(loops, utils::IteratorType::parallel);
  unsigned numInputs = op.getNumDpsInputs();
  auto split = linalg::GenericOp::create(
      rewriter, loc, TypeRange{},
      ArrayRef<Value>(operands).take_front(numInputs),
      ArrayRef<Value>(operands).drop_front(numInputs), maps, iters);
  rewriter.inlineRegionBefore(op.getRegion(), split.getRegion(),
                              split.getRegion().begin());
  rewriter.eraseOp(op);
}

struct SplitRepeatedDimsPass
    : public tfrt::impl::SplitRepeatedDimsBase<SplitRepeatedDimsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Repeat>> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Repeat> repeat = repeatedLoop(op))
        ops.push_back({op, *repeat});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, repeat] : ops)
      split(rewriter, op, repeat);
  }
};
} // namespace
