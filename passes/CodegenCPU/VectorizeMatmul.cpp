//===- VectorizeMatmul.cpp - cache/register tiling + vectorization --------===//
//
// Implements tfrt-vectorize-matmul: two levels of tiling with
// scf::tileUsingSCF and linalg::vectorize of the register tile into one
// vector.contract; for large matmuls whose right operand has a 4 KiB row
// stride, the right operand packed into [N/32][K][32] panels first (at
// compile time for constants) and the same register tile built directly
// on the panels (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/RegisterTile.h"
#include "passes/StaticForall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZEMATMUL
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using tfrt::codegen::VectorUnit;

namespace {
/// Register tile candidates, best first: rows of the left operand broadcast
/// per step, and columns (vectors of 16 lanes) of the right one. 8x32 keeps
/// 16 zmm accumulators; smaller row counts serve shapes that 8 does not
/// divide (det's 1x1 convs have M = 12, 18, 42, ...).
constexpr int64_t kRegMs[] = {8, 6, 4, 3, 2, 1};
constexpr int64_t kRegNs[] = {32, 16};
/// Width of the packed column panels of the right operand (two zmm).
constexpr int64_t kPanelColumns = 32;

/// Left operands up to this size (bytes) stay in L1 across column blocks:
/// the blocks of columns then run outermost, so that the right operand
/// (the activations of a 1x1 conv with few channels on a large map) is
/// read from memory once instead of once per block of rows.
constexpr int64_t kSmallLhsBytes = 32 * 1024;

/// Register rows of an m-row tile `rn` columns wide: the first of kRegMs
/// within the target's bound (RegisterTile.h) that divides m, else 1.
int64_t regRows(int64_t m, int64_t rn, VectorUnit unit) {
  int64_t maxRows = tfrt::codegen::maxTileRows(rn, unit);
  for (int64_t r : kRegMs)
    if (r <= maxRows && m % r == 0)
      return r;
  return 1;
}

/// The register tile's columns for an m x n product: of kRegNs dividing n,
/// the one whose tile of at least 2 rows holds the most accumulators
/// (RegisterTile.h): 32 on AVX-512, 16 (6 rows) on AVX2. 0 when there is
/// none.
int64_t regColumns(int64_t m, int64_t n, VectorUnit unit) {
  return tfrt::codegen::widestTile(m, n, kRegNs, unit,
                                   [&](int64_t rows, int64_t cols) {
                                     int64_t r = regRows(rows, cols, unit);
                                     return r >= 2 ? r : 0;
                                   });
}

/// Rows of the packed paths' rm x 32 tiles: 8 where the target holds 8
/// rows (AVX-512; m a multiple of 8, as these paths were measured),
/// otherwise regRows; 0 when m allows no tile of at least 2 rows.
int64_t packedRows(int64_t m, VectorUnit unit) {
  if (tfrt::codegen::maxTileRows(kPanelColumns, unit) >= 8)
    return m % 8 ? 0 : 8;
  int64_t rm = regRows(m, kPanelColumns, unit);
  return rm >= 2 ? rm : 0;
}

/// The largest of `candidates` (descending) that divides `n`.
int64_t largestDivisor(int64_t n, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 1;
}

/// Rows of a cache tile: the largest multiple of the register tile's `rm`
/// rows (by 8, 4 or 2, at most 64) that divides `m`, else `rm`.
int64_t cacheTileRows(int64_t m, int64_t rm) {
  for (int64_t f : {8, 4, 2})
    if (m % (rm * f) == 0 && rm * f <= 64)
      return rm * f;
  return rm;
}

/// Whether the cache tiles of an m x k left operand (mt rows each, K
/// whole) run with the blocks of columns outermost (see kSmallLhsBytes).
bool columnsOuter(int64_t m, int64_t mt, int64_t k) {
  return mt < m && m * k * 4 <= kSmallLhsBytes;
}

FailureOr<Operation *> tile(RewriterBase &rewriter, Operation *op,
                            ArrayRef<int64_t> sizes,
                            ArrayRef<int64_t> interchange = {}) {
  scf::SCFTilingOptions opts;
  opts.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (!interchange.empty())
    opts.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> r =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), opts);
  if (failed(r) || r->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, r->replacements);
  return r->tiledOps.front();
}

LogicalResult vectorizeOne(RewriterBase &rewriter, linalg::MatmulOp op,
                           VectorUnit unit) {
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
  int64_t rn = regColumns(m, n, unit);
  int64_t rm = rn ? regRows(m, rn, unit) : 1;
  // One row at a time is latency-bound; a single-row product (a batch-1
  // fully connected layer) is rowOne's: this 1 x 32 tile's `vector<1x1>` x
  // `vector<1x32>` contraction sends tfrt-lower-vectors' unit-dimension
  // patterns into an endless rewrite (the compiler ran out of memory on
  // MatMul [1, 480] x [480, 128]).
  if (rm == 1)
    return failure();
  // Cache tiles: multiples of the register tile that divide the shape.
  int64_t mt = cacheTileRows(m, rm);
  int64_t nt = largestDivisor(n, {256, 128, 64, 32, 16});
  // K stays whole up to 512 (1x1 convs: the accumulators are read and
  // written once per tile; det's K = 384 ones alone, 384 and 360 rows: 95
  // and 96% of peak against 92 and 86% in blocks of 128), larger K in
  // power-of-two blocks.
  int64_t kt =
      k <= 512 ? k : largestDivisor(k, {256, 128, 64, 32, 16, 8, 4, 2, 1});
  SmallVector<int64_t> order;
  if (kt == k && columnsOuter(m, mt, k))
    order = {1, 0, 2};
  FailureOr<Operation *> outer = tile(rewriter, op, {mt, nt, kt}, order);
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

/// The f32 constant `v` is (an arith.constant, or a static unit-stride
/// slice of one): its elements, the slice's offsets and the source's row
/// length.
struct ConstantView {
  DenseElementsAttr attr;
  int64_t row = 0, col = 0, width = 0;
};

std::optional<ConstantView> matchConstant(Value v) {
  ConstantView view;
  Value src = v;
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() || slice.getSourceType().getRank() != 2 ||
        !slice.getType().hasStaticShape() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return std::nullopt;
    view.row = slice.getStaticOffsets()[0];
    view.col = slice.getStaticOffsets()[1];
    src = slice.getSource();
  }
  auto cst = src.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  view.attr = dyn_cast<DenseElementsAttr>(cst.getValue());
  auto type = dyn_cast<RankedTensorType>(src.getType());
  if (!view.attr || !type || type.getRank() != 2 ||
      !type.getElementType().isF32())
    return std::nullopt;
  view.width = type.getDimSize(1);
  return view;
}

