//===- FuseConvTransposePairs.cpp - two upsampling convs over bands ------===//
//
// Implements tfrt-fuse-conv-transpose-pairs: a ConvTranspose whose kernel
// equals its stride (with its elementwise epilogue) whose only consumer is
// another such ConvTranspose (with its epilogue) runs as one scf.forall of
// chunks of the first one's input rows, each chunk a loop over bands of a
// few rows: the band of the first one's outputs goes into a scratch tensor
// that stays in the core's cache, and the second one reads it from there
// (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Bands.h"
#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_FUSECONVTRANSPOSEPAIRS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using tfrt::conv::isConvTransposeGeneric;

namespace {

/// The collapse of a ConvTranspose's 6-D result [N, M, IH, KH, IW, KW]
/// into the image [N, M, IH * KH, IW * KW].
const SmallVector<ReassociationIndices> &imageDims() {
  static const SmallVector<ReassociationIndices> dims = {
      {0}, {1}, {2, 3}, {4, 5}};
  return dims;
}

/// One ConvTranspose of a pair: the generic, the op computing its init (a
/// fill or a per-channel broadcast) and its optional elementwise epilogue
/// on the 6-D result.
struct Stage {
  linalg::GenericOp conv;
  Operation *init = nullptr;
  linalg::GenericOp epilogue;

