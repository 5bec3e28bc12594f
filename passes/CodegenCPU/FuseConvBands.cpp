//===- FuseConvBands.cpp - depthwise and 1x1 convs over bands of rows ----===//
//
// Implements tfrt-fuse-conv-bands: a depthwise convolution (with its
// elementwise epilogue) whose only consumer is a 1x1 convolution (with its
// epilogue) runs as one scf.forall of chunks of output rows, each chunk a
// loop over bands of a few rows: the band of depthwise outputs goes into a
// scratch tensor that stays in the core's cache, and the 1x1 convolution
// reads it from there (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Bands.h"
#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tfrt {
#define GEN_PASS_DEF_FUSECONVBANDS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// The ops of one fused chain: depthwise conv (its init computed by
/// `dwInit`), optional elementwise `e1`, 1x1 conv generic (init by
/// `pwInit`), optional elementwise `e2`.
struct Chain {
  linalg::DepthwiseConv2DNchwChwOp dw;
  Operation *dwInit = nullptr;
  linalg::GenericOp e1;
  linalg::GenericOp pw;
  Operation *pwInit = nullptr;
  linalg::GenericOp e2;
  int64_t stride = 1, kh = 3;
  /// The 1x1 conv's (or e2's) result inserted by `padInsert` into the
  /// interior of a zero-bordered tensor (tfrt-pad-in-place's padding) that
  /// only a second, 3x3 stride-kTailStride depthwise conv `dw` (init by
  /// `init`, optional elementwise `e`) reads, `padTop` rows above and
  /// `padLeft` columns left of the interior. `padOps`: the ops that build
  /// that tensor, erased when the chain no longer needs them.
  struct Tail {
    tensor::InsertSliceOp padInsert;
    linalg::DepthwiseConv2DNchwChwOp dw;
    Operation *init = nullptr;
    linalg::GenericOp e;
    int64_t padTop = 0, padLeft = 0;
    SmallVector<Operation *> padOps;
  };
  std::optional<Tail> tail;
};

/// The stride of a tail's depthwise conv.
constexpr int64_t kTailStride = 2;

/// The elementwise consumer of `v` that can run on a band: the only user
/// of `v`, a 4-D generic that tfrt::bands::bandableElementwise accepts.
linalg::GenericOp bandableEpilogue(Value v, bool fullInputs) {
  if (!v.hasOneUse())
    return nullptr;
  auto g = dyn_cast<linalg::GenericOp>(*v.user_begin());
  return g && g.getNumLoops() == 4 &&
                 tfrt::bands::bandableElementwise(g, v, fullInputs)
             ? g
             : nullptr;
}

/// Whether `op` is a 1x1 stride-1 dense conv generic on an NCHW input of
/// the output's spatial size (no padding): the input read at (n, c, h +
/// kh, w + kw) with kh = kw = 0 only.
bool isPointwiseConv(linalg::GenericOp op) {
  bool rowsOuter = false;
  std::optional<int64_t> sw = tfrt::conv::convColumnStride(op, &rowsOuter);
  if (!sw || *sw != 1 || rowsOuter)
    return false;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  using namespace tfrt::conv;
  AffineMap in = AffineMap::get(
      kNumLoops, 0, {d(kN), d(kC), d(kOH) + d(kKH), d(kOW) + d(kKW)}, ctx);
  if (op.getIndexingMapsArray()[0] != in)
    return false;
  auto inTy = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto wTy = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outTy = cast<RankedTensorType>(op->getResult(0).getType());
  return wTy.getDimSize(2) == 1 && wTy.getDimSize(3) == 1 &&
         inTy.getDimSize(2) == outTy.getDimSize(2) &&
         inTy.getDimSize(3) == outTy.getDimSize(3);
}

