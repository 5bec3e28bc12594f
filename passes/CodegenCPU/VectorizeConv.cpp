//===- VectorizeConv.cpp - register tiling of dense NCHW convolutions -----===//
//
// Implements tfrt-vectorize-conv: the 2-D dense convolution generic of the
// graph lowering is tiled to an (output channels x output columns) register
// tile with a small input-channel step and single kernel taps, its unit
// dimensions are folded so that the tile is a plain contraction
// W[m, c] x X[c, ow], and that contraction is vectorized into one
// vector.contract (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/RegisterTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZECONV
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::conv;
using tfrt::codegen::InitStart;
using tfrt::codegen::takeChannelInitForEpilogue;
using tfrt::codegen::VectorUnit;

namespace {
/// A 1x1 conv with stride 1 and batch 1 whose input is exactly the window
/// range is a matrix product on collapsed views: w[M, C] x in[C, H*W] onto the
/// output collapsed to [M, H*W]. Rewrites it into that `linalg.matmul` (for
/// tfrt-vectorize-matmul, which runs next) and expands the result back.
///
/// This happens here rather than in the graph lowering: there the matmul's
/// collapse_shape operands would let linalg-fuse-elementwise-ops propagate
/// the reshapes through it, which turns it back into a (worse) generic.
LogicalResult rewritePointwise(RewriterBase &rewriter, linalg::GenericOp op) {
  bool rowsOuter = false;
  if (convColumnStride(op, &rowsOuter) != 1 || rowsOuter)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[kN] != 1 || ranges[kKH] != 1 || ranges[kKW] != 1)
    return failure();
  MLIRContext *ctx = op.getContext();
  AffineMap in = op.getIndexingMapsArray()[0];
  if (!reducesTo(in.getResult(2), {kKH}, getAffineDimExpr(kOH, ctx), kNumLoops))
    return failure();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  auto xt = cast<RankedTensorType>(x.getType());
  if (xt.getDimSize(2) != ranges[kOH] || xt.getDimSize(3) != ranges[kOW])
    return failure();
  int64_t m = ranges[kM], c = ranges[kC], p = ranges[kOH] * ranges[kOW];
  Type f32 = xt.getElementType();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // On a 1x1 map (a squeeze-excitation layer) the product w[M, C] x in[C, 1]
  // has a single column, a chain of dependent multiply-adds per output.
  // With constant weights, transpose them at compile time and compute
  // in[1, C] x w^T[C, M] instead: a single row, whose M outputs are
  // independent 16-lane accumulators in tfrt-vectorize-matmul. [1, M] and
  // [M, 1] are the same bytes, so the result expands back unchanged.
  DenseElementsAttr wAttr;
  if (p == 1 && f32.isF32() && matchPattern(w, m_Constant(&wAttr))) {
    SmallVector<float> wt(m * c);
    auto values = wAttr.getValues<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < c; ++j)
        wt[j * m + i] = values[i * c + j];
    Value wT = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get({c, m}, f32),
                               ArrayRef<float>(wt)));
    SmallVector<ReassociationIndices> row{{0}, {1, 2, 3}};
    Value xr = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({1, c}, f32), x, row);
    Value orow = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({1, m}, f32), out, row);
    auto mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{orow.getType()},
                                       ValueRange{xr, wT}, ValueRange{orow});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getResultTypes()[0], mm.getResult(0), row);
    return success();
  }
  SmallVector<ReassociationIndices> nchw{{0, 1}, {2, 3}};
  Value xc = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({c, p}, f32), x, nchw);
  Value wc = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({m, c}, f32), w,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value oc = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({m, p}, f32), out, nchw);
  auto mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{oc.getType()},
                                     ValueRange{wc, xc}, ValueRange{oc});
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, op.getResultTypes()[0],
                                                     mm.getResult(0), nchw);
  return success();
}

