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

#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

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
};

/// Whether `m` (over the loops (n, c, h, w) of a 4-D elementwise op) reads
/// no spatial position: a per-channel value, a scalar or a [1, C, 1, 1]
/// tensor.
bool spatialFree(AffineMap m) {
  return !m.isFunctionOfDim(2) && !m.isFunctionOfDim(3);
}

/// The op computing `init` when it is a per-channel or scalar value that
/// can be recomputed on a band of its destination: a linalg.fill, or an
/// all-parallel generic (the graph lowering's bias broadcast) whose inputs
/// read no spatial position and whose body does not read its init, used
/// only here.
Operation *bandableInit(Value init) {
  Operation *def = init.getDefiningOp();
  if (!def || !init.hasOneUse())
    return nullptr;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return fill.hasPureTensorSemantics() ? def : nullptr;
  auto g = dyn_cast<linalg::GenericOp>(def);
  if (!g || !g.hasPureTensorSemantics() || g.getNumLoops() != 4 ||
      g.getNumReductionLoops() != 0 || g.getNumDpsInits() != 1 ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return nullptr;
  for (OpOperand *in : g.getDpsInputOperands())
    if (!spatialFree(g.getMatchingIndexingMap(in)))
      return nullptr;
  return g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity()
             ? def
             : nullptr;
}

/// The elementwise consumer of `v` that can run on a band: the only user
/// of `v`, an all-parallel 4-D generic writing one result of v's type
/// through the identity into an init it does not read, reading `v` through
/// the identity and every other input at no spatial position or, with
/// `fullInputs`, through the identity (a tensor of the same shape, sliced to
/// the band).
linalg::GenericOp bandableEpilogue(Value v, bool fullInputs) {
  if (!v.hasOneUse())
    return nullptr;
  auto g = dyn_cast<linalg::GenericOp>(*v.user_begin());
  if (!g || !g.hasPureTensorSemantics() || g.getNumLoops() != 4 ||
      g.getNumReductionLoops() != 0 || g.getNumDpsInits() != 1 ||
      g->getResult(0).getType() != v.getType() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return nullptr;
  bool readsV = false;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap m = g.getMatchingIndexingMap(in);
    if (in->get() == v) {
      if (!m.isIdentity())
        return nullptr;
      readsV = true;
      continue;
    }
    if (fullInputs && m.isIdentity() && in->get().getType() == v.getType())
      continue;
    if (!spatialFree(m))
      return nullptr;
  }
  return readsV ? g : nullptr;
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
  c.dwInit = bandableInit(dw.getOutputs()[0]);
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
  c.pwInit = bandableInit(c.pw.getOutputs()[0]);
  if (!c.pwInit)
    return std::nullopt;
  c.e2 = bandableEpilogue(c.pw->getResult(0), /*fullInputs=*/true);
  return c;
}

/// The largest of 1..`most` that divides `n`.
int64_t largestDivisor(int64_t n, int64_t most) {
  for (int64_t k = std::min(n, most); k > 1; --k)
    if (n % k == 0)
      return k;
  return 1;
}

/// Replaces the chain by an scf.forall of `chunks` chunks of rows, each a
/// loop over bands of `band` output rows.
void rewriteChain(RewriterBase &rewriter, Chain c, int64_t band,
                  int64_t chunks) {
  Operation *last = c.e2 ? c.e2.getOperation() : c.pw.getOperation();
  Location loc = c.pw.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto outTy = cast<RankedTensorType>(last->getResult(0).getType());
  auto midTy = cast<RankedTensorType>(c.dw->getResult(0).getType());
  int64_t m = outTy.getDimSize(1), rows = outTy.getDimSize(2),
          cols = outTy.getDimSize(3), ch = midTy.getDimSize(1);
  int64_t chunkRows = rows / chunks;
  int64_t inRows = c.stride * (band - 1) + c.kh;
  // The chain's result goes where its last op's result went: the last op's
  // init (its destination) is the forall's shared output.
  Value dest =
      c.e2 ? c.e2.getDpsInits()[0]
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
  auto rowSlice = [&](OpBuilder &ob, Value src, OpFoldResult row,
                      int64_t n) -> Value {
    auto ty = cast<RankedTensorType>(src.getType());
    SmallVector<OpFoldResult> offsets = {idx(0), idx(0), row, idx(0)};
    SmallVector<OpFoldResult> sizes = {idx(1), idx(ty.getDimSize(1)), idx(n),
                                       idx(ty.getDimSize(3))};
    return tensor::ExtractSliceOp::create(ob, loc, src, offsets, sizes, ones);
  };
  Value part = rowSlice(b, shared, firstRow, chunkRows);
  auto loop = scf::ForOp::create(
      b, loc, cst(0), cst(chunkRows), cst(band), ValueRange{part},
      [&](OpBuilder &lb, Location, Value local, ValueRange iter) {
        Value row = arith::AddIOp::create(lb, loc, firstRow, local);
        // The depthwise conv's input rows of this band.
        Value inRow =
            c.stride == 1
                ? row
                : arith::MulIOp::create(
                      lb, loc, row,
                      arith::ConstantIndexOp::create(lb, loc, c.stride))
                      .getResult();
        Value in = rowSlice(lb, c.dw.getInputs()[0], inRow, inRows);
        auto bandTy =
            RankedTensorType::get({1, ch, band, cols}, midTy.getElementType());
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
        // full-size inputs sliced at the band's rows, into `onto`.
        auto epilogueOn = [&](linalg::GenericOp g, Value whole, Value src,
                              Value onto) {
          SmallVector<Value> operands;
          for (OpOperand *in : g.getDpsInputOperands()) {
            Value v = in->get();
            if (v == whole)
              operands.push_back(src);
            else if (g.getMatchingIndexingMap(in).isIdentity())
              operands.push_back(rowSlice(lb, v, row, band));
            else
              operands.push_back(v);
          }
          operands.push_back(onto);
          return cloneOn(g, onto.getType(), operands);
        };
        Value d = initOn(c.dwInit, empty(bandTy));
        d = cloneOn(c.dw, bandTy, {in, c.dw.getInputs()[1], d});
        if (c.e1)
          d = epilogueOn(c.e1, c.dw->getResult(0), d, empty(bandTy));
        Value out = rowSlice(lb, iter[0], local, band);
        auto outTy = cast<RankedTensorType>(out.getType());
        Value p = initOn(c.pwInit, c.e2 ? empty(outTy) : out);
        p = cloneOn(c.pw, outTy, {d, c.pw.getDpsInputs()[1], p});
        if (c.e2)
          p = epilogueOn(c.e2, c.pw->getResult(0), p, out);
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
  for (Operation *op :
       {c.e2 ? c.pw.getOperation() : nullptr, c.pwInit,
        c.e1 ? c.e1.getOperation() : nullptr, c.dw.getOperation(), c.dwInit})
    if (op && op->use_empty())
      rewriter.eraseOp(op);
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
              matchChain(dw, maxChannels, minBytes, maxStride))
        chains.push_back(*c);
    });
    IRRewriter rewriter(&getContext());
    for (Chain &c : chains) {
      auto outTy = cast<RankedTensorType>(c.pw->getResult(0).getType());
      int64_t rows = outTy.getDimSize(2);
      int64_t band = largestDivisor(rows, bandRows);
      int64_t chunks = largestDivisor(rows / band, maxChunks);
      rewriteChain(rewriter, c, band, chunks);
      ++numChains;
    }
  }
};
} // namespace