  /// The stage's last 6-D result.
  Value result() { return (epilogue ? epilogue : conv)->getResult(0); }
};

struct Pair {
  Stage first, second;
  /// The first stage's result collapsed into the image the second reads.
  tensor::CollapseShapeOp mid;
  /// The second stage's result collapsed into the pair's result.
  tensor::CollapseShapeOp out;
};

/// The elementwise consumer of ConvTranspose `conv` on its 6-D result, if
/// it has one that can run on bands: directly, or a consumer of the image
/// rebuilt on the 6-D shape (expandConvTransposeConsumer). With `apply`
/// false nothing is rebuilt: returns the 6-D consumer or, for an image
/// consumer that would be rebuilt, `conv` itself as a marker.
linalg::GenericOp epilogueOf(RewriterBase &rewriter, linalg::GenericOp conv,
                             bool apply) {
  Value r = conv->getResult(0);
  if (!r.hasOneUse())
    return {};
  Operation *user = *r.user_begin();
  if (auto g = dyn_cast<linalg::GenericOp>(user))
    return tfrt::bands::bandableElementwise(g, r, /*fullInputs=*/false)
               ? g
               : linalg::GenericOp();
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
  if (!collapse || collapse.getReassociationIndices() != imageDims() ||
      !collapse->hasOneUse())
    return {};
  // The consumer of the image: every other input read at no position past
  // the channel (the rebuilt op then needs no band of another tensor).
  auto g = dyn_cast<linalg::GenericOp>(*collapse->user_begin());
  if (!g || g.getNumLoops() != 4)
    return {};
  for (OpOperand *in : g.getDpsInputOperands())
    if (in->get() != collapse.getResult() &&
        !tfrt::codegen::readsChannelsOnly(g.getMatchingIndexingMap(in)))
      return {};
  if (!apply)
    return conv;
  linalg::GenericOp g6 =
      tfrt::conv::expandConvTransposeConsumer(rewriter, conv);
  return g6 && tfrt::bands::bandableElementwise(g6, r, /*fullInputs=*/false)
             ? g6
             : linalg::GenericOp();
}

/// Whether `conv` can be a stage: batch 1, its init recomputable on a band.
bool stageConv(linalg::GenericOp conv, Operation *&init) {
  if (!conv || !isConvTransposeGeneric(conv) ||
      cast<RankedTensorType>(conv->getResult(0).getType()).getDimSize(0) != 1)
    return false;
  init = tfrt::codegen::recomputableChannelInit(conv.getDpsInits()[0]);
  return init != nullptr;
}

/// Matches the pair that starts at `first` (without changing the IR).
/// `minBytes` bounds the first stage's result from below.
bool matchPair(RewriterBase &rewriter, linalg::GenericOp first,
               int64_t minBytes) {
  Operation *init = nullptr;
  if (!stageConv(first, init))
    return false;
  auto type = cast<RankedTensorType>(first->getResult(0).getType());
  if (type.getNumElements() * 4 < minBytes)
    return false;
  linalg::GenericOp e1 = epilogueOf(rewriter, first, /*apply=*/false);
  if (!e1)
    return false;
  // The image the second stage reads: the collapse of the epilogue's
  // result (a 6-D consumer), or the image consumer's result.
  Value image;
  if (e1 == first) {
    auto collapse = cast<tensor::CollapseShapeOp>(*first->user_begin());
    image = (*collapse->user_begin())->getResult(0);
  } else {
    Value r = e1->getResult(0);
    if (!r.hasOneUse())
      return false;
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(*r.user_begin());
    if (!collapse || collapse.getReassociationIndices() != imageDims())
      return false;
    image = collapse.getResult();
  }
  if (!image.hasOneUse())
    return false;
  auto second = dyn_cast<linalg::GenericOp>(*image.user_begin());
  Operation *init2 = nullptr;
  if (!stageConv(second, init2) || second.getDpsInputs()[0] != image ||
      second->getBlock() != first->getBlock())
    return false;
  // The second stage ends in the image of its (optional) epilogue.
  linalg::GenericOp e2 = epilogueOf(rewriter, second, /*apply=*/false);
  if (e2 && e2 != second) {
    Value r = e2->getResult(0);
    return r.hasOneUse() && isa<tensor::CollapseShapeOp>(*r.user_begin()) &&
           cast<tensor::CollapseShapeOp>(*r.user_begin())
                   .getReassociationIndices() == imageDims();
  }
  if (e2)
    return true;
  // No epilogue: the 6-D result itself goes into its image.
  Value r = second->getResult(0);
  return r.hasOneUse() && isa<tensor::CollapseShapeOp>(*r.user_begin()) &&
         cast<tensor::CollapseShapeOp>(*r.user_begin())
                 .getReassociationIndices() == imageDims();
}

/// Builds the pair that matchPair accepted: image consumers are rebuilt on
/// the 6-D shapes.
std::optional<Pair> buildPair(RewriterBase &rewriter, linalg::GenericOp first) {
  Pair p;
  p.first.conv = first;
  stageConv(first, p.first.init);
  p.first.epilogue = epilogueOf(rewriter, first, /*apply=*/true);
  if (!p.first.epilogue)
    return std::nullopt;
  p.mid = cast<tensor::CollapseShapeOp>(*p.first.result().user_begin());
  p.second.conv = cast<linalg::GenericOp>(*p.mid->user_begin());
  stageConv(p.second.conv, p.second.init);
  if (epilogueOf(rewriter, p.second.conv, /*apply=*/false)) {
    p.second.epilogue = epilogueOf(rewriter, p.second.conv, /*apply=*/true);
    if (!p.second.epilogue)
      return std::nullopt;
  }
  p.out = cast<tensor::CollapseShapeOp>(*p.second.result().user_begin());
  return p;
}

/// Replaces the pair by an scf.forall of `chunks` chunks of the first
/// stage's input rows, each a loop over bands of `band` of them.
void rewritePair(RewriterBase &rewriter, Pair p, int64_t band, int64_t chunks) {
  Location loc = p.second.conv.getLoc();
  auto inTy = cast<RankedTensorType>(p.first.conv.getDpsInputs()[0].getType());
  auto firstTy = cast<RankedTensorType>(p.first.conv->getResult(0).getType());
  auto secondTy = cast<RankedTensorType>(p.second.conv->getResult(0).getType());
  auto outTy = p.out.getResultType();
  // Output rows per input row of the first stage.
  int64_t kh1 = firstTy.getDimSize(3), kh2 = secondTy.getDimSize(3);
  int64_t up = kh1 * kh2;
  int64_t rows = inTy.getDimSize(2), chunkRows = rows / chunks;
  int64_t m = outTy.getDimSize(1), cols = outTy.getDimSize(3);
  Type f32 = firstTy.getElementType();

  rewriter.setInsertionPoint(p.out);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  Value dest = tensor::EmptyOp::create(rewriter, loc, outTy.getShape(), f32);
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{idx(0)},
      ArrayRef<OpFoldResult>{idx(chunks)}, ArrayRef<OpFoldResult>{idx(1)},
      ValueRange{dest}, std::nullopt);
  OpBuilder b(rewriter.getContext());
  b.setInsertionPointToStart(forall.getBody());
  auto cst = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantIndexOp::create(ob, loc, v).getResult();
  };
  Value firstRow = arith::MulIOp::create(b, loc, forall.getInductionVar(0),
                                         cst(b, chunkRows));
  SmallVector<OpFoldResult> ones(4, idx(1));
  auto rowSlice = [&](OpBuilder &ob, Value src, OpFoldResult row, int64_t n) {
    return tfrt::bands::rowSlice(ob, loc, src, row, n);
  };
  Value firstOut =
      arith::MulIOp::create(b, loc, firstRow, cst(b, up)).getResult();
  Value part =
      rowSlice(b, forall.getRegionIterArgs()[0], firstOut, chunkRows * up);
  auto loop = scf::ForOp::create(
      b, loc, cst(b, 0), cst(b, chunkRows), cst(b, band), ValueRange{part},
      [&](OpBuilder &lb, Location, Value local, ValueRange iter) {
        Value row = arith::AddIOp::create(lb, loc, firstRow, local);
        // A stage's 6-D result for `band` rows of its input.
        auto bandOf = [&](RankedTensorType ty, int64_t inRows) {
          SmallVector<int64_t> shape(ty.getShape());
          shape[2] = inRows;
          return RankedTensorType::get(shape, f32);
        };
        auto empty = [&](RankedTensorType ty) -> Value {
          return tensor::EmptyOp::create(lb, loc, ty.getShape(), f32);
        };
        auto cloneOn = [&](Operation *op, Type resultTy,
                           SmallVector<Value> operands) {
          return clone(lb, op, TypeRange{resultTy}, operands)->getResult(0);
        };
        // One stage on `in` (its input rows), its result into `target`
        // (of the band's 6-D type): the init recomputed on the band, the
        // epilogue into a tensor of its own when there is one (so that
        // tfrt-vectorize-conv-transpose applies it to the output vectors).
        auto stageOn = [&](Stage s, Value in, Value target) -> Value {
          auto ty = cast<RankedTensorType>(target.getType());
          Value acc = s.epilogue ? empty(ty) : target;
          SmallVector<Value> initOperands(s.init->getOperands());
          initOperands.back() = acc;
          acc = cloneOn(s.init, ty, initOperands);
          Value r = cloneOn(s.conv, ty, {in, s.conv.getDpsInputs()[1], acc});
          if (!s.epilogue)
            return r;
          SmallVector<Value> operands;
          for (OpOperand *x : s.epilogue.getDpsInputOperands())
            operands.push_back(x->get() == s.conv->getResult(0) ? r : x->get());
          operands.push_back(target);
          return cloneOn(s.epilogue, ty, operands);
        };
        Value in = rowSlice(lb, p.first.conv.getDpsInputs()[0], row, band);
        auto firstBand = bandOf(firstTy, band);
        Value mid = stageOn(p.first, in, empty(firstBand));
        Value image =
            tensor::CollapseShapeOp::create(lb, loc, mid, imageDims());
        // The band of the pair's result, viewed as the second stage's 6-D
        // result.
        Value outLocal =
            arith::MulIOp::create(lb, loc, local, cst(lb, up)).getResult();
        Value out = rowSlice(lb, iter[0], outLocal, band * up);
        auto secondBand = bandOf(secondTy, band * kh1);
        Value target = tensor::ExpandShapeOp::create(lb, loc, secondBand, out,
                                                     imageDims());
        Value r = stageOn(p.second, image, target);
        Value back = tensor::CollapseShapeOp::create(lb, loc, r, imageDims());
        SmallVector<OpFoldResult> offsets = {idx(0), idx(0), outLocal, idx(0)};
        SmallVector<OpFoldResult> sizes = {idx(1), idx(m), idx(band * up),
                                           idx(cols)};
        scf::YieldOp::create(lb, loc,
                             tensor::InsertSliceOp::create(
                                 lb, loc, back, iter[0], offsets, sizes, ones)
                                 .getResult());
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> offsets = {idx(0), idx(0), firstOut, idx(0)};
  SmallVector<OpFoldResult> sizes = {idx(1), idx(m), idx(chunkRows * up),
                                     idx(cols)};
  tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0),
                                        forall.getRegionIterArgs()[0], offsets,
                                        sizes, ones);
  rewriter.replaceOp(p.out, forall.getResults());
  tfrt::bands::eraseUnused(rewriter,
                           {p.second.epilogue, p.second.conv, p.second.init,
                            p.mid, p.first.epilogue, p.first.conv,
                            p.first.init},
                           /*pureOperands=*/true);
}