/// Matches the chain that starts at `dw`; `maxChannels` bounds the 1x1
/// conv's input channels, `minBytes` the depthwise output's size.
std::optional<Chain> matchChain(linalg::DepthwiseConv2DNchwChwOp dw,
                                int64_t maxChannels, int64_t minBytes,
                                int64_t maxStride) {
  if (!dw.hasPureTensorSemantics())
    return std::nullopt;
  auto inTy = dyn_cast<RankedTensorType>(dw.getInputs()[0].getType());
  auto wTy = dyn_cast<RankedTensorType>(dw.getInputs()[1].getType());
  auto outTy = dyn_cast<RankedTensorType>(dw->getResult(0).getType());
  if (!inTy || !wTy || !outTy || !inTy.hasStaticShape() ||
      !wTy.hasStaticShape() || !outTy.hasStaticShape() ||
      !outTy.getElementType().isF32() || outTy.getDimSize(0) != 1)
    return std::nullopt;
  auto strides = dw.getStrides().getValues<int64_t>();
  auto dilations = dw.getDilations().getValues<int64_t>();
  Chain c;
  c.dw = dw;
  c.stride = strides[0];
  c.kh = wTy.getDimSize(1);
  if (strides[1] != c.stride || c.stride < 1 || c.stride > maxStride ||
      dilations[0] != 1 || dilations[1] != 1)
    return std::nullopt;
  int64_t channels = outTy.getDimSize(1);
  if (channels > maxChannels || outTy.getNumElements() * 4 < minBytes)
    return std::nullopt;
  c.dwInit = tfrt::codegen::recomputableChannelInit(dw.getOutputs()[0]);
  if (!c.dwInit)
    return std::nullopt;
  Value v = dw->getResult(0);
  // The depthwise conv's epilogue reads only its result and per-channel or
  // scalar values (det's activations; no full-size input to test there).
  c.e1 = bandableEpilogue(v, /*fullInputs=*/false);
  if (c.e1)
    v = c.e1->getResult(0);
  if (!v.hasOneUse())
    return std::nullopt;
  c.pw = dyn_cast<linalg::GenericOp>(*v.user_begin());
  if (!c.pw || !c.pw.hasPureTensorSemantics() || !isPointwiseConv(c.pw) ||
      c.pw.getDpsInputs()[0] != v)
    return std::nullopt;
  c.pwInit = tfrt::codegen::recomputableChannelInit(c.pw.getOutputs()[0]);
  if (!c.pwInit)
    return std::nullopt;
  c.e2 = bandableEpilogue(c.pw->getResult(0), /*fullInputs=*/true);
  return c;
}

/// The static offsets, sizes and unit strides of a slice op, if it has them.
bool staticBox(OffsetSizeAndStrideOpInterface op, SmallVector<int64_t> &offsets,
               SmallVector<int64_t> &sizes) {
  for (OpFoldResult s : op.getMixedStrides())
    if (getConstantIntValue(s) != 1)
      return false;
  for (OpFoldResult o : op.getMixedOffsets()) {
    std::optional<int64_t> v = getConstantIntValue(o);
    if (!v)
      return false;
    offsets.push_back(*v);
  }
  for (OpFoldResult o : op.getMixedSizes()) {
    std::optional<int64_t> v = getConstantIntValue(o);
    if (!v)
      return false;
    sizes.push_back(*v);
  }
  return true;
}

