//===- VectorizeReductions.cpp - sums over trailing dims as vectors -------===//
//
// Implements tfrt-vectorize-reductions: a static f32 linalg.generic on
// tensors that sums its one input over its trailing dimensions
// (GlobalAveragePool, ReduceSum/ReduceMean over the last axes) or takes
// their maximum or minimum (Softmax's row maximum, ReduceMax/Min) becomes a
// loop over the output elements whose body combines the contiguous row with
// vector accumulators instead of one scalar chain (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/Reduction.h"

#include <limits>

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZEREDUCTIONS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// The identity of `kind`: 0 for sums, -inf for maxima, +inf for minima.
float identityOf(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::MAXIMUMF:
  case vector::CombiningKind::MAXNUMF:
    return -std::numeric_limits<float>::infinity();
  case vector::CombiningKind::MINIMUMF:
  case vector::CombiningKind::MINNUMF:
    return std::numeric_limits<float>::infinity();
  default:
    return 0.0f;
  }
}

/// The elements of `v` combined (sums reassociated; maxima and minima are
/// exact in any order).
Value reduceVector(OpBuilder &b, Location loc, vector::CombiningKind kind,
                   Value v) {
  return vector::ReductionOp::create(b, loc, kind, v, Value(),
                                     kind == vector::CombiningKind::ADD
                                         ? arith::FastMathFlags::reassoc
                                         : arith::FastMathFlags::none);
}

LogicalResult vectorizeOne(IRRewriter &rewriter, linalg::GenericOp op,
                           int64_t lanes, int64_t unroll) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return failure();
  Value input = op.getDpsInputOperand(0)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  auto outType = dyn_cast<RankedTensorType>(init.getType());
  if (!inType || !outType || !inType.hasStaticShape() ||
      !outType.hasStaticShape() || !inType.getElementType().isF32() ||
      !outType.getElementType().isF32())
    return failure();
  int64_t rank = inType.getRank(), kept = outType.getRank();
  if (kept < 1 || kept >= rank)
    return failure();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (int64_t d = 0; d < rank; ++d)
    if (iters[d] != (d < kept ? utils::IteratorType::parallel
                              : utils::IteratorType::reduction))
      return failure();
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> leading;
  for (int64_t d = 0; d < kept; ++d)
    leading.push_back(getAffineDimExpr(d, ctx));
  if (maps[0] != AffineMap::getMultiDimIdentityMap(rank, ctx) ||
      maps[1] != AffineMap::get(rank, 0, leading, ctx))
    return failure();
  for (int64_t d = 0; d < kept; ++d)
    if (inType.getDimSize(d) != outType.getDimSize(d))
      return failure();
  std::optional<vector::CombiningKind> kind =
      tfrt::codegen::reductionCombiner(op);
  if (!kind)
    return failure();

  int64_t rows = outType.getNumElements();
  int64_t cols = inType.getNumElements() / std::max<int64_t>(rows, 1);
  if (rows == 0 || cols < lanes)
    return failure();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  ReassociationIndices lead, trail;
  for (int64_t d = 0; d < rank; ++d)
    (d < kept ? lead : trail).push_back(d);
  Value in = tensor::CollapseShapeOp::create(
      rewriter, loc, input, SmallVector<ReassociationIndices>{lead, trail});
  Value out = init;
  if (kept > 1)
    out = tensor::CollapseShapeOp::create(
        rewriter, loc, init, SmallVector<ReassociationIndices>{lead});

  Type f32 = rewriter.getF32Type();
  int64_t step = lanes * unroll;
  int64_t mainEnd = cols / step * step;
  int64_t restVectors = (cols - mainEnd) / lanes;
  int64_t tailStart = mainEnd + restVectors * lanes;
  auto wideType = VectorType::get({step}, f32);
  auto vecType = VectorType::get({lanes}, f32);

  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  auto rowLoop = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, rows), c1, ValueRange{out},
      [&](OpBuilder &b, Location l, Value row, ValueRange iter) {
        Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0));
        SmallVector<Value> parts;
        if (mainEnd > 0) {
          Value acc = arith::ConstantOp::create(
              b, l, DenseElementsAttr::get(wideType, identityOf(*kind)));
          auto colLoop = scf::ForOp::create(
              b, l, c0, cst(b, mainEnd), cst(b, step), ValueRange{acc},
              [&](OpBuilder &b, Location l, Value col, ValueRange accs) {
                Value v = vector::TransferReadOp::create(
                    b, l, wideType, in, ValueRange{row, col}, zero,
                    ArrayRef<bool>{true});
                scf::YieldOp::create(
                    b, l, vector::makeArithReduction(b, l, *kind, accs[0], v));
              });
          parts.push_back(reduceVector(b, l, *kind, colLoop.getResult(0)));
        }
        if (restVectors > 0) {
          Value acc;
          for (int64_t i = 0; i < restVectors; ++i) {
            Value v = vector::TransferReadOp::create(
                b, l, vecType, in, ValueRange{row, cst(b, mainEnd + i * lanes)},
                zero, ArrayRef<bool>{true});
            acc = acc ? vector::makeArithReduction(b, l, *kind, acc, v) : v;
          }
          parts.push_back(reduceVector(b, l, *kind, acc));
        }
        for (int64_t c = tailStart; c < cols; ++c)
          parts.push_back(
              tensor::ExtractOp::create(b, l, in, ValueRange{row, cst(b, c)}));
        Value all = parts.front();
        for (Value p : ArrayRef<Value>(parts).drop_front())
          all = vector::makeArithReduction(b, l, *kind, all, p);
        Value old = tensor::ExtractOp::create(b, l, iter[0], ValueRange{row});
        Value res = vector::makeArithReduction(b, l, *kind, old, all);
        Value next =
            tensor::InsertOp::create(b, l, res, iter[0], ValueRange{row});
        scf::YieldOp::create(b, l, next);
      });
  Value result = rowLoop.getResult(0);
  if (kept > 1)
    result =
        tensor::ExpandShapeOp::create(rewriter, loc, outType, result,
                                      SmallVector<ReassociationIndices>{lead});
  rewriter.replaceOp(op, result);
  return success();
}

struct VectorizeReductionsPass
    : public tfrt::impl::VectorizeReductionsBase<VectorizeReductionsPass> {
  using VectorizeReductionsBase::VectorizeReductionsBase;

  void runOnOperation() override {
    if (lanes < 1 || unroll < 1) {
      getOperation().emitError(
          "tfrt-vectorize-reductions: lanes and unroll must be >= 1");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops)
      (void)vectorizeOne(rewriter, op, lanes, unroll);
  }
};
} // namespace