/// Output channels of a register tile `cols` columns wide for `m` of them:
/// the first of kRegMs (8, 6, 4) within the target's bound (RegisterTile.h)
/// that divides m; where that bound is below 4 (AVX2 and NEON at 32
/// columns), 3 or 2. 0 when none divides m.
int64_t regRows(int64_t m, int64_t cols, VectorUnit unit) {
  int64_t maxRows = tfrt::codegen::maxTileRows(cols, unit);
  for (int64_t r : kRegMs)
    if (r <= maxRows && m % r == 0)
      return r;
  if (maxRows < kRegMs[std::size(kRegMs) - 1])
    for (int64_t r : {3, 2})
      if (r <= maxRows && m % r == 0)
        return r;
  return 0;
}

/// The register tile's width for `m` output channels and `width` output
/// columns: of the `candidates` (descending) that divide `width`, the one
/// whose tile holds the most accumulators (RegisterTile.h): 32 on AVX-512,
/// 16 with 6 rows on AVX2 (32 would take 2). 0 when none has rows.
int64_t tileColumns(int64_t m, int64_t width, ArrayRef<int64_t> candidates,
                    VectorUnit unit) {
  return tfrt::codegen::widestTile(
      m, width, candidates, unit,
      [&](int64_t rows, int64_t cols) { return regRows(rows, cols, unit); });
}

/// The input-channel block of `channelBlock` (0: none) for `c` channels
/// contracted `rc` at a time by a register tile of `rm` output channels and
/// `taps` kernel taps: the largest multiple of `rc` that divides `c` and is
/// at most `channelBlock`; `c` itself (one sweep) when there is none, or
/// when the tile's weights for all channels take at most 16 KiB (a third of
/// L1: they stay there anyway).
int64_t channelBlockOf(int64_t c, int64_t rc, int64_t rm, int64_t taps,
                       int64_t channelBlock) {
  if (rm * c * taps * 4 <= 16 * 1024)
    return c;
  for (int64_t cb = channelBlock - channelBlock % rc; cb >= rc; cb -= rc)
    if (c % cb == 0)
      return cb;
  return c;
}

/// The column tiles of the flattened rows [0, positions): `tileWidth`-wide
/// (32, or 16 where that holds more accumulators) tiles from 0, then 16-wide
/// ones for the rest, the last one moved back to end at `positions`
/// (overlapping its neighbour): an 8-wide tile costs an FMA slot per step as a
/// 16-wide one does (det's Conv.52, 8 rows of 42 positions per chunk: 0.34-0.35
/// -> 0.32-0.33 ms). 8 wide only when positions < 16. Returns (start, width) of
/// the tail tiles; `full` receives the number of `tileWidth`-wide tiles.
SmallVector<std::pair<int64_t, int64_t>>
flatTails(int64_t positions, int64_t tileWidth, int64_t &full) {
  full = positions / tileWidth;
  SmallVector<std::pair<int64_t, int64_t>> tails;
  int64_t pos = full * tileWidth;
  while (pos < positions) {
    int64_t width = positions >= 16 ? 16 : 8;
    int64_t start = std::min(pos, positions - width);
    tails.push_back({start, width});
    pos = start + width;
  }
  return tails;
}

