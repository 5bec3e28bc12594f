//===- VectorizeSoftmax.cpp - softmax rows in three vector passes ---------===//
//
// Implements tfrt-vectorize-softmax: the five generics that graph.softmax
// lowers to over the last axis (row maximum, exp(x - max), row sum, its
// inverse, product) become one loop over the rows, in parallel chunks of
// rows, whose body makes three vector passes over its row while the row is
// in L1: the maximum, the exponentials written out and summed, the scaling
// (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/Reduction.h"
#include "passes/StaticForall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZESOFTMAX
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// The generics of one softmax over the last axis of `x`. `inverse` (1 /
/// sum) is null where tfrt-fuse-elementwise has moved it into the product;
/// `producer`, when not null, is the elementwise generic that computes `x`
/// for the softmax alone (a classifier's bias, an attention mask), which
/// the rows then compute as they read it.
struct SoftmaxChain {
  linalg::GenericOp max, exp, sum, inverse, product, producer;
  Value x;
};

/// Whether the maps of `g`'s inputs read them along increasing loops, the
/// last loop (if read) along the input's last dimension.
bool readsInOrder(linalg::GenericOp g) {
  for (OpOperand *in : g.getDpsInputOperands()) {
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    AffineMap map = g.getMatchingIndexingMap(in);
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32() ||
        !map.isProjectedPermutation() || map.getNumSymbols())
      return false;
    int64_t last = -1;
    for (AffineExpr e : map.getResults()) {
      int64_t d = cast<AffineDimExpr>(e).getPosition();
      if (d <= last)
        return false;
      last = d;
    }
  }
  return true;
}

/// The elementwise generic that computes `x` for the two generics of the
/// chain that read it (`max` and `exp`) and nobody else, or null.
linalg::GenericOp fusableProducer(Value x, linalg::GenericOp max,
                                  linalg::GenericOp exp) {
  auto p = x.getDefiningOp<linalg::GenericOp>();
  auto type = cast<RankedTensorType>(x.getType());
  if (!p || !p.hasPureTensorSemantics() || p->getNumResults() != 1 ||
      p.getNumLoops() != static_cast<unsigned>(type.getRank()) ||
      p.getNumParallelLoops() != p.getNumLoops() ||
      !p.getMatchingIndexingMap(p.getDpsInitOperand(0)).isIdentity() ||
      !tfrt::vectorizableBody(p) || !readsInOrder(p))
    return {};
  for (Operation *user : x.getUsers())
    if (user != max && user != exp)
      return {};
  return p;
}

/// Whether `v` is `1 / d` for the body argument `d`.
bool isInverseOf(Value v, Value d) {
  auto div = v.getDefiningOp<arith::DivFOp>();
  FloatAttr one;
  return div && div.getRhs() == d &&
         matchPattern(div.getLhs(), m_Constant(&one)) &&
         one.getValueAsDouble() == 1.0;
}

/// The single non-terminator op of `op`'s body, yielded, or null.
Operation *singleBodyOp(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation &f = body.front();
  if (yield.getNumOperands() != 1 || f.getNumResults() != 1 ||
      yield.getOperand(0) != f.getResult(0))
    return nullptr;
  return &f;
}

/// Maps of a generic over `rank` loops: the identity and the projection
/// that drops the last loop.
struct RowMaps {
  AffineMap id, rows;
  RowMaps(MLIRContext *ctx, int64_t rank) {
    id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineExpr> lead;
    for (int64_t d = 0; d + 1 < rank; ++d)
      lead.push_back(getAffineDimExpr(d, ctx));
    rows = AffineMap::get(rank, 0, lead, ctx);
  }
};

bool hasIterators(linalg::GenericOp op, int64_t rank, bool lastReduces) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (static_cast<int64_t>(iters.size()) != rank)
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (iters[d] != (d + 1 == rank && lastReduces
                         ? utils::IteratorType::reduction
                         : utils::IteratorType::parallel))
      return false;
  return true;
}

/// Whether `op` is an all-parallel generic of `a` (identity map) and `b`
/// (one value per row) into one init, and its body's yielded value is an
/// `OpTy` in it: that op, else null.
template <typename OpTy>
OpTy rowBinary(linalg::GenericOp op, Value a, Value b, const RowMaps &maps,
               int64_t rank) {
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getDpsInputs()[0] != a ||
      op.getDpsInputs()[1] != b || !hasIterators(op, rank, false) ||
      op.getIndexingMapsArray() !=
          SmallVector<AffineMap>{maps.id, maps.rows, maps.id})
    return {};
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto f = yield.getNumOperands() == 1
               ? yield.getOperand(0).getDefiningOp<OpTy>()
               : OpTy();
  return f && f->getBlock() == &body ? f : OpTy();
}

