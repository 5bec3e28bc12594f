//===- WinogradConv.cpp - 3x3 convolutions as Winograd F(2x2, 3x3) --------===//
//
// Implements tfrt-winograd-conv: a dense 3x3 stride-1 convolution on the
// rows-outer input of tfrt-split-conv-phases, with constant weights, runs
// as Winograd F(2x2, 3x3): per block of 2 x 16 output tiles (4 output rows,
// 32 columns), the input transform B^T d B of every 4x4 patch, 16 products
// of the transformed weights U = G g G^T (computed here) with the
// transformed input, and the output transform A^T m A (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

namespace tfrt {
#define GEN_PASS_DEF_WINOGRADCONV
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::conv;
using tfrt::codegen::InitStart;
using tfrt::codegen::takeChannelInit;

namespace {
/// Tiles per vector along the output columns (one zmm of f32), tile rows
/// per block, output channels x tiles per register tile of the products.
constexpr int64_t kLanes = 16;
constexpr int64_t kBlockRows = 2;
constexpr int64_t kRegM = 8;
constexpr int64_t kRegT = 32;
/// F(2x2, 3x3): 4x4 input patches, 16 transformed points.
constexpr int64_t kAlpha = 4;
constexpr int64_t kPoints = kAlpha * kAlpha;

struct WinogradShape {
  int64_t c, m, oh, ow;
  /// The input is [1, H, C, W] (tfrt-split-conv-phases), else [1, C, H, W].
  bool rowsOuter;
  /// Tiles per block: kBlockRows rows of kLanes.
  int64_t blockTiles() const { return kBlockRows * kLanes; }
};

/// Matches the conv generic this pass handles and returns its shape and
/// constant weights [M, C, 3, 3].
std::optional<WinogradShape> matchWinograd(linalg::GenericOp op,
                                           int64_t minChannels,
                                           int64_t blockBytes,
                                           DenseElementsAttr &weights) {
  bool rowsOuter = false;
  if (convColumnStride(op, &rowsOuter) != 1)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr rows = d(kOH) + d(kKH), cols = d(kOW) + d(kKW);
  SmallVector<AffineExpr> in = {d(kN), rows, d(kC), cols};
  if (!rowsOuter)
    std::swap(in[1], in[2]);
  if (op.getIndexingMapsArray()[0] != AffineMap::get(kNumLoops, 0, in, ctx))
    return std::nullopt;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  WinogradShape s{r[kC], r[kM], r[kOH], r[kOW], rowsOuter};
  if (r[kN] != 1 || r[kKH] != 3 || r[kKW] != 3 || s.m % kRegM ||
      s.oh % (2 * kBlockRows) || s.ow % 2 || s.c < minChannels)
    return std::nullopt;
  auto x = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (x.getDimSize(rowsOuter ? 1 : 2) < s.oh + 2 || x.getDimSize(3) < s.ow + 2)
    return std::nullopt;
  // Blocks of 2 x 16 tiles: wider ones (all 80 tiles of det's 160-column
  // rows, 983 KB of transformed input) read each slice of U once for more
  // tiles but ran slower (det 0.864 against 0.846 paired).
  if (kPoints * s.c * s.blockTiles() * 4 > blockBytes)
    return std::nullopt;
  // Rows whose tiles are not a multiple of 16 compute the rest of the last
  // block for nothing: at most a quarter more (det's 96->24 conv on 80x80,
  // 48 tiles for 40: 0.80 of the direct conv's time; on 40x40, 32 for 20:
  // 1.08).
  int64_t tiles = s.ow / 2, computed = llvm::divideCeil(tiles, kLanes) * kLanes;
  if (4 * computed > 5 * tiles)
    return std::nullopt;
  Attribute attr;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&attr)))
    return std::nullopt;
  weights = dyn_cast<DenseElementsAttr>(attr);
  if (!weights)
    return std::nullopt;
  return s;
}

/// U = G g G^T for every (m, c), laid out [M, C, 16] (point a * 4 + b), so
/// that a product's register tile reads 8 output channels of one point as
/// tfrt-pack-weight-tiles packs left operands.
DenseElementsAttr transformWeights(DenseElementsAttr g,
                                   const WinogradShape &s) {
  static constexpr float G[kAlpha][3] = {{1.0f, 0.0f, 0.0f},
                                         {0.5f, 0.5f, 0.5f},
                                         {0.5f, -0.5f, 0.5f},
                                         {0.0f, 0.0f, 1.0f}};
  SmallVector<float> w(g.getValues<float>());
  SmallVector<float> u(s.m * s.c * kPoints);
  for (int64_t m = 0; m < s.m; ++m)
    for (int64_t c = 0; c < s.c; ++c) {
      const float *k = &w[(m * s.c + c) * 9];
      for (int64_t a = 0; a < kAlpha; ++a)
        for (int64_t b = 0; b < kAlpha; ++b) {
          double sum = 0;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j)
              sum += double(G[a][i]) * k[i * 3 + j] * G[b][j];
          u[(m * s.c + c) * kPoints + a * kAlpha + b] = float(sum);
        }
    }
  auto type = RankedTensorType::get({s.m, s.c, kPoints},
                                    Float32Type::get(g.getContext()));
  return DenseElementsAttr::get(type, ArrayRef<float>(u));
}

