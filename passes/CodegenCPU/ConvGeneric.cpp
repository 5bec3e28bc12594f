//===- ConvGeneric.cpp - the dense conv generic of the graph lowering -----===//
//
// Implements the matcher of ConvGeneric.h.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ConvGeneric.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tfrt::conv;

bool tfrt::conv::reducesTo(AffineExpr expr, ArrayRef<unsigned> zeroed,
                           AffineExpr expect, unsigned numDims) {
  MLIRContext *ctx = expr.getContext();
  SmallVector<AffineExpr> repl;
  for (unsigned i = 0; i < numDims; ++i)
    repl.push_back(llvm::is_contained(zeroed, i) ? getAffineConstantExpr(0, ctx)
                                                 : getAffineDimExpr(i, ctx));
  return simplifyAffineExpr(expr.replaceDims(repl), numDims, 0) == expect;
}

bool tfrt::conv::isMulAddBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 3 || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value other = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  auto mul = other.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

std::optional<int64_t> tfrt::conv::convColumnStride(linalg::GenericOp op,
                                                    bool *rowsOuter) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() != kNumLoops ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return std::nullopt;
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < kNumLoops; ++i)
    if ((i < kC) != (iters[i] == utils::IteratorType::parallel))
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] !=
          AffineMap::get(kNumLoops, 0, {d(kN), d(kM), d(kOH), d(kOW)}, ctx) ||
      maps[1] !=
          AffineMap::get(kNumLoops, 0, {d(kM), d(kC), d(kKH), d(kKW)}, ctx))
    return std::nullopt;
  AffineMap in = maps[0];
  if (in.getNumResults() != 4 || in.getResult(0) != d(kN))
    return std::nullopt;
  bool outer = in.getResult(2) == d(kC);
  if (!outer && in.getResult(1) != d(kC))
    return std::nullopt;
  if (rowsOuter)
    *rowsOuter = outer;
  // Rows: only oh and kh; columns: only ow and kw.
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  AffineExpr rows = in.getResult(outer ? 1 : 2), cols = in.getResult(3);
  for (unsigned i = 0; i < kNumLoops; ++i) {
    if (i != kOH && i != kKH && rows.isFunctionOfDim(i))
      return std::nullopt;
    if (i != kOW && i != kKW && cols.isFunctionOfDim(i))
      return std::nullopt;
  }
  if (!reducesTo(rows, {kOH, kKH}, zero, kNumLoops) || !isMulAddBody(op))
    return std::nullopt;
  if (reducesTo(cols, {kKW}, d(kOW), kNumLoops))
    return 1;
  if (cols == d(kOW) * 2 + d(kKW))
    return 2;
  return std::nullopt;
}

std::optional<SpatialPad> tfrt::conv::matchZeroSpatialPad(Value x) {
  auto pad = x.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getNofold())
    return std::nullopt;
  Value v = pad.getConstantPaddingValue();
  FloatAttr f;
  ArrayRef<int64_t> l = pad.getStaticLow(), h = pad.getStaticHigh();
  if (!v || !matchPattern(v, m_Constant(&f)) || !f.getValue().isPosZero() ||
      ShapedType::isDynamicShape(l) || ShapedType::isDynamicShape(h) ||
      l[0] != 0 || l[1] != 0 || h[0] != 0 || h[1] != 0 || l[2] < 0 ||
      l[3] < 0 || h[2] < 0 || h[3] < 0)
    return std::nullopt;
  return SpatialPad{pad, l[2], l[3]};
}

std::optional<StemInput> tfrt::conv::matchStemConv(linalg::GenericOp op) {
  bool outer = false;
  if (convColumnStride(op, &outer) != 2 || outer)
    return std::nullopt;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  if (r[kN] != 1 || r[kKH] != 3 || r[kKW] != 3 || r[kC] > kMaxStemChannels ||
      r[kM] % 8 || r[kOW] % 32)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (op.getIndexingMapsArray()[0].getResult(2) != d(kOH) * 2 + d(kKH))
    return std::nullopt;
  // The padded tensor itself, or a slice of its rows.
  Value x = op.getDpsInputs()[0];
  StemInput stem;
  stem.rowOffset = OpBuilder(ctx).getIndexAttr(0);
  if (auto slice = x.getDefiningOp<tensor::ExtractSliceOp>()) {
    auto padded = cast<RankedTensorType>(slice.getSourceType());
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    if (!slice.hasUnitStride() || padded.getRank() != 4 ||
        !isZeroInteger(offsets[0]) || !isZeroInteger(offsets[1]) ||
        !isZeroInteger(offsets[3]) ||
        getConstantIntValue(sizes[1]) != padded.getDimSize(1) ||
        getConstantIntValue(sizes[3]) != padded.getDimSize(3))
      return std::nullopt;
    stem.rowOffset = offsets[2];
    x = slice.getSource();
  }
  std::optional<SpatialPad> sp = matchZeroSpatialPad(x);
  if (!sp || sp->lowW != 1)
    return std::nullopt;
  stem.source = sp->pad.getSource();
  stem.lowH = sp->lowH;
  return stem;
}