struct FuseConvTransposePairsPass
    : public tfrt::impl::FuseConvTransposePairsBase<
          FuseConvTransposePairsPass> {
  using FuseConvTransposePairsBase::FuseConvTransposePairsBase;

  void runOnOperation() override {
    if (bandRows < 1 || maxChunks < 1 || minBytes < 0) {
      getOperation().emitError(
          "tfrt-fuse-conv-transpose-pairs: band-rows and max-chunks must be "
          ">= 1, min-bytes >= 0");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> firsts;
    // Only ops of the function body: a ConvTranspose inside another op's
    // region is already someone's chunk.
    for (Operation &op : getOperation().getBody().front())
      if (auto g = dyn_cast<linalg::GenericOp>(&op))
        if (matchPair(rewriter, g, minBytes))
          firsts.push_back(g);
    for (linalg::GenericOp first : firsts) {
      // A pair's second stage is not the first of another (matchPair
      // looked at the IR before any rewrite; re-check it).
      if (!matchPair(rewriter, first, minBytes))
        continue;
      std::optional<Pair> p = buildPair(rewriter, first);
      if (!p)
        continue;
      int64_t rows = cast<RankedTensorType>(first.getDpsInputs()[0].getType())
                         .getDimSize(2);
      int64_t band = tfrt::bands::largestDivisor(rows, bandRows);
      int64_t chunks = tfrt::bands::largestDivisor(rows / band, maxChunks);
      rewritePair(rewriter, *p, band, chunks);
      ++numPairs;
    }
  }
};
} // namespace