/// The code of one conv: builders shared by its three phases.
struct Emitter {
  OpBuilder &b;
  Location loc;
  WinogradShape s;
  VectorType vec, wide;
  /// Input and output accesses of the current block may pass the end of a
  /// row (the last block when ow / 2 is not a multiple of 16): masked.
  bool masked = false;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value addi(Value x, int64_t v) {
    return v ? arith::AddIOp::create(b, loc, x, idx(v)).getResult() : x;
  }
  /// A read along the last dimensions of `src`, or along those of `map`;
  /// `edge`: masked at the end of the row in a masked block.
  Value read(VectorType t, Value src, ValueRange at, AffineMap map = {},
             bool edge = false) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    auto rank = cast<ShapedType>(src.getType()).getRank();
    if (!map)
      map = AffineMap::getMinorIdentityMap(rank, t.getRank(), b.getContext());
    SmallVector<bool> inBounds(t.getRank(), !(edge && masked));
    return vector::TransferReadOp::create(b, loc, t, src, at, zero, map,
                                          inBounds);
  }
  Value write(Value v, Value dest, ValueRange at, bool edge = false) {
    SmallVector<bool> inBounds(cast<VectorType>(v.getType()).getRank(),
                               !(edge && masked));
    return vector::TransferWriteOp::create(b, loc, v, dest, at, inBounds)
        .getResult();
  }

  /// B^T d B of the 4x4 patches of 16 tiles of tile row `tileRow` (tiles
  /// from `tile0`) for channel `c`, written to v[point, c, col..+16].
  Value inputTransform(Value in, Value v, Value c, Value tileRow, Value tile0,
                       Value col) {
    Value row0 = arith::MulIOp::create(b, loc, tileRow, idx(2));
    Value x0 = arith::MulIOp::create(b, loc, tile0, idx(2));
    Value x2 = addi(x0, 2);
    Value r[kAlpha][kAlpha];
    for (int64_t i = 0; i < kAlpha; ++i) {
      Value row = addi(row0, i);
      // Columns 2t .. 2t + 3 of 16 tiles: the even and odd lanes of 32
      // floats from 2t and from 2t + 2.
      auto at = [&](Value x) -> SmallVector<Value> {
        if (s.rowsOuter)
          return {idx(0), row, c, x};
        return {idx(0), c, row, x};
      };
      auto p = vector::DeinterleaveOp::create(
          b, loc, read(wide, in, at(x0), {}, /*edge=*/true));
      auto q = vector::DeinterleaveOp::create(
          b, loc, read(wide, in, at(x2), {}, /*edge=*/true));
      Value d0 = p.getRes1(), d1 = p.getRes2(), d2 = q.getRes1(),
            d3 = q.getRes2();
      r[i][0] = sub(d0, d2);
      r[i][1] = add(d1, d2);
      r[i][2] = sub(d2, d1);
      r[i][3] = sub(d1, d3);
    }
    for (int64_t j = 0; j < kAlpha; ++j) {
      Value t[kAlpha] = {sub(r[0][j], r[2][j]), add(r[1][j], r[2][j]),
                         sub(r[2][j], r[1][j]), sub(r[1][j], r[3][j])};
      for (int64_t a = 0; a < kAlpha; ++a)
        v = write(t[a], v, {idx(a * kAlpha + j), c, col});
    }
    return v;
  }

  /// The 16 products mm[point, m, t] = sum_c U[m, c, point] v[point, c, t]
  /// of one block, 8 output channels x 32 tiles per register tile (the
  /// tiles innermost: an 8-channel slice of U serves all of them from L1).
  Value products(Value u, Value v, Value mm) {
    Type f32 = b.getF32Type();
    MLIRContext *ctx = b.getContext();
    auto accType = VectorType::get({kRegM, kRegT}, f32);
    auto lhsType = VectorType::get({kRegM, 1}, f32);
    auto rhsType = VectorType::get({1, kRegT}, f32);
    // 8 output channels of one point of U [M, C, 16]: along dims 0 and 1.
    AffineMap lhsMap =
        AffineMap::getMultiDimIdentityMap(3, ctx).getMajorSubMap(2);
    tfrt::MatmulContraction contraction = tfrt::matmulContraction(b);
    Value c0 = idx(0), c1 = idx(1);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
    auto pLoop = scf::ForOp::create(
        b, loc, c0, idx(kPoints), c1, ValueRange{mm},
        [&](OpBuilder &, Location, Value point, ValueRange pIter) {
          auto mLoop = scf::ForOp::create(
              b, loc, c0, idx(s.m), idx(kRegM), pIter,
              [&](OpBuilder &, Location, Value m, ValueRange mIter) {
                auto tLoop = scf::ForOp::create(
                    b, loc, c0, idx(s.blockTiles()), idx(kRegT), mIter,
                    [&](OpBuilder &, Location, Value t, ValueRange tIter) {
                      auto cLoop = scf::ForOp::create(
                          b, loc, c0, idx(s.c), c1, ValueRange{zero},
                          [&](OpBuilder &, Location, Value c, ValueRange acc) {
                            Value x = read(lhsType, u, {m, c, point}, lhsMap);
                            Value y = read(rhsType, v, {point, c, t});
                            Value r = vector::ContractionOp::create(
                                b, loc, x, y, acc[0], contraction.maps,
                                contraction.iterators);
                            scf::YieldOp::create(b, loc, r);
                          });
                      Value out =
                          write(cLoop.getResult(0), tIter[0], {point, m, t});
                      scf::YieldOp::create(b, loc, out);
                    });
                scf::YieldOp::create(b, loc, tLoop.getResult(0));
              });
          scf::YieldOp::create(b, loc, mLoop.getResult(0));
        });
    return pLoop.getResult(0);
  }

  /// A^T m A of the 16 tiles at mm[.., m, col..+16] plus the start value,
  /// written as output rows `row`, `row` + 1 from column 2 * `tile0` of
  /// `out` (a chunk of the output whose rows start at the chunk's first).
  Value outputTransform(Value mm, Value out, Value m, Value col, Value row,
                        Value tile0, const InitStart *start) {
    Value sRows[2][kAlpha];
    for (int64_t j = 0; j < kAlpha; ++j) {
      Value p[kAlpha];
      for (int64_t a = 0; a < kAlpha; ++a)
        p[a] = read(vec, mm, {idx(a * kAlpha + j), m, col});
      sRows[0][j] = add(add(p[0], p[1]), p[2]);
      sRows[1][j] = sub(sub(p[1], p[2]), p[3]);
    }
    Value x = arith::MulIOp::create(b, loc, tile0, idx(2));
    Value bias;
    if (start)
      bias =
          vector::BroadcastOp::create(b, loc, wide, start->valueAt(b, loc, m));
    for (int64_t i = 0; i < 2; ++i) {
      Value y0 = add(add(sRows[i][0], sRows[i][1]), sRows[i][2]);
      Value y1 = sub(sub(sRows[i][1], sRows[i][2]), sRows[i][3]);
      Value y = vector::InterleaveOp::create(b, loc, y0, y1);
      Value at[] = {idx(0), m, addi(row, i), x};
      y = add(start ? bias : read(wide, out, at, {}, /*edge=*/true), y);
      out = write(y, out, at, /*edge=*/true);
    }
    return out;
  }
};

