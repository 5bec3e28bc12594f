//===- PackWeightTiles.cpp - weight constants in register-tile order ------===//
//
// Implements tfrt-pack-weight-tiles: a vector.transfer_read of an R x L
// tile of a weight constant (R output channels, L input channels, at one
// kernel tap) whose rows lie a whole row of the constant apart becomes a
// read of a constant packed at compile time so that the R elements of each
// input channel are contiguous (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tfrt {
#define GEN_PASS_DEF_PACKWEIGHTTILES
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

bool isMultipleOf(Value v, int64_t r, unsigned depth = 0);

/// Whether every value `e` takes is a multiple of `r`, given the operands
/// of the affine.apply it belongs to.
bool isMultipleOf(AffineExpr e, ValueRange dims, ValueRange syms, int64_t r,
                  unsigned depth) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() % r == 0;
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return isMultipleOf(dims[d.getPosition()], r, depth + 1);
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return isMultipleOf(syms[s.getPosition()], r, depth + 1);
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (e.getKind() == AffineExprKind::Add)
    return isMultipleOf(bin.getLHS(), dims, syms, r, depth) &&
           isMultipleOf(bin.getRHS(), dims, syms, r, depth);
  if (e.getKind() == AffineExprKind::Mul)
    return isMultipleOf(bin.getLHS(), dims, syms, r, depth) ||
           isMultipleOf(bin.getRHS(), dims, syms, r, depth);
  return false;
}

bool isMultipleOf(OpFoldResult v, int64_t r, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % r == 0;
  return isMultipleOf(cast<Value>(v), r, depth);
}

/// Whether every value `v` takes is a multiple of `r`: constants, induction
/// variables of loops whose lower bound and step are, sums and products.
bool isMultipleOf(Value v, int64_t r, unsigned depth) {
  if (depth > 8)
    return false;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % r == 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      return arg == loop.getInductionVar() &&
             isMultipleOf(loop.getLowerBound(), r, depth + 1) &&
             isMultipleOf(loop.getStep(), r, depth + 1);
    if (auto loop = dyn_cast<scf::ForallOp>(owner)) {
      for (auto [i, iv] : llvm::enumerate(loop.getInductionVars()))
        if (iv == arg)
          return isMultipleOf(loop.getMixedLowerBound()[i], r, depth + 1) &&
                 isMultipleOf(loop.getMixedStep()[i], r, depth + 1);
    }
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def))
    return isMultipleOf(add.getLhs(), r, depth + 1) &&
           isMultipleOf(add.getRhs(), r, depth + 1);
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def))
    return isMultipleOf(mul.getLhs(), r, depth + 1) ||
           isMultipleOf(mul.getRhs(), r, depth + 1);
  if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def))
    return isMultipleOf(apply.getAffineMap().getResult(0),
                        apply.getDimOperands(), apply.getSymbolOperands(), r,
                        depth);
  return false;
}

/// A read traced back to the constant it reads: for each dimension of the
/// constant the terms whose sum indexes it, and which constant dimensions
/// the two vector dimensions run along.
struct Traced {
  arith::ConstantOp constant;
  SmallVector<SmallVector<OpFoldResult>> index;
  int64_t vdim[2];
};

/// Follows `read`'s source through unit-stride slices and collapses of unit
/// dimensions to a constant.
std::optional<Traced> trace(vector::TransferReadOp read) {
  AffineMap map = read.getPermutationMap();
  if (map.getNumResults() != 2)
    return std::nullopt;
  Traced t;
  for (unsigned i = 0; i < 2; ++i) {
    auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!d)
      return std::nullopt;
    t.vdim[i] = d.getPosition();
  }
  for (Value idx : read.getIndices())
    t.index.push_back({OpFoldResult(idx)});
  Value v = read.getBase();
  OpFoldResult zero = OpBuilder(read.getContext()).getIndexAttr(0);
  while (true) {
    if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
      t.constant = cst;
      return t;
    }
    if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.hasUnitStride() ||
          slice.getSourceType().getRank() != slice.getType().getRank())
        return std::nullopt;
      for (auto [terms, offset] : llvm::zip(t.index, slice.getMixedOffsets()))
        terms.push_back(offset);
      v = slice.getSource();
      continue;
    }
    if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
      RankedTensorType src = collapse.getSrcType();
      SmallVector<SmallVector<OpFoldResult>> index(src.getRank());
      int64_t vdim[2] = {-1, -1};
      for (auto [g, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        // The one dimension of the group that is not 1 takes the index (the
        // first when all are 1), the others index 0.
        int64_t keep = group.front();
        int64_t nonUnit = 0;
        for (int64_t d : group)
          if (src.getDimSize(d) != 1) {
            keep = d;
            ++nonUnit;
          }
        if (nonUnit > 1)
          return std::nullopt;
        for (int64_t d : group)
          index[d] = d == keep ? t.index[g] : SmallVector<OpFoldResult>{zero};
        for (unsigned i = 0; i < 2; ++i)
          if (t.vdim[i] == (int64_t)g)
            vdim[i] = keep;
      }
      t.index = std::move(index);
      t.vdim[0] = vdim[0];
      t.vdim[1] = vdim[1];
      v = collapse.getSrc();
      continue;
    }
    return std::nullopt;
  }
}