/// The right operand `rhs` [K, N] as column panels [N / nr, K, nr]: a new
/// constant when `rhs` is one (weights packed at compile time), else a loop
/// of nr-lane copies into a new tensor at the builder's insertion point.
Value packPanels(OpBuilder &b, Location loc, Value rhs, int64_t nr,
                 int64_t chunks) {
  auto type = cast<RankedTensorType>(rhs.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  Type f32 = b.getF32Type();
  auto packedType = RankedTensorType::get({n / nr, k, nr}, f32);
  if (std::optional<ConstantView> c = matchConstant(rhs)) {
    SmallVector<float> packed(n * k);
    if (c->attr.isSplat()) {
      std::fill(packed.begin(), packed.end(), c->attr.getSplatValue<float>());
    } else {
      auto values = c->attr.getValues<float>();
      for (int64_t p = 0; p < n / nr; ++p)
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < nr; ++j)
            packed[(p * k + i) * nr + j] =
                values[(c->row + i) * c->width + c->col + p * nr + j];
    }
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(packedType, ArrayRef<float>(packed)));
  }
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value empty = tensor::EmptyOp::create(b, loc, packedType.getShape(), f32);
  auto vecType = VectorType::get({nr}, f32);
  Value c0 = cst(b, 0), c1 = cst(b, 1);
  // Panels [first, first + count) into `out` (numbered from `first` in it
  // when `local`): rows of K outer, so each reads a contiguous row.
  auto copyPanels = [&](OpBuilder &b, Location l, Value out, Value first,
                        int64_t count, bool local) -> Value {
    auto loop = scf::ForOp::create(
        b, l, c0, cst(b, k), c1, ValueRange{out},
        [&](OpBuilder &b, Location l, Value i, ValueRange kIter) {
          auto pLoop = scf::ForOp::create(
              b, l, c0, cst(b, count), c1, kIter,
              [&](OpBuilder &b, Location l, Value p, ValueRange pIter) {
                Value panel = first ? arith::AddIOp::create(b, l, first, p) : p;
                Value col = arith::MulIOp::create(b, l, panel, cst(b, nr));
                Value v = vector::TransferReadOp::create(
                    b, l, vecType, rhs, ValueRange{i, col}, zero,
                    ArrayRef<bool>{true});
                Value w =
                    vector::TransferWriteOp::create(
                        b, l, v, pIter[0], ValueRange{local ? p : panel, i, c0},
                        ArrayRef<bool>{true})
                        .getResult();
                scf::YieldOp::create(b, l, w);
              });
          scf::YieldOp::create(b, l, pLoop.getResult(0));
        });
    return loop.getResult(0);
  };
  int64_t panels = n / nr;
  if (chunks <= 1 || panels % chunks)
    return copyPanels(b, loc, empty, Value(), panels, false);
  // Parallel chunks of panels (the matmul itself runs in parallel chunks).
  int64_t per = panels / chunks;
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(chunks)}, ValueRange{empty},
      std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  Value first =
      arith::MulIOp::create(b, loc, forall.getInductionVar(0), cst(b, per));
  SmallVector<OpFoldResult> offsets = {first, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(per), b.getIndexAttr(k),
                                     b.getIndexAttr(nr)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value part = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({per, k, nr}, f32),
      forall.getRegionIterArgs()[0], offsets, sizes, strides);
  part = copyPanels(b, loc, part, first, per, true);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, part, forall.getRegionIterArgs()[0], offsets, sizes, strides);
  return forall.getResult(0);
}

/// Where the packed right operand of `op` goes: before the outermost
/// parallel loop around `op` that it does not depend on (so chunks share
/// one packing), with the number of rows all those chunks have together.
/// Fails when the packing could not be placed in the function's top-level
/// block (the workspace planner places only those temporaries).
struct PackSite {
  Operation *before = nullptr;
  int64_t rows = 0;
};

std::optional<PackSite> packSite(linalg::MatmulOp op, int64_t m) {
  Value rhs = op.getInputs()[1];
  PackSite site{op, m};
  Operation *parent = op->getParentOp();
  while (!isa<func::FuncOp>(parent)) {
    auto loop = dyn_cast<scf::ForallOp>(parent);
    if (!loop)
      return std::nullopt;
    // A slice of a value from outside the loop with static offsets moves
    // along with the packing.
    Value root = rhs;
    if (auto slice = rhs.getDefiningOp<tensor::ExtractSliceOp>())
      if (slice->getBlock() == op->getBlock() && slice.getOffsets().empty() &&
          slice.getSizes().empty() && slice.getStrides().empty())
        root = slice.getSource();
    if (!loop.isDefinedOutsideOfLoop(root))
      return std::nullopt;
    int64_t trips = tfrt::staticTripCount(loop).value_or(0);
    if (trips == 0)
      return std::nullopt;
    site.before = loop;
    site.rows *= trips;
    parent = loop->getParentOp();
  }
  return site;
}

/// The only other user of `arg` (the shared output of `loop`), when it is
/// a tensor.parallel_insert_slice that writes back the very slice `slice`
/// extracted and the chunks' slices together cover the whole output (a
/// static one): then every chunk writes its slice before any reads it, and
/// nothing else reads the shared output. Null otherwise.
tensor::ParallelInsertSliceOp wholeOutputInsert(scf::ForallOp loop,
                                                BlockArgument arg,
                                                tensor::ExtractSliceOp slice) {
  tensor::ParallelInsertSliceOp insert;
  for (OpOperand &use : arg.getUses()) {
    if (use.getOwner() == slice.getOperation())
      continue;
    auto p = dyn_cast<tensor::ParallelInsertSliceOp>(use.getOwner());
    if (!p || insert)
      return {};
    insert = p;
  }
  int64_t trips = tfrt::staticTripCount(loop).value_or(0);
  auto shared = cast<RankedTensorType>(arg.getType());
  if (!insert || insert.getMixedOffsets() != slice.getMixedOffsets() ||
      insert.getMixedSizes() != slice.getMixedSizes() ||
      !slice.getType().hasStaticShape() || !shared.hasStaticShape() ||
      slice.getType().getNumElements() * trips != shared.getNumElements())
    return {};
  return insert;
}

/// The scalar the init of `op` is filled with, when the init is a
/// linalg.fill or a slice of the shared output of the enclosing scf.forall
/// whose init is one. `forallInit` is then the forall's operand that
/// the fill's destination can replace once nothing reads the init, `dest`
/// the destination of a fill that only `op` uses.
struct FillInit {
  Value scalar;
  OpOperand *forallInit = nullptr;
  Value dest;
};

