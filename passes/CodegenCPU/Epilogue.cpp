//===- Epilogue.cpp - elementwise consumers applied to register tiles -----===//
//
// See Epilogue.h.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Epilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <numeric>

using namespace mlir;

namespace {

/// [1, M, H, W] <-> [M, H*W].
SmallVector<ReassociationIndices> imageRows() { return {{0, 1}, {2, 3}}; }

/// Whether the buffer that `t` bufferizes into keeps its dimensions from
/// `from` on contiguous (each [H, W] plane of [1, M, H, W] with `from` = 2),
/// so that a collapse of them is a view: slices that keep those dimensions
/// whole, followed through the shared outputs of scf.forall, the
/// iter_args of scf.for, the destinations of ops and the sources of
/// expand_shape (whose trailing dimension must then be whole), down to a fresh
/// tensor, a constant or a function argument.
bool trailingContiguous(Value t, unsigned from) {
  for (int depth = 0; depth < 32; ++depth) {
    if (auto slice = t.getDefiningOp<tensor::ExtractSliceOp>()) {
      RankedTensorType src = slice.getSourceType(), type = slice.getType();
      if (src.getRank() != type.getRank() || !slice.hasUnitStride())
        return false;
      for (unsigned d = from; d < (unsigned)type.getRank(); ++d)
        if (type.getDimSize(d) != src.getDimSize(d))
          return false;
      t = slice.getSource();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(t)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (auto forall = dyn_cast<scf::ForallOp>(parent)) {
        OpOperand *tied = forall.getTiedOpOperand(arg);
        if (!tied)
          return false;
        t = tied->get();
        continue;
      }
      // A loop-carried tensor: the loop's init (bufferization gives both
      // one buffer).
      if (auto loop = dyn_cast<scf::ForOp>(parent)) {
        OpOperand *tied = loop.getTiedLoopInit(arg);
        if (!tied)
          return false;
        t = tied->get();
        continue;
      }
      return isa<func::FuncOp>(parent);
    }
    Operation *def = t.getDefiningOp();
    if (isa<tensor::EmptyOp, arith::ConstantOp>(def))
      return true;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      t = expand.getSrc();
      from = expand.getSrcType().getRank() - 1;
      continue;
    }
    if (auto forall = dyn_cast<scf::ForallOp>(def)) {
      t = forall.getTiedOpOperand(cast<OpResult>(t))->get();
      continue;
    }
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      t = dps.getTiedOpOperand(cast<OpResult>(t))->get();
      continue;
    }
    return false;
  }
  return false;
}

bool planesContiguous(Value t) { return trailingContiguous(t, 2); }

bool isScalar(Type t) { return isa<FloatType, IntegerType>(t); }

/// Whether `op` (in the consumer's body) can run on vectors: an
/// elementwise-mappable arith/math op without regions or side effects on
/// scalars, or a scalar constant.
bool vectorizable(Operation &op) {
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return isa<FloatAttr, IntegerAttr>(cst.getValue());
  if (!OpTrait::hasElementwiseMappableTraits(&op) || op.getNumRegions() ||
      !isMemoryEffectFree(&op))
    return false;
  return llvm::all_of(op.getOperandTypes(), isScalar) &&
         llvm::all_of(op.getResultTypes(), isScalar);
}

} // namespace

