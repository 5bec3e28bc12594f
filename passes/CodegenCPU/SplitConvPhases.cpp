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

#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tfrt {
#define GEN_PASS_DEF_SPLITCONVPHASES
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::conv;

namespace {
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
void splitColumnPhases(RewriterBase &rewriter, linalg::GenericOp op) {
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
  Value xs = zeros({n, 2 * c, rows, width});
  Value ws = zeros({m, 2 * c, kh, q});
  for (int64_t p = 0; p < 2; ++p) {
    // Input columns p, p + 2, ... that exist, at most `width` of them.
    int64_t count = std::min(width, (cols - p + 1) / 2);
    if (count > 0) {
      Value part = tensor::ExtractSliceOp::create(
          rewriter, loc, x, idx({0, 0, 0, p}), idx({n, c, rows, count}),
          idx({1, 1, 1, 2}));
      xs = tensor::InsertSliceOp::create(
          rewriter, loc, part, xs, idx({0, p * c, 0, 0}),
          idx({n, c, rows, count}), idx({1, 1, 1, 1}));
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
}

struct SplitConvPhasesPass
    : public tfrt::impl::SplitConvPhasesBase<SplitConvPhasesPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      // Only where tfrt-vectorize-conv then has a register tile: the split
      // costs a copy and the zero taps.
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (convColumnStride(op) == 2 && firstDivisor(ranges[kM], kRegMs) &&
          firstDivisor(ranges[kOW], kRegNs))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops)
      splitColumnPhases(rewriter, op);
  }
};
} // namespace