bool tfrt::conv::isConvTransposeGeneric(linalg::GenericOp op) {
  // Loops (n, m, ih, kh, c, iw, kw).
  enum : unsigned { n, m, ih, kh, c, iw, kw, loops };
  if (!op.hasPureTensorSemantics() || op.getNumLoops() != loops ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return false;
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < loops; ++i)
    if ((i == c) != (iters[i] == utils::IteratorType::reduction))
      return false;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps[0] == AffineMap::get(loops, 0, {d(n), d(c), d(ih), d(iw)}, ctx) &&
         maps[1] == AffineMap::get(loops, 0, {d(c), d(m), d(kh), d(kw)}, ctx) &&
         maps[2] == AffineMap::get(loops, 0,
                                   {d(n), d(m), d(ih), d(kh), d(iw), d(kw)},
                                   ctx) &&
         isMulAddBody(op);
}

linalg::GenericOp tfrt::conv::expandConvTransposeConsumer(
    RewriterBase &rewriter, linalg::GenericOp op, Operation **replaced) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return {};
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.getUsers().begin());
  if (!collapse || !collapse->hasOneUse() ||
      collapse.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}})
    return {};
  auto g = dyn_cast<linalg::GenericOp>(*collapse->getUsers().begin());
  auto type4 = collapse.getResultType();
  auto type6 = cast<RankedTensorType>(result.getType());
  if (!g || g->getBlock() != op->getBlock() || g.getNumLoops() != 4 ||
      g.getNumParallelLoops() != 4 || g.getNumDpsInits() != 1 ||
      g->getNumResults() != 1 || g->getResult(0).getType() != type4 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      llvm::any_of(g.getBody()->getOperations(),
                   [](Operation &o) { return isa<linalg::IndexOp>(o); }))
    return {};
  MLIRContext *ctx = op.getContext();
  auto e = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  SmallVector<ReassociationIndices> re = collapse.getReassociationIndices();
  rewriter.setInsertionPoint(g);
  auto expand = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    return tensor::ExpandShapeOp::create(
        rewriter, g.getLoc(),
        RankedTensorType::get(type6.getShape(), t.getElementType()), v, re);
  };
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    if (in->get() == collapse.getResult()) {
      if (!map.isIdentity())
        return {};
      inputs.push_back(result);
      maps.push_back(AffineMap::getMultiDimIdentityMap(6, ctx));
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    if (!t || !t.hasStaticShape())
      return {};
    if (map.isIdentity() && t.getShape() == type4.getShape()) {
      inputs.push_back(in->get());
      maps.push_back(AffineMap::getMultiDimIdentityMap(6, ctx));
      continue;
    }
    SmallVector<AffineExpr> results;
    for (AffineExpr r : map.getResults()) {
      if (isa<AffineConstantExpr>(r)) {
        results.push_back(r);
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(r);
      if (!d || d.getPosition() > 1)
        return {};
      results.push_back(e(d.getPosition()));
    }
    inputs.push_back(in->get());
    maps.push_back(AffineMap::get(6, 0, results, ctx));
  }
  // Identity-read inputs (other than the result) and the init expand.
  for (auto [v, m] : llvm::zip(inputs, maps))
    if (v != result && m.isIdentity())
      v = expand(v);
  Value init = expand(g.getDpsInitOperand(0)->get());
  maps.push_back(AffineMap::getMultiDimIdentityMap(6, ctx));
  SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
  auto g6 =
      linalg::GenericOp::create(rewriter, g.getLoc(), TypeRange{init.getType()},
                                inputs, ValueRange{init}, maps, iters);
  rewriter.inlineRegionBefore(g.getRegion(), g6.getRegion(),
                              g6.getRegion().begin());
  Value back = tensor::CollapseShapeOp::create(rewriter, g.getLoc(), type4,
                                               g6->getResult(0), re);
  if (replaced)
    *replaced = g;
  rewriter.replaceOp(g, back);
  rewriter.eraseOp(collapse);
  return g6;
}