std::optional<FillInit> matchFillInit(linalg::MatmulOp op) {
  Value init = op.getOutputs()[0];
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return FillInit{fill.getInputs()[0], nullptr,
                    fill->hasOneUse() ? fill.getOutputs()[0] : Value()};
  auto slice = init.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice->hasOneUse())
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(slice.getSource());
  auto loop = arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
                  : scf::ForallOp();
  if (!loop || slice->getBlock() != arg.getOwner())
    return std::nullopt;
  OpOperand *operand = loop.getTiedOpOperand(arg);
  auto fill = operand->get().getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  FillInit r{fill.getInputs()[0], nullptr, Value()};
  // The chunks write all of the shared output (so none reads an element
  // before writing it), each this matmul's result.
  tensor::ParallelInsertSliceOp insert = wholeOutputInsert(loop, arg, slice);
  if (insert && insert.getSource() == op->getResult(0) && fill->hasOneUse())
    r.forallInit = operand;
  return r;
}

/// Row stride of the right operand (bytes) whose multiples map a column
/// panel onto a few L1 sets, so that packing pays (measured: N = 1024 and
/// 2048 gain, N = 512 loses the packing time).
constexpr int64_t kCriticalStride = 4096;

void emitPackedTiles(RewriterBase &rewriter, linalg::MatmulOp op, Value packed,
                     Value panelBase, int64_t rm, bool prefetchNextBlock);

/// A matmul whose right operand's rows are a multiple of 4 KiB
/// (`pack-min-rows`): the operand is packed into [N/32][K][32] panels
/// (weights at compile time, other values once before the parallel loop
/// around the matmul) and read by emitPackedTiles.
LogicalResult packedOne(RewriterBase &rewriter, linalg::MatmulOp op,
                        int64_t minRows, VectorUnit unit) {
  if (minRows <= 0)
    return failure();
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1);
  int64_t nr = kPanelColumns, rm = packedRows(m, unit);
  if (n % nr || !rm || (n * 4) % kCriticalStride)
    return failure();
  std::optional<PackSite> site = packSite(op, m);
  if (!site || site->rows < minRows)
    return failure();
  Location loc = op.getLoc();
  Value rhs = op.getInputs()[1];
  rewriter.setInsertionPoint(site->before);
  if (site->before != op.getOperation()) {
    if (auto slice = rhs.getDefiningOp<tensor::ExtractSliceOp>();
        slice && slice->getBlock() == op->getBlock())
      rhs = rewriter.clone(*slice)->getResult(0);
  }
  // Packing for a parallel loop runs in parallel chunks too.
  int64_t packChunks = 1;
  if (site->before != op.getOperation())
    packChunks = largestDivisor(n / nr, {8, 4, 2});
  Value packed = packPanels(rewriter, loc, rhs, nr, packChunks);
  emitPackedTiles(rewriter, op, packed, Value(), rm,
                  /*prefetchNextBlock=*/false);
  return success();
}

