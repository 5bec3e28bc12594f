//===- GraphToLinalg.cpp - lower graph ops to linalg on tensors -----------===//
//
// Conversion patterns from the graph dialect (static shapes) to linalg,
// tensor, arith and math on tensors, and the tfrt-lower-graph-to-linalg pass.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tfrt {
#define GEN_PASS_DEF_LOWERGRAPHTOLINALG
#include "passes/Conversion/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::graph;

namespace {

/// graph.constant -> arith.constant.
struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "unsupported constant attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// Elementwise unary op -> linalg.generic applying `build` to each element.
template <typename OpTy>
struct UnaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{adaptor.getInput()}, ValueRange{init},
        ArrayRef<AffineMap>{id, id}, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = arith::ConstantOp::create(
              b, l, b.getZeroAttr(type.getElementType()));
          Value r = arith::MaximumFOp::create(b, l, args[0], zero);
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct LowerGraphToLinalgPass
    : public tfrt::impl::LowerGraphToLinalgBase<LowerGraphToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<GraphDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect>();
    RewritePatternSet patterns(ctx);
    tfrt::populateGraphToLinalgPatterns(patterns);
    if (failed(applyFullConversion(getOperation(), target,
                                   std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void tfrt::populateGraphToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, UnaryLowering<ReluOp>>(patterns.getContext());
}