/// Replaces `op` (matched by matchWinograd) by an scf.forall of `chunks`
/// chunks of output rows.
void rewriteOne(RewriterBase &rewriter, linalg::GenericOp op,
                const WinogradShape &s, DenseElementsAttr weights,
                int64_t chunks) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Value dest = op.getOutputs()[0];
  std::optional<InitStart> start =
      takeChannelInit(rewriter, op, op.getOutputs()[0], dest);
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  Value in = op.getDpsInputs()[0];
  Value u =
      arith::ConstantOp::create(rewriter, loc, transformWeights(weights, s));
  int64_t tileRows = s.oh / 2, blocks = tileRows / kBlockRows;
  int64_t perChunk = blocks / chunks * kBlockRows; // tile rows per chunk
  int64_t chunkRows = 2 * perChunk;
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(chunks)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, ValueRange{dest},
      std::nullopt);
  OpBuilder b(ctx);
  b.setInsertionPointToStart(forall.getBody());
  Emitter e{b, loc, s, VectorType::get({kLanes}, f32),
            VectorType::get({2 * kLanes}, f32)};
  Value chunk = forall.getInductionVar(0);
  Value shared = forall.getRegionIterArgs()[0];
  Value firstRow = arith::MulIOp::create(b, loc, chunk, e.idx(chunkRows));
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(0),
                                    firstRow, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = idx({1, s.m, chunkRows, s.ow});
  SmallVector<OpFoldResult> strides = idx({1, 1, 1, 1});
  Value part =
      tensor::ExtractSliceOp::create(b, loc, shared, offsets, sizes, strides);
  // Scratch of one block, reused by the next: the transformed input and the
  // products (one workspace slot per chunk).
  Value v0 = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get({kPoints, s.c, s.blockTiles()}, f32),
      ValueRange{});
  Value mm0 = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get({kPoints, s.m, s.blockTiles()}, f32),
      ValueRange{});
  Value firstTileRow = arith::MulIOp::create(b, loc, chunk, e.idx(perChunk));
  Value c0 = e.idx(0), c1 = e.idx(1);
  // One block: tiles [firstTile, firstTile + 16) of tile rows tileRow and
  // tileRow + 1, on the iteration values (output chunk, V, products).
  auto block = [&](Value tileRow, Value localRow, Value firstTile,
                   ValueRange it) -> SmallVector<Value> {
    auto cLoop = scf::ForOp::create(
        b, loc, c0, e.idx(s.c), c1, ValueRange{it[1]},
        [&](OpBuilder &, Location, Value c, ValueRange vIter) {
          Value v = vIter[0];
          for (int64_t r = 0; r < kBlockRows; ++r)
            v = e.inputTransform(in, v, c, e.addi(tileRow, r), firstTile,
                                 e.idx(r * kLanes));
          scf::YieldOp::create(b, loc, v);
        });
    Value v = cLoop.getResult(0);
    Value mm = e.products(u, v, it[2]);
    auto mLoop = scf::ForOp::create(
        b, loc, c0, e.idx(s.m), c1, ValueRange{it[0]},
        [&](OpBuilder &, Location, Value m, ValueRange oIter) {
          Value out = oIter[0];
          for (int64_t r = 0; r < kBlockRows; ++r)
            out = e.outputTransform(mm, out, m, e.idx(r * kLanes),
                                    e.addi(localRow, 2 * r), firstTile,
                                    start ? &*start : nullptr);
          scf::YieldOp::create(b, loc, out);
        });
    return {mLoop.getResult(0), v, mm};
  };
  // Whole blocks along the row, then one masked block for the rest.
  int64_t tiles = s.ow / 2, whole = tiles / kLanes * kLanes;
  auto rowLoop = scf::ForOp::create(
      b, loc, c0, e.idx(perChunk), e.idx(kBlockRows), ValueRange{part, v0, mm0},
      [&](OpBuilder &, Location, Value tr, ValueRange rowIter) {
        Value tileRow = arith::AddIOp::create(b, loc, firstTileRow, tr);
        Value localRow = arith::MulIOp::create(b, loc, tr, e.idx(2));
        SmallVector<Value> it(rowIter);
        if (whole) {
          auto colLoop = scf::ForOp::create(
              b, loc, c0, e.idx(whole), e.idx(kLanes), it,
              [&](OpBuilder &, Location, Value firstTile, ValueRange colIter) {
                scf::YieldOp::create(
                    b, loc, block(tileRow, localRow, firstTile, colIter));
              });
          it = colLoop.getResults();
        }
        if (whole < tiles) {
          e.masked = true;
          it = block(tileRow, localRow, e.idx(whole), it);
          e.masked = false;
        }
        scf::YieldOp::create(b, loc, it);
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, rowLoop.getResult(0), shared,
                                        offsets, sizes, strides);
  rewriter.replaceOp(op, forall.getResults());
}

struct WinogradConvPass
    : public tfrt::impl::WinogradConvBase<WinogradConvPass> {
  using WinogradConvBase::WinogradConvBase;

  void runOnOperation() override {
    if (maxChunks < 1 || minChannels < 1 || blockBytes < 1) {
      getOperation().emitError("tfrt-winograd-conv: max-chunks, min-channels "
                               "and block-bytes must be >= 1");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      DenseElementsAttr weights;
      std::optional<WinogradShape> s =
          matchWinograd(op, minChannels, blockBytes, weights);
      if (!s)
        continue;
      int64_t blocks = s->oh / (2 * kBlockRows), chunks = 1;
      for (int64_t k = std::min(maxChunks.getValue(), blocks); k >= 1; --k)
        if (blocks % k == 0) {
          chunks = k;
          break;
        }
      rewriteOne(rewriter, op, *s, weights, chunks);
      ++numConvs;
    }
  }
};
} // namespace