/// The register tile of tfrt-vectorize-matmul on a packed right operand,
/// replacing `op`: for each block of nt columns and kt of K, each rm rows,
/// each panel of 32 columns, an rm x 32 accumulator carried through kt
/// steps that read 32 contiguous floats of the panel and broadcast rm
/// elements of the left operand. The accumulators of the first K block
/// start from the fill value when the init is a fill. `packed` is
/// [panels, K, 32]; column j of `op` is in panel `panelBase + j / 32`
/// (`j / 32` when `panelBase` is null).
///
/// With `prefetchNextBlock` (constant weights, which come from memory on
/// every run), the first row tile of each block of nt columns prefetches
/// the same K rows of the next block's panels: the block's other row tiles
/// then run while those lines arrive, instead of the next block's first row
/// tile waiting for them. PP-OCRv4 rec's classifier (40 x 120 x 6625, its
/// 3.2 MB of panels read once per run) ran at 62% of peak inside rec and at
/// 91% as a one-node model with the panels in cache.
void emitPackedTiles(RewriterBase &rewriter, linalg::MatmulOp op, Value packed,
                     Value panelBase, int64_t rm, bool prefetchNextBlock) {
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  int64_t nr = kPanelColumns;
  // Cache tiles as in the unpacked kernel: 256 columns (8 panels), K in
  // blocks of 256 (a panel's block is 32 KiB, L1-sized).
  int64_t nt = largestDivisor(n, {256, 128, 64, 32});
  int64_t kt =
      k <= 256 ? k : largestDivisor(k, {256, 128, 64, 32, 16, 8, 4, 2, 1});
  Location loc = op.getLoc();
  Value lhs = op.getInputs()[0];
  std::optional<FillInit> fillInit = matchFillInit(op);

  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  auto accType = VectorType::get({rm, nr}, f32);
  auto lhsType = VectorType::get({rm, 1}, f32);
  auto rhsType = VectorType::get({1, nr}, f32);
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap panelMap = AffineMap::get(3, 0, {d(1), d(2)}, ctx);
  tfrt::MatmulContraction contraction = tfrt::matmulContraction(rewriter);
  ArrayAttr mapsAttr = contraction.maps, iters = contraction.iterators;
  auto packedType = cast<RankedTensorType>(packed.getType());
  Value packedBuffer;
  if (prefetchNextBlock) {
    auto layout = StridedLayoutAttr::get(
        ctx, ShapedType::kDynamic,
        SmallVector<int64_t>(packedType.getRank(), ShapedType::kDynamic));
    packedBuffer = bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get(packedType.getShape(), f32, layout),
        packed, /*read_only=*/true);
  }

  // One register tile: rows [mi, mi + rm), columns [col, col + nr), K
  // block [kb, kb + kt); with `prefetch`, also the lines of the panel nt
  // columns further (the last panel at the end) at the same K rows.
  auto tile = [&](OpBuilder &b, Location l, Value out, Value kb, Value mi,
                  Value col, bool prefetch) -> Value {
    Value panel = arith::DivUIOp::create(b, l, col, cst(b, nr));
    if (panelBase)
      panel = arith::AddIOp::create(b, l, panelBase, panel);
    Value nextPanel;
    if (prefetch)
      nextPanel = arith::MinSIOp::create(
          b, l, arith::AddIOp::create(b, l, panel, cst(b, nt / nr)),
          cst(b, packedType.getDimSize(0) - 1));
    Value acc;
    if (fillInit) {
      Value first =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, kb, c0);
      auto branch = scf::IfOp::create(
          b, l, first,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l,
                                 Value(vector::BroadcastOp::create(
                                     b, l, accType, fillInit->scalar)));
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l,
                                 Value(vector::TransferReadOp::create(
                                     b, l, accType, out, ValueRange{mi, col},
                                     zero, ArrayRef<bool>{true, true})));
          });
      acc = branch.getResult(0);
    } else {
      acc = vector::TransferReadOp::create(b, l, accType, out,
                                           ValueRange{mi, col}, zero,
                                           ArrayRef<bool>{true, true});
    }
    // Constant bounds (the block's offset added inside), so that
    // tfrt-unroll-accumulator-loops unrolls the K loop without a remainder.
    auto kLoop = scf::ForOp::create(
        b, l, c0, cst(b, kt), c1, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value kk, ValueRange kIter) {
          Value ki = arith::AddIOp::create(b, l, kb, kk);
          Value x = vector::TransferReadOp::create(b, l, lhsType, lhs,
                                                   ValueRange{mi, ki}, zero,
                                                   ArrayRef<bool>{true, true});
          Value y = vector::TransferReadOp::create(
              b, l, rhsType, packed, ValueRange{panel, ki, c0}, zero, panelMap,
              ArrayRef<bool>{true, true});
          if (prefetch) {
            // Row tile t of P prefetches rows [t kt / P, (t + 1) kt / P)
            // of the block: each step one row, the block's K rows spread
            // over all its row tiles.
            int64_t passes = m / rm;
            Value pass = arith::DivUIOp::create(b, l, mi, cst(b, rm));
            Value row = arith::DivUIOp::create(
                b, l,
                arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, pass, cst(b, kt)), kk),
                cst(b, passes));
            row = arith::AddIOp::create(b, l, kb, row);
            for (int64_t line = 0; line < nr; line += 16)
              memref::PrefetchOp::create(
                  b, l, packedBuffer, ValueRange{nextPanel, row, cst(b, line)},
                  /*isWrite=*/false, /*locality=*/3, /*isDataCache=*/true);
          }
          Value r = vector::ContractionOp::create(b, l, x, y, kIter[0],
                                                  mapsAttr, iters);
          scf::YieldOp::create(b, l, r);
        });
    return vector::TransferWriteOp::create(b, l, kLoop.getResult(0), out,
                                           ValueRange{mi, col},
                                           ArrayRef<bool>{true, true})
        .getResult();
  };

  Value init = fillInit && fillInit->dest ? fillInit->dest : op.getOutputs()[0];
  auto nbLoop = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, n), cst(rewriter, nt), ValueRange{init},
      [&](OpBuilder &b, Location l, Value nb, ValueRange nbIter) {
        auto kbLoop = scf::ForOp::create(
            b, l, c0, cst(b, k), cst(b, kt), nbIter,
            [&](OpBuilder &b, Location l, Value kb, ValueRange kbIter) {
              // The block's panels for rows [mi, mi + rm).
              auto rowTiles = [&](OpBuilder &b, Location l, Value mi, Value out,
                                  bool prefetch) -> Value {
                auto pLoop = scf::ForOp::create(
                    b, l, c0, cst(b, nt), cst(b, nr), ValueRange{out},
                    [&](OpBuilder &b, Location l, Value pj, ValueRange pIter) {
                      Value col = arith::AddIOp::create(b, l, nb, pj);
                      scf::YieldOp::create(
                          b, l, tile(b, l, pIter[0], kb, mi, col, prefetch));
                    });
                return pLoop.getResult(0);
              };
              auto mLoop = scf::ForOp::create(
                  b, l, c0, cst(b, m), cst(b, rm), kbIter,
                  [&](OpBuilder &b, Location l, Value mi, ValueRange mIter) {
                    scf::YieldOp::create(
                        b, l, rowTiles(b, l, mi, mIter[0], prefetchNextBlock));
                  });
              scf::YieldOp::create(b, l, mLoop.getResult(0));
            });
        scf::YieldOp::create(b, l, kbLoop.getResult(0));
      });
  rewriter.replaceOp(op, nbLoop.getResults());
  // Nothing reads the fill any more: the shared output starts as the
  // fill's destination.
  if (fillInit && fillInit->forallInit) {
    auto fill = fillInit->forallInit->get().getDefiningOp<linalg::FillOp>();
    rewriter.modifyOpInPlace(fillInit->forallInit->getOwner(), [&] {
      fillInit->forallInit->set(fill.getOutputs()[0]);
    });
  }
}

/// The column offset `v` of a slice as a multiple of `align`, with the
/// largest value it takes: a constant, or the induction variable of a
/// one-dimensional scf.forall with constant bounds.
std::optional<int64_t> maxAlignedOffset(OpFoldResult v, int64_t align) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % align ? std::nullopt : std::optional<int64_t>(*c);
  auto arg = dyn_cast<BlockArgument>(cast<Value>(v));
  auto loop = arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
                  : scf::ForallOp();
  if (!loop || loop.getRank() != 1 || arg.getArgNumber() != 0)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(loop.getMixedLowerBound()[0]),
                         ub = getConstantIntValue(loop.getMixedUpperBound()[0]),
                         step = getConstantIntValue(loop.getMixedStep()[0]);
  if (!lb || !ub || !step || *step <= 0 || *ub <= *lb || *lb % align ||
      *step % align)
    return std::nullopt;
  return *lb + (*ub - 1 - *lb) / *step * *step;
}

