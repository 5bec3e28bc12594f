//===- AsyncTileLoops.cpp - split expensive ops into parallel chunks ------===//
//
// Implements tfrt-async-tile-loops (see Passes.td): the cost model that
// decides which linalg ops run as parallel chunks, and their tiling into
// scf.forall.
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"
#include "passes/Async/CostModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_ASYNCTILELOOPS
#include "passes/Async/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

struct Split {
  unsigned dim = 0;
  int64_t tile = 0;
};

/// Picks the loop and tile size for `op`, if splitting pays.
std::optional<Split> chooseSplit(linalg::LinalgOp op, int64_t cost,
                                 int64_t minChunkCost, int64_t maxChunks) {
  int64_t wanted = std::min<int64_t>(maxChunks, cost / minChunkCost);
  if (wanted < 2)
    return std::nullopt;
  bool matmul = isa<linalg::MatmulOp>(op.getOperation());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (it != utils::IteratorType::parallel)
      continue;
    if (matmul && d != 0)
      break; // only M keeps the register tiling intact
    int64_t range = ranges[d];
    // The most chunks <= wanted that divide the range evenly.
    for (int64_t chunks = std::min(wanted, range); chunks >= 2; --chunks) {
      if (range % chunks)
        continue;
      int64_t tile = range / chunks;
      // Whole register tiles, and enough rows to keep the cache tiling.
      if (matmul && (tile % 8 || tile < std::min<int64_t>(32, range / 2)))
        continue;
      return Split{(unsigned)d, tile};
    }
  }
  return std::nullopt;
}

struct AsyncTileLoopsPass
    : public tfrt::impl::AsyncTileLoopsBase<AsyncTileLoopsPass> {
  using AsyncTileLoopsBase::AsyncTileLoopsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (minChunkCost < 1 || maxChunks < 2) {
      func.emitError("tfrt-async-tile-loops: min-chunk-cost must be >= 1 and "
                     "max-chunks >= 2");
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
        if (linalgOp.hasPureTensorSemantics() &&
            isa<TilingInterface>(linalgOp.getOperation()))
          candidates.push_back(linalgOp);

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      if (llvm::any_of(op.getStaticLoopRanges(),
                       [](int64_t r) { return ShapedType::isDynamic(r); }))
        continue;
      int64_t cost = tfrt::async::estimateCost(op);
      if (cost < minCost)
        continue;
      std::optional<Split> split =
          chooseSplit(op, cost, minChunkCost, maxChunks);
      if (!split)
        continue;
      SmallVector<OpFoldResult> sizes(op.getNumLoops(),
                                      rewriter.getIndexAttr(0));
      sizes[split->dim] = rewriter.getIndexAttr(split->tile);
      scf::SCFTilingOptions options;
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue; // stays sequential
      rewriter.replaceOp(op, tiled->replacements);
      ++numSplit;
    }
  }
};
} // namespace