/// The factors (f, g) when `map` reads `t` ([1, M, H / f, W / g]) as the
/// nearest-neighbour upsampling of it to the consumer's [1, M, H, W]:
/// (0 or d0, d1, d2 floordiv f, d3 floordiv g), not both factors 1.
static std::optional<std::pair<int64_t, int64_t>>
upsampling(AffineMap map, RankedTensorType t, RankedTensorType type) {
  if (type.getRank() != 4 || map.getNumResults() != 4 ||
      map.getNumDims() != 4 || t.getDimSize(0) != 1 ||
      t.getDimSize(1) != type.getDimSize(1))
    return std::nullopt;
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  AffineExpr r0 = map.getResult(0);
  auto c0 = dyn_cast<AffineConstantExpr>(r0);
  if (!isDim(r0, 0) && !(c0 && c0.getValue() == 0))
    return std::nullopt;
  if (!isDim(map.getResult(1), 1))
    return std::nullopt;
  int64_t factors[2];
  for (unsigned i = 0; i < 2; ++i) {
    AffineExpr r = map.getResult(2 + i);
    factors[i] = 1;
    if (!isDim(r, 2 + i)) {
      auto bin = dyn_cast<AffineBinaryOpExpr>(r);
      if (!bin || bin.getKind() != AffineExprKind::FloorDiv ||
          !isDim(bin.getLHS(), 2 + i))
        return std::nullopt;
      auto f = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (!f || f.getValue() < 1)
        return std::nullopt;
      factors[i] = f.getValue();
    }
    if (t.getDimSize(2 + i) * factors[i] != type.getDimSize(2 + i))
      return std::nullopt;
  }
  if (factors[0] == 1 && factors[1] == 1)
    return std::nullopt;
  return std::make_pair(factors[0], factors[1]);
}