/// `values` [D0, D1, D2, ...] as [D0 / r, D2, ..., D1, r].
DenseElementsAttr pack(DenseElementsAttr values, int64_t r) {
  auto type = cast<RankedTensorType>(values.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t d0 = shape[0], d1 = shape[1];
  int64_t inner = 1;
  for (int64_t d : shape.drop_front(2))
    inner *= d;
  SmallVector<int64_t> packedShape = {d0 / r};
  llvm::append_range(packedShape, shape.drop_front(2));
  packedShape.append({d1, r});
  auto packedType = RankedTensorType::get(packedShape, type.getElementType());
  if (values.isSplat())
    return DenseElementsAttr::get(packedType, values.getSplatValue<float>());
  SmallVector<float> in(values.getValues<float>());
  SmallVector<float> out(in.size());
  for (int64_t o = 0; o < d0; ++o)
    for (int64_t i = 0; i < d1; ++i)
      for (int64_t s = 0; s < inner; ++s)
        out[(((o / r) * inner + s) * d1 + i) * r + o % r] =
            in[(o * d1 + i) * inner + s];
  return DenseElementsAttr::get(packedType, ArrayRef<float>(out));
}

struct PackWeightTilesPass
    : public tfrt::impl::PackWeightTilesBase<PackWeightTilesPass> {
  using PackWeightTilesBase::PackWeightTilesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<std::pair<vector::TransferReadOp, Traced>> reads;
    func.walk([&](vector::TransferReadOp read) {
      VectorType vt = read.getVectorType();
      if (vt.getRank() != 2 || vt.getDimSize(0) < 2 || read.getMask() ||
          !isa<RankedTensorType>(read.getBase().getType()) ||
          !vt.getElementType().isF32() ||
          llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
        return;
      std::optional<Traced> t = trace(read);
      if (!t || t->vdim[0] != 0 || t->vdim[1] != 1)
        return;
      auto type = dyn_cast<RankedTensorType>(t->constant.getType());
      auto attr = dyn_cast<DenseElementsAttr>(t->constant.getValue());
      if (!type || !attr || type.getRank() < 2 ||
          !type.getElementType().isF32() || !type.hasStaticShape())
        return;
      int64_t r = vt.getDimSize(0), l = vt.getDimSize(1);
      int64_t inner = 1;
      for (int64_t d : type.getShape().drop_front(2))
        inner *= d;
      // Rows whole in the packed tiles; a tile whose L elements are
      // contiguous already (inner taps of 1, L > 1) loads as vectors.
      if (type.getDimSize(0) % r || (inner == 1 && l > 1))
        return;
      if (!llvm::all_of(t->index[0], [&](OpFoldResult term) {
            return isMultipleOf(term, r);
          }))
        return;
      reads.push_back({read, *t});
    });
    DenseMap<std::pair<Operation *, int64_t>, Value> packed;
    for (auto &[read, t] : reads) {
      int64_t r = read.getVectorType().getDimSize(0);
      Value &p = packed[{t.constant.getOperation(), r}];
      if (!p) {
        OpBuilder b(t.constant);
        p = arith::ConstantOp::create(
            b, t.constant.getLoc(),
            pack(cast<DenseElementsAttr>(t.constant.getValue()), r));
        ++numPacked;
      }
      OpBuilder b(read);
      Location loc = read.getLoc();
      auto sum = [&](ArrayRef<OpFoldResult> terms) -> Value {
        Value s;
        for (OpFoldResult term : terms) {
          Value v = getValueOrCreateConstantIndexOp(b, loc, term);
          s = s ? arith::AddIOp::create(b, loc, s, v).getResult() : v;
        }
        return s;
      };
      int64_t rank = t.index.size();
      SmallVector<Value> indices = {arith::DivUIOp::create(
          b, loc, sum(t.index[0]), arith::ConstantIndexOp::create(b, loc, r))};
      for (int64_t d = 2; d < rank; ++d)
        indices.push_back(sum(t.index[d]));
      indices.push_back(sum(t.index[1]));
      indices.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      MLIRContext *ctx = read.getContext();
      AffineMap map = AffineMap::get(
          rank + 1, 0,
          {getAffineDimExpr(rank, ctx), getAffineDimExpr(rank - 1, ctx)}, ctx);
      auto packedRead = vector::TransferReadOp::create(
          b, loc, read.getVectorType(), p, indices, read.getPadding(), map,
          ArrayRef<bool>{true, true});
      read.replaceAllUsesWith(packedRead.getResult());
      read.erase();
      ++numReads;
    }
  }
};
} // namespace
