//===- VectorizeMatmul.cpp - cache/register tiling + vectorization --------===//
//
// Implements tfrt-vectorize-matmul: two levels of tiling with
// scf::tileUsingSCF and linalg::vectorize of the register tile into one
// vector.contract (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZEMATMUL
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Register tile candidates, best first: rows of the left operand broadcast
/// per step, and columns (vectors of 16 lanes) of the right one. 8x32 keeps
/// 16 zmm accumulators; smaller row counts serve shapes that 8 does not
/// divide (det's 1x1 convs have M = 12, 18, 42, ...).
constexpr int64_t kRegMs[] = {8, 6, 4, 3, 2, 1};
constexpr int64_t kRegNs[] = {32, 16};

/// The largest of `candidates` (descending) that divides `n`.
int64_t largestDivisor(int64_t n, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 1;
}

FailureOr<Operation *> tile(RewriterBase &rewriter, Operation *op,
                            ArrayRef<int64_t> sizes) {
  scf::SCFTilingOptions opts;
  opts.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> r =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), opts);
  if (failed(r) || r->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, r->replacements);
  return r->tiledOps.front();
}

LogicalResult vectorizeOne(RewriterBase &rewriter, linalg::MatmulOp op) {
  if (!tfrt::isStaticF32Matmul(op))
    return failure();
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  // Plain row-major matmul (no transposed or broadcast maps).
  if (op.hasUserDefinedMaps())
    return failure();
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (n % kRegNs[std::size(kRegNs) - 1])
    return failure();
  int64_t rn = largestDivisor(n, kRegNs);
  int64_t rm = largestDivisor(m, kRegMs);
  // One row at a time is latency-bound; only a single-row product takes it.
  if (rm == 1 && m != 1)
    return failure();
  // Cache tiles: multiples of the register tile that divide the shape.
  int64_t mt = rm;
  for (int64_t f : {8, 4, 2})
    if (m % (rm * f) == 0 && rm * f <= 64) {
      mt = rm * f;
      break;
    }
  int64_t nt = largestDivisor(n, {256, 128, 64, 32, 16});
  // K stays whole up to 256 (1x1 convs: the accumulators are read and
  // written once per tile), larger K in power-of-two blocks.
  int64_t kt =
      k <= 256 ? k : largestDivisor(k, {256, 128, 64, 32, 16, 8, 4, 2, 1});
  FailureOr<Operation *> outer = tile(rewriter, op, {mt, nt, kt});
  if (failed(outer))
    return failure();
  FailureOr<Operation *> inner = tile(rewriter, *outer, {rm, rn, 1});
  if (failed(inner))
    return failure();
  rewriter.setInsertionPoint(*inner);
  FailureOr<linalg::VectorizationResult> v = linalg::vectorize(
      rewriter, *inner, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
      /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (failed(v))
    return failure();
  rewriter.replaceOp(*inner, v->replacements);
  return success();
}

struct VectorizeMatmulPass
    : public tfrt::impl::VectorizeMatmulBase<VectorizeMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> ops;
    getOperation().walk([&](linalg::MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : ops)
      (void)vectorizeOne(rewriter, op);
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    for (RegisteredOperationName name :
         getContext().getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
