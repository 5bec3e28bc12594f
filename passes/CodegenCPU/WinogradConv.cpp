//===- WinogradConv.cpp - 3x3 convolutions as Winograd F(m x m, 3x3) ------===//
//
// Implements tfrt-winograd-conv: a dense 3x3 stride-1 convolution with
// constant weights runs as Winograd F(4x4, 3x3) or F(2x2, 3x3): per block of
// 2 x 16 output tiles, the input transform B^T d B of every input patch, one
// product of the transformed weights U = G g G^T (computed here) with the
// transformed input per transformed point, and the output transform
// A^T m A (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Profile.h"
#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/MatmulMatch.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/StaticForall.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
constexpr int64_t kMaxAlpha = 6;

/// The matrices of F(m x m, 3x3) (Lavin and Gray), alpha = m + 2: input
/// transform B^T (alpha x alpha), weight transform G (alpha x 3), output
/// transform A^T (m x alpha).
struct Transform {
  int64_t m, alpha;
  double bt[kMaxAlpha][kMaxAlpha];
  double g[kMaxAlpha][3];
  double at[4][kMaxAlpha];
  int64_t points() const { return alpha * alpha; }
};

constexpr Transform kF2 = {
    2,
    4,
    {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
    {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
    {{1, 1, 1, 0}, {0, 1, -1, -1}}};

constexpr Transform kF4 = {4,
                           6,
                           {{4, 0, -5, 0, 1, 0},
                            {0, -4, -4, 1, 1, 0},
                            {0, 4, -4, -1, 1, 0},
                            {0, -2, -1, 2, 1, 0},
                            {0, 2, -1, -2, 1, 0},
                            {0, 4, 0, -5, 0, 1}},
                           {{1.0 / 4, 0, 0},
                            {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                            {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                            {1.0 / 24, 1.0 / 12, 1.0 / 6},
                            {1.0 / 24, -1.0 / 12, 1.0 / 6},
                            {0, 0, 1}},
                           {{1, 1, 1, 1, 1, 0},
                            {0, 1, -1, 2, -2, 0},
                            {0, 1, 1, 4, 4, 0},
                            {0, 1, -1, 8, -8, 1}}};

struct WinogradShape {
  int64_t c, m, oh, ow;
  /// The input is [1, H, C, W] (tfrt-split-conv-phases), else [1, C, H, W].
  bool rowsOuter;
  const Transform *f;
  /// Tiles per block: kBlockRows rows of kLanes.
  static constexpr int64_t blockTiles() { return kBlockRows * kLanes; }
};

/// Whether F(f.m x f.m, 3x3) fits the conv's shape: whole blocks of tile
/// rows, a block's transformed input within `blockBytes`, and rows whose
/// last block computes at most a quarter more tiles than the row has (det's
/// 96->24 conv on 80x80 at F(2x2): 48 tiles for 40, 0.80 of the direct
/// conv's time; on 40x40, 32 for 20: 1.08).
bool fits(const Transform &f, const WinogradShape &s, int64_t blockBytes) {
  if (s.oh % (f.m * kBlockRows) || s.ow % f.m ||
      f.points() * s.c * WinogradShape::blockTiles() * 4 > blockBytes)
    return false;
  int64_t tiles = s.ow / f.m;
  int64_t computed = llvm::divideCeil(tiles, kLanes) * kLanes;
  return 4 * computed <= 5 * tiles;
}

/// Matches the conv generic this pass handles and returns its shape, the
/// largest output tile (up to `maxTile`) that fits it, and its constant
/// weights [M, C, 3, 3].
std::optional<WinogradShape> matchWinograd(linalg::GenericOp op,
                                           int64_t minChannels, int64_t maxTile,
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
  WinogradShape s{r[kC], r[kM], r[kOH], r[kOW], rowsOuter, nullptr};
  if (r[kN] != 1 || r[kKH] != 3 || r[kKW] != 3 || s.m % kRegM ||
      s.c < minChannels)
    return std::nullopt;
  auto x = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (x.getDimSize(rowsOuter ? 1 : 2) < s.oh + 2 || x.getDimSize(3) < s.ow + 2)
    return std::nullopt;
  if (maxTile >= 4 && fits(kF4, s, blockBytes))
    s.f = &kF4;
  else if (fits(kF2, s, blockBytes))
    s.f = &kF2;
  else
    return std::nullopt;
  Attribute attr;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&attr)))
    return std::nullopt;
  weights = dyn_cast<DenseElementsAttr>(attr);
  if (!weights)
    return std::nullopt;
  return s;
}

/// U = G g G^T for every (m, c), laid out [M, C, alpha^2] (point
/// a * alpha + b), so that a product's register tile reads 8 output
/// channels of one point as tfrt-pack-weight-tiles packs left operands.
DenseElementsAttr transformWeights(DenseElementsAttr g,
                                   const WinogradShape &s) {
  const Transform &f = *s.f;
  SmallVector<float> w(g.getValues<float>());
  SmallVector<float> u(s.m * s.c * f.points());
  for (int64_t m = 0; m < s.m; ++m)
    for (int64_t c = 0; c < s.c; ++c) {
      const float *k = &w[(m * s.c + c) * 9];
      for (int64_t a = 0; a < f.alpha; ++a)
        for (int64_t b = 0; b < f.alpha; ++b) {
          double sum = 0;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j)
              sum += f.g[a][i] * k[i * 3 + j] * f.g[b][j];
          u[(m * s.c + c) * f.points() + a * f.alpha + b] = float(sum);
        }
    }
  auto type = RankedTensorType::get({s.m, s.c, f.points()},
                                    Float32Type::get(g.getContext()));
  return DenseElementsAttr::get(type, ArrayRef<float>(u));
}