/// Constant right operands whose rows are not whole cache lines
/// (`const-pack-min-bytes`): the weights [K, W] are packed at compile time
/// into panels [W / 32, K, 32], and the matmul (on the whole constant, or
/// on a slice of 32-aligned columns, such as a chunk of an scf.forall along
/// N) reads its panels from there. Unpacked, each 32-column row read
/// straddles three cache lines and, at a row stride of tens of KiB, a page
/// per K step, which the hardware prefetchers do not follow (PP-OCRv4
/// rec's final classifier, 40 x 120 x 6625: a prototype runs 1.47x faster
/// packed on a Xeon). `packedConstants` keeps one packing per constant.
LogicalResult constPackedOne(RewriterBase &rewriter, linalg::MatmulOp op,
                             int64_t minBytes,
                             DenseMap<Operation *, Value> &packedConstants,
                             VectorUnit unit) {
  if (minBytes <= 0)
    return failure();
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  int64_t rm = packedRows(m, unit);
  if (n % kPanelColumns || !rm)
    return failure();
  Value src = op.getInputs()[1];
  OpFoldResult colOff = rewriter.getIndexAttr(0);
  if (auto slice = src.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() || slice.getSourceType().getRank() != 2 ||
        getConstantIntValue(slice.getMixedOffsets()[0]) != 0)
      return failure();
    colOff = slice.getMixedOffsets()[1];
    src = slice.getSource();
  }
  auto cst = src.getDefiningOp<arith::ConstantOp>();
  auto attr =
      cst ? dyn_cast<DenseElementsAttr>(cst.getValue()) : DenseElementsAttr();
  auto type = dyn_cast<RankedTensorType>(src.getType());
  if (!attr || attr.isSplat() || !type || type.getRank() != 2 ||
      !type.getElementType().isF32() || type.getDimSize(0) != k)
    return failure();
  int64_t width = type.getDimSize(1);
  if (width % 16 == 0 || k * width * 4 < minBytes)
    return failure();
  int64_t panels = width / kPanelColumns;
  std::optional<int64_t> maxOff = maxAlignedOffset(colOff, kPanelColumns);
  if (!maxOff || *maxOff + n > panels * kPanelColumns)
    return failure();
  Value &packed = packedConstants[cst];
  if (!packed) {
    // packPanels packs a constant (or a static slice of one, here its
    // whole panels) at compile time.
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(cst);
    auto whole = tensor::ExtractSliceOp::create(
        rewriter, cst.getLoc(), cst.getResult(),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(k),
                               rewriter.getIndexAttr(panels * kPanelColumns)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
    packed = packPanels(rewriter, cst.getLoc(), whole, kPanelColumns, 1);
    rewriter.eraseOp(whole);
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value off = getValueOrCreateConstantIndexOp(rewriter, loc, colOff);
  Value base = arith::DivUIOp::create(
      rewriter, loc, off,
      arith::ConstantIndexOp::create(rewriter, loc, kPanelColumns));
  emitPackedTiles(rewriter, op, packed, base, rm, /*prefetchNextBlock=*/true);
  return success();
}

/// After constPackedOne: static slices of a packed constant that other ops
/// still read (the columns past the last whole panel) become constants of
/// their own, so that the unpacked original is not kept for them.
void foldSmallConstantSlices(RewriterBase &rewriter, arith::ConstantOp cst) {
  auto attr = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!attr)
    return;
  for (Operation *user : llvm::make_early_inc_range(cst->getUsers())) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice)
      continue;
    std::optional<ConstantView> view = matchConstant(slice.getResult());
    auto type = slice.getType();
    if (!view || type.getRank() != 2 || type.getNumElements() > 65536)
      continue;
    auto values = attr.getValues<float>();
    SmallVector<float> out;
    out.reserve(type.getNumElements());
    for (int64_t i = 0; i < type.getDimSize(0); ++i)
      for (int64_t j = 0; j < type.getDimSize(1); ++j)
        out.push_back(values[(view->row + i) * view->width + view->col + j]);
    rewriter.setInsertionPoint(slice);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        slice, DenseElementsAttr::get(type, ArrayRef<float>(out)));
  }
}

/// Seeded matmuls whose right operand has at least this many columns and
/// at most this many rows prefetch it (see the prefetch-ahead option): 1x1
/// convs with few input channels on large maps, whose K rows stream from
/// memory at once (det's Conv.2, 16 -> 32 on 320x320: 0.87-0.92 -> 0.78-
/// 0.80 ms inside det; Conv.14-Conv.20, K = 192 on 40x40, ran 1-8% slower
/// with it).
constexpr int64_t kPrefetchMinColumns = 4096;
constexpr int64_t kPrefetchMaxK = 64;

/// Seeded matmuls with at most this K and at least 2K rows run blocks of up
/// to 1024 columns instead of 256 (see seededOne).
constexpr int64_t kWideBlockMaxK = 64;

/// Seeded matmuls with at most this K and no epilogue take register tiles of
/// kThinTileRows rows where the target's registers hold them (24
/// accumulators of 32 zmm). Their right operand's block, K rows that lie a
/// map apart, is read once per tile of rows from L2: det's Conv.33 (48 ->
/// 12 on 160x160) ran in 2 passes of 6 rows, now in one (alternating
/// profiling runs: 0.409 -> 0.324 ms). With an epilogue, whose operands and
/// temporaries need registers too, the tiles stay at 8 rows (det's
/// 48 -> 48 and 32 -> 48 convs did not gain). A right operand of at most
/// kThinTileMinBytes stays in L1 across the passes and keeps the usual
/// tiles.
constexpr int64_t kThinTileMaxK = 64;
constexpr int64_t kThinTileRows = 12;
constexpr int64_t kThinTileMinBytes = 64 * 1024;
/// Under the same conditions but with K up to kNineTileMaxK, row counts
/// that 9 divides and 8 does not take tiles of 9 rows (18 accumulators)
/// instead of 6: det's Conv.34 (96 -> 18 on 80x80) read each block of its
/// 96 input rows in three passes, now in two (alternating profiling runs:
/// 0.134-0.141 -> 0.122-0.123 ms). Rows of 18 x 16 columns (one pass) ran
/// as fast as rows of 9.
constexpr int64_t kNineTileMaxK = 128;
constexpr int64_t kNineTileRows = 9;

/// Seeded matmuls that do not prefetch ahead along the columns but whose
/// right operand is larger than this prefetch it along K instead (see the
/// prefetch-k-ahead option); smaller ones stay in L1 across the row tiles
/// (PP-OCR cls ran 4% slower with the prefetches).
constexpr int64_t kPrefetchKMinBytes = 64 * 1024;

