//===- SplitMatmulColumns.cpp - vector-width columns and the rest ---------===//
//
// Implements tfrt-split-matmul-columns: a linalg.matmul whose column count
// is not a multiple of the vector width becomes a linalg.matmul over the
// largest multiple (for tfrt-vectorize-matmul) and a contraction generic
// over the remaining columns (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tfrt {
#define GEN_PASS_DEF_SPLITMATMULCOLUMNS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// Slices [rows, begin .. begin + width) of a 2-D tensor.
Value columns(OpBuilder &b, Location loc, Value t, int64_t rows, int64_t begin,
              int64_t width) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                       b.getIndexAttr(begin)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                     b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({rows, width}, type.getElementType()), t,
      offsets, sizes, strides);
}

Value insertColumns(OpBuilder &b, Location loc, Value part, Value into,
                    int64_t rows, int64_t begin, int64_t width) {
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                       b.getIndexAttr(begin)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                     b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                       strides);
}

LogicalResult splitOne(RewriterBase &rewriter, linalg::MatmulOp op,
                       int64_t lanes, int64_t tile, bool keepSeeded) {
  if (!tfrt::isStaticF32Matmul(op) || op.hasUserDefinedMaps())
    return failure();
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (n <= lanes || m == 0 || k == 0)
    return failure();
  int64_t main = n - n % lanes, rest = n - main;
  // Columns in whole `tile`-wide register tiles, then the lanes-wide rest
  // of `main` (a second matmul, vectorized with the narrower tile).
  int64_t wide = main;
  if (tile > lanes && tile % lanes == 0 && main > tile)
    wide = main - main % tile;
  if (rest == 0 && wide == main)
    return failure();
  // tfrt-vectorize-matmul seeds the whole product from its per-row init
  // and adds the narrower tiles itself (see keep-seeded).
  if (rest == 0 && keepSeeded && k <= tfrt::kSeedMaxK && tfrt::matchRowInit(op))
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value lhs = op.getInputs()[0], rhs = op.getInputs()[1],
        out = op.getOutputs()[0];

  auto matmulPart = [&](int64_t begin, int64_t width) {
    Value part =
        linalg::MatmulOp::create(
            rewriter, loc,
            TypeRange{RankedTensorType::get({m, width}, c.getElementType())},
            ValueRange{lhs, columns(rewriter, loc, rhs, k, begin, width)},
            ValueRange{columns(rewriter, loc, out, m, begin, width)})
            .getResult(0);
    out = insertColumns(rewriter, loc, part, out, m, begin, width);
  };
  matmulPart(0, wide);
  if (main > wide)
    matmulPart(wide, main - wide);
  if (rest == 0) {
    rewriter.replaceOp(op, out);
    return success();
  }

  // The rest as a contraction generic (m, n, k): the loop lowering's
  // interchange then puts its few contiguous columns innermost.
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                 AffineMap::get(3, 0, {d(2), d(1)}, ctx),
                                 AffineMap::get(3, 0, {d(0), d(1)}, ctx)};
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  auto restType = RankedTensorType::get({m, rest}, c.getElementType());
  Value restPart =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{restType},
          ValueRange{lhs, columns(rewriter, loc, rhs, k, main, rest)},
          ValueRange{columns(rewriter, loc, out, m, main, rest)}, maps, iters,
          [](OpBuilder &bb, Location l, ValueRange args) {
            Value p = arith::MulFOp::create(bb, l, args[0], args[1]);
            linalg::YieldOp::create(
                bb, l, arith::AddFOp::create(bb, l, args[2], p).getResult());
          })
          .getResult(0);
  out = insertColumns(rewriter, loc, restPart, out, m, main, rest);
  rewriter.replaceOp(op, out);
  return success();
}

struct SplitMatmulColumnsPass
    : public tfrt::impl::SplitMatmulColumnsBase<SplitMatmulColumnsPass> {
  using SplitMatmulColumnsBase::SplitMatmulColumnsBase;

  void runOnOperation() override {
    if (lanes < 1 || tile < 1) {
      getOperation().emitError(
          "tfrt-split-matmul-columns: lanes and tile must be >= 1");
      return signalPassFailure();
    }
    SmallVector<linalg::MatmulOp> ops;
    getOperation().walk([&](linalg::MatmulOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : ops)
      (void)splitOne(rewriter, op, lanes, tile, keepSeeded);
  }
};
} // namespace
