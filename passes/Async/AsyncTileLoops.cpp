//===- AsyncTileLoops.cpp - split expensive ops into parallel chunks ------===//
//
// Implements tfrt-async-tile-loops (see Passes.td): the cost model that
// decides which linalg ops run as parallel chunks, and their tiling into
// scf.forall.
//
//===----------------------------------------------------------------------===//

#include "passes/Async/CostModel.h"
#include "passes/Async/Passes.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Epilogue.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

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

/// Whether `op` is a generic with 7 loops, two inputs and one init whose
/// parallel loops are exactly those `isParallel` says.
template <typename Pred>
bool isWindowedGeneric(linalg::LinalgOp op, Pred isParallel) {
  if (!isa<linalg::GenericOp>(op.getOperation()) || op.getNumLoops() != 7 ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < 7; ++i)
    if (isParallel(i) != (iters[i] == utils::IteratorType::parallel))
      return false;
  return true;
}

/// Whether `op` is the 2-D dense convolution generic of the graph lowering:
/// loops (n, m, oh, ow, c, kh, kw), output (n, m, oh, ow), the input read
/// at (n, c, oh * s + kh * d, ow * s + kw * d).
bool isConv2DGeneric(linalg::LinalgOp op) {
  if (!isWindowedGeneric(op, [](unsigned i) { return i < 4; }))
    return false;
  MLIRContext *ctx = op.getContext();
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      AffineMap::getMultiDimIdentityMap(7, ctx).getMajorSubMap(4))
    return false;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (in.getNumResults() != 4)
    return false;
  // NCHW, or the rows-outer [N, H, C, W] input of tfrt-split-conv-phases.
  auto isRows = [](AffineExpr e) {
    return e.isFunctionOfDim(2) && e.isFunctionOfDim(5);
  };
  return isRows(in.getResult(2)) || isRows(in.getResult(1));
}

/// Whether `op` is the generic of a ConvTranspose whose kernel equals its
/// stride: loops (n, m, ih, kh, c, iw, kw), output (n, m, ih, kh, iw, kw),
/// c the only reduction.
bool isConvTransposeGeneric(linalg::LinalgOp op) {
  if (!isWindowedGeneric(op, [](unsigned i) { return i != 4; }))
    return false;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  return op.getMatchingIndexingMap(op.getDpsInitOperand(0)) ==
         AffineMap::get(7, 0, {d(0), d(1), d(2), d(3), d(5), d(6)}, ctx);
}

/// The multiple that chunks of loop `dim` must be for `op` to read its
/// operands correctly after tiling: tiled ops keep their indexing maps on
/// slice-relative indices, which for `d floordiv f` (a nearest-neighbour
/// upsampling fused into an elementwise op) or `d mod f` is right only when
/// the chunk starts at a multiple of f.
int64_t chunkAlignment(linalg::LinalgOp op, unsigned dim) {
  int64_t align = 1;
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr result : map.getResults())
      result.walk([&](AffineExpr e) {
        auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        if (!bin ||
            (bin.getKind() != AffineExprKind::FloorDiv &&
             bin.getKind() != AffineExprKind::CeilDiv &&
             bin.getKind() != AffineExprKind::Mod) ||
            !bin.getLHS().isFunctionOfDim(dim))
          return;
        auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
        // A symbolic divisor: no chunk size is known to be safe.
        int64_t f = c && c.getValue() > 0 ? c.getValue() : 0;
        align = f ? std::lcm(align, f) : 0;
      });
  return align;
}