std::optional<tfrt::Epilogue> tfrt::matchEpilogue(Value product,
                                                  int64_t tileColumns) {
  Operation *producer = product.getDefiningOp();
  if (!producer || !product.hasOneUse())
    return std::nullopt;
  Epilogue e;
  Value v = product;
  Operation *user = *v.getUsers().begin();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
    RankedTensorType type = expand.getResultType();
    if (type.getRank() != 4 || type.getDimSize(0) != 1 ||
        !type.hasStaticShape() ||
        expand.getReassociationIndices() != imageRows() || !expand->hasOneUse())
      return std::nullopt;
    e.expand = expand;
    v = expand.getResult();
    user = *v.getUsers().begin();
  }
  auto g = dyn_cast<linalg::GenericOp>(user);
  auto type = cast<RankedTensorType>(v.getType());
  if (!g || g->getBlock() != producer->getBlock() ||
      !g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 ||
      g->getNumResults() != 1 || g.getNumLoops() != (unsigned)type.getRank() ||
      g.getNumParallelLoops() != g.getNumLoops())
    return std::nullopt;
  AffineMap initMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (g->getResult(0).getType() == type && initMap.isIdentity()) {
    // The usual case.
  } else if (auto r = dyn_cast<RankedTensorType>(g->getResult(0).getType());
             r && r.getElementType() == type.getElementType() &&
             writesRowsOuter(initMap, r.getShape(), type.getShape())) {
    e.transposedDest = true;
  } else {
    return std::nullopt;
  }
  if (!tfrt::vectorizableBody(g))
    return std::nullopt;

  unsigned rank = type.getRank(), rowDim = rank == 2 ? 0 : 1;
  bool wholeInputs = false;
  int64_t upsampleColumns = 1;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    e.upsample.push_back({1, 1});
    if (in->get() == v) {
      if (!map.isIdentity())
        return std::nullopt;
      e.inputs.push_back(Epilogue::Input::Product);
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(in->get().getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return std::nullopt;
    if (map.isIdentity() && t == type) {
      e.inputs.push_back(Epilogue::Input::Whole);
      wholeInputs = true;
      continue;
    }
    if (std::optional<std::pair<int64_t, int64_t>> f =
            upsampling(map, t, type)) {
      e.inputs.push_back(Epilogue::Input::Upsampled);
      e.upsample.back() = *f;
      upsampleColumns = std::lcm(upsampleColumns, f->second);
      continue;
    }
    bool perRow = false;
    for (auto [i, r] : llvm::enumerate(map.getResults())) {
      if (auto c = dyn_cast<AffineConstantExpr>(r)) {
        if (c.getValue() != 0 || t.getDimSize(i) != 1)
          return std::nullopt;
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(r);
      if (!d)
        return std::nullopt;
      if (d.getPosition() == rowDim && !perRow &&
          t.getDimSize(i) == type.getDimSize(rowDim)) {
        perRow = true;
        continue;
      }
      // A unit batch dimension ([1, M, H, W], [1, M, IH, KH, IW, KW]).
      if (rank != 2 && d.getPosition() == 0 && t.getDimSize(i) == 1)
        continue;
      return std::nullopt;
    }
    e.inputs.push_back(perRow ? Epilogue::Input::PerRow
                              : Epilogue::Input::Scalar);
  }
  if (rank >= 3 && !e.expand) {
    e.indexing = Epilogue::Indexing::Direct;
  } else if (rank == 4) {
    e.width = type.getDimSize(3);
    if (e.width % tileColumns == 0) {
      e.indexing = Epilogue::Indexing::Image;
    } else {
      // Viewed as [M, H*W]: the destination and the whole inputs must be
      // views, or bufferization would copy them.
      bool contiguous = planesContiguous(g.getDpsInitOperand(0)->get());
      if (contiguous && wholeInputs)
        for (auto [in, kind] : llvm::zip(g.getDpsInputOperands(), e.inputs))
          if (kind == Epilogue::Input::Whole && !planesContiguous(in->get()))
            contiguous = false;
      if (!contiguous) {
        // Tiles that cross a row end are written piecewise (the interior
        // of a padded tensor); whole inputs would need the same pieces.
        if (wholeInputs)
          return std::nullopt;
        e.indexing = Epilogue::Indexing::ImageSplit;
      }
    }
  } else if (rank != 2 || e.expand) {
    return std::nullopt;
  }
  // A transposed destination is written a tile at a time within one row.
  if (e.transposedDest && e.indexing != Epilogue::Indexing::Image)
    return std::nullopt;
  // An upsampled input is read for a tile as rows of tileColumns / g
  // elements, each repeated g times: the tile must lie within one row.
  if (llvm::is_contained(e.inputs, Epilogue::Input::Upsampled) &&
      (e.indexing != Epilogue::Indexing::Image ||
       tileColumns % upsampleColumns != 0))
    return std::nullopt;
  e.generic = g;
  return e;
}

tfrt::EpilogueOperands tfrt::prepareEpilogue(OpBuilder &b, Location loc,
                                             const Epilogue &e) {
  linalg::GenericOp g = e.generic;
  bool collapse = e.expand && e.indexing == Epilogue::Indexing::Rows;
  auto view = [&](Value t) -> Value {
    return collapse ? tensor::CollapseShapeOp::create(b, loc, t, imageRows())
                          .getResult()
                    : t;
  };
  EpilogueOperands ops;
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [i, kind] : llvm::enumerate(e.inputs)) {
    Value t = g.getDpsInputOperand(i)->get();
    switch (kind) {
    case Epilogue::Input::Product:
      ops.inputs.push_back(Value());
      break;
    case Epilogue::Input::Scalar: {
      auto type = cast<RankedTensorType>(t.getType());
      SmallVector<Value> zeros(type.getRank(), c0);
      ops.inputs.push_back(tensor::ExtractOp::create(b, loc, t, zeros));
      break;
    }
    case Epilogue::Input::PerRow:
      ops.inputs.push_back(t);
      break;
    case Epilogue::Input::Whole:
      ops.inputs.push_back(view(t));
      break;
    case Epilogue::Input::Upsampled:
      ops.inputs.push_back(t);
      break;
    }
  }
  ops.dest = view(g.getDpsInitOperand(0)->get());
  return ops;
}