/// A stride-1, dilation-1 windowed conv on NCHW input with batch 1 whose
/// output width is not a multiple of 32: runs over the flattened padded rows
/// (see Passes.td, flat-rows). Output position p = oh * Wp + ow reads input
/// position p + kh * Wp + kw of the [C, H * Wp] input, so every tile is a
/// contraction of shifted 32-column input blocks.
LogicalResult vectorizeFlat(RewriterBase &rewriter, linalg::GenericOp op,
                            int64_t channelBlock, VectorUnit unit) {
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  if (r[kN] != 1 || (r[kKH] == 1 && r[kKW] == 1) || r[kOW] % 32 == 0)
    return failure();
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (op.getIndexingMapsArray()[0] !=
      AffineMap::get(kNumLoops, 0,
                     {d(kN), d(kC), d(kOH) + d(kKH), d(kOW) + d(kKW)}, ctx))
    return failure();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t m = r[kM], c = r[kC], oh = r[kOH], ow = r[kOW], kh = r[kKH],
          kw = r[kKW];
  int64_t h = xt.getDimSize(2), wp = xt.getDimSize(3);
  if (h != oh + kh - 1 || wp != ow + kw - 1)
    return failure();
  // The last kw - 1 positions of the last row are never read back and would
  // read past the input.
  int64_t positions = oh * wp - (kw - 1);
  static constexpr int64_t kFlatWidths[] = {32, 16};
  int64_t fw = tileColumns(m, 32, kFlatWidths, unit);
  int64_t rm = fw ? regRows(m, fw, unit) : 0, rc = firstDivisor(c, kRegCs);
  if (!rm || !rc || positions < 8)
    return failure();
  int64_t full = 0;
  SmallVector<std::pair<int64_t, int64_t>> tails =
      flatTails(positions, fw, full);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value xf = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({c, h * wp}, f32), x,
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  Value flat = tensor::EmptyOp::create(rewriter, loc,
                                       ArrayRef<int64_t>{m, oh * wp}, f32);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  tfrt::MatmulContraction contraction = tfrt::matmulContraction(rewriter);
  ArrayAttr mapsAttr = contraction.maps, iters = contraction.iterators;
  // Weights [M, C, KH, KW] read as an rm x rc block of one tap.
  AffineMap weightMap = AffineMap::get(4, 0, {d(0), d(1)}, ctx);
  auto wType = VectorType::get({rm, rc}, f32);

  // The fw-column tiles sweep the input channels in blocks of `cb` (the
  // block loop outermost, so that a block's weights and input rows stay in
  // L1 across the tiles), their accumulators read back from the scratch
  // after the first block. The tail tiles overlap their neighbours and so
  // cannot read back: they run after all blocks, over all channels from
  // zero, and rewrite the overlapped positions with the same sums.
  int64_t cb = channelBlockOf(c, rc, rm, kh * kw, channelBlock);

  // All output-channel tiles of the `width` positions from `start`, over
  // the `blockSize` input channels from `blockStart` (a null `blockStart`:
  // all channels, from zero).
  auto tile = [&](OpBuilder &b, Location l, Value out, Value start,
                  int64_t width, Value blockStart, int64_t blockSize) -> Value {
    auto accType = VectorType::get({rm, width}, f32);
    auto xType = VectorType::get({rc, width}, f32);
    auto mLoop = scf::ForOp::create(
        b, l, c0, cst(b, m), cst(b, rm), ValueRange{out},
        [&](OpBuilder &b, Location l, Value mi, ValueRange mIter) {
          Value acc = arith::ConstantOp::create(
              b, l, accType, DenseElementsAttr::get(accType, 0.0f));
          if (blockStart) {
            Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                blockStart, c0);
            Value zeros = acc;
            auto branch = scf::IfOp::create(
                b, l, first,
                [&](OpBuilder &b, Location l) {
                  scf::YieldOp::create(b, l, zeros);
                },
                [&](OpBuilder &b, Location l) {
                  scf::YieldOp::create(
                      b, l,
                      Value(vector::TransferReadOp::create(
                          b, l, accType, mIter[0], ValueRange{mi, start}, zero,
                          ArrayRef<bool>{true, true})));
                });
            acc = branch.getResult(0);
          }
          auto cLoop = scf::ForOp::create(
              b, l, c0, cst(b, blockSize), cst(b, rc), ValueRange{acc},
              [&](OpBuilder &b, Location l, Value cj, ValueRange cIter) {
                Value ci = blockStart
                               ? arith::AddIOp::create(b, l, blockStart, cj)
                               : cj;
                auto hLoop = scf::ForOp::create(
                    b, l, c0, cst(b, kh), c1, cIter,
                    [&](OpBuilder &b, Location l, Value hi, ValueRange hIter) {
                      Value rowStart = arith::AddIOp::create(
                          b, l, start,
                          arith::MulIOp::create(b, l, hi, cst(b, wp)));
                      auto wLoop = scf::ForOp::create(
                          b, l, c0, cst(b, kw), c1, hIter,
                          [&](OpBuilder &b, Location l, Value wi,
                              ValueRange wIter) {
                            Value wv = vector::TransferReadOp::create(
                                b, l, wType, w, ValueRange{mi, ci, hi, wi},
                                zero, weightMap, ArrayRef<bool>{true, true});
                            Value col =
                                arith::AddIOp::create(b, l, rowStart, wi);
                            Value xv = vector::TransferReadOp::create(
                                b, l, xType, xf, ValueRange{ci, col}, zero,
                                ArrayRef<bool>{true, true});
                            Value next = vector::ContractionOp::create(
                                b, l, wv, xv, wIter[0], mapsAttr, iters);
                            scf::YieldOp::create(b, l, next);
                          });
                      scf::YieldOp::create(b, l, wLoop.getResults());
                    });
                scf::YieldOp::create(b, l, hLoop.getResults());
              });
          Value written = vector::TransferWriteOp::create(
                              b, l, cLoop.getResult(0), mIter[0],
                              ValueRange{mi, start}, ArrayRef<bool>{true, true})
                              .getResult();
          scf::YieldOp::create(b, l, written);
        });
    return mLoop.getResult(0);
  };

  // The fw-column tiles over the input channels [block, block + size).
  auto fullTiles = [&](OpBuilder &b, Location l, Value out, Value block,
                       int64_t size) -> Value {
    return scf::ForOp::create(
               b, l, c0, cst(b, full * fw), cst(b, fw), ValueRange{out},
               [&](OpBuilder &b, Location l, Value p, ValueRange pIter) {
                 scf::YieldOp::create(b, l,
                                      tile(b, l, pIter[0], p, fw, block, size));
               })
        .getResult(0);
  };
  if (full > 0 && cb < c) {
    flat = scf::ForOp::create(
               rewriter, loc, c0, cst(rewriter, c), cst(rewriter, cb),
               ValueRange{flat},
               [&](OpBuilder &b, Location l, Value block, ValueRange it) {
                 scf::YieldOp::create(b, l, fullTiles(b, l, it[0], block, cb));
               })
               .getResult(0);
  } else if (full > 0) {
    flat = fullTiles(rewriter, loc, flat, Value(), c);
  }
  for (auto [start, width] : tails)
    flat = tile(rewriter, loc, flat, cst(rewriter, start), width, Value(), c);

  // [M, OH * Wp] -> [M, OH, Wp] -> the [M, OH, OW] positions, added onto
  // the conv's init.
  Value rows = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({m, oh, wp}, f32), flat,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  Value valid = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({m, oh, ow}, f32), rows,
      idx({0, 0, 0}), idx({m, oh, ow}), idx({1, 1, 1}));
  auto add = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{valid},
      ValueRange{init},
      {AffineMap::get(4, 0, {d(1), d(2), d(3)}, ctx),
       AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, arith::AddFOp::create(b, l, args[1], args[0]).getResult());
      });
  rewriter.replaceOp(op, add->getResults());
  return success();
}