/// Picks the loop and tile size for `op`, if splitting pays.
std::optional<Split> chooseSplit(linalg::LinalgOp op, int64_t cost,
                                 int64_t minChunkCost, int64_t maxChunks,
                                 int64_t reuseBytes, int64_t reuseRows) {
  int64_t wanted = std::min<int64_t>(maxChunks, cost / minChunkCost);
  if (wanted < 2)
    return std::nullopt;
  bool matmul = isa<linalg::MatmulOp>(op.getOperation());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A dense 2-D conv with a window splits along output rows first: every
  // chunk keeps all output channels (tfrt-vectorize-conv's register tile
  // spans 8 of them) and reads only the input rows its windows cover. A 1x1
  // conv (a matmul for tfrt-vectorize-conv) splits along output channels
  // like a matmul along M, keeping all columns.
  bool conv = isConv2DGeneric(op);
  bool pointwise = conv && ranges[5] == 1 && ranges[6] == 1;
  SmallVector<unsigned> order;
  if (conv)
    order.push_back(pointwise ? 1 : 2);
  // A ConvTranspose along input rows: a chunk per output channel would
  // read all of the input once per channel.
  if (isConvTransposeGeneric(op))
    order.push_back(2);
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (!llvm::is_contained(order, d))
      order.push_back(d);
  // Every chunk of a matmul's rows streams all of the right operand (K x N)
  // through the caches; when that operand is too big to stay in the core's
  // cache between chunks, each chunk keeps at least `reuseRows` rows, so that
  // one pass over it (from L3 or memory) serves that many rows of work.
  int64_t minMatmulRows = 32;
  if (matmul && reuseBytes > 0) {
    Value rhs = op.getDpsInputOperand(1)->get();
    auto rhsType = cast<ShapedType>(rhs.getType());
    if (rhsType.hasStaticShape() &&
        rhsType.getNumElements() *
                (int64_t)(rhsType.getElementTypeBitWidth() / 8) >
            reuseBytes)
      minMatmulRows = std::max<int64_t>(minMatmulRows, reuseRows);
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned d : order) {
    if (iters[d] != utils::IteratorType::parallel)
      continue;
    if (matmul && d > 1)
      break; // only M or N keeps the register tiling intact
    int64_t range = ranges[d];
    int64_t align = chunkAlignment(op, d);
    if (align == 0)
      continue;
    // The most chunks <= wanted that divide the range evenly.
    for (int64_t chunks = std::min(wanted, range); chunks >= 2; --chunks) {
      if (range % chunks)
        continue;
      int64_t tile = range / chunks;
      if (tile % align)
        continue;
      // Whole register tiles, and enough rows to keep the cache tiling; N
      // (when M cannot split) in whole 32-column register tiles.
      if (matmul && d == 0 &&
          (tile % 8 || tile < std::min<int64_t>(minMatmulRows, range / 2)))
        continue;
      if (matmul && d == 1 && tile % 32)
        continue;
      if (pointwise && d == 1 &&
          (tile % 8 || tile < std::min<int64_t>(32, range / 2)))
        continue;
      // Rows of a 1x1 conv: whole 16-column register tiles of the matmul.
      if (pointwise && d == 2 && (tile * ranges[3]) % 16)
        continue;
      // Rows of a windowed conv whose width is not a multiple of 32 (run
      // over flattened rows by tfrt-vectorize-conv): at least 320 output
      // positions per chunk, so that the narrower tail tile and the padding
      // columns computed with each row stay a small part of the chunk
      // (det's 80x80 3x3 conv: 1.39 -> 1.33 ms with 4 rows per chunk
      // instead of 2).
      if (conv && !pointwise && d == 2 && ranges[3] % 32 &&
          tile * ranges[3] < 320)
        continue;
      return Split{(unsigned)d, tile};
    }
  }
  return std::nullopt;
}

