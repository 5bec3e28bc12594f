//===- SplitConvPhases.cpp - stride-2 convolutions on phase-split input ---===//
//
// Implements tfrt-split-conv-phases: a dense conv generic with stride 2
// along the output columns becomes one with stride 1 on an input whose even
// and odd columns are separate channels, so that tfrt-vectorize-conv's
// register tiling applies (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

namespace tfrt {
#define GEN_PASS_DEF_SPLITCONVPHASES
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::conv;

namespace {
/// Zeroes the part [offsets, offsets + sizes) of the 4-D tensor `t`
/// (nothing when a size is 0).
void fillZeros(RewriterBase &rewriter, Location loc, Value &t,
               ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
  if (llvm::is_contained(sizes, 0))
    return;
  MLIRContext *ctx = rewriter.getContext();
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  Type f32 = cast<RankedTensorType>(t.getType()).getElementType();
  Value zero =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));
  Value part = tensor::ExtractSliceOp::create(rewriter, loc, t, idx(offsets),
                                              idx(sizes), idx({1, 1, 1, 1}));
  part =
      linalg::FillOp::create(rewriter, loc, ValueRange{zero}, ValueRange{part})
          .getResult(0);
  t = tensor::InsertSliceOp::create(rewriter, loc, part, t, idx(offsets),
                                    idx(sizes), idx({1, 1, 1, 1}));
}