/// Whether `op` reduces its one input over the last loop into an init of
/// the leading loops, combining them with `kind`.
bool isRowReduction(linalg::GenericOp op, vector::CombiningKind kind,
                    const RowMaps &maps, int64_t rank) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == 1 &&
         op.getNumDpsInits() == 1 && hasIterators(op, rank, true) &&
         op.getIndexingMapsArray() ==
             SmallVector<AffineMap>{maps.id, maps.rows} &&
         tfrt::codegen::reductionCombiner(op) == kind;
}

/// Matches the chain whose row maximum is `max` (graph.softmax's lowering).
std::optional<SoftmaxChain> matchChain(linalg::GenericOp max, int64_t minRow) {
  Value x = max.getNumDpsInputs() == 1 ? max.getDpsInputs()[0] : Value();
  auto type = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getRank() < 2 || type.getShape().back() < minRow)
    return std::nullopt;
  int64_t rank = type.getRank();
  RowMaps maps(max.getContext(), rank);
  if (!isRowReduction(max, vector::CombiningKind::MAXIMUMF, maps, rank) ||
      !max->getResult(0).hasOneUse())
    return std::nullopt;
  SoftmaxChain c{max, {}, {}, {}, {}, {}, x};

  // exp(x - max), read by the sum and the product only.
  c.exp = dyn_cast<linalg::GenericOp>(*max->getResult(0).getUsers().begin());
  {
    auto exp = rowBinary<math::ExpOp>(c.exp, x, max->getResult(0), maps, rank);
    auto sub =
        exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : arith::SubFOp();
    Block *body = exp ? exp->getBlock() : nullptr;
    if (!sub || sub->getBlock() != body ||
        sub.getLhs() != body->getArgument(0) ||
        sub.getRhs() != body->getArgument(1) ||
        std::distance(body->begin(), body->end()) != 3)
      return std::nullopt;
  }
  Value e = c.exp->getResult(0);
  if (std::distance(e.getUses().begin(), e.getUses().end()) != 2)
    return std::nullopt;
  for (Operation *user : e.getUsers()) {
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g)
      return std::nullopt;
    if (g.getNumDpsInputs() == 1)
      c.sum = g;
    else
      c.product = g;
  }
  if (!c.sum || !c.product ||
      !isRowReduction(c.sum, vector::CombiningKind::ADD, maps, rank) ||
      !c.sum->getResult(0).hasOneUse())
    return std::nullopt;

  // 1 / sum, read by the product only, unless the product computes it.
  Value scale = c.sum->getResult(0);
  auto next = dyn_cast<linalg::GenericOp>(*scale.getUsers().begin());
  if (next && next != c.product) {
    c.inverse = next;
    auto div = dyn_cast_or_null<arith::DivFOp>(singleBodyOp(c.inverse));
    if (!c.inverse.hasPureTensorSemantics() ||
        c.inverse.getNumDpsInputs() != 1 || c.inverse.getNumDpsInits() != 1 ||
        !hasIterators(c.inverse, rank - 1, false) ||
        !llvm::all_of(c.inverse.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }) ||
        !c.inverse->getResult(0).hasOneUse() || !div ||
        !isInverseOf(div, c.inverse.getRegion().front().getArgument(0)))
      return std::nullopt;
    scale = c.inverse->getResult(0);
  }

  // exp * (1 / sum).
  auto mul = rowBinary<arith::MulFOp>(c.product, e, scale, maps, rank);
  if (!mul || !scale.hasOneUse())
    return std::nullopt;
  Block &body = *mul->getBlock();
  Value a = body.getArgument(0), t = body.getArgument(1);
  int64_t ops = std::distance(body.begin(), body.end());
  if (c.inverse) {
    if (ops != 2 || !((mul.getLhs() == a && mul.getRhs() == t) ||
                      (mul.getLhs() == t && mul.getRhs() == a)))
      return std::nullopt;
  } else {
    Value other = mul.getLhs() == a ? mul.getRhs() : mul.getLhs();
    if (ops != 3 || (mul.getLhs() != a && mul.getRhs() != a) ||
        !isInverseOf(other, t))
      return std::nullopt;
  }
  c.producer = fusableProducer(x, c.max, c.exp);
  return c;
}