/// The stem kernel's tile (output channels x columns): the most
/// accumulators, at most 16, that fit the registers beside the three tap
/// vectors of one input row and a broadcast: AVX-512 8 x 32, AVX2 4 x 16,
/// NEON 4 x 16, SSE 4 x 8. Channels and columns divide matchStemConv's
/// (multiples of 8 and 32).
std::pair<int64_t, int64_t> stemTile(VectorUnit unit) {
  std::pair<int64_t, int64_t> best{8, 32};
  int64_t bestRegs = 0;
  for (int64_t sw : {32, 16, 8}) {
    int64_t perRow = unit.registersFor(sw);
    for (int64_t sr : {8, 4, 2}) {
      int64_t acc = sr * perRow;
      if (acc <= 16 && acc + 3 * perRow + 1 <= unit.registers &&
          acc > bestRegs) {
        best = {sr, sw};
        bestRegs = acc;
      }
    }
  }
  return best;
}

/// An image stem (matchStemConv): 8 output channels x 32 output columns of
/// one output row per register tile on AVX-512 (8 accumulators of
/// vector<32xf32>; stemTile's sr x sw elsewhere), computed from the
/// unpadded input. Each (input channel, kernel row) reads the 2 * sw input
/// columns from 2 * ow once and splits them into even and odd lanes: the
/// taps kw = 1 and kw = 2; tap kw = 0 (column 2 * ow - 1 + 2i) is the odd
/// lanes of the 2 * sw columns from 2 * ow - 2, or in the first
/// column tile the odd lanes shifted by one lane behind the left padding's
/// zero. The input rows of the next output row are prefetched while a row
/// computes (inside a model the input comes from memory: det's stem 0.80 ->
/// 0.58 ms with them).
/// Kernel rows in the top or bottom padding are skipped (the kh loop's
/// bounds), columns past the input's right edge read as zeros (masked
/// reads). 27 taps of a 3-channel 3x3 stem instead of the phase split's
/// 36, and neither the padded copy nor the split of the input.
/// With `epilogues`, the stem's elementwise consumer (matchEpilogue, Direct
/// indexing) is applied to each tile when the accumulators start from the
/// init's fill or bias; `fusedEpilogues` counts it.
LogicalResult vectorizeStem(RewriterBase &rewriter, linalg::GenericOp op,
                            const StemInput &stem, VectorUnit unit,
                            bool epilogues, bool remarks,
                            int64_t &fusedEpilogues) {
  // Plain variables: the lambdas below capture them (capturing structured
  // bindings needs C++20).
  const auto stemShape = stemTile(unit);
  const int64_t sr = stemShape.first, sw = stemShape.second;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t m = r[kM], c = r[kC], oh = r[kOH], ow = r[kOW];
  Value x = stem.source, w = op.getDpsInputs()[1];
  int64_t h = cast<RankedTensorType>(x.getType()).getDimSize(2);
  int64_t width = cast<RankedTensorType>(x.getType()).getDimSize(3);
  Location loc = op.getLoc();
  Value init = op.getDpsInits()[0];
  std::optional<tfrt::Epilogue> epilogue;
  if (epilogues)
    epilogue = tfrt::matchEpilogue(op.getResult(0), sw);
  if (epilogue && (epilogue->indexing != tfrt::Epilogue::Indexing::Direct ||
                   epilogue->transposedDest))
    epilogue.reset();
  InitStart start;
  tfrt::EpilogueOperands epilogueOperands;
  if (std::optional<InitStart> taken = takeChannelInitForEpilogue(
          rewriter, op, op.getDpsInits()[0], init, epilogue, epilogueOperands))
    start = *taken;
  Type f32 = rewriter.getF32Type();
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto vec32 = VectorType::get({sw}, f32),
       vec64 = VectorType::get({2 * sw}, f32);
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value zeros = arith::ConstantOp::create(rewriter, loc, vec32,
                                          DenseElementsAttr::get(vec32, 0.0f));
  Value rowOffset =
      getValueOrCreateConstantIndexOp(rewriter, loc, stem.rowOffset);
  SmallVector<int64_t> evens, odds, shifted{0};
  for (int64_t i = 0; i < sw; ++i) {
    evens.push_back(2 * i);
    odds.push_back(2 * i + 1);
    if (i < sw - 1)
      shifted.push_back(sw + i);
  }

  // One register tile: output channels [mi, mi + sr) of output row `row`
  // (in the op's output), columns [col, col + sw); `first`: col is 0.
  auto tile = [&](OpBuilder &b, Location l, Value out, Value row, Value padRow,
                  Value khLo, Value khHi, Value mi, Value col, bool first,
                  bool last) -> Value {
    SmallVector<Value> channels, accs;
    for (int64_t i = 0; i < sr; ++i) {
      Value channel = arith::AddIOp::create(b, l, mi, cst(b, i));
      channels.push_back(channel);
      if (start.scalar || start.bias)
        accs.push_back(vector::BroadcastOp::create(
            b, l, vec32, start.valueAt(b, l, channel)));
      else
        accs.push_back(vector::TransferReadOp::create(
            b, l, vec32, out, ValueRange{c0, channel, row, col}, zero,
            ArrayRef<bool>{true}));
    }
    Value col2 = arith::MulIOp::create(b, l, col, cst(b, 2));
    // Columns from 2 * col past the input's right edge read as zeros.
    bool inBounds = !last || 2 * ow <= width;
    auto cLoop = scf::ForOp::create(
        b, l, c0, cst(b, c), c1, accs,
        [&](OpBuilder &b, Location l, Value ci, ValueRange cIter) {
          auto hLoop = scf::ForOp::create(
              b, l, khLo, khHi, c1, cIter,
              [&](OpBuilder &b, Location l, Value kh, ValueRange hIter) {
                // Input row: padded row minus the padding above.
                Value xr = arith::SubIOp::create(
                    b, l, arith::AddIOp::create(b, l, padRow, kh),
                    cst(b, stem.lowH));
                Value a = vector::TransferReadOp::create(
                    b, l, vec64, x, ValueRange{c0, ci, xr, col2}, zero,
                    ArrayRef<bool>{inBounds});
                Value even =
                    vector::ShuffleOp::create(b, l, vec32, a, a, evens);
                Value odd = vector::ShuffleOp::create(b, l, vec32, a, a, odds);
                Value left;
                if (first) {
                  left = vector::ShuffleOp::create(b, l, vec32, zeros, odd,
                                                   shifted);
                } else {
                  Value p = vector::TransferReadOp::create(
                      b, l, vec64, x,
                      ValueRange{c0, ci, xr,
                                 arith::SubIOp::create(b, l, col2, cst(b, 2))},
                      zero, ArrayRef<bool>{inBounds});
                  left = vector::ShuffleOp::create(b, l, vec32, p, p, odds);
                }
                SmallVector<Value> next(hIter.begin(), hIter.end());
                Value taps[3] = {left, even, odd};
                for (int64_t i = 0; i < sr; ++i) {
                  for (int64_t kw = 0; kw < 3; ++kw) {
                    Value wv = tensor::ExtractOp::create(
                        b, l, w, ValueRange{channels[i], ci, kh, cst(b, kw)});
                    next[i] = vector::FMAOp::create(
                        b, l, taps[kw],
                        vector::BroadcastOp::create(b, l, vec32, wv), next[i]);
                  }
                }
                scf::YieldOp::create(b, l, next);
              });
          scf::YieldOp::create(b, l, hLoop.getResults());
        });
    for (int64_t i = 0; i < sr; ++i) {
      SmallVector<Value> at{c0, channels[i], row, col};
      if (epilogue)
        out = tfrt::applyEpilogueDirect(b, l, *epilogue, epilogueOperands,
                                        cLoop.getResult(i), out, at);
      else
        out = vector::TransferWriteOp::create(b, l, cLoop.getResult(i), out, at,
                                              ArrayRef<bool>{true})
                  .getResult();
    }
    return out;
  };

  auto xType = cast<RankedTensorType>(x.getType());
  Value xBuffer = bufferization::ToBufferOp::create(
      rewriter, loc, MemRefType::get(xType.getShape(), f32), x,
      /*read_only=*/true);
  auto rowLoop = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, oh), c1, ValueRange{init},
      [&](OpBuilder &b, Location l, Value row, ValueRange rIter) {
        // Padded input row of kernel row 0; kernel rows whose input row
        // lies in the padding above or below are skipped.
        Value padRow = arith::AddIOp::create(
            b, l, rowOffset, arith::MulIOp::create(b, l, row, cst(b, 2)));
        Value khLo = arith::MaxSIOp::create(
            b, l, c0, arith::SubIOp::create(b, l, cst(b, stem.lowH), padRow));
        Value khHi = arith::MinSIOp::create(
            b, l, cst(b, 3),
            arith::SubIOp::create(b, l, cst(b, h + stem.lowH), padRow));
        auto columns = [&](OpBuilder &b, Location l, Value out, Value col,
                           bool first, bool last) -> Value {
          // The input rows of the next output row, to the cache while this
          // one computes: 2 * sw columns from 2 * col of each channel's 3
          // rows.
          Value col2 = arith::MulIOp::create(b, l, col, cst(b, 2));
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t kh = 0; kh < 3; ++kh) {
              Value xr = arith::MinSIOp::create(
                  b, l, cst(b, h - 1),
                  arith::AddIOp::create(b, l, padRow,
                                        cst(b, 2 + kh - stem.lowH)));
              for (int64_t line = 0; line < 2 * sw; line += 16)
                memref::PrefetchOp::create(
                    b, l, xBuffer,
                    ValueRange{c0, cst(b, ci), xr,
                               arith::AddIOp::create(b, l, col2, cst(b, line))},
                    b.getBoolAttr(false), b.getI32IntegerAttr(3),
                    b.getBoolAttr(true));
            }
          auto mLoop = scf::ForOp::create(
              b, l, c0, cst(b, m), cst(b, sr), ValueRange{out},
              [&](OpBuilder &b, Location l, Value mi, ValueRange mIter) {
                scf::YieldOp::create(b, l,
                                     tile(b, l, mIter[0], row, padRow, khLo,
                                          khHi, mi, col, first, last));
              });
          return mLoop.getResult(0);
        };
        Value out = columns(b, l, rIter[0], c0, true, ow == sw);
        if (ow > 2 * sw) {
          auto colLoop = scf::ForOp::create(
              b, l, cst(b, sw), cst(b, ow - sw), cst(b, sw), ValueRange{out},
              [&](OpBuilder &b, Location l, Value col, ValueRange cIter) {
                scf::YieldOp::create(
                    b, l, columns(b, l, cIter[0], col, false, false));
              });
          out = colLoop.getResult(0);
        }
        if (ow > sw)
          out = columns(b, l, out, cst(b, ow - sw), false, true);
        scf::YieldOp::create(b, l, out);
      });
  if (epilogue) {
    tfrt::finishEpilogue(rewriter, *epilogue, rowLoop.getResult(0), op,
                         "image stem", remarks);
    ++fusedEpilogues;
    return success();
  }
  rewriter.replaceOp(op, rowLoop.getResult(0));
  return success();
}

