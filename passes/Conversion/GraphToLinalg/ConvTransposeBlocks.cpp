//===- ConvTransposeBlocks.cpp - kernel == stride transposed convs --------===//
//
// A 2-D graph.conv_transpose whose kernel equals its stride (no padding, no
// dilation, one group) writes disjoint kernel-sized blocks: every input
// pixel produces one KH x KW block of the output. It is lowered as one
// contraction over the input channels into the output viewed as
// [N, M, IH, KH, IW, KW], instead of the general lowering's convolution over
// the zero-upsampled input (which reads a stride^2 times larger buffer that
// is mostly zeros and multiplies the zeros too).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Conversion/GraphToLinalg/ConvOperands.h"
#include "passes/Conversion/Passes.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace tfrt::graph;

namespace {

/// graph.conv_transpose (f32, NCHW, group 1, kernel == stride, pads 0,
/// dilations 1, output = input * stride) -> the bias broadcast (or zeros) as
/// an [N, M, IH, KH, IW, KW] init, one generic with loops
/// (n, m, ih, kh, c, iw, kw) (the reduction over c sits outside the two
/// innermost parallel loops, so the innermost loops walk contiguous output
/// and input rows), and the collapse back to [N, M, IH*KH, IW*KW].
///
///   %0 = graph.conv_transpose %x, %w, %b {strides = [2, 2], pads = [0, 0, 0,
///   0],
///            dilations = [1, 1], output_padding = [0, 0], group = 1}
///       : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>, tensor<3xf32>) ->
///       tensor<1x3x8x8xf32>
/// becomes
///   %i = linalg.generic {maps = [(n,m,h,a,w,b) -> (m), id]} ins(%b) outs(%e)
///   %r = linalg.generic {indexing_maps = [
///          (n,m,h,a,c,w,b) -> (n, c, h, w), (n,m,h,a,c,w,b) -> (c, m, a, b),
///          (n,m,h,a,c,w,b) -> (n, m, h, a, w, b)],
///        iterator_types = [par, par, par, par, red, par, par]}
///       ins(%x, %w) outs(%i : tensor<1x3x4x2x4x2xf32>) { %o + %x * %y }
///   %0 = tensor.collapse_shape %r [[0], [1], [2, 3], [4, 5]]
struct ConvTransposeBlocksLowering : OpConversionPattern<ConvTransposeOp> {
  ConvTransposeBlocksLowering(MLIRContext *ctx)
      : OpConversionPattern<ConvTransposeOp>(ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    tfrt::StaticF32Conv2D types =
        tfrt::matchStaticF32Conv2D(x.getType(), w.getType(), op.getType());
    if (!types || op.getGroup() != 1)
      return failure();
    RankedTensorType xt = types.input, wt = types.weight, type = types.result;
    Type elem = xt.getElementType();
    int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), m = wt.getDimSize(1);
    int64_t ih = xt.getDimSize(2), iw = xt.getDimSize(3);
    int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2 ||
        wt.getDimSize(0) != c || type.getDimSize(0) != n ||
        type.getDimSize(1) != m || strides[0] != kh || strides[1] != kw ||
        dilations[0] != 1 || dilations[1] != 1 ||
        llvm::any_of(pads, [](int64_t p) { return p != 0; }) ||
        type.getDimSize(2) != ih * kh || type.getDimSize(3) != iw * kw ||
        type.getNumElements() == 0 || c == 0)
      return failure();
    Value bias = adaptor.getBias();
    if (bias) {
      auto bt = dyn_cast<RankedTensorType>(bias.getType());
      if (!bt || bt.getRank() != 1 || bt.getDimSize(0) != m ||
          bt.getElementType() != elem)
        return failure();
    }

    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<int64_t> blocks{n, m, ih, kh, iw, kw};
    auto blockType = RankedTensorType::get(blocks, elem);
    Value empty = tensor::EmptyOp::create(rewriter, loc, blocks, elem);
    Value init;
    if (bias) {
      SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
      init = linalg::GenericOp::create(
                 rewriter, loc, TypeRange{blockType}, ValueRange{bias},
                 ValueRange{empty},
                 ArrayRef<AffineMap>{AffineMap::get(6, 0, {d(1)}, ctx),
                                     rewriter.getMultiDimIdentityMap(6)},
                 iters,
                 [](OpBuilder &b, Location l, ValueRange a) {
                   linalg::YieldOp::create(b, l, a[0]);
                 })
                 .getResult(0);
    } else {
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getFloatAttr(elem, 0.0));
      init = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                    ValueRange{empty})
                 .getResult(0);
    }

    // Loops (n, m, ih, kh, c, iw, kw).
    SmallVector<AffineMap> maps{
        AffineMap::get(7, 0, {d(0), d(4), d(2), d(5)}, ctx),
        AffineMap::get(7, 0, {d(4), d(1), d(3), d(6)}, ctx),
        AffineMap::get(7, 0, {d(0), d(1), d(2), d(3), d(5), d(6)}, ctx)};
    SmallVector<utils::IteratorType> iters(7, utils::IteratorType::parallel);
    iters[4] = utils::IteratorType::reduction;
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{blockType}, ValueRange{x, w},
            ValueRange{init}, maps, iters,
            [](OpBuilder &b, Location l, ValueRange a) {
              Value p = arith::MulFOp::create(b, l, a[0], a[1]);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, a[2], p).getResult());
            })
            .getResult(0);
    result = tensor::CollapseShapeOp::create(
        rewriter, loc, type, result,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tfrt::populateConvTransposeBlocksPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvTransposeBlocksLowering>(patterns.getContext());
}