/// The elementwise consumer of a matmul, 1x1 or depthwise convolution or an
/// image stem (tfrt-vectorize-conv's 3x3 stride-2 kernel on at most 4
/// channels) that splits along with it (`epilogues`): the only user of `op`'s
/// result, an all-parallel generic in the same block with one result of the
/// same type, as many loops as the result has dimensions, and identity maps on
/// that result and on its own init (after a 1x1 conv also one that writes the
/// [N, OH, M, OW] rows-outer input of a windowed conv through (d0, d2, d1,
/// d3)). tfrt-vectorize-matmul (-depthwise, -conv-transpose, -conv) can then
/// apply it to the register tiles of each chunk before they are stored.
linalg::GenericOp epilogueConsumer(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  bool direct = isa<linalg::MatmulOp, linalg::DepthwiseConv2DNchwChwOp>(
                    op.getOperation()) ||
                isConvTransposeGeneric(op) ||
                (generic && tfrt::conv::matchStemConv(generic));
  if (!direct && !(isConv2DGeneric(op) && op.getStaticLoopRanges()[5] == 1 &&
                   op.getStaticLoopRanges()[6] == 1))
    return {};
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return {};
  Value result = op->getResult(0);
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  auto type = cast<RankedTensorType>(result.getType());
  if (!consumer || consumer->getBlock() != op->getBlock() ||
      !consumer.hasPureTensorSemantics() || consumer.getNumDpsInits() != 1 ||
      consumer->getNumResults() != 1 ||
      consumer.getNumLoops() != (unsigned)type.getRank() ||
      consumer.getNumParallelLoops() != consumer.getNumLoops())
    return {};
  // The consumer writes the result's shape through the identity, or (a 1x1
  // conv's [1, M, H, W]) the [1, H, M, W] rows-outer input of a following
  // windowed conv through (d0, d2, d1, d3).
  AffineMap init =
      consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0));
  auto resultType =
      dyn_cast<RankedTensorType>(consumer->getResult(0).getType());
  bool same = resultType == type && init.isIdentity();
  bool transposed =
      !direct && resultType &&
      tfrt::writesRowsOuter(init, resultType.getShape(), type.getShape());
  if (!same && !transposed)
    return {};
  // Each result dimension one of the producer's loops (a depthwise conv's
  // loops run (n, oh, ow, c, kh, kw)).
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      out.getNumResults() != (unsigned)type.getRank())
    return {};
  for (OpOperand *in : consumer.getDpsInputOperands())
    if (in->get() == result &&
        !consumer.getMatchingIndexingMap(in).isIdentity())
      return {};
  return consumer;
}