/// Tiles `op` by `sizes` (loops in `interchange` order when given) and
/// replaces it; returns the tiled generic.
FailureOr<linalg::GenericOp> tileGeneric(RewriterBase &rewriter,
                                         linalg::GenericOp op,
                                         ArrayRef<int64_t> sizes,
                                         ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions opts;
  opts.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (!interchange.empty())
    opts.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), opts);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  auto tile = dyn_cast<linalg::GenericOp>(tiled->tiledOps.front());
  if (!tile)
    return failure();
  return tile;
}

/// Tiles and vectorizes one conv generic. Shapes the register tile does not
/// divide are left untouched (today's loop lowering).
LogicalResult vectorizeOne(RewriterBase &rewriter, linalg::GenericOp op,
                           bool flatRows, int64_t channelBlock,
                           VectorUnit unit) {
  bool rowsOuter = false;
  if (convColumnStride(op, &rowsOuter) != 1)
    return failure();
  if (succeeded(rewritePointwise(rewriter, op)))
    return success();
  if (flatRows && !rowsOuter &&
      succeeded(vectorizeFlat(rewriter, op, channelBlock, unit)))
    return success();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rn = tileColumns(ranges[kM], ranges[kOW], kRegNs, unit);
  int64_t rm = rn ? regRows(ranges[kM], rn, unit) : 0;
  int64_t rc =
      firstDivisor(ranges[kC], rowsOuter ? ArrayRef<int64_t>(kRowsOuterRegCs)
                                         : ArrayRef<int64_t>(kRegCs));
  if (!rm || !rn || !rc)
    return failure();

  // On the rows-outer input, the input channels first go into blocks of
  // `channelBlock` (the block loop outermost): a block's weights and input
  // rows then stay in L1 while every output tile of the chunk takes its
  // share, the accumulators carried through the output between blocks.
  int64_t cb = channelBlockOf(ranges[kC], rc, rm, ranges[kKH] * ranges[kKW],
                              channelBlock);
  if (rowsOuter && cb < ranges[kC]) {
    SmallVector<int64_t> sizes(kNumLoops, 0);
    sizes[kC] = cb;
    FailureOr<linalg::GenericOp> blocked = tileGeneric(rewriter, op, sizes, {});
    if (failed(blocked))
      return failure();
    op = *blocked;
  }

  // One level of tiling: the register tile (1, rm, 1, rn, rc, 1, 1), loops
  // ordered (n, oh, ow, m, ...) so that consecutive m tiles reuse the input
  // rows of one (oh, ow) tile from the cache. On the rows-outer input the
  // channel loop is innermost (n, oh, ow, m, kh, kw, c): each tap sweeps
  // [C, W] rows at one stride; on NCHW input the taps are innermost.
  SmallVector<int64_t> order =
      rowsOuter ? SmallVector<int64_t>{kN, kOH, kOW, kM, kKH, kKW, kC}
                : SmallVector<int64_t>{kN, kOH, kOW, kM, kC, kKH, kKW};
  FailureOr<linalg::GenericOp> tiled =
      tileGeneric(rewriter, op, {1, rm, 1, rn, rc, 1, 1}, order);
  if (failed(tiled))
    return failure();
  linalg::GenericOp tile = *tiled;

  // Fold n, oh, kh and kw (all of extent 1 now): oh + kh and ow + kw become
  // plain dims and the tile is out[m, ow] += w[m, c] * in[c, ow]. The
  // c dim stays even when rc == 1 so that the tile remains a contraction.
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  control.controlFn = [](Operation *) {
    return SmallVector<unsigned>{kN, kOH, kKH, kKW};
  };
  rewriter.setInsertionPoint(tile);
  FailureOr<linalg::DropUnitDimsResult> folded =
      linalg::dropUnitDims(rewriter, tile, control);
  if (failed(folded))
    return failure();
  rewriter.replaceOp(tile, folded->replacements);

  // The folded generic has loops (m, ow, c) and reads in[c, ow], w[m, c]:
  // exactly linalg.matmul(w, in), which the vectorizer turns into a
  // vector.contract (it does not for generics).
  auto generic = dyn_cast<linalg::GenericOp>(folded->resultOp.getOperation());
  if (!generic || generic.getNumLoops() != 3)
    return failure();
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(3, 0, {d(2), d(1)}, ctx) ||
      maps[1] != AffineMap::get(3, 0, {d(0), d(2)}, ctx) ||
      maps[2] != AffineMap::get(3, 0, {d(0), d(1)}, ctx))
    return failure();
  rewriter.setInsertionPoint(generic);
  auto matmul = linalg::MatmulOp::create(
      rewriter, generic.getLoc(), generic.getResultTypes(),
      ValueRange{generic.getDpsInputs()[1], generic.getDpsInputs()[0]},
      generic.getDpsInits());
  rewriter.replaceOp(generic, matmul->getResults());
  Operation *contraction = matmul.getOperation();

  rewriter.setInsertionPoint(contraction);
  FailureOr<linalg::VectorizationResult> v = linalg::vectorize(
      rewriter, contraction, /*inputVectorSizes=*/{},
      /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
      /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (failed(v))
    return failure();
  rewriter.replaceOp(contraction, v->replacements);
  return success();
}