/// tfrt-vectorize-matmul's tiles for a matmul whose K stays whole and whose
/// init is a per-row value (RowInit): the accumulators start from a
/// broadcast of the fill value or of the bias elements instead of reading
/// an output that a separate pass filled first; that pass goes.
LogicalResult seededOne(RewriterBase &rewriter, linalg::MatmulOp op,
                        int64_t prefetchAhead, int64_t prefetchKAhead,
                        bool epilogues, bool remarks, int64_t &fusedEpilogues,
                        VectorUnit unit) {
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (k > tfrt::kSeedMaxK || n % kRegNs[std::size(kRegNs) - 1])
    return failure();
  int64_t rn = regColumns(m, n, unit);
  int64_t rm = rn ? regRows(m, rn, unit) : 1;
  if (rm == 1) // as in vectorizeOne
    return failure();
  // Columns that the widest tile does not divide (det's 1x1 convs on 20x20
  // maps, N = 400, which tfrt-split-matmul-columns leaves whole for this):
  // the widest tiles over the first multiple of its width, then one
  // column of narrower tiles, all seeded from the same init and through
  // the same epilogue.
  int64_t main = n, tailCols = 0, tailRows = 0;
  if (int64_t wide = kRegNs[0]; rn < wide && n > wide) {
    int64_t first = n - n % wide;
    int64_t wideRows =
        regColumns(m, first, unit) == wide ? regRows(m, wide, unit) : 1;
    int64_t narrowRows = regRows(m, n - first, unit);
    if (wideRows >= 2 && narrowRows >= 2 && (n - first) % rn == 0) {
      main = first;
      tailCols = n - first;
      tailRows = narrowRows;
      rn = wide;
      rm = wideRows;
    }
  }
  std::optional<tfrt::RowInit> init = tfrt::matchRowInit(op);
  if (!init)
    return failure();
  if (init->bias && init->bias.getParentRegion() != op->getParentRegion() &&
      !init->bias.getParentRegion()->isAncestor(op->getParentRegion()))
    return failure();
  // An elementwise consumer in the same block runs on each tile before it
  // is stored (not when the init comes through the shared output of the
  // enclosing scf.forall, whose producer would then stay).
  std::optional<tfrt::Epilogue> epilogue;
  if (epilogues && !isa<scf::ForallOp>(init->producerInit->getOwner()) &&
      !init->offset)
    epilogue = tfrt::matchEpilogue(op.getResult(0), rn);
  // Thin products without an epilogue: rows of 12 (24 accumulators, one
  // row of the right operand and a broadcast within the registers) read
  // each block of the right operand in half as many passes as rows of 6 or
  // 8 (see kThinTileRows).
  // Row counts that 8 does not divide but 9 does (M = 18) take rows of 9
  // (18 accumulators) instead of 6: two passes over each block instead of
  // three (see kNineTileMaxK).
  if (!epilogue && tailCols == 0 && k * n * 4 > kThinTileMinBytes &&
      rn == kRegNs[0]) {
    auto fits = [&](int64_t rows) {
      return (rows + 1) * unit.registersFor(rn) + 1 <= unit.registers;
    };
    if (k <= kThinTileMaxK && m % kThinTileRows == 0 && fits(kThinTileRows))
      rm = kThinTileRows;
    else if (k <= kNineTileMaxK && m % kNineTileRows == 0 &&
             rm < kNineTileRows && fits(kNineTileRows))
      rm = kNineTileRows;
  }
  int64_t mt = cacheTileRows(m, rm);
  // Few input and at least twice as many output channels (det's Conv.46,
  // 12 -> 96 on 160x160): the tile's output rows, not its K rows, are most
  // of the traffic, and they stream out in runs of 4 KiB instead of 1 KiB
  // per output channel with blocks of 1024 columns (inside det, alternating
  // profiling runs: 0.93 -> 0.76 ms; the K rows of such a block, 48 KiB at
  // K = 12, still stay in L1/L2 across the row tiles).
  bool outputHeavy = k <= kWideBlockMaxK && m >= 2 * k;
  int64_t nt = outputHeavy
                   ? largestDivisor(main, {1024, 512, 256, 128, 64, 32, 16})
                   : largestDivisor(main, {256, 128, 64, 32, 16});
  Location loc = op.getLoc();
  Value lhs = op.getInputs()[0], rhs = op.getInputs()[1];
  // With an epilogue the loops replace its consumer, whose operands are
  // defined before it.
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation()
                                      : op.getOperation());
  tfrt::EpilogueOperands epilogueOperands;
  if (epilogue)
    epilogueOperands = tfrt::prepareEpilogue(rewriter, loc, *epilogue);
  Type f32 = rewriter.getF32Type();
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap biasMap =
      AffineMap::get(1, 0, {d(0), getAffineConstantExpr(0, ctx)}, ctx);
  tfrt::MatmulContraction contraction = tfrt::matmulContraction(rewriter);
  ArrayAttr mapsAttr = contraction.maps, iters = contraction.iterators;

  // Long rows of few channels: the first register rows of each cache tile
  // prefetch the right operand `prefetchAhead` columns on (a read-only view
  // with a dynamic layout, so that bufferization copies nothing).
  Value rhsBuffer;
  bool columnsAhead =
      prefetchAhead > 0 && n >= kPrefetchMinColumns && k <= kPrefetchMaxK;
  // Otherwise each K step of a tile prefetches its columns of row k +
  // prefetchKAhead: a tile's K rows lie a whole row of the operand apart,
  // which the hardware prefetchers do not follow, and at strides such as
  // 25600 bytes (80 x 80 maps) they share a few L1 sets, so that a block of
  // columns does not stay in L1 across the row tiles (det's Conv.10, 96 ->
  // 96 on 80x80, with its neighbours: 0.84-0.91 paired; Conv.14, 192 ->
  // 192 on 40x40: 0.92-0.96).
  bool kAhead =
      !columnsAhead && prefetchKAhead > 0 && k * n * 4 > kPrefetchKMinBytes;
  if (columnsAhead || kAhead) {
    auto layout =
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic,
                               {ShapedType::kDynamic, ShapedType::kDynamic});
    rhsBuffer = bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get({k, n}, f32, layout), rhs,
        /*read_only=*/true);
  }
  Value offset = init->offset ? getValueOrCreateConstantIndexOp(rewriter, loc,
                                                                init->offset)
                              : Value();
  // One tr x tc register tile at (mi, col).
  auto tile = [&](OpBuilder &b, Location l, Value out, Value mi, Value col,
                  bool prefetch, int64_t tr, int64_t tc) -> Value {
    auto accType = VectorType::get({tr, tc}, f32);
    auto lhsType = VectorType::get({tr, 1}, f32);
    auto rhsType = VectorType::get({1, tc}, f32);
    Value acc;
    if (init->scalar) {
      acc = vector::BroadcastOp::create(b, l, accType, init->scalar);
    } else {
      Value row =
          offset ? arith::AddIOp::create(b, l, offset, mi).getResult() : mi;
      acc = vector::TransferReadOp::create(b, l, accType, init->bias,
                                           ValueRange{row}, zero, biasMap,
                                           ArrayRef<bool>{true, true});
    }
    auto kLoop = scf::ForOp::create(
        b, l, c0, cst(b, k), c1, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value ki, ValueRange kIter) {
          Value x = vector::TransferReadOp::create(b, l, lhsType, lhs,
                                                   ValueRange{mi, ki}, zero,
                                                   ArrayRef<bool>{true, true});
          Value y = vector::TransferReadOp::create(b, l, rhsType, rhs,
                                                   ValueRange{ki, col}, zero,
                                                   ArrayRef<bool>{true, true});
          if (kAhead) {
            // One prefetch per 64-byte line of the tile's columns in row
            // k + prefetchKAhead, clamped to the last row.
            Value row = arith::MinSIOp::create(
                b, l, arith::AddIOp::create(b, l, ki, cst(b, prefetchKAhead)),
                cst(b, k - 1));
            for (int64_t line = 0; line < tc; line += 16)
              memref::PrefetchOp::create(
                  b, l, rhsBuffer,
                  ValueRange{row,
                             arith::AddIOp::create(b, l, col, cst(b, line))},
                  /*isWrite=*/false, /*locality=*/3, /*isDataCache=*/true);
          } else if (prefetch) {
            // One prefetch per 64-byte line of the tile's columns, clamped
            // to the row.
            for (int64_t line = 0; line < tc; line += 16) {
              Value at = arith::MinSIOp::create(
                  b, l,
                  arith::AddIOp::create(b, l, col,
                                        cst(b, prefetchAhead + line)),
                  cst(b, n - 16));
              memref::PrefetchOp::create(b, l, rhsBuffer, ValueRange{ki, at},
                                         /*isWrite=*/false, /*locality=*/3,
                                         /*isDataCache=*/true);
            }
          }
          Value r = vector::ContractionOp::create(b, l, x, y, kIter[0],
                                                  mapsAttr, iters);
          scf::YieldOp::create(b, l, r);
        });
    if (epilogue)
      return tfrt::applyEpilogue(b, l, *epilogue, epilogueOperands,
                                 kLoop.getResult(0), out, mi, col);
    return vector::TransferWriteOp::create(b, l, kLoop.getResult(0), out,
                                           ValueRange{mi, col},
                                           ArrayRef<bool>{true, true})
        .getResult();
  };
  Value producerDest = cast<DestinationStyleOpInterface>(
                           init->producerInit->get().getDefiningOp())
                           .getDpsInits()[0];
  // The loops write every element of the op's init without reading it: the
  // producer's destination replaces the producer. With an epilogue they
  // write its consumer's destination instead, and the init goes.
  bool direct = init->producerInit->getOwner() == op.getOperation();
  Value dest = epilogue ? epilogueOperands.dest
               : direct ? producerDest
                        : op.getOutputs()[0];
  // One mt x nt block: rm rows at a time, each over the block's columns.
  auto block = [&](OpBuilder &b, Location l, Value mb, Value nb, Value iter,
                   bool prefetchFirstRows) -> Value {
    // rm rows from mb + mo over the block's columns.
    auto rows = [&](OpBuilder &b, Location l, Value mo, Value out,
                    bool prefetch) -> Value {
      Value mi = arith::AddIOp::create(b, l, mb, mo);
      auto nLoop = scf::ForOp::create(
          b, l, c0, cst(b, nt), cst(b, rn), ValueRange{out},
          [&](OpBuilder &b, Location l, Value no, ValueRange nIter) {
            Value col = arith::AddIOp::create(b, l, nb, no);
            scf::YieldOp::create(
                b, l, tile(b, l, nIter[0], mi, col, prefetch, rm, rn));
          });
      return nLoop.getResult(0);
    };
    // The first rows prefetch the block's columns of the right operand
    // for the rows after them.
    Value out = iter;
    int64_t first = 0;
    if (prefetchFirstRows) {
      out = rows(b, l, c0, out, true);
      first = rm;
    }
    if (first == mt)
      return out;
    auto mLoop = scf::ForOp::create(
        b, l, cst(b, first), cst(b, mt), cst(b, rm), ValueRange{out},
        [&](OpBuilder &b, Location l, Value mo, ValueRange mIter) {
          scf::YieldOp::create(b, l, rows(b, l, mo, mIter[0], false));
        });
    return mLoop.getResult(0);
  };
  // Blocks of rows outermost, or of columns when the whole left operand
  // stays in L1.
  bool byColumns = columnsOuter(m, mt, k);
  int64_t outerEnd = byColumns ? main : m, outerStep = byColumns ? nt : mt;
  int64_t innerEnd = byColumns ? m : main, innerStep = byColumns ? mt : nt;
  // With the columns outermost only the first block of rows prefetches
  // (the others find the columns in cache); with the rows outermost every
  // block reads its columns afresh.
  auto blocks = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, outerEnd), cst(rewriter, outerStep),
      ValueRange{dest},
      [&](OpBuilder &b, Location l, Value outer, ValueRange outerIter) {
        Value out = outerIter[0];
        int64_t first = 0;
        if (byColumns && columnsAhead) {
          out = block(b, l, c0, outer, out, true);
          first = innerStep;
        }
        auto innerLoop = scf::ForOp::create(
            b, l, cst(b, first), cst(b, innerEnd), cst(b, innerStep),
            ValueRange{out},
            [&](OpBuilder &b, Location l, Value inner, ValueRange innerIter) {
              Value mb = byColumns ? inner : outer;
              Value nb = byColumns ? outer : inner;
              scf::YieldOp::create(b, l,
                                   block(b, l, mb, nb, innerIter[0],
                                         columnsAhead && !byColumns));
            });
        scf::YieldOp::create(b, l, innerLoop.getResult(0));
      });
  Value result = blocks.getResult(0);
  if (tailCols) {
    // The last columns: tailRows x tailCols tiles down all rows.
    Value col = cst(rewriter, main);
    result = scf::ForOp::create(
                 rewriter, loc, c0, cst(rewriter, m), cst(rewriter, tailRows),
                 ValueRange{result},
                 [&](OpBuilder &b, Location l, Value mi, ValueRange iter) {
                   scf::YieldOp::create(
                       b, l,
                       tile(b, l, iter[0], mi, col, false, tailRows, tailCols));
                 })
                 .getResult(0);
  }
  if (epilogue) {
    tfrt::finishEpilogue(rewriter, *epilogue, result, op, "matrix product",
                         remarks);
    ++fusedEpilogues;
    return success();
  }
  if (!direct)
    rewriter.modifyOpInPlace(init->producerInit->getOwner(),
                             [&] { init->producerInit->set(producerDest); });
  rewriter.replaceOp(op, result);
  return success();
}