/// Adds to `c` the tail that follows its 1x1 conv, if there is one: the
/// result inserted into the interior of a tensor whose borders are zero
/// fills (of a bufferization.alloc_tensor or tensor.empty), read only by a
/// 3x3 stride-2 depthwise conv that reads no row below the interior (so
/// that a band's rows come from the 1x1 conv, or from the zero rows above
/// the first one), and whose band of up to `bandRows` rows reads no more
/// rows than the 1x1 conv has.
void matchTail(Chain &c, int64_t bandRows) {
  if (c.stride != 1)
    return;
  Value v = c.e2 ? c.e2->getResult(0) : c.pw->getResult(0);
  if (!v.hasOneUse())
    return;
  auto ins = dyn_cast<tensor::InsertSliceOp>(*v.user_begin());
  SmallVector<int64_t> offsets, sizes;
  if (!ins || ins.getSource() != v || !ins->hasOneUse() ||
      !staticBox(ins, offsets, sizes) || offsets.size() != 4 ||
      offsets[0] != 0 || offsets[1] != 0)
    return;
  auto dw3 = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(*ins->user_begin());
  if (!dw3 || !dw3.hasPureTensorSemantics() ||
      dw3.getInputs()[0] != ins.getResult())
    return;
  auto vTy = cast<RankedTensorType>(v.getType());
  auto pTy = ins.getResultType();
  auto wTy = dyn_cast<RankedTensorType>(dw3.getInputs()[1].getType());
  auto oTy = dyn_cast<RankedTensorType>(dw3->getResult(0).getType());
  auto strides = dw3.getStrides().getValues<int64_t>();
  auto dilations = dw3.getDilations().getValues<int64_t>();
  if (!wTy || !oTy || !wTy.hasStaticShape() || !oTy.hasStaticShape() ||
      !pTy.hasStaticShape() || wTy.getDimSize(1) != 3 ||
      wTy.getDimSize(2) != 3 || strides[0] != kTailStride ||
      strides[1] != kTailStride || dilations[0] != 1 || dilations[1] != 1)
    return;
  int64_t top = offsets[2], left = offsets[3], h = vTy.getDimSize(2),
          w = vTy.getDimSize(3), oh = oTy.getDimSize(2);
  // The first band starts above the interior by at most the band's first
  // stride, no window reaches below it, and a band's windows read at most
  // the 1x1 conv's rows (maps of a few rows keep the tail apart).
  int64_t band = tfrt::bands::largestDivisor(oh, bandRows);
  if (top < 1 || top > kTailStride || left < 0 ||
      kTailStride * (oh - 1) + 3 - top > h || kTailStride * (band - 1) + 3 > h)
    return;
  // The padded tensor before the insert: zero fills inserted into an
  // allocation, covering every position outside the interior.
  SmallVector<SmallVector<int64_t>> boxes;
  SmallVector<Operation *> ops{ins};
  Value d = ins.getDest();
  while (auto fillIns = d.getDefiningOp<tensor::InsertSliceOp>()) {
    auto fill = fillIns.getSource().getDefiningOp<linalg::FillOp>();
    SmallVector<int64_t> fo, fs;
    if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
        !staticBox(fillIns, fo, fs))
      return;
    fo.append(fs);
    boxes.push_back(fo);
    ops.append({fillIns, fill});
    if (Operation *out = fill.getOutputs()[0].getDefiningOp())
      ops.push_back(out);
    d = fillIns.getDest();
  }
  if (!isa_and_nonnull<bufferization::AllocTensorOp, tensor::EmptyOp>(
          d.getDefiningOp()))
    return;
  ops.push_back(d.getDefiningOp());
  // Rows [r0, r1) x columns [c0, c1) of all channels inside one fill.
  auto covered = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    if (r0 >= r1 || c0 >= c1)
      return true;
    return llvm::any_of(boxes, [&](ArrayRef<int64_t> b) {
      return b[1] == 0 && b[5] == pTy.getDimSize(1) && b[2] <= r0 &&
             b[2] + b[6] >= r1 && b[3] <= c0 && b[3] + b[7] >= c1;
    });
  };
  int64_t ph = pTy.getDimSize(2), pw = pTy.getDimSize(3);
  if (!covered(0, top, 0, pw) || !covered(top + h, ph, 0, pw) ||
      !covered(0, ph, 0, left) || !covered(0, ph, left + w, pw))
    return;
  Operation *init3 =
      tfrt::codegen::recomputableChannelInit(dw3.getOutputs()[0]);
  if (!init3)
    return;
  // The interior slice the 1x1 conv's last op wrote into.
  Operation *last = c.e2 ? c.e2.getOperation() : c.pwInit;
  if (Operation *slot = cast<DestinationStyleOpInterface>(last)
                            .getDpsInits()[0]
                            .getDefiningOp())
    ops.push_back(slot);
  c.tail = Chain::Tail{
      ins,   dw3,
      init3, bandableEpilogue(dw3->getResult(0), /*fullInputs=*/false),
      top,   left,
      ops};
}

