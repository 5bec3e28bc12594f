//===- MatMulRows.cpp - matmuls with a 2-D right operand as row products --===//
//
// graph.matmul of an N-D f32 left operand with a 2-D right operand is one
// matrix product over the left operand's collapsed rows; emitted as
// linalg.matmul (what tfrt-vectorize-matmul tiles) instead of the broadcast
// contraction generic of the general lowering. A column count that the
// vectorized register tile does not divide is split into a part it divides
// and the remaining columns, each its own linalg.matmul.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace tfrt::graph;

namespace {

/// Column multiple of the vectorized matmul's register tile.
constexpr int64_t kColumns = 32;

/// graph.matmul (f32, left [B..., M, K] with rank >= 2, right [K, N]) ->
/// collapse the left operand to [B*...*M, K], one linalg.matmul (or two:
/// columns [0, N - N % 32) and the rest, written into slices of one zero
/// init) and expand the result back. Applies when the left operand has
/// batch dimensions or N is above 32 and not a multiple of it; plain 2-D
/// products of other shapes keep the general lowering.
///
///   %0 = graph.matmul %a, %b : (tensor<1x40x120xf32>, tensor<120x100xf32>)
///       -> tensor<1x40x100xf32>
/// becomes
///   %a2 = tensor.collapse_shape %a [[0, 1], [2]] : ... into tensor<40x120xf32>
///   %z = linalg.fill ins(%cst0) outs(%e : tensor<40x100xf32>)
///   %m = linalg.matmul ins(%a2, %b[0, 0] [120, 96]) outs(%z[0, 0] [40, 96])
///   %t = linalg.matmul ins(%a2, %b[0, 96] [120, 4]) outs(%z[0, 96] [40, 4])
///   (both inserted into %z), expanded to tensor<1x40x100xf32>
struct MatMulRowsLowering : OpConversionPattern<MatMulOp> {
  MatMulRowsLowering(MLIRContext *ctx)
      : OpConversionPattern<MatMulOp>(ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = dyn_cast<RankedTensorType>(lhs.getType());
    auto rt = dyn_cast<RankedTensorType>(rhs.getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!lt || !rt || !type || !lt.hasStaticShape() || !rt.hasStaticShape() ||
        !type.hasStaticShape() || !lt.getElementType().isF32() ||
        rt.getElementType() != lt.getElementType() ||
        type.getElementType() != lt.getElementType())
      return failure();
    int64_t rank = lt.getRank();
    if (rank < 2 || rt.getRank() != 2 || type.getRank() != rank)
      return failure();
    int64_t k = rt.getDimSize(0), n = rt.getDimSize(1);
    if (lt.getDimSize(rank - 1) != k || type.getDimSize(rank - 1) != n ||
        lt.getNumElements() == 0 || type.getNumElements() == 0)
      return failure();
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (type.getDimSize(i) != lt.getDimSize(i))
        return failure();
    bool split = n > kColumns && n % kColumns != 0;
    if (rank == 2 && !split)
      return failure();

    Location loc = op.getLoc();
    Type elem = lt.getElementType();
    int64_t m = lt.getNumElements() / k;
    auto mk = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, elem);
    };
    SmallVector<ReassociationIndices> rows;
    if (rank > 2) {
      ReassociationIndices lead;
      for (int64_t i = 0; i + 1 < rank; ++i)
        lead.push_back(i);
      rows = {lead, {rank - 1}};
      lhs =
          tensor::CollapseShapeOp::create(rewriter, loc, mk({m, k}), lhs, rows);
    }
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getFloatAttr(elem, 0.0));
    Value init = linalg::FillOp::create(
                     rewriter, loc, ValueRange{zero},
                     ValueRange{tensor::EmptyOp::create(
                         rewriter, loc, ArrayRef<int64_t>{m, n}, elem)})
                     .getResult(0);
    Value result;
    if (!split) {
      result = linalg::MatmulOp::create(rewriter, loc, TypeRange{mk({m, n})},
                                        ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else {
      int64_t main = n - n % kColumns;
      result = init;
      for (auto [begin, width] :
           {std::pair<int64_t, int64_t>{0, main}, {main, n - main}}) {
        SmallVector<OpFoldResult> one = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(1)};
        SmallVector<OpFoldResult> rhsOff = {rewriter.getIndexAttr(0),
                                            rewriter.getIndexAttr(begin)};
        SmallVector<OpFoldResult> rhsSize = {rewriter.getIndexAttr(k),
                                             rewriter.getIndexAttr(width)};
        SmallVector<OpFoldResult> outSize = {rewriter.getIndexAttr(m),
                                             rewriter.getIndexAttr(width)};
        Value b = tensor::ExtractSliceOp::create(rewriter, loc, mk({k, width}),
                                                 rhs, rhsOff, rhsSize, one);
        Value c = tensor::ExtractSliceOp::create(rewriter, loc, mk({m, width}),
                                                 result, rhsOff, outSize, one);
        Value part =
            linalg::MatmulOp::create(rewriter, loc, TypeRange{mk({m, width})},
                                     ValueRange{lhs, b}, ValueRange{c})
                .getResult(0);
        result = tensor::InsertSliceOp::create(rewriter, loc, part, result,
                                               rhsOff, outSize, one);
      }
    }
    if (rank > 2)
      result = tensor::ExpandShapeOp::create(rewriter, loc, type, result, rows);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tfrt::populateMatMulRowsPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulRowsLowering>(patterns.getContext());
}