/// A single-row product x[1, K] x w[K, N] (a batch-1 fully connected
/// layer) as 1-D vectors: for each block of up to 8 x 16 columns, 16-lane
/// accumulators start from the init, and each k adds the broadcast x[0, k]
/// times row k of the block. The accumulators are independent chains, so
/// the block keeps both FMA ports busy; the generic register tile would
/// contract `vector<1x1>` with `vector<1x32>`, which tfrt-lower-vectors'
/// unit-dimension patterns rewrite without end.
LogicalResult rowOne(RewriterBase &rewriter, linalg::MatmulOp op,
                     VectorUnit unit) {
  auto a = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto c = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  int64_t lanes = unit.lanes();
  if (m != 1 || n % lanes || k < 1)
    return failure();
  int64_t vecs = largestDivisor(n / lanes, {8, 4, 2, 1});
  int64_t block = vecs * lanes;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  auto vecType = VectorType::get({lanes}, f32);
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  Value x = op.getInputs()[0], w = op.getInputs()[1];
  auto blocks = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, n), cst(rewriter, block),
      ValueRange{op.getOutputs()[0]},
      [&](OpBuilder &b, Location l, Value col, ValueRange outIter) {
        SmallVector<Value> cols, accs;
        for (int64_t i = 0; i < vecs; ++i) {
          cols.push_back(arith::AddIOp::create(b, l, col, cst(b, i * lanes)));
          accs.push_back(vector::TransferReadOp::create(
              b, l, vecType, outIter[0], ValueRange{c0, cols.back()}, zero,
              ArrayRef<bool>{true}));
        }
        auto kLoop = scf::ForOp::create(
            b, l, c0, cst(b, k), c1, accs,
            [&](OpBuilder &b, Location l, Value ki, ValueRange kIter) {
              Value xk = tensor::ExtractOp::create(b, l, x, ValueRange{c0, ki});
              Value xv = vector::BroadcastOp::create(b, l, vecType, xk);
              SmallVector<Value> next;
              for (int64_t i = 0; i < vecs; ++i) {
                Value wv = vector::TransferReadOp::create(
                    b, l, vecType, w, ValueRange{ki, cols[i]}, zero,
                    ArrayRef<bool>{true});
                next.push_back(vector::FMAOp::create(b, l, xv, wv, kIter[i]));
              }
              scf::YieldOp::create(b, l, next);
            });
        Value out = outIter[0];
        for (int64_t i = 0; i < vecs; ++i)
          out = vector::TransferWriteOp::create(b, l, kLoop.getResult(i), out,
                                                ValueRange{c0, cols[i]},
                                                ArrayRef<bool>{true})
                    .getResult();
        scf::YieldOp::create(b, l, out);
      });
  rewriter.replaceOp(op, blocks.getResults());
  return success();
}