struct VectorizeConvPass
    : public tfrt::impl::VectorizeConvBase<VectorizeConvPass> {
  using VectorizeConvBase::VectorizeConvBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops, stems;
    getOperation().walk([&](linalg::GenericOp op) {
      if (convColumnStride(op) == 1)
        ops.push_back(op);
      else if (matchStemConv(op))
        stems.push_back(op);
    });
    if (ops.empty() && stems.empty())
      return;
    VectorUnit unit{vectorBits, vectorRegisters};
    if (failed(tfrt::codegen::checkVectorUnit(getOperation(),
                                              "tfrt-vectorize-conv", unit)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    int64_t fused = 0;
    for (linalg::GenericOp op : stems)
      (void)vectorizeStem(rewriter, op, *matchStemConv(op), unit, epilogues,
                          remarks, fused);
    numEpilogues += fused;
    for (linalg::GenericOp op : ops)
      (void)vectorizeOne(rewriter, op, flatRows, channelBlock, unit);
    // First merge the tiling's and the unit-dim folding's slices into single
    // rank-reducing ones (8x32 <-> 1x8x1x32 <-> the output), then fold those
    // into the transfers: the accumulator is then read and written directly
    // on the loop-carried output, which loop-invariant-subset-hoisting needs.
    MLIRContext *ctx = &getContext();
    for (int phase = 0; phase < 2; ++phase) {
      RewritePatternSet patterns(ctx);
      if (phase == 0)
        tensor::populateMergeConsecutiveInsertExtractSlicePatterns(patterns);
      else
        tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
      for (RegisteredOperationName name : ctx->getRegisteredOperations())
        name.getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
