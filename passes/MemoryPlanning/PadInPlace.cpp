//===- PadInPlace.cpp - producers write into their padded buffer ----------===//
//
// Implements tfrt-pad-in-place: a constant tensor.pad of a value that only
// the pad uses, produced by a linalg op that does not read its init (or that
// accumulates into the result of one, such as a convolution into its bias
// broadcast), becomes that op writing the interior of the padded tensor
// directly; only the border is filled (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_PADINPLACE
#include "passes/MemoryPlanning/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// The linalg op whose only init `v` is the result of, if that op does not
/// read the init (elementwise ops writing a fresh result), else null.
linalg::LinalgOp writerOf(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1)
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.payloadUsesValueFromOperand(init))
    return nullptr;
  return op;
}

/// The op that writes the padded value `v` first: the linalg op producing
/// `v` when it does not read its init, else (an accumulation such as a
/// convolution) the op producing that init when it does not read its own
/// init and only the accumulation uses it (a bias broadcast or a fill).
/// The accumulation then runs in place on the interior as well.
linalg::LinalgOp firstWriterOf(Value v) {
  if (linalg::LinalgOp op = writerOf(v))
    return op;
  auto acc = v.getDefiningOp<linalg::LinalgOp>();
  if (!acc || !acc.hasPureTensorSemantics() || acc->getNumResults() != 1 ||
      acc.getNumDpsInits() != 1)
    return nullptr;
  Value init = acc.getDpsInitOperand(0)->get();
  if (!init.hasOneUse())
    return nullptr;
  linalg::LinalgOp first = writerOf(init);
  if (!first || first->getBlock() != acc->getBlock())
    return nullptr;
  return first;
}

LogicalResult padInPlace(RewriterBase &rewriter, tensor::PadOp pad) {
  Value src = pad.getSource();
  auto srcType = dyn_cast<RankedTensorType>(src.getType());
  RankedTensorType type = pad.getResultType();
  Value value = pad.getConstantPaddingValue();
  if (!srcType || !srcType.hasStaticShape() || !type.hasStaticShape() ||
      !value || pad.getNofold())
    return failure();
  // Other users may read the unpadded value where it then lies, in the
  // interior of the padded buffer, when they take any strides: all-parallel
  // linalg ops reading it as an input (elementwise ops, nearest upsamplings).
  // Not convolutions: a 1x1 one becomes a matrix product over the collapsed
  // map, which would need its own contiguous copy.
  for (OpOperand &use : src.getUses()) {
    if (use.getOwner() == pad.getOperation())
      continue;
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!user || !user.isDpsInput(&use) || user.getNumReductionLoops() != 0)
      return failure();
  }
  linalg::LinalgOp writer = firstWriterOf(src);
  if (!writer)
    return failure();
  std::optional<SmallVector<int64_t>> low =
      getConstantIntValues(pad.getMixedLowPad());
  std::optional<SmallVector<int64_t>> high =
      getConstantIntValues(pad.getMixedHighPad());
  if (!low || !high || llvm::any_of(*low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(*high, [](int64_t v) { return v < 0; }))
    return failure();

  // The padding value may be defined after the writer (it is usually a
  // constant); build everything right before the writer.
  if (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() == writer->getBlock()) {
      if (!def->isBeforeInBlock(writer)) {
        if (!isa<arith::ConstantOp>(def))
          return failure();
        rewriter.moveOpBefore(def, writer);
      }
    } else if (!def->getParentRegion()->isProperAncestor(
                   writer->getParentRegion())) {
      return failure();
    }
  }
  MLIRContext *ctx = rewriter.getContext();
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(writer);
  int64_t rank = type.getRank();
  ArrayRef<int64_t> full = type.getShape();
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  SmallVector<int64_t> ones(rank, 1);
  // An alloc_tensor, not a tensor.empty: CSE would merge the border-filled
  // tensors of two pads of the same shape (det's four 5x5 depthwise convs on
  // 192x40x40), and bufferization would then copy the whole padded tensor,
  // border and all, for each of them but one.
  Value padded = bufferization::AllocTensorOp::create(
      rewriter, loc, RankedTensorType::get(full, type.getElementType()),
      ValueRange{});
  // The border: along each padded dim, the low and the high slab across all
  // the other dims (corners are filled twice, with the same value).
  auto fillSlab = [&](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    Value slab = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(sizes, type.getElementType()),
        padded, idx(offsets), idx(sizes), idx(ones));
    Value filled =
        linalg::FillOp::create(rewriter, loc, value, slab).getResult(0);
    padded = tensor::InsertSliceOp::create(rewriter, loc, filled, padded,
                                           idx(offsets), idx(sizes), idx(ones));
  };
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<int64_t> offsets(rank, 0), sizes(full);
    if ((*low)[d] > 0) {
      sizes[d] = (*low)[d];
      fillSlab(offsets, sizes);
    }
    if ((*high)[d] > 0) {
      offsets[d] = (*low)[d] + srcType.getDimSize(d);
      sizes[d] = (*high)[d];
      fillSlab(offsets, sizes);
    }
  }
  Value interior =
      tensor::ExtractSliceOp::create(rewriter, loc, srcType, padded, idx(*low),
                                     idx(srcType.getShape()), idx(ones));
  rewriter.modifyOpInPlace(writer,
                           [&] { writer.getDpsInitOperand(0)->set(interior); });
  rewriter.setInsertionPoint(pad);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      pad, src, padded, idx(*low), idx(srcType.getShape()), idx(ones));
  return success();
}

struct PadInPlacePass : public tfrt::impl::PadInPlaceBase<PadInPlacePass> {
  using PadInPlaceBase::PadInPlaceBase;

  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    IRRewriter rewriter(&getContext());
    for (tensor::PadOp pad : pads)
      (void)padInPlace(rewriter, pad);
  }
};
} // namespace