/// The code of one conv: builders shared by its three phases.
struct Emitter {
  OpBuilder &b;
  Location loc;
  WinogradShape s;
  VectorType vec;
  /// The conv's unary elementwise consumer, applied to the outputs before
  /// they are written (null: none).
  linalg::GenericOp epilogue;
  /// Input and output accesses of the current block may pass the end of a
  /// row (the last block when the row's tiles are not a multiple of 16):
  /// masked.
  bool masked = false;
  /// A read-only buffer of the input, for prefetches.
  Value inBuffer;

  const Transform &f() const { return *s.f; }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value addi(Value x, int64_t v) {
    return v ? arith::AddIOp::create(b, loc, x, idx(v)).getResult() : x;
  }
  Value muli(Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, idx(v));
  }
  /// sum_j coeffs[j] * xs[j] over the nonzero coefficients, starting from a
  /// term with coefficient 1 where there is one: additions and subtractions
  /// for +-1, multiply-adds with a broadcast constant otherwise.
  Value combine(ArrayRef<double> coeffs, ArrayRef<Value> xs) {
    auto type = cast<VectorType>(xs[0].getType());
    auto splat = [&](double k) -> Value {
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(float(k))));
    };
    auto n = static_cast<int64_t>(coeffs.size());
    const double *one = llvm::find(coeffs, 1.0);
    int64_t first = one != coeffs.end() ? one - coeffs.begin()
                                        : llvm::find_if(coeffs, [](double k) {
                                            return k != 0;
                                          }) - coeffs.begin();
    Value acc =
        coeffs[first] == 1
            ? xs[first]
            : arith::MulFOp::create(b, loc, splat(coeffs[first]), xs[first])
                  .getResult();
    for (int64_t j = 0; j < n; ++j) {
      double k = coeffs[j];
      if (j == first || k == 0)
        continue;
      if (k == 1)
        acc = add(acc, xs[j]);
      else if (k == -1)
        acc = sub(acc, xs[j]);
      else
        acc = vector::FMAOp::create(b, loc, splat(k), xs[j], acc);
    }
    return acc;
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
  /// The lanes of `v` split into `ways` vectors, lane l of part k being
  /// lane ways * l + k of `v` (ways a power of 2).
  SmallVector<Value> deinterleave(Value v, int64_t ways) {
    if (ways == 1)
      return {v};
    auto halves = vector::DeinterleaveOp::create(b, loc, v);
    SmallVector<Value> even = deinterleave(halves.getRes1(), ways / 2),
                       odd = deinterleave(halves.getRes2(), ways / 2);
    SmallVector<Value> parts;
    for (int64_t k = 0; k < ways / 2; ++k) {
      parts.push_back(even[k]);
      parts.push_back(odd[k]);
    }
    return parts;
  }
  /// The inverse of deinterleave.
  Value interleave(ArrayRef<Value> parts) {
    if (parts.size() == 1)
      return parts[0];
    SmallVector<Value> even, odd;
    for (size_t k = 0; k < parts.size(); ++k)
      (k % 2 ? odd : even).push_back(parts[k]);
    return vector::InterleaveOp::create(b, loc, interleave(even),
                                        interleave(odd));
  }

  /// B^T d B of the patches of 16 tiles of tile row `tileRow` (tiles from
  /// `tile0`) for channel `c`, written to v[point, c, col..+16].
  Value inputTransform(Value in, Value v, Value c, Value tileRow, Value tile0,
                       Value col) {
    int64_t m = f().m, alpha = f().alpha;
    auto wide = VectorType::get({m * kLanes}, b.getF32Type());
    Value row0 = muli(tileRow, m), x0 = muli(tile0, m), x2 = addi(x0, 2);
    int64_t width = cast<ShapedType>(in.getType()).getDimSize(3);
    SmallVector<SmallVector<Value>> r(alpha);
    for (int64_t i = 0; i < alpha; ++i) {
      Value row = addi(row0, i);
      auto at = [&](Value x) -> SmallVector<Value> {
        if (s.rowsOuter)
          return {idx(0), row, c, x};
        return {idx(0), c, row, x};
      };
      // Columns m t .. m t + alpha - 1 of 16 tiles: the m phases of m * 16
      // floats from m t (d_0 .. d_m-1) and from m t + 2 (d_2 .. d_m+1),
      // which stays within the padded row.
      SmallVector<Value> lo =
          deinterleave(read(wide, in, at(x0), {}, /*edge=*/true), m);
      SmallVector<Value> hi =
          deinterleave(read(wide, in, at(x2), {}, /*edge=*/true), m);
      SmallVector<Value> d(lo.begin(), lo.end());
      d.append(hi.end() - 2, hi.end());
      // The lines the next block of this row reads (its columns start
      // 16 m further), kept inside the row.
      for (int64_t ahead : {m * kLanes + 16, m * kLanes + 32}) {
        Value x =
            arith::MinSIOp::create(b, loc, addi(x0, ahead), idx(width - 1));
        memref::PrefetchOp::create(b, loc, inBuffer, at(x),
                                   /*isWrite=*/false, /*locality=*/3,
                                   /*isDataCache=*/true);
      }
      for (int64_t a = 0; a < alpha; ++a)
        r[i].push_back(combine(ArrayRef<double>(f().bt[a], alpha), d));
    }
    for (int64_t j = 0; j < alpha; ++j) {
      SmallVector<Value> column;
      for (int64_t i = 0; i < alpha; ++i)
        column.push_back(r[i][j]);
      for (int64_t a = 0; a < alpha; ++a)
        v = write(combine(ArrayRef<double>(f().bt[a], alpha), column), v,
                  {idx(a * alpha + j), c, col});
    }
    return v;
  }

  /// The products mm[point, m, t] = sum_c U[m, c, point] v[point, c, t] of
  /// one block, 8 output channels x 32 tiles per register tile.
  Value products(Value u, Value v, Value mm) {
    Type f32 = b.getF32Type();
    MLIRContext *ctx = b.getContext();
    auto accType = VectorType::get({kRegM, kRegT}, f32);
    auto lhsType = VectorType::get({kRegM, 1}, f32);
    auto rhsType = VectorType::get({1, kRegT}, f32);
    // 8 output channels of one point of U [M, C, points]: along dims 0, 1.
    AffineMap lhsMap =
        AffineMap::getMultiDimIdentityMap(3, ctx).getMajorSubMap(2);
    tfrt::MatmulContraction contraction = tfrt::matmulContraction(b);
    Value c0 = idx(0), c1 = idx(1);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
    auto pLoop = scf::ForOp::create(
        b, loc, c0, idx(f().points()), c1, ValueRange{mm},
        [&](OpBuilder &, Location, Value point, ValueRange pIter) {
          auto mLoop = scf::ForOp::create(
              b, loc, c0, idx(s.m), idx(kRegM), pIter,
              [&](OpBuilder &, Location, Value m, ValueRange mIter) {
                auto tLoop = scf::ForOp::create(
                    b, loc, c0, idx(WinogradShape::blockTiles()), idx(kRegT),
                    mIter,
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
  /// written as the tiles' output rows from `row` and columns from
  /// m * `tile0` of `out` (a chunk of the output whose rows start at the
  /// chunk's first).
  Value outputTransform(Value mm, Value out, Value m, Value col, Value row,
                        Value tile0, const InitStart *start) {
    int64_t n = f().m, alpha = f().alpha;
    auto wide = VectorType::get({n * kLanes}, b.getF32Type());
    // Along the rows first: s[i][j] = sum_a A^T[i][a] mm[a * alpha + j].
    SmallVector<SmallVector<Value>> sRows(n);
    for (int64_t j = 0; j < alpha; ++j) {
      SmallVector<Value> p;
      for (int64_t a = 0; a < alpha; ++a)
        p.push_back(read(vec, mm, {idx(a * alpha + j), m, col}));
      for (int64_t i = 0; i < n; ++i)
        sRows[i].push_back(combine(ArrayRef<double>(f().at[i], alpha), p));
    }
    Value x = muli(tile0, n);
    Value bias;
    if (start)
      bias =
          vector::BroadcastOp::create(b, loc, wide, start->valueAt(b, loc, m));
    for (int64_t i = 0; i < n; ++i) {
      SmallVector<Value> ys;
      for (int64_t k = 0; k < n; ++k)
        ys.push_back(combine(ArrayRef<double>(f().at[k], alpha), sRows[i]));
      Value y = interleave(ys);
      Value at[] = {idx(0), m, addi(row, i), x};
      y = add(start ? bias : read(wide, out, at, {}, /*edge=*/true), y);
      if (epilogue)
        y = tfrt::applyUnaryEpilogue(b, loc, epilogue, y);
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
  MLIRContext *ctx = op.getContext();
  // The conv's location, tagged so that a profile lists "winograd" among
  // what its launch runs (the per-layer report counts such layers apart:
  // their FLOPs are the direct convolution's).
  Location loc = tfrt::async::withProfileOp(op.getLoc(), "winograd");
  const Transform &f = *s.f;
  // A ReLU or other unary consumer of the conv alone runs in the output
  // transform, and its own pass over the output goes.
  linalg::GenericOp epilogue = tfrt::unaryEpilogue(op.getResult(0));
  Value dest = op.getOutputs()[0];
  std::optional<InitStart> start =
      takeChannelInit(rewriter, op, op.getOutputs()[0], dest);
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  Value in = op.getDpsInputs()[0];
  Value u =
      arith::ConstantOp::create(rewriter, loc, transformWeights(weights, s));
  int64_t tileRows = s.oh / f.m, blocks = tileRows / kBlockRows;
  int64_t perChunk = blocks / chunks * kBlockRows; // tile rows per chunk
  int64_t chunkRows = f.m * perChunk;
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  OpBuilder b(ctx);
  scf::ForallOp forall =
      tfrt::createChunkForall(rewriter, b, loc, chunks, dest);
  Emitter e{b,
            loc,
            s,
            VectorType::get({kLanes}, f32),
            epilogue,
            /*masked=*/false,
            /*inBuffer=*/Value()};
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(forall);
    auto type = cast<RankedTensorType>(in.getType());
    auto layout =
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic,
                               SmallVector<int64_t>(4, ShapedType::kDynamic));
    e.inBuffer = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(type.getShape(), type.getElementType(), layout), in,
        /*read_only=*/true);
  }
  Value chunk = forall.getInductionVar(0);
  Value shared = forall.getRegionIterArgs()[0];
  Value firstRow = e.muli(chunk, chunkRows);
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(0),
                                    firstRow, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = idx({1, s.m, chunkRows, s.ow});
  SmallVector<OpFoldResult> strides = idx({1, 1, 1, 1});
  Value part =
      tensor::ExtractSliceOp::create(b, loc, shared, offsets, sizes, strides);
  // Scratch of one block, reused by the next: the transformed input and the
  // products (one workspace slot per chunk).
  int64_t bt = WinogradShape::blockTiles();
  // Each point's part of the transformed input takes an odd number of
  // 128-byte rows (one row unused past the channels when C is even): with
  // an even number the rows of one channel lie a multiple of 4 KiB apart
  // for many points (det's C = 96: 12288 bytes), fall into one L1 set, and
  // the input transform's stores of a channel's 16 points evict each other
  // (12 ways). det's 96->24 conv on 160x160: 4.62 -> 3.81 ms (paired 0.829;
  // two or four spare rows 0.85). The products' scratch, read 16 points at
  // a time by the output transform, gained nothing from it (1.03 with 25
  // rows instead of 24).
  Value v0 = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get({f.points(), s.c | 1, bt}, f32),
      ValueRange{});
  Value mm0 = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get({f.points(), s.m, bt}, f32), ValueRange{});
  Value firstTileRow = e.muli(chunk, perChunk);
  Value c0 = e.idx(0), c1 = e.idx(1);
  // One block: tiles [firstTile, firstTile + 16) of kBlockRows tile rows
  // from tileRow, on the iteration values (output chunk, V, products).
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
                                    e.addi(localRow, f.m * r), firstTile,
                                    start ? &*start : nullptr);
          scf::YieldOp::create(b, loc, out);
        });
    return {mLoop.getResult(0), v, mm};
  };
  // Whole blocks along the row, then one masked block for the rest.
  int64_t tiles = s.ow / f.m, whole = tiles / kLanes * kLanes;
  auto rowLoop = scf::ForOp::create(
      b, loc, c0, e.idx(perChunk), e.idx(kBlockRows), ValueRange{part, v0, mm0},
      [&](OpBuilder &, Location, Value tr, ValueRange rowIter) {
        Value tileRow = arith::AddIOp::create(b, loc, firstTileRow, tr);
        Value localRow = e.muli(tr, f.m);
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
  if (epilogue)
    rewriter.replaceOp(epilogue, forall.getResults());
}

struct WinogradConvPass
    : public tfrt::impl::WinogradConvBase<WinogradConvPass> {
  using WinogradConvBase::WinogradConvBase;

  void runOnOperation() override {
    if (maxChunks < 1 || minChannels < 1 || blockBytes < 1 ||
        (maxTile != 2 && maxTile != 4)) {
      getOperation().emitError(
          "tfrt-winograd-conv: max-chunks, min-channels and block-bytes must "
          "be >= 1, max-tile 2 or 4");
      return signalPassFailure();
    }
    // Match first, rewrite after: a rewrite erases other generics (the
    // conv's ReLU, its bias broadcast).
    struct Match {
      linalg::GenericOp op;
      WinogradShape shape;
      DenseElementsAttr weights;
    };
    SmallVector<Match> matches;
    getOperation().walk([&](linalg::GenericOp op) {
      DenseElementsAttr weights;
      if (std::optional<WinogradShape> s =
              matchWinograd(op, minChannels, maxTile, blockBytes, weights))
        matches.push_back({op, *s, weights});
    });
    IRRewriter rewriter(&getContext());
    for (Match &match : matches) {
      const WinogradShape &s = match.shape;
      // The most chunks, up to max-chunks, that split the blocks evenly.
      int64_t blocks = s.oh / (s.f->m * kBlockRows);
      rewriteOne(rewriter, match.op, s, match.weights,
                 tfrt::evenChunks(blocks, maxChunks));
      ++numConvs;
      if (s.f->m == 4)
        ++numF4;
    }
  }
};
} // namespace