bool tfrt::vectorizableBody(linalg::GenericOp g) {
  if (g.getNumDpsInits() != 1 ||
      !g.getMatchingBlockArgument(g.getDpsInitOperand(0)).use_empty())
    return false;
  Block *body = g.getBody();
  for (Operation &op : body->without_terminator())
    if (!vectorizable(op))
      return false;
  // Values from outside the body must be scalars (broadcast per tile).
  bool closed = true;
  body->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (operand.getParentRegion() != &g.getRegion() &&
          !isScalar(operand.getType()))
        closed = false;
  });
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return closed && yield.getNumOperands() == 1 &&
         yield.getOperand(0).getType().isF32();
}

Value tfrt::runBody(OpBuilder &b, Location loc, linalg::GenericOp g,
                    ArrayRef<Value> inputs, VectorType type) {
  MLIRContext *ctx = b.getContext();
  auto vectorOf = [&](Type t) { return VectorType::get(type.getShape(), t); };
  IRMapping mapping;
  Block *body = g.getBody();
  for (auto [arg, x] : llvm::zip(body->getArguments(), inputs))
    mapping.map(arg, x);
  auto lookup = [&](Value v) -> Value {
    if (Value m = mapping.lookupOrNull(v))
      return m;
    Value splat = vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v);
    mapping.map(v, splat);
    return splat;
  };
  auto contract =
      arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::contract);
  for (Operation &op : body->without_terminator()) {
    // A division by a constant becomes a multiplication by its reciprocal
    // (a 512-bit division takes as long as a dozen FMAs; the result moves
    // by at most an ulp).
    FloatAttr divisor;
    if (auto div = dyn_cast<arith::DivFOp>(op);
        div && div.getType().isF32() &&
        matchPattern(div.getRhs(), m_Constant(&divisor))) {
      float r = 1.0f / static_cast<float>(divisor.getValueAsDouble());
      if (std::isfinite(r) && r != 0.0f) {
        auto vt = vectorOf(b.getF32Type());
        Value splat = arith::ConstantOp::create(
            b, loc, vt, DenseElementsAttr::get(vt, b.getF32FloatAttr(r)));
        mapping.map(div.getResult(),
                    arith::MulFOp::create(b, loc, lookup(div.getLhs()), splat,
                                          contract));
        continue;
      }
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto vt = vectorOf(cst.getType());
      Value splat = arith::ConstantOp::create(
          b, loc, vt,
          DenseElementsAttr::get(vt, cast<TypedAttr>(cst.getValue())));
      mapping.map(cst.getResult(), splat);
      continue;
    }
    for (Value operand : op.getOperands())
      (void)lookup(operand);
    Operation *clone = b.clone(op, mapping);
    for (Value r : clone->getResults())
      r.setType(vectorOf(r.getType()));
    // Products and sums may fuse into FMAs.
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(clone))
      clone->setAttr(fm.getFastMathAttrName(),
                     arith::FastMathFlagsAttr::get(
                         ctx, fm.getFastMathFlagsAttr().getValue() |
                                  arith::FastMathFlags::contract));
  }
  return lookup(body->getTerminator()->getOperand(0));
}