/// Emits the rows of `c` in place of its product.
void rewriteChain(RewriterBase &rewriter, SoftmaxChain c, int64_t lanes,
                  int64_t unroll, int64_t maxChunks, int64_t minChunkElements) {
  auto type = cast<RankedTensorType>(c.x.getType());
  int64_t rank = type.getRank(), n = type.getShape().back();
  int64_t rows = type.getNumElements() / n;
  Location loc = c.product.getLoc();
  rewriter.setInsertionPoint(c.product);
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = rewriter.getF32Type();

  // [rows, n] views of the input and the output, [rows] of the inits.
  ReassociationIndices lead, last = {rank - 1};
  for (int64_t d = 0; d + 1 < rank; ++d)
    lead.push_back(d);
  auto toRows = [&](Value v) -> Value {
    if (rank == 2)
      return v;
    return tensor::CollapseShapeOp::create(
        rewriter, loc, v, SmallVector<ReassociationIndices>{lead, last});
  };
  auto toVector = [&](Value v) -> Value {
    if (rank == 2)
      return v;
    return tensor::CollapseShapeOp::create(
        rewriter, loc, v, SmallVector<ReassociationIndices>{lead});
  };
  // The producer's rows are computed, not read: no view of its result.
  Value x = c.producer ? Value() : toRows(c.x);
  Value dest = toRows(c.product.getDpsInits()[0]);
  Value maxInit = toVector(c.max.getDpsInits()[0]);
  Value sumInit = toVector(c.sum.getDpsInits()[0]);

  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto fcst = [&](OpBuilder &b, Type t, float v) -> Value {
    if (auto vt = dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vt, b.getF32FloatAttr(v)));
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  int64_t step = lanes * unroll;
  int64_t mainEnd = n / step * step;
  int64_t fullEnd = n / lanes * lanes;
  auto wide = VectorType::get({step}, f32);
  auto vec = VectorType::get({lanes}, f32);
  const float negInf = -std::numeric_limits<float>::infinity();

  // Calls `body(b, at, type, masked)` for the row's pieces in order: wide
  // vectors in a loop carrying `iter`, then whole and one masked vector.
  using Piece = function_ref<SmallVector<Value>(OpBuilder &, Value, VectorType,
                                                bool, ValueRange)>;
  auto pieces = [&](OpBuilder &b, ValueRange init,
                    Piece body) -> SmallVector<Value> {
    SmallVector<Value> it(init);
    if (mainEnd) {
      auto loop = scf::ForOp::create(
          b, loc, cst(b, 0), cst(b, mainEnd), cst(b, step), it,
          [&](OpBuilder &b, Location, Value j, ValueRange iter) {
            scf::YieldOp::create(b, loc, body(b, j, wide, false, iter));
          });
      it = loop.getResults();
    }
    for (int64_t j = mainEnd; j < fullEnd; j += lanes)
      it = body(b, cst(b, j), vec, false, it);
    if (fullEnd < n)
      it = body(b, cst(b, fullEnd), vec, true, it);
    return it;
  };
  auto read = [&](OpBuilder &b, Value src, Value r, Value j, VectorType t,
                  bool masked, float pad) -> Value {
    return vector::TransferReadOp::create(b, loc, t, src, ValueRange{r, j},
                                          fcst(b, f32, pad),
                                          ArrayRef<bool>{!masked});
  };
  // Lanes of the masked vector at the row's end that hold elements.
  auto tailMask = [&](OpBuilder &b) -> Value {
    return vector::CreateMaskOp::create(b, loc,
                                        VectorType::get({lanes}, b.getI1Type()),
                                        ValueRange{cst(b, n - fullEnd)});
  };
  // The wide and the single-vector accumulators `acc` combined (those of
  // pieces the row has).
  bool hasWide = mainEnd > 0, hasNarrow = mainEnd < n;
  auto reduce = [&](OpBuilder &b, vector::CombiningKind kind, Value wideAcc,
                    Value narrowAcc) -> Value {
    auto flags = kind == vector::CombiningKind::ADD
                     ? arith::FastMathFlags::reassoc
                     : arith::FastMathFlags::none;
    Value r;
    for (auto [has, acc] :
         {std::pair(hasWide, wideAcc), std::pair(hasNarrow, narrowAcc)}) {
      if (!has)
        continue;
      Value part =
          vector::ReductionOp::create(b, loc, kind, acc, Value(), flags);
      r = !r ? part
          : kind == vector::CombiningKind::ADD
              ? arith::AddFOp::create(b, loc, r, part).getResult()
              : arith::MaximumFOp::create(b, loc, r, part).getResult();
    }
    return r;
  };

  // The input at row `r` (its leading indices `lead`), columns j.. as a
  // vector of type `t`: read, or computed by the producer from its inputs.
  // A masked vector's lanes past the row are undefined.
  auto input = [&](OpBuilder &b, Value r, ArrayRef<Value> lead, Value j,
                   VectorType t, bool masked) -> Value {
    if (!c.producer)
      return read(b, x, r, j, t, masked, 0.0f);
    SmallVector<Value> operands;
    for (OpOperand *in : c.producer.getDpsInputOperands()) {
      AffineMap map = c.producer.getMatchingIndexingMap(in);
      SmallVector<Value> at;
      bool alongRow = false;
      for (AffineExpr e : map.getResults()) {
        auto d = static_cast<int64_t>(cast<AffineDimExpr>(e).getPosition());
        alongRow |= d == rank - 1;
        at.push_back(d == rank - 1 ? j : lead[d]);
      }
      if (alongRow) {
        operands.push_back(vector::TransferReadOp::create(
            b, loc, t, in->get(), at, fcst(b, f32, 0.0f),
            ArrayRef<bool>{!masked}));
      } else {
        operands.push_back(vector::BroadcastOp::create(
            b, loc, t, tensor::ExtractOp::create(b, loc, in->get(), at)));
      }
    }
    return tfrt::runBody(b, loc, c.producer, operands, t);
  };
  // The leading indices of row `r` in the input's shape.
  auto leadOf = [&](OpBuilder &b, Value r) -> SmallVector<Value> {
    SmallVector<Value> lead(rank - 1);
    Value rest = r;
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t size = type.getDimSize(d), outer = 1;
      for (int64_t o = 0; o < d; ++o)
        outer *= type.getDimSize(o);
      if (size == 1) {
        lead[d] = cst(b, 0);
      } else if (outer == 1) {
        lead[d] = rest; // rest < size
      } else {
        lead[d] = arith::RemUIOp::create(b, loc, rest, cst(b, size));
        rest = arith::DivUIOp::create(b, loc, rest, cst(b, size));
      }
    }
    return lead;
  };

  // One row: `r` in the input and the inits, `local` in `out`.
  auto row = [&](OpBuilder &b, Value r, Value local, Value out) -> Value {
    SmallVector<Value> lead;
    if (c.producer)
      lead = leadOf(b, r);
    // Pass 1: the maximum (masked lanes read as -inf).
    SmallVector<Value> m =
        pieces(b, {fcst(b, wide, negInf), fcst(b, vec, negInf)},
               [&](OpBuilder &b, Value j, VectorType t, bool masked,
                   ValueRange iter) -> SmallVector<Value> {
                 Value v = input(b, r, lead, j, t, masked);
                 if (masked)
                   v = arith::SelectOp::create(b, loc, tailMask(b), v,
                                               fcst(b, t, negInf));
                 int64_t k = t == wide ? 0 : 1;
                 SmallVector<Value> next(iter);
                 next[k] = arith::MaximumFOp::create(b, loc, iter[k], v);
                 return next;
               });
    Value rowMax = reduce(b, vector::CombiningKind::MAXIMUMF, m[0], m[1]);
    rowMax = arith::MaximumFOp::create(
        b, loc, rowMax, tensor::ExtractOp::create(b, loc, maxInit, r));

    // Pass 2: exp(x - max) written out and summed (masked lanes not).
    SmallVector<Value> s = pieces(
        b, {out, fcst(b, wide, 0.0f), fcst(b, vec, 0.0f)},
        [&](OpBuilder &b, Value j, VectorType t, bool masked,
            ValueRange iter) -> SmallVector<Value> {
          Value v = input(b, r, lead, j, t, masked);
          Value e = math::ExpOp::create(
              b, loc,
              arith::SubFOp::create(
                  b, loc, v, vector::BroadcastOp::create(b, loc, t, rowMax)));
          SmallVector<Value> next(iter);
          next[0] = vector::TransferWriteOp::create(b, loc, e, iter[0],
                                                    ValueRange{local, j},
                                                    ArrayRef<bool>{!masked})
                        .getResult();
          if (masked)
            e = arith::SelectOp::create(b, loc, tailMask(b), e,
                                        fcst(b, t, 0.0f));
          int64_t k = t == wide ? 1 : 2;
          next[k] = arith::AddFOp::create(b, loc, iter[k], e);
          return next;
        });
    Value rowSum = reduce(b, vector::CombiningKind::ADD, s[1], s[2]);
    rowSum = arith::AddFOp::create(
        b, loc, tensor::ExtractOp::create(b, loc, sumInit, r), rowSum);

    // Pass 3: the product with 1 / sum.
    Value inverse =
        arith::DivFOp::create(b, loc, fcst(b, f32, 1.0f), rowSum).getResult();
    SmallVector<Value> done = pieces(
        b, {s[0]},
        [&](OpBuilder &b, Value j, VectorType t, bool masked,
            ValueRange iter) -> SmallVector<Value> {
          Value v = read(b, iter[0], local, j, t, masked, 0.0f);
          Value p = arith::MulFOp::create(
              b, loc, v, vector::BroadcastOp::create(b, loc, t, inverse));
          return {vector::TransferWriteOp::create(b, loc, p, iter[0],
                                                  ValueRange{local, j},
                                                  ArrayRef<bool>{!masked})
                      .getResult()};
        });
    return done[0];
  };
  // Rows [first, first + count) into `out`, whose row 0 is `first`.
  auto rowLoop = [&](OpBuilder &b, Value first, int64_t count,
                     Value out) -> Value {
    auto loop = scf::ForOp::create(
        b, loc, cst(b, 0), cst(b, count), cst(b, 1), ValueRange{out},
        [&](OpBuilder &b, Location, Value i, ValueRange iter) {
          Value r = arith::AddIOp::create(b, loc, first, i);
          scf::YieldOp::create(b, loc, row(b, r, i, iter[0]));
        });
    return loop.getResult(0);
  };

  // The most chunks, up to maxChunks, that split the rows evenly and keep
  // at least minChunkElements elements each.
  int64_t chunks =
      tfrt::evenChunks(rows, maxChunks, llvm::divideCeil(minChunkElements, n));
  Value result;
  if (chunks == 1) {
    result = rowLoop(rewriter, cst(rewriter, 0), rows, dest);
  } else {
    int64_t per = rows / chunks;
    OpBuilder b(ctx);
    scf::ForallOp forall =
        tfrt::createChunkForall(rewriter, b, loc, chunks, dest);
    Value first =
        arith::MulIOp::create(b, loc, forall.getInductionVar(0), cst(b, per));
    SmallVector<OpFoldResult> offsets = {first, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(per), b.getIndexAttr(n)};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
    Value shared = forall.getRegionIterArgs()[0];
    Value part =
        tensor::ExtractSliceOp::create(b, loc, shared, offsets, sizes, strides);
    Value done = rowLoop(b, first, per, part);
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, done, shared, offsets, sizes,
                                          strides);
    result = forall.getResult(0);
  }
  if (rank > 2)
    result = tensor::ExpandShapeOp::create(
        rewriter, loc, c.product->getResult(0).getType(), result,
        SmallVector<ReassociationIndices>{lead, last});
  rewriter.replaceOp(c.product, result);
  if (c.inverse)
    rewriter.eraseOp(c.inverse);
  rewriter.eraseOp(c.sum);
  rewriter.eraseOp(c.exp);
  rewriter.eraseOp(c.max);
  if (c.producer)
    rewriter.eraseOp(c.producer);
}

struct VectorizeSoftmaxPass
    : public tfrt::impl::VectorizeSoftmaxBase<VectorizeSoftmaxPass> {
  using VectorizeSoftmaxBase::VectorizeSoftmaxBase;

  void runOnOperation() override {
    for (auto [name, value, least] :
         {std::tuple<StringRef, int64_t, int64_t>{"lanes", lanes, 1},
          {"unroll", unroll, 1},
          {"max-chunks", maxChunks, 1},
          {"min-chunk-elements", minChunkElements, 0}})
      if (value < least) {
        getOperation().emitError()
            << "tfrt-vectorize-softmax: " << name << " must be >= " << least
            << ", got " << value;
        return signalPassFailure();
      }
    SmallVector<SoftmaxChain> chains;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<SoftmaxChain> c = matchChain(op, lanes))
        chains.push_back(*c);
    });
    IRRewriter rewriter(&getContext());
    for (SoftmaxChain &c : chains) {
      rewriteChain(rewriter, c, lanes, unroll, maxChunks, minChunkElements);
      ++numSoftmax;
    }
  }
};
} // namespace