struct AsyncTileLoopsPass
    : public tfrt::impl::AsyncTileLoopsBase<AsyncTileLoopsPass> {
  using AsyncTileLoopsBase::AsyncTileLoopsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (minChunkCost < 1 || maxChunks < 2 || matmulReuseBytes < 0 ||
        matmulReuseRows < 8 || matmulReuseRows % 8) {
      func.emitError("tfrt-async-tile-loops: min-chunk-cost must be >= 1, "
                     "max-chunks >= 2, matmul-reuse-bytes >= 0 and "
                     "matmul-reuse-rows a positive multiple of 8");
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> candidates;
    llvm::DenseSet<Operation *> erased;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
        if (linalgOp.hasPureTensorSemantics() &&
            isa<TilingInterface>(linalgOp.getOperation()))
          candidates.push_back(linalgOp);

    IRRewriter rewriter(&getContext());
    // A ConvTranspose's [N, M, IH, KH, IW, KW] result reaches its
    // elementwise consumer through a collapse into [N, M, OH, OW]: the
    // consumer is rebuilt on the 6-D shape instead (the collapse moves after
    // it), so that it can split along with the ConvTranspose.
    if (epilogues) {
      SmallVector<linalg::LinalgOp> expanded;
      for (linalg::LinalgOp op : candidates) {
        // A consumer rebuilt for an earlier candidate is gone.
        if (erased.contains(op.getOperation()))
          continue;
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        Operation *replaced = nullptr;
        if (generic && isConvTransposeGeneric(generic))
          if (linalg::GenericOp g6 = tfrt::conv::expandConvTransposeConsumer(
                  rewriter, generic, &replaced)) {
            erased.insert(replaced);
            expanded.push_back(g6);
          }
      }
      llvm::erase_if(candidates, [&](linalg::LinalgOp op) {
        return erased.contains(op.getOperation());
      });
      candidates.append(expanded);
    }
    // Matmuls and 1x1 convs with an elementwise consumer first, so that the
    // producer of their init (a fill or a bias broadcast) is still whole
    // and joins the chunks.
    if (epilogues) {
      for (linalg::LinalgOp op : candidates) {
        // Ops erased by an earlier split (consumers, init producers) are
        // not looked at.
        if (erased.contains(op.getOperation()))
          continue;
        if (linalg::GenericOp consumer = epilogueConsumer(op))
          splitWithEpilogue(rewriter, op, consumer, erased);
      }
      llvm::erase_if(candidates, [&](linalg::LinalgOp op) {
        return erased.contains(op.getOperation());
      });
    }
    for (linalg::LinalgOp op : candidates) {
      if (llvm::any_of(op.getStaticLoopRanges(),
                       [](int64_t r) { return ShapedType::isDynamic(r); }))
        continue;
      int64_t cost = costOf(op);
      if (cost < minCost)
        continue;
      std::optional<Split> split = chooseSplit(
          op, cost, minChunkCost, maxChunks, matmulReuseBytes, matmulReuseRows);
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

  /// The cost of `op`: work or traffic, whichever takes longer (memory-bound
  /// loops such as fills, copies and elementwise chains are worth splitting
  /// by their bytes).
  int64_t costOf(linalg::LinalgOp op) {
    return std::max(tfrt::async::estimateCost(op),
                    costPerByte > 0 ? tfrt::async::bytesMoved(op) * costPerByte
                                    : 0);
  }

  /// Splits `consumer` as `op` would be split and computes `op` (with the
  /// fill or broadcast that produces its init) inside each chunk. Returns
  /// false, changing nothing, when `op` stays sequential. Adds the ops it
  /// erases to `erased`.
  bool splitWithEpilogue(IRRewriter &rewriter, linalg::LinalgOp op,
                         linalg::GenericOp consumer,
                         llvm::DenseSet<Operation *> &erased) {
    if (llvm::any_of(op.getStaticLoopRanges(),
                     [](int64_t r) { return ShapedType::isDynamic(r); }))
      return false;
    int64_t cost = costOf(op);
    if (cost < minCost)
      return false;
    std::optional<Split> split = chooseSplit(op, cost, minChunkCost, maxChunks,
                                             matmulReuseBytes, matmulReuseRows);
    if (!split)
      return false;
    // The consumer's loop over the result dimension that the split loop
    // indexes.
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    std::optional<unsigned> dim =
        out.getResultPosition(getAffineDimExpr(split->dim, op.getContext()));
    if (!dim)
      return false;
    // The consumer's own maps (an upsampled input) may need aligned chunks.
    int64_t align = chunkAlignment(consumer, *dim);
    if (align == 0 || split->tile % align)
      return false;
    SmallVector<OpFoldResult> sizes(consumer.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    sizes[*dim] = rewriter.getIndexAttr(split->tile);
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    tiling.setTileSizes(sizes);
    // The init's producer joins the chunks when only `op` reads it (a copy
    // in the chunks would otherwise repeat its work for the other users).
    Operation *initProducer = op.getDpsInitOperand(0)->get().getDefiningOp();
    if (!isa_and_nonnull<linalg::FillOp, linalg::GenericOp>(initProducer) ||
        !initProducer->hasOneUse())
      initProducer = nullptr;
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *owner = producer.getOwner();
          if (owner == op.getOperation() ||
              (initProducer && owner == initProducer))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(consumer);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(consumer.getOperation()), options);
    if (failed(fused))
      return false;
    rewriter.replaceOp(consumer,
                       fused->replacements.lookup(consumer->getResult(0)));
    erased.insert(consumer);
    // The fusion leaves the slices it replaced; then the originals go.
    for (Operation *original : {op.getOperation(), initProducer}) {
      if (!original)
        continue;
      for (Operation *user : llvm::make_early_inc_range(original->getUsers()))
        if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
          rewriter.eraseOp(user);
      if (original->use_empty()) {
        erased.insert(original);
        rewriter.eraseOp(original);
      }
    }
    ++numSplit;
    ++numEpilogues;
    return true;
  }
};
} // namespace