/// Replaces the chain by an scf.forall of `chunks` chunks of rows, each a
/// loop over bands of `band` output rows (of the tail's depthwise conv when
/// there is one).
void rewriteChain(RewriterBase &rewriter, Chain c, int64_t band,
                  int64_t chunks) {
  Chain::Tail *t = c.tail ? &*c.tail : nullptr;
  Operation *last = t      ? (t->e ? t->e.getOperation() : t->dw.getOperation())
                    : c.e2 ? c.e2.getOperation()
                           : c.pw.getOperation();
  Location loc = c.pw.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto outTy = cast<RankedTensorType>(last->getResult(0).getType());
  auto midTy = cast<RankedTensorType>(c.dw->getResult(0).getType());
  auto pwTy = cast<RankedTensorType>(c.pw->getResult(0).getType());
  int64_t m = outTy.getDimSize(1), rows = outTy.getDimSize(2),
          cols = outTy.getDimSize(3), ch = midTy.getDimSize(1),
          pwCols = pwTy.getDimSize(3), pwM = pwTy.getDimSize(1);
  int64_t chunkRows = rows / chunks;
  // The 1x1 conv's rows per band: the band's, or with a tail the rows its
  // 3x3 windows read (the band's padded rows, one more above for the first
  // band, whose top rows are padding).
  int64_t pwRows = t ? kTailStride * (band - 1) + 3 : band;
  int64_t inRows = c.stride * (pwRows - 1) + c.kh;
  // The chain's result goes where its last op's result went: the last op's
  // init (its destination) is the forall's shared output.
  Value dest =
      t      ? (t->e ? t->e.getDpsInits()[0]
                     : cast<DestinationStyleOpInterface>(t->init).getDpsInits()[0])
      : c.e2 ? c.e2.getDpsInits()[0]
             : cast<DestinationStyleOpInterface>(c.pwInit).getDpsInits()[0];
  rewriter.setInsertionPoint(last);
  auto idx = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{idx(0)},
      ArrayRef<OpFoldResult>{idx(chunks)}, ArrayRef<OpFoldResult>{idx(1)},
      ValueRange{dest}, std::nullopt);
  OpBuilder b(ctx);
  b.setInsertionPointToStart(forall.getBody());
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value firstRow =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), cst(chunkRows));
  Value shared = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> ones(4, idx(1));
  auto rowSlice = [&](OpBuilder &ob, Value src, OpFoldResult row, int64_t n) {
    return tfrt::bands::rowSlice(ob, loc, src, row, n);
  };
  Value part = rowSlice(b, shared, firstRow, chunkRows);
  auto loop = scf::ForOp::create(
      b, loc, cst(0), cst(chunkRows), cst(band), ValueRange{part},
      [&](OpBuilder &lb, Location, Value local, ValueRange iter) {
        Value row = arith::AddIOp::create(lb, loc, firstRow, local);
        auto lcst = [&](int64_t v) {
          return arith::ConstantIndexOp::create(lb, loc, v).getResult();
        };
        // The 1x1 conv's first row of this band; with a tail, the band's
        // first padded row of its input less the padding above, and in the
        // first band the padded rows start `place` rows into the band's
        // tensor, above them zeros.
        Value pwRow = row, place;
        if (t) {
          Value first = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                              row, lcst(0));
          place =
              arith::SelectOp::create(lb, loc, first, lcst(t->padTop), lcst(0));
          pwRow = arith::AddIOp::create(
              lb, loc,
              arith::SubIOp::create(
                  lb, loc,
                  arith::MulIOp::create(lb, loc, row, lcst(kTailStride)),
                  lcst(t->padTop)),
              place);
        }
        // The depthwise conv's input rows of this band.
        Value inRow = c.stride == 1 ? pwRow
                                    : arith::MulIOp::create(lb, loc, pwRow,
                                                            lcst(c.stride))
                                          .getResult();
        Value in = rowSlice(lb, c.dw.getInputs()[0], inRow, inRows);
        auto bandTy = RankedTensorType::get({1, ch, pwRows, pwCols},
                                            midTy.getElementType());
        // Fresh tensors of a band each time (bufferization makes each one
        // buffer per chunk, hoisted out of the loop). The epilogues write
        // into tensors of their own, as in the async tiling's chunks, so
        // that the vectorizers apply them to the convs' register tiles (the
        // conv's own result is then never stored).
        auto empty = [&](RankedTensorType ty) -> Value {
          return tensor::EmptyOp::create(lb, loc, ty.getShape(),
                                         ty.getElementType());
        };
        auto cloneOn = [&](Operation *op, Type resultTy,
                           SmallVector<Value> operands) {
          return clone(lb, op, TypeRange{resultTy}, operands)->getResult(0);
        };
        auto initOn = [&](Operation *init, Value onto) {
          SmallVector<Value> operands(init->getOperands());
          operands.back() = onto;
          return cloneOn(init, onto.getType(), operands);
        };
        // An elementwise op on the band: `src` in place of `whole`, other
        // full-size inputs sliced at rows [at, at + n), into `onto`.
        auto epilogueOn = [&](linalg::GenericOp g, Value whole, Value src,
                              Value onto, Value at, int64_t n) {
          SmallVector<Value> operands;
          for (OpOperand *in : g.getDpsInputOperands()) {
            Value v = in->get();
            if (v == whole)
              operands.push_back(src);
            else if (g.getMatchingIndexingMap(in).isIdentity())
              operands.push_back(rowSlice(lb, v, at, n));
            else
              operands.push_back(v);
          }
          operands.push_back(onto);
          return cloneOn(g, onto.getType(), operands);
        };
        Value d = initOn(c.dwInit, empty(bandTy));
        d = cloneOn(c.dw, bandTy, {in, c.dw.getInputs()[1], d});
        if (c.e1)
          d = epilogueOn(c.e1, c.dw->getResult(0), d, empty(bandTy), pwRow,
                         pwRows);
        Value out = rowSlice(lb, iter[0], local, band);
        auto pwBandTy = RankedTensorType::get({1, pwM, pwRows, pwCols},
                                              pwTy.getElementType());
        // Without a tail the 1x1 conv writes the band of the output; with
        // one, the interior of the band's zero-bordered tensor.
        Value padded, target = out;
        // The interior of the band's zero-bordered tensor.
        SmallVector<OpFoldResult> interiorAt, interiorSize;
        if (t) {
          auto padTy = t->padInsert.getResultType();
          int64_t pcols = padTy.getDimSize(3);
          padded = empty(RankedTensorType::get(
              {1, pwM, pwRows + t->padTop, pcols}, padTy.getElementType()));
          Value zero = arith::ConstantOp::create(
              lb, loc, lb.getFloatAttr(padTy.getElementType(), 0.0));
          // Zeros above (read in the first band) and beside the interior.
          auto zeroBox = [&](int64_t r, int64_t nr, int64_t col, int64_t nc) {
            if (nr <= 0 || nc <= 0)
              return;
            SmallVector<OpFoldResult> o = {idx(0), idx(0), idx(r), idx(col)};
            SmallVector<OpFoldResult> sz = {idx(1), idx(pwM), idx(nr), idx(nc)};
            Value part =
                tensor::ExtractSliceOp::create(lb, loc, padded, o, sz, ones);
            Value f = linalg::FillOp::create(lb, loc, zero, part).getResult(0);
            padded =
                tensor::InsertSliceOp::create(lb, loc, f, padded, o, sz, ones);
          };
          int64_t right = t->padLeft + pwCols;
          zeroBox(0, t->padTop, 0, pcols);
          zeroBox(0, pwRows + t->padTop, 0, t->padLeft);
          zeroBox(0, pwRows + t->padTop, right, pcols - right);
          interiorAt = {idx(0), idx(0), place, idx(t->padLeft)};
          interiorSize = {idx(1), idx(pwM), idx(pwRows), idx(pwCols)};
          target = tensor::ExtractSliceOp::create(lb, loc, padded, interiorAt,
                                                  interiorSize, ones);
        }
        Value p = initOn(c.pwInit, c.e2 ? empty(pwBandTy) : target);
        p = cloneOn(c.pw, pwBandTy, {d, c.pw.getDpsInputs()[1], p});
        if (c.e2)
          p = epilogueOn(c.e2, c.pw->getResult(0), p, target, pwRow, pwRows);
        if (t) {
          auto padTy = t->padInsert.getResultType();
          padded = tensor::InsertSliceOp::create(lb, loc, p, padded, interiorAt,
                                                 interiorSize, ones);
          // The tail's depthwise conv on the band's padded rows.
          SmallVector<OpFoldResult> o3 = {idx(0), idx(0), idx(0), idx(0)};
          SmallVector<OpFoldResult> sz3 = {idx(1), idx(pwM), idx(pwRows),
                                           idx(padTy.getDimSize(3))};
          Value x3 =
              tensor::ExtractSliceOp::create(lb, loc, padded, o3, sz3, ones);
          auto outBandTy = cast<RankedTensorType>(out.getType());
          Value q = initOn(t->init, t->e ? empty(outBandTy) : out);
          q = cloneOn(t->dw, outBandTy, {x3, t->dw.getInputs()[1], q});
          if (t->e)
            q = epilogueOn(t->e, t->dw->getResult(0), q, out, row, band);
          p = q;
        }
        SmallVector<OpFoldResult> offsets = {idx(0), idx(0), local, idx(0)};
        SmallVector<OpFoldResult> sizes = {idx(1), idx(m), idx(band),
                                           idx(cols)};
        Value next = tensor::InsertSliceOp::create(lb, loc, p, iter[0], offsets,
                                                   sizes, ones);
        scf::YieldOp::create(lb, loc, next);
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> offsets = {idx(0), idx(0), firstRow, idx(0)};
  SmallVector<OpFoldResult> sizes = {idx(1), idx(m), idx(chunkRows), idx(cols)};
  tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0), shared,
                                        offsets, sizes, ones);
  rewriter.replaceOp(last, forall.getResults());
  SmallVector<Operation *> dead = {t && t->e ? t->dw.getOperation() : nullptr,
                                   t ? t->init : nullptr,
                                   t ? t->padInsert.getOperation() : nullptr,
                                   t && c.e2 ? c.e2.getOperation() : nullptr,
                                   c.e2 || t ? c.pw.getOperation() : nullptr,
                                   c.pwInit,
                                   c.e1 ? c.e1.getOperation() : nullptr,
                                   c.dw.getOperation(),
                                   c.dwInit};
  if (t)
    dead.append(t->padOps);
  tfrt::bands::eraseUnused(rewriter, dead, /*pureOperands=*/false);
}