/// Rewrites a conv generic with column stride 2 (and column dilation 1) into
/// one with column stride 1 on a phase-split input, which the register
/// tiling handles: input columns 2j + p become channel p * C + c, column j,
/// and tap kw = 2q + p becomes channel p * C + c, tap q of a zero-padded
/// weight [M, 2C, KH, ceil(KW / 2)]:
///
///   in'[n, p*C + c, r, j] = in[n, c, r, 2j + p]          (0 past the end)
///   w'[m, p*C + c, kh, q] = w[m, c, kh, 2q + p]          (0 if 2q+p >= KW)
///   out[n, m, oh, ow] += in'[n, c', oh*sh + kh*dh, ow + q] * w'[m, c', kh, q]
///
/// The split copies are strided slices (one per phase) into zero-filled
/// tensors; the extra work is the zero taps (KW = 3: 4 taps instead of 3).
linalg::GenericOp splitColumnPhases(RewriterBase &rewriter,
                                    linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), rows = xt.getDimSize(2),
          cols = xt.getDimSize(3);
  int64_t m = ranges[kM], kh = ranges[kKH], kw = ranges[kKW];
  int64_t q = (kw + 1) / 2, width = ranges[kOW] + q - 1;
  Type f32 = xt.getElementType();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  rewriter.setInsertionPoint(op);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));
  auto zeros = [&](ArrayRef<int64_t> shape) -> Value {
    Value e = tensor::EmptyOp::create(rewriter, loc, shape, f32);
    return linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                  ValueRange{e})
        .getResult(0);
  };
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  // A zero padding of the spatial dims is folded into the split: the
  // phases are strided slices of the unpadded input placed at the padding's
  // offsets, and only the columns and rows they do not cover are zeroed
  // (det's stem: no copy of the padded 640x640 input, no fill of the whole
  // split tensor).
  Value src = x;
  int64_t lowH = 0, lowW = 0, srcRows = rows, srcCols = cols;
  if (std::optional<SpatialPad> sp = matchZeroSpatialPad(x)) {
    src = sp->pad.getSource();
    lowH = sp->lowH;
    lowW = sp->lowW;
    srcRows = sp->pad.getSourceType().getDimSize(2);
    srcCols = sp->pad.getSourceType().getDimSize(3);
  }
  Value xs;
  if (src == x) {
    xs = zeros({n, 2 * c, rows, width});
  } else {
    // An alloc_tensor, not a tensor.empty (see relayoutRowsOuter).
    xs = bufferization::AllocTensorOp::create(
        rewriter, loc, RankedTensorType::get({n, 2 * c, rows, width}, f32),
        ValueRange{});
    fillZeros(rewriter, loc, xs, {0, 0, 0, 0}, {n, 2 * c, lowH, width});
    fillZeros(rewriter, loc, xs, {0, 0, lowH + srcRows, 0},
              {n, 2 * c, rows - lowH - srcRows, width});
  }
  Value ws = zeros({m, 2 * c, kh, q});
  for (int64_t p = 0; p < 2; ++p) {
    // Padded columns p + 2j, j < width: the first that is an input column
    // (j0), the input column it is (first) and how many follow.
    int64_t j0 = std::min(width, std::max<int64_t>(0, (lowW - p + 1) / 2));
    int64_t first = p + 2 * j0 - lowW;
    int64_t count =
        first < srcCols ? std::min(width - j0, (srcCols - first + 1) / 2) : 0;
    if (count > 0) {
      Value part = tensor::ExtractSliceOp::create(
          rewriter, loc, src, idx({0, 0, 0, first}),
          idx({n, c, srcRows, count}), idx({1, 1, 1, 2}));
      xs = tensor::InsertSliceOp::create(
          rewriter, loc, part, xs, idx({0, p * c, lowH, j0}),
          idx({n, c, srcRows, count}), idx({1, 1, 1, 1}));
    }
    if (src != x) {
      fillZeros(rewriter, loc, xs, {0, p * c, lowH, 0}, {n, c, srcRows, j0});
      fillZeros(rewriter, loc, xs, {0, p * c, lowH, j0 + count},
                {n, c, srcRows, width - j0 - count});
    }
    // Taps p, p + 2, ...
    int64_t taps = (kw - p + 1) / 2;
    if (taps > 0) {
      Value part = tensor::ExtractSliceOp::create(
          rewriter, loc, w, idx({0, 0, 0, p}), idx({m, c, kh, taps}),
          idx({1, 1, 1, 2}));
      ws = tensor::InsertSliceOp::create(
          rewriter, loc, part, ws, idx({0, p * c, 0, 0}), idx({m, c, kh, taps}),
          idx({1, 1, 1, 1}));
    }
  }
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap in = AffineMap::get(
      kNumLoops, 0, {d(kN), d(kC), maps[0].getResult(2), d(kOW) + d(kKW)}, ctx);
  auto split = linalg::GenericOp::create(
      rewriter, loc, op.getResultTypes(), ValueRange{xs, ws}, op.getDpsInits(),
      {in, maps[1], maps[2]}, op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value prod = arith::MulFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(
            b, l, arith::AddFOp::create(b, l, args[2], prod).getResult());
      });
  rewriter.replaceOp(op, split->getResults());
  if (src != x && x.use_empty())
    rewriter.eraseOp(x.getDefiningOp());
  return split;
}

