//===- DepthwiseConv.cpp - depthwise graph.conv to a named linalg op ------===//
//
// A 2-D graph.conv whose every group holds one input and one output channel
// (group == C == M) becomes linalg.depthwise_conv_2d_nchw_chw on a padded
// input, instead of the grouped contraction generic of the general conv
// lowering. The named op keeps elementwise producers out of the convolution
// body (linalg-fuse-elementwise-ops only fuses into generics) and is what
// tfrt-vectorize-depthwise turns into vector code.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Conversion/GraphToLinalg/ConvOperands.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace tfrt::graph;

namespace {

/// graph.conv (NCHW, f32, group == C == M > 1, stride 1 or 2, any dilation)
/// -> tensor.pad of the input, the bias broadcast (or zeros) as init and
/// linalg.depthwise_conv_2d_nchw_chw with the weight collapsed to [C, KH, KW].
///
///   %0 = graph.conv %x, %w, %b {strides = [1, 1], pads = [1, 1, 1, 1],
///                               dilations = [1, 1], group = 8}
///       : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>)
///       -> tensor<1x8x16x16xf32>
/// becomes
///   %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] { yield %cst0 }
///   %w2 = tensor.collapse_shape %w [[0, 1], [2], [3]]
///   %i = linalg.generic {maps = [(n,c,h,w) -> (c), id]} ins(%b) outs(%e)
///   %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1>,
///            dilations = dense<1>} ins(%p, %w2) outs(%i)
///
/// The width is padded at the end by stride - 1 columns beyond what the
/// windows reach, so that a vector of output columns can read whole groups
/// of `stride` input columns.
struct DepthwiseConvLowering : OpConversionPattern<ConvOp> {
  DepthwiseConvLowering(MLIRContext *ctx)
      : OpConversionPattern<ConvOp>(ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    tfrt::StaticF32Conv2D types =
        tfrt::matchStaticF32Conv2D(x.getType(), w.getType(), op.getType());
    if (!types)
      return failure();
    RankedTensorType xt = types.input, wt = types.weight, type = types.result;
    Type elem = xt.getElementType();
    int64_t c = xt.getDimSize(1);
    if (c < 2 || static_cast<int64_t>(op.getGroup()) != c ||
        wt.getDimSize(0) != c || wt.getDimSize(1) != 1 ||
        type.getDimSize(1) != c || type.getDimSize(0) != xt.getDimSize(0))
      return failure();
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
      return failure();
    for (int64_t i = 0; i < 2; ++i)
      if (strides[i] < 1 || strides[i] > 2 || dilations[i] < 1 || pads[i] < 0 ||
          pads[i + 2] < 0)
        return failure();
    Value bias = adaptor.getBias();
    if (bias) {
      auto bt = dyn_cast<RankedTensorType>(bias.getType());
      if (!bt || bt.getRank() != 1 || bt.getDimSize(0) != c ||
          bt.getElementType() != elem)
        return failure();
    }
    // Output sizes must be what the attributes give (the general lowering
    // reports inconsistencies).
    for (int64_t i = 0; i < 2; ++i) {
      int64_t span = (wt.getDimSize(2 + i) - 1) * dilations[i] + 1;
      int64_t out =
          (xt.getDimSize(2 + i) + pads[i] + pads[i + 2] - span) / strides[i] +
          1;
      if (type.getDimSize(2 + i) != out || out < 1)
        return failure();
    }

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getFloatAttr(elem, 0.0));

    // Pad: begin pads as given; the end as far as the windows reach (plus
    // stride - 1 columns for whole-vector reads).
    SmallVector<int64_t> low{0, 0}, high{0, 0}, padded(xt.getShape());
    for (int64_t i = 0; i < 2; ++i) {
      int64_t needed = (type.getDimSize(2 + i) - 1) * strides[i] +
                       (wt.getDimSize(2 + i) - 1) * dilations[i] + 1;
      if (i == 1)
        needed += strides[i] - 1;
      low.push_back(pads[i]);
      high.push_back(
          std::max<int64_t>(0, needed - xt.getDimSize(2 + i) - pads[i]));
    }
    for (int64_t i = 0; i < 4; ++i)
      padded[i] += low[i] + high[i];
    Value in = x;
    if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
        llvm::any_of(high, [](int64_t v) { return v != 0; }))
      in = tensor::PadOp::create(rewriter, loc,
                                 RankedTensorType::get(padded, elem), x,
                                 getAsIndexOpFoldResult(ctx, low),
                                 getAsIndexOpFoldResult(ctx, high), zero);

    Value filter = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({c, wt.getDimSize(2), wt.getDimSize(3)}, elem), w,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});

    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    Value init;
    if (bias) {
      AffineMap id = rewriter.getMultiDimIdentityMap(4);
      AffineMap bmap = AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx);
      SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
      init = linalg::GenericOp::create(
                 rewriter, loc, TypeRange{type}, ValueRange{bias},
                 ValueRange{empty}, ArrayRef<AffineMap>{bmap, id}, iters,
                 [](OpBuilder &b, Location l, ValueRange a) {
                   linalg::YieldOp::create(b, l, a[0]);
                 })
                 .getResult(0);
    } else {
      init = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                    ValueRange{empty})
                 .getResult(0);
    }

    NamedAttribute attrs[] = {
        rewriter.getNamedAttr("strides", rewriter.getI64TensorAttr(strides)),
        rewriter.getNamedAttr("dilations",
                              rewriter.getI64TensorAttr(dilations))};
    auto conv = linalg::DepthwiseConv2DNchwChwOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{in, filter},
        ValueRange{init}, attrs);
    rewriter.replaceOp(op, conv.getResult(0));
    return success();
  }
};

} // namespace

void tfrt::populateDepthwiseConvPatterns(RewritePatternSet &patterns) {
  patterns.add<DepthwiseConvLowering>(patterns.getContext());
}