struct FuseConvBandsPass
    : public tfrt::impl::FuseConvBandsBase<FuseConvBandsPass> {
  using FuseConvBandsBase::FuseConvBandsBase;

  void runOnOperation() override {
    if (bandRows < 1 || maxChunks < 1 || maxChannels < 1 || minBytes < 0 ||
        maxStride < 1 || maxStride > 2) {
      getOperation().emitError(
          "tfrt-fuse-conv-bands: band-rows, max-chunks and max-channels must "
          "be >= 1, min-bytes >= 0, max-stride 1 or 2");
      return signalPassFailure();
    }
    SmallVector<Chain> chains;
    getOperation().walk([&](linalg::DepthwiseConv2DNchwChwOp dw) {
      // Only ops of the function body: a chain inside another op's region
      // is already someone's chunk.
      if (dw->getParentOp() != getOperation().getOperation())
        return;
      if (std::optional<Chain> c =
              matchChain(dw, maxChannels, minBytes, maxStride)) {
        if (tails)
          matchTail(*c, bandRows);
        chains.push_back(*c);
      }
    });
    IRRewriter rewriter(&getContext());
    for (Chain &c : chains) {
      Operation *last =
          c.tail ? c.tail->dw.getOperation() : c.pw.getOperation();
      int64_t rows =
          cast<RankedTensorType>(last->getResult(0).getType()).getDimSize(2);
      int64_t band = tfrt::bands::largestDivisor(rows, bandRows);
      int64_t chunks = tfrt::bands::largestDivisor(rows / band, maxChunks);
      rewriteChain(rewriter, c, band, chunks);
      ++numChains;
      if (c.tail)
        ++numTails;
    }
  }
};
} // namespace