/// Rewrites the input of a stride-1 dense conv generic from NCHW into the
/// rows-outer layout [N, H, C, W], read at (n, rows, c, cols): a register
/// tile's window (a few input rows of all channels) is then a few contiguous
/// [C, W] blocks instead of rows scattered over C planes. When the input is a
/// zero `tensor.pad` of the spatial dims, the re-layout is that padding:
/// a zero fill of the padded [N, H, C, W] tensor and one transposing copy of
/// the unpadded input into its interior (the pad dies with its last use).
void relayoutRowsOuter(RewriterBase &rewriter, linalg::GenericOp op) {
  Value x = op.getDpsInputs()[0];
  auto xt = cast<RankedTensorType>(x.getType());
  Type f32 = xt.getElementType();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Value src = x;
  SmallVector<int64_t> low(4, 0);
  if (std::optional<SpatialPad> sp = matchZeroSpatialPad(x)) {
    // The pad's location: the node, but not the conv's kernel (whose FLOPs
    // the profile puts where the kernel's location does most work).
    src = sp->pad.getSource();
    low[2] = sp->lowH;
    low[3] = sp->lowW;
    loc = sp->pad.getLoc();
  }
  auto st = cast<RankedTensorType>(src.getType());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1);
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  rewriter.setInsertionPoint(op);
  // An alloc_tensor, not a tensor.empty: CSE would merge the border-filled
  // tensors of two convs of the same shape, and bufferization then copies
  // the whole tensor for one of them.
  Value laid = bufferization::AllocTensorOp::create(
      rewriter, loc,
      RankedTensorType::get({n, xt.getDimSize(2), c, xt.getDimSize(3)}, f32),
      ValueRange{});
  bool padded = src != x;
  SmallVector<int64_t> inner{n, st.getDimSize(2), c, st.getDimSize(3)};
  if (padded) {
    // Zeros only where the copy does not write: the rows above and below,
    // then the columns left and right of the interior rows.
    int64_t rows = xt.getDimSize(2), cols = xt.getDimSize(3);
    int64_t below = low[2] + inner[1], right = low[3] + inner[3];
    fillZeros(rewriter, loc, laid, {0, 0, 0, 0}, {n, low[2], c, cols});
    fillZeros(rewriter, loc, laid, {0, below, 0, 0},
              {n, rows - below, c, cols});
    fillZeros(rewriter, loc, laid, {0, low[2], 0, 0}, {n, inner[1], c, low[3]});
    fillZeros(rewriter, loc, laid, {0, low[2], 0, right},
              {n, inner[1], c, cols - right});
  }
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // The pieces of the unpadded input: itself, or the channel slices of a
  // concat (tensor.insert_slice chain over a tensor.empty that covers all
  // channels, each step used once).
  SmallVector<std::pair<Value, int64_t>> pieces;
  SmallVector<Operation *> chain;
  bool alone = src.hasOneUse() && (!padded || x.hasOneUse());
  if (alone) {
    Value v = src;
    int64_t covered = 0;
    while (auto ins = v.getDefiningOp<tensor::InsertSliceOp>()) {
      auto pt = dyn_cast<RankedTensorType>(ins.getSourceType());
      if (!v.hasOneUse() || !ins.hasUnitStride() || !pt ||
          !pt.hasStaticShape() || pt.getRank() != 4 ||
          ins.getStaticOffsets().size() != 4)
        break;
      ArrayRef<int64_t> off = ins.getStaticOffsets();
      if (off[0] != 0 || off[2] != 0 || off[3] != 0 ||
          ShapedType::isDynamic(off[1]) || pt.getDimSize(0) != n ||
          pt.getDimSize(2) != inner[1] || pt.getDimSize(3) != inner[3])
        break;
      pieces.push_back({ins.getSource(), off[1]});
      chain.push_back(ins);
      covered += pt.getDimSize(1);
      v = ins.getDest();
    }
    if (chain.empty() || !v.getDefiningOp<tensor::EmptyOp>() || covered != c) {
      pieces.clear();
      chain.clear();
    }
  }
  if (pieces.empty())
    pieces.push_back({src, 0});
  // Each piece's producer, when it does not read its init and nothing else
  // reads its result, writes the rows-outer layout itself (its output map
  // gets the (c, h) swap); other pieces are copied with the swap.
  SmallVector<Operation *> dead;
  for (auto [piece, channel] : pieces) {
    auto pt = cast<RankedTensorType>(piece.getType());
    SmallVector<int64_t> part{n, inner[1], pt.getDimSize(1), inner[3]};
    // The whole of an unpadded input is the whole re-laid tensor.
    bool whole = !padded && pieces.size() == 1;
    Value target =
        whole
            ? laid
            : tensor::ExtractSliceOp::create(rewriter, loc, laid,
                                             idx({0, low[2], channel, low[3]}),
                                             idx(part), idx({1, 1, 1, 1}));
    Value written;
    auto producer = piece.getDefiningOp<linalg::GenericOp>();
    if (alone && producer && producer.hasPureTensorSemantics() &&
        producer->getNumResults() == 1 && producer.getNumDpsInits() == 1 &&
        !producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) &&
        piece.hasOneUse() &&
        producer.getIndexingMapsArray().back().getNumResults() == 4) {
      SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
      AffineMap out = maps.back();
      maps.back() = AffineMap::get(out.getNumDims(), out.getNumSymbols(),
                                   {out.getResult(0), out.getResult(2),
                                    out.getResult(1), out.getResult(3)},
                                   ctx);
      auto moved = linalg::GenericOp::create(
          rewriter, producer.getLoc(), TypeRange{target.getType()},
          producer.getDpsInputs(), ValueRange{target}, maps,
          producer.getIteratorTypesArray());
      rewriter.inlineRegionBefore(producer.getRegion(), moved.getRegion(),
                                  moved.getRegion().end());
      written = moved.getResult(0);
      dead.push_back(producer);
    } else {
      written = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{target.getType()},
                    ValueRange{piece}, ValueRange{target},
                    {AffineMap::get(4, 0, {d(0), d(2), d(1), d(3)}, ctx),
                     AffineMap::getMultiDimIdentityMap(4, ctx)},
                    SmallVector<utils::IteratorType>(
                        4, utils::IteratorType::parallel),
                    [](OpBuilder &b, Location l, ValueRange args) {
                      linalg::YieldOp::create(b, l, args[0]);
                    })
                    .getResult(0);
    }
    laid =
        whole ? written
              : tensor::InsertSliceOp::create(rewriter, loc, written, laid,
                                              idx({0, low[2], channel, low[3]}),
                                              idx(part), idx({1, 1, 1, 1}));
  }
  AffineMap in = op.getIndexingMapsArray()[0];
  AffineMap moved = AffineMap::get(
      kNumLoops, 0,
      {in.getResult(0), in.getResult(2), in.getResult(1), in.getResult(3)},
      ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[0] = moved;
  rewriter.modifyOpInPlace(op, [&] {
    op->setOperand(0, laid);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  // Producers that now write the rows-outer layout left the pad, the concat
  // steps and their own (emptied) ops without uses.
  if (!dead.empty()) {
    if (padded)
      rewriter.eraseOp(x.getDefiningOp());
    for (Operation *step : chain)
      rewriter.eraseOp(step);
    for (Operation *producer : dead)
      rewriter.eraseOp(producer);
  }
}

struct SplitConvPhasesPass
    : public tfrt::impl::SplitConvPhasesBase<SplitConvPhasesPass> {
  using SplitConvPhasesBase::SplitConvPhasesBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      // Only where tfrt-vectorize-conv then has a register tile: the split
      // costs a copy and the zero taps. Image stems it computes directly
      // from the unpadded input.
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      bool outer = false;
      if (convColumnStride(op, &outer) == 2 && !outer &&
          firstDivisor(ranges[kM], kRegMs) &&
          firstDivisor(ranges[kOW], kRegNs) && !matchStemConv(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    llvm::SmallPtrSet<Operation *, 8> split;
    for (linalg::GenericOp op : ops)
      split.insert(splitColumnPhases(rewriter, op));
    if (!rowsOuter)
      return;
    // Stride-1 convs with a window (1x1 ones become matmuls) that
    // tfrt-vectorize-conv tiles with full 32-column register tiles (narrower
    // tiles are bound by the weight broadcasts, and measured no faster on
    // the re-laid-out input); the ones split above keep NCHW.
    SmallVector<linalg::GenericOp> stride1;
    getOperation().walk([&](linalg::GenericOp op) {
      bool outer = false;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (!split.contains(op) && convColumnStride(op, &outer) == 1 && !outer &&
          ranges[kKH] * ranges[kKW] > 1 && firstDivisor(ranges[kM], kRegMs) &&
          firstDivisor(ranges[kOW], kRegNs) == kRegNs[0])
        stride1.push_back(op);
    });
    for (linalg::GenericOp op : stride1)
      relayoutRowsOuter(rewriter, op);
  }
};
} // namespace