namespace {

/// The consumer's inputs as vectors of `acc`'s type for one tile: the
/// product is `acc`, scalars are splat, and `perRow(i, idx)` (with `idx`
/// the input's indices: `row` where its map yields dimension `rowDim`, zero
/// elsewhere) and `whole(t)` read the others.
SmallVector<Value>
tileInputs(OpBuilder &b, Location loc, const tfrt::Epilogue &e,
           const tfrt::EpilogueOperands &operands, Value acc, unsigned rowDim,
           Value row,
           function_ref<Value(unsigned, ArrayRef<Value>, unsigned)> perRow,
           function_ref<Value(Value)> whole,
           function_ref<Value(unsigned)> upsampled = nullptr) {
  auto accType = cast<VectorType>(acc.getType());
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  linalg::GenericOp g = e.generic;
  SmallVector<Value> inputs;
  for (auto [i, kind] : llvm::enumerate(e.inputs)) {
    Value t = operands.inputs[i];
    switch (kind) {
    case tfrt::Epilogue::Input::Product:
      inputs.push_back(acc);
      break;
    case tfrt::Epilogue::Input::Scalar:
      inputs.push_back(vector::BroadcastOp::create(b, loc, accType, t));
      break;
    case tfrt::Epilogue::Input::PerRow: {
      AffineMap map = g.getMatchingIndexingMap(g.getDpsInputOperand(i));
      SmallVector<Value> idx(map.getNumResults(), c0);
      unsigned rowResult = 0;
      for (auto [j, r] : llvm::enumerate(map.getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(r);
            d && d.getPosition() == rowDim) {
          idx[j] = row;
          rowResult = j;
        }
      inputs.push_back(perRow(i, idx, rowResult));
      break;
    }
    case tfrt::Epilogue::Input::Whole:
      inputs.push_back(whole(t));
      break;
    case tfrt::Epilogue::Input::Upsampled:
      // matchEpilogue admits these with Image indexing only.
      inputs.push_back(upsampled ? upsampled(i) : Value());
      break;
    }
  }
  return inputs;
}

} // namespace

Value tfrt::applyEpilogue(OpBuilder &b, Location loc, const Epilogue &e,
                          const EpilogueOperands &operands, Value acc,
                          Value dest, Value row, Value col) {
  auto accType = cast<VectorType>(acc.getType());
  MLIRContext *ctx = b.getContext();
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  // Where the tile lies in the consumer's operands.
  bool image = e.indexing == Epilogue::Indexing::Image ||
               e.indexing == Epilogue::Indexing::ImageSplit;
  SmallVector<Value> at = {row, col};
  AffineMap tileMap;
  if (image) {
    Value w = arith::ConstantIndexOp::create(b, loc, e.width);
    at = {c0, row, arith::DivUIOp::create(b, loc, col, w),
          arith::RemUIOp::create(b, loc, col, w)};
    tileMap = AffineMap::get(
        4, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(3, ctx)}, ctx);
  } else {
    tileMap = AffineMap::getMultiDimIdentityMap(2, ctx);
  }
  unsigned rowDim = e.expand ? 1 : 0;