struct VectorizeMatmulPass
    : public tfrt::impl::VectorizeMatmulBase<VectorizeMatmulPass> {
  using VectorizeMatmulBase::VectorizeMatmulBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> ops;
    // A negative distance would prefetch rows or columns already read.
    for (auto [name, value] : {std::pair<StringRef, int64_t>(
                                   "prefetch-ahead", prefetchAhead.getValue()),
                               {"prefetch-k-ahead", prefetchKAhead.getValue()}})
      if (value < 0) {
        getOperation().emitError("tfrt-vectorize-matmul: ")
            << name << " must be >= 0 (0: no prefetch), got " << value;
        return signalPassFailure();
      }
    getOperation().walk([&](linalg::MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    IRRewriter rewriter(&getContext());
    DenseMap<Operation *, Value> packedConstants;
    int64_t fusedEpilogues = 0;
    VectorUnit unit{vectorBits, vectorRegisters};
    if (failed(tfrt::codegen::checkVectorUnit(getOperation(),
                                              "tfrt-vectorize-matmul", unit)))
      return signalPassFailure();
    for (linalg::MatmulOp op : ops) {
      if (!tfrt::isStaticF32Matmul(op) || op.hasUserDefinedMaps())
        continue;
      if (succeeded(packedOne(rewriter, op, packMinRows, unit)))
        continue;
      if (succeeded(constPackedOne(rewriter, op, constPackMinBytes,
                                   packedConstants, unit)))
        continue;
      if (seedInit &&
          succeeded(seededOne(rewriter, op, prefetchAhead, prefetchKAhead,
                              epilogues, remarks, fusedEpilogues, unit)))
        continue;
      if (succeeded(rowOne(rewriter, op, unit)))
        continue;
      (void)vectorizeOne(rewriter, op, unit);
    }
    for (auto &entry : packedConstants)
      foldSmallConstantSlices(rewriter, cast<arith::ConstantOp>(entry.first));
    numEpilogues += fusedEpilogues;
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    for (RegisteredOperationName name : getContext().getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

std::optional<tfrt::RowInit> tfrt::matchRowInit(linalg::MatmulOp op) {
  Value v = op.getOutputs()[0];
  unsigned rowDim = 0;
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (collapse) {
    auto src = collapse.getSrcType();
    SmallVector<ReassociationIndices> re = collapse.getReassociationIndices();
    if (src.getRank() != 4 || src.getDimSize(0) != 1 || re.size() != 2 ||
        re[0] != ReassociationIndices{0, 1} ||
        re[1] != ReassociationIndices{2, 3} || !collapse->hasOneUse())
      return std::nullopt;
    rowDim = 1;
    v = collapse.getSrc();
  }
  tfrt::RowInit r;
  OpOperand *operand = &op.getOutputsMutable()[0];
  if (collapse)
    operand = &collapse.getSrcMutable();
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    auto arg = dyn_cast<BlockArgument>(slice.getSource());
    auto loop = arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
                    : scf::ForallOp();
    if (!loop || !slice->hasOneUse() || !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != slice.getType().getRank() ||
        !slice.getType().hasStaticShape())
      return std::nullopt;
    // The chunks may split any dimension: the value the producer writes
    // depends on the row only (the rows of a 1x1 conv's chunk of output
    // rows of the map start from the same biases as the whole map's).
    r.offset = slice.getMixedOffsets()[rowDim];
    // The chunks together write all of the shared output, each the slice
    // it extracted, and nothing else reads it.
    if (!wholeOutputInsert(loop, arg, slice))
      return std::nullopt;
    operand = loop.getTiedOpOperand(arg);
    v = operand->get();
  }
  Operation *producer = v.getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return std::nullopt;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    r.scalar = fill.getInputs()[0];
    r.offset = OpFoldResult();
  } else if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    auto biasType =
        generic.getNumDpsInputs() == 1
            ? dyn_cast<RankedTensorType>(generic.getInputs()[0].getType())
            : RankedTensorType();
    if (!biasType || biasType.getRank() != 1 ||
        !biasType.getElementType().isF32() ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isIdentity())
      return std::nullopt;
    AffineMap in =
        generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    if (in.getNumResults() != 1 ||
        in.getResult(0) != getAffineDimExpr(rowDim, op.getContext()) ||
        yield.getNumOperands() != 1 ||
        yield.getOperand(0) != generic.getBody()->getArgument(0))
      return std::nullopt;
    r.bias = generic.getInputs()[0];
  } else {
    return std::nullopt;
  }
  r.producerInit = operand;
  return r;
}