  linalg::GenericOp g = e.generic;
  SmallVector<Value> inputs = tileInputs(
      b, loc, e, operands, acc, rowDim, row,
      [&](unsigned i, ArrayRef<Value> idx, unsigned rowResult) -> Value {
        // The row's element, broadcast along the tile's columns.
        AffineMap perm = AffineMap::get(
            idx.size(), 0,
            {getAffineDimExpr(rowResult, ctx), getAffineConstantExpr(0, ctx)},
            ctx);
        return vector::TransferReadOp::create(b, loc, accType,
                                              operands.inputs[i], idx, zero,
                                              perm, ArrayRef<bool>{true, true});
      },
      [&](Value t) -> Value {
        return vector::TransferReadOp::create(
            b, loc, accType, t, at, zero, tileMap, ArrayRef<bool>{true, true});
      },
      [&](unsigned i) -> Value {
        // Rows of rn / g input elements at (h / f, w / g), each element
        // broadcast g times along a trailing dimension; the shape cast
        // then lays the copies side by side.
        auto [f, g] = e.upsample[i];
        int64_t rm = accType.getDimSize(0), rn = accType.getDimSize(1);
        auto divide = [&](Value x, int64_t by) -> Value {
          if (by == 1)
            return x;
          return arith::DivUIOp::create(
              b, loc, x, arith::ConstantIndexOp::create(b, loc, by));
        };
        SmallVector<Value> idx = {c0, row, divide(at[2], f), divide(at[3], g)};
        auto readType =
            VectorType::get({rm, rn / g, g}, accType.getElementType());
        AffineMap map =
            AffineMap::get(4, 0,
                           {getAffineDimExpr(1, ctx), getAffineDimExpr(3, ctx),
                            getAffineConstantExpr(0, ctx)},
                           ctx);
        Value read = vector::TransferReadOp::create(
            b, loc, readType, operands.inputs[i], idx, zero, map,
            ArrayRef<bool>{true, true, true});
        return vector::ShapeCastOp::create(b, loc, accType, read);
      });
  Value result = runBody(b, loc, g, inputs, accType);
  if (e.transposedDest) {
    // [1, H, M, W]: the tile's rows are channels at one h.
    AffineMap destMap = AffineMap::get(
        4, 0, {getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)}, ctx);
    return vector::TransferWriteOp::create(b, loc, result, dest,
                                           ValueRange{c0, at[2], row, at[3]},
                                           destMap, ArrayRef<bool>{true, true})
        .getResult();
  }
  if (e.indexing != Epilogue::Indexing::ImageSplit)
    return vector::TransferWriteOp::create(b, loc, result, dest, at, tileMap,
                                           ArrayRef<bool>{true, true})
        .getResult();

  // The tile starts at a multiple of its width: its column within the row
  // is a multiple of gcd(width, W). The starts whose tile passes the row's
  // end each get a case that writes the tile in row pieces (static slices);
  // the others write it whole.
  int64_t rn = accType.getDimSize(1), rm = accType.getDimSize(0);
  int64_t step = std::gcd(rn, e.width);
  SmallVector<int64_t> starts;
  for (int64_t c = 0; c < e.width; c += step)
    if (c + rn > e.width)
      starts.push_back(c);
  auto switchOp = scf::IndexSwitchOp::create(b, loc, TypeRange{dest.getType()},
                                             at[3], starts, starts.size());
  auto writeAt = [&](OpBuilder &b, Value v, Value out, Value r, Value c) {
    return vector::TransferWriteOp::create(b, loc, v, out,
                                           ValueRange{c0, row, r, c}, tileMap,
                                           ArrayRef<bool>{true, true})
        .getResult();
  };
  {
    Block &block = switchOp.getDefaultRegion().emplaceBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&block);
    scf::YieldOp::create(b, loc, writeAt(b, result, dest, at[2], at[3]));
  }
  for (auto [i, start] : llvm::enumerate(starts)) {
    Block &block = switchOp.getCaseRegions()[i].emplaceBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&block);
    Value out = dest;
    int64_t lane = 0, column = start, rowOffset = 0;
    while (lane < rn) {
      int64_t len = std::min(rn - lane, e.width - column);
      Value piece = vector::ExtractStridedSliceOp::create(
          b, loc, result, ArrayRef<int64_t>{0, lane},
          ArrayRef<int64_t>{rm, len}, ArrayRef<int64_t>{1, 1});
      Value r = arith::AddIOp::create(
          b, loc, at[2], arith::ConstantIndexOp::create(b, loc, rowOffset));
      out = writeAt(b, piece, out, r,
                    arith::ConstantIndexOp::create(b, loc, column));
      lane += len;
      column = 0;
      ++rowOffset;
    }
    scf::YieldOp::create(b, loc, out);
  }
  return switchOp.getResult(0);
}

Value tfrt::applyEpilogueDirect(OpBuilder &b, Location loc, const Epilogue &e,
                                const EpilogueOperands &operands, Value acc,
                                Value dest, ValueRange at) {
  auto accType = cast<VectorType>(acc.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  SmallVector<bool> inBounds(accType.getRank(), true);
  linalg::GenericOp g = e.generic;
  // Per-row inputs are per channel (dimension 1 of the consumer).
  SmallVector<Value> inputs = tileInputs(
      b, loc, e, operands, acc, /*rowDim=*/1, at[1],
      [&](unsigned i, ArrayRef<Value> idx, unsigned) -> Value {
        return vector::BroadcastOp::create(
            b, loc, accType,
            tensor::ExtractOp::create(b, loc, operands.inputs[i], idx));
      },
      [&](Value t) -> Value {
        return vector::TransferReadOp::create(b, loc, accType, t, at, zero,
                                              inBounds);
      });
  Value result = runBody(b, loc, g, inputs, accType);
  return vector::TransferWriteOp::create(b, loc, result, dest, at, inBounds)
      .getResult();
}

bool tfrt::epilogueViewsContiguous(const Epilogue &e, unsigned from) {
  linalg::GenericOp g = e.generic;
  if (!trailingContiguous(g.getDpsInitOperand(0)->get(), from))
    return false;
  for (auto [i, kind] : llvm::enumerate(e.inputs))
    if (kind == Epilogue::Input::Whole &&
        !trailingContiguous(g.getDpsInputOperand(i)->get(), from))
      return false;
  return true;
}

void tfrt::finishEpilogue(RewriterBase &rewriter, const Epilogue &e,
                          Value result, Operation *producer, StringRef kernel,
                          bool remarks) {
  linalg::GenericOp g = e.generic;
  if (remarks) {
    SmallVector<StringRef> names;
    g->getLoc()->walk([&](Location loc) {
      if (auto name = dyn_cast<NameLoc>(loc))
        if (!llvm::is_contained(names, name.getName().strref()))
          names.push_back(name.getName().strref());
      return WalkResult::advance();
    });
    InFlightDiagnostic d = producer->emitRemark("epilogue ");
    if (names.empty())
      d << "(unnamed)";
    llvm::interleave(
        names, [&](StringRef n) { d << "'" << n << "'"; }, [&] { d << ", "; });
    d << " runs on the register tiles of the " << kernel;
  }
  Value replacement = result;
  if (e.expand && e.indexing == Epilogue::Indexing::Rows)
    replacement = tensor::ExpandShapeOp::create(
        rewriter, g.getLoc(), g->getResult(0).getType(), result, imageRows());
  rewriter.replaceOp(g, replacement);
  if (e.expand && e.expand->use_empty())
    rewriter.eraseOp(e.expand);
  rewriter.eraseOp(producer);
}

linalg::GenericOp tfrt::unaryEpilogue(Value result) {
  if (!result.hasOneUse())
    return nullptr;
  auto g = dyn_cast<linalg::GenericOp>(*result.user_begin());
  if (!g || !g.hasPureTensorSemantics() || g.getNumDpsInputs() != 1 ||
      g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
      g.getInputs()[0] != result ||
      g->getResult(0).getType() != result.getType())
    return nullptr;
  for (AffineMap m : g.getIndexingMapsArray())
    if (!m.isIdentity())
      return nullptr;
  if (g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return nullptr;
  Block &body = g.getRegion().front();
  for (Operation &op : body.without_terminator()) {
    if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::AddFOp, arith::SubFOp,
             arith::MulFOp, arith::DivFOp, arith::NegFOp>(op) ||
        op.getNumResults() != 1)
      return nullptr;
    for (Value v : op.getOperands()) {
      if (v == body.getArgument(0) ||
          (v.getDefiningOp() && v.getDefiningOp()->getBlock() == &body))
        continue;
      if (!v.getDefiningOp<arith::ConstantOp>())
        return nullptr;
    }
  }
  return g;
}

Value tfrt::applyUnaryEpilogue(OpBuilder &b, Location loc, linalg::GenericOp g,
                               Value acc) {
  auto vt = cast<VectorType>(acc.getType());
  Block &body = g.getRegion().front();
  IRMapping map;
  map.map(body.getArgument(0), acc);
  for (Operation &op : body.without_terminator()) {
    for (Value v : op.getOperands())
      if (!map.contains(v))
        map.map(v, vector::BroadcastOp::create(b, loc, vt, v));
    Operation *c = b.clone(op, map);
    c->getResult(0).setType(vt);
    map.map(op.getResult(0), c->getResult(0));
  }
  return map.lookup(body.getTerminator()->getOperand(0));
}
