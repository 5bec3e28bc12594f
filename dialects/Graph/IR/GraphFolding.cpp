//===- GraphFolding.cpp - constant folding of graph ops -------------------===//
//
// Folders of the graph dialect. They make shape-computing subgraphs
// (Shape -> Gather/Slice -> Concat -> Reshape, ...) collapse into constants
// once input shapes are static, and they fold views of constants (reshape,
// squeeze, unsqueeze, flatten, cast). Folding of large tensors is bounded so
// that compile time stays predictable; weights are folded by the graph
// optimisation passes instead.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace tfrt::graph;

namespace {
/// Largest tensor (in elements) that element-by-element folders produce.
constexpr int64_t kMaxFoldElements = 1 << 16;

/// The static result type of `op`'s only result, or null.
RankedTensorType staticResultType(Operation *op) {
  auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

DenseElementsAttr asDense(Attribute a) {
  return dyn_cast_or_null<DenseElementsAttr>(a);
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Maps a linear index of `outShape` to the linear index of a tensor of
/// `inShape` broadcast to it.
int64_t broadcastIndex(int64_t linear, ArrayRef<int64_t> outShape,
                       ArrayRef<int64_t> outStrides, ArrayRef<int64_t> inShape,
                       ArrayRef<int64_t> inStrides) {
  int64_t offset = outShape.size() - inShape.size();
  int64_t result = 0;
  for (size_t d = 0; d < outShape.size(); ++d) {
    int64_t idx = (linear / outStrides[d]) % outShape[d];
    if (static_cast<int64_t>(d) < offset)
      continue;
    int64_t id = d - offset;
    if (inShape[id] != 1)
      result += idx * inStrides[id];
  }
  return result;
}

enum class BinKind { Add, Sub, Mul, Div };

/// Folds an elementwise binary op on two constants with broadcasting.
OpFoldResult foldBinary(Operation *op, Attribute lhsAttr, Attribute rhsAttr,
                        BinKind kind) {
  auto lhs = asDense(lhsAttr), rhs = asDense(rhsAttr);
  RankedTensorType type = staticResultType(op);
  if (!lhs || !rhs || !type || type.getNumElements() > kMaxFoldElements)
    return {};
  ArrayRef<int64_t> outShape = type.getShape();
  SmallVector<int64_t> outStrides = stridesOf(outShape);
  ArrayRef<int64_t> ls = lhs.getType().getShape(), rs = rhs.getType().getShape();
  SmallVector<int64_t> lst = stridesOf(ls), rst = stridesOf(rs);
  int64_t n = type.getNumElements();
  Type elem = type.getElementType();
  if (auto intType = dyn_cast<IntegerType>(elem)) {
    if (intType.getWidth() == 1)
      return {};
    bool isUnsigned = intType.isUnsigned();
    auto lv = lhs.getValues<APInt>(), rv = rhs.getValues<APInt>();
    SmallVector<APInt> out;
    out.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      APInt a = lhs.isSplat() ? lhs.getSplatValue<APInt>()
                              : lv[broadcastIndex(i, outShape, outStrides, ls, lst)];
      APInt b = rhs.isSplat() ? rhs.getSplatValue<APInt>()
                              : rv[broadcastIndex(i, outShape, outStrides, rs, rst)];
      switch (kind) {
      case BinKind::Add:
        out.push_back(a + b);
        break;
      case BinKind::Sub:
        out.push_back(a - b);
        break;
      case BinKind::Mul:
        out.push_back(a * b);
        break;
      case BinKind::Div:
        if (b.isZero())
          return {};
        out.push_back(isUnsigned ? a.udiv(b) : a.sdiv(b));
        break;
      }
    }
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(elem)) {
    auto lv = lhs.getValues<APFloat>(), rv = rhs.getValues<APFloat>();
    SmallVector<APFloat> out;
    out.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      APFloat a = lv[lhs.isSplat() ? 0 : broadcastIndex(i, outShape, outStrides, ls, lst)];
      APFloat b = rv[rhs.isSplat() ? 0 : broadcastIndex(i, outShape, outStrides, rs, rst)];
      switch (kind) {
      case BinKind::Add:
        a.add(b, APFloat::rmNearestTiesToEven);
        break;
      case BinKind::Sub:
        a.subtract(b, APFloat::rmNearestTiesToEven);
        break;
      case BinKind::Mul:
        a.multiply(b, APFloat::rmNearestTiesToEven);
        break;
      case BinKind::Div:
        a.divide(b, APFloat::rmNearestTiesToEven);
        break;
      }
      out.push_back(a);
    }
    return DenseElementsAttr::get(type, out);
  }
  return {};
}

/// Folds a view-like op (same elements, new shape) of a constant.
OpFoldResult foldView(Operation *op, Value input, Attribute inputAttr) {
  RankedTensorType type = staticResultType(op);
  if (!type)
    return {};
  if (input.getType() == type)
    return input;
  if (auto dense = asDense(inputAttr))
    return dense.reshape(type);
  return {};
}

/// Gathers elements of `attr` at `indices` into a tensor of `type`.
DenseElementsAttr gatherElements(DenseElementsAttr attr,
                                 ArrayRef<int64_t> indices,
                                 RankedTensorType type) {
  if (attr.isSplat())
    return DenseElementsAttr::get(type, attr.getSplatValue<Attribute>());
  auto values = attr.getValues<Attribute>();
  SmallVector<Attribute> out;
  out.reserve(indices.size());
  for (int64_t i : indices)
    out.push_back(values[i]);
  return DenseElementsAttr::get(type, out);
}
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldBinary(*this, a.getLhs(), a.getRhs(), BinKind::Add);
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldBinary(*this, a.getLhs(), a.getRhs(), BinKind::Sub);
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldBinary(*this, a.getLhs(), a.getRhs(), BinKind::Mul);
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldBinary(*this, a.getLhs(), a.getRhs(), BinKind::Div);
}
OpFoldResult PowOp::fold(FoldAdaptor) { return {}; }

OpFoldResult IdentityOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  return foldView(*this, getInput(), a.getInput());
}
OpFoldResult FlattenOp::fold(FoldAdaptor a) {
  return foldView(*this, getInput(), a.getInput());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  return foldView(*this, getInput(), a.getInput());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor a) {
  return foldView(*this, getInput(), a.getInput());
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  auto dense = asDense(a.getInput());
  RankedTensorType type = staticResultType(*this);
  if (!dense || !type || type.getNumElements() > kMaxFoldElements)
    return {};
  Type elem = type.getElementType();
  if (auto it = dyn_cast<IntegerType>(elem)) {
    if (it.getWidth() == 1 || it.isUnsigned())
      return {};
    SmallVector<APInt> out;
    for (const APInt &v : dense.getValues<APInt>())
      out.push_back(-v);
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(elem)) {
    SmallVector<APFloat> out;
    for (APFloat v : dense.getValues<APFloat>()) {
      v.changeSign();
      out.push_back(v);
    }
    return DenseElementsAttr::get(type, out);
  }
  return {};
}

namespace {
/// Folds an exact elementwise function of a constant: `onFloat` rewrites a
/// float in place, `onInt` maps a signed integer (null: integers unfolded).
OpFoldResult foldExactUnary(Operation *op, Attribute input,
                            llvm::function_ref<void(APFloat &)> onFloat,
                            llvm::function_ref<APInt(const APInt &)> onInt) {
  auto dense = asDense(input);
  RankedTensorType type = staticResultType(op);
  if (!dense || !type || type.getNumElements() > kMaxFoldElements)
    return {};
  Type elem = type.getElementType();
  if (isa<FloatType>(elem)) {
    SmallVector<APFloat> out;
    for (APFloat v : dense.getValues<APFloat>()) {
      onFloat(v);
      out.push_back(v);
    }
    return DenseElementsAttr::get(type, out);
  }
  auto it = dyn_cast<IntegerType>(elem);
  if (!it || !onInt || it.getWidth() == 1 || it.isUnsigned())
    return {};
  SmallVector<APInt> out;
  for (const APInt &v : dense.getValues<APInt>())
    out.push_back(onInt(v));
  return DenseElementsAttr::get(type, out);
}
} // namespace

OpFoldResult ReluOp::fold(FoldAdaptor a) {
  return foldExactUnary(
      *this, a.getInput(),
      [](APFloat &v) {
        if (v.isNegative() && !v.isNaN())
          v = APFloat::getZero(v.getSemantics());
      },
      [](const APInt &v) {
        return v.isNegative() ? APInt::getZero(v.getBitWidth()) : v;
      });
}

OpFoldResult AbsOp::fold(FoldAdaptor a) {
  return foldExactUnary(
      *this, a.getInput(), [](APFloat &v) { v.clearSign(); },
      [](const APInt &v) { return v.abs(); });
}

OpFoldResult CeilOp::fold(FoldAdaptor a) {
  return foldExactUnary(
      *this, a.getInput(),
      [](APFloat &v) { v.roundToIntegral(APFloat::rmTowardPositive); },
      nullptr);
}

OpFoldResult FloorOp::fold(FoldAdaptor a) {
  return foldExactUnary(
      *this, a.getInput(),
      [](APFloat &v) { v.roundToIntegral(APFloat::rmTowardNegative); },
      nullptr);
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = asDense(a.getInput());
  RankedTensorType type = staticResultType(*this);
  if (!dense || !type || type.getNumElements() > kMaxFoldElements)
    return {};
  Type from = dense.getElementType(), to = type.getElementType();
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (fromInt && toInt) {
    SmallVector<APInt> out;
    for (const APInt &v : dense.getValues<APInt>()) {
      if (toInt.getWidth() == 1)
        out.push_back(APInt(1, v.isZero() ? 0 : 1));
      else
        out.push_back(fromInt.isUnsigned() || fromInt.getWidth() == 1
                          ? v.zextOrTrunc(toInt.getWidth())
                          : v.sextOrTrunc(toInt.getWidth()));
    }
    return DenseElementsAttr::get(type, out);
  }
  if (fromInt && isa<FloatType>(to)) {
    SmallVector<APFloat> out;
    for (const APInt &v : dense.getValues<APInt>()) {
      APFloat f(cast<FloatType>(to).getFloatSemantics());
      f.convertFromAPInt(v, !fromInt.isUnsigned() && fromInt.getWidth() != 1,
                         APFloat::rmNearestTiesToEven);
      out.push_back(f);
    }
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    SmallVector<APFloat> out;
    for (APFloat v : dense.getValues<APFloat>()) {
      bool lost;
      v.convert(cast<FloatType>(to).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      out.push_back(v);
    }
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(from) && toInt && toInt.getWidth() == 1) {
    // ONNX: a float casts to true unless it is zero (NaN is true).
    SmallVector<APInt> out;
    for (const APFloat &v : dense.getValues<APFloat>())
      out.push_back(APInt(1, v.isZero() ? 0 : 1));
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(from) && toInt && toInt.getWidth() > 1) {
    SmallVector<APInt> out;
    for (const APFloat &v : dense.getValues<APFloat>()) {
      if (v.isNaN() || v.isInfinity())
        return {};
      APSInt i(toInt.getWidth(), toInt.isUnsigned());
      bool exact;
      v.convertToInteger(i, APFloat::rmTowardZero, &exact);
      out.push_back(i);
    }
    return DenseElementsAttr::get(type, out);
  }
  return {};
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto x = dyn_cast<RankedTensorType>(getInput().getType());
  RankedTensorType type = staticResultType(*this);
  if (!x || !x.hasStaticShape() || !type)
    return {};
  auto [s, e] = shapeOpRange(x.getRank(), getStart(), getEnd());
  SmallVector<int64_t> dims;
  for (int64_t i = s; i < e; ++i)
    dims.push_back(x.getDimSize(i));
  return DenseIntElementsAttr::get(type, dims);
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  RankedTensorType type = staticResultType(*this);
  if (!type || type.getNumElements() > kMaxFoldElements)
    return {};
  if (getInputs().size() == 1 && getInputs()[0].getType() == type)
    return getInputs()[0];
  SmallVector<DenseElementsAttr> parts;
  for (Attribute attr : a.getInputs()) {
    auto d = asDense(attr);
    if (!d)
      return {};
    parts.push_back(d);
  }
  int64_t axis = getAxis() < 0 ? getAxis() + type.getRank() : getAxis();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (int64_t i = axis + 1; i < type.getRank(); ++i)
    inner *= shape[i];
  SmallVector<Attribute> out;
  out.reserve(type.getNumElements());
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr p : parts)
    values.emplace_back(p.getValues<Attribute>().begin(),
                        p.getValues<Attribute>().end());
  for (int64_t o = 0; o < outer; ++o)
    for (auto [p, v] : llvm::zip(parts, values)) {
      int64_t chunk = p.getType().getDimSize(axis) * inner;
      for (int64_t j = 0; j < chunk; ++j)
        out.push_back(v[o * chunk + j]);
    }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  RankedTensorType type = staticResultType(*this);
  auto dense = asDense(a.getInput());
  if (!type || !dense || type.getNumElements() > kMaxFoldElements)
    return {};
  ArrayRef<int64_t> inShape = dense.getType().getShape();
  auto p = computeSliceParams(inShape, getStarts(), getEnds(), getAxes(),
                              getSteps(), std::nullopt);
  if (failed(p))
    return {};
  SmallVector<int64_t> inStrides = stridesOf(inShape);
  SmallVector<int64_t> outStrides = stridesOf(type.getShape());
  SmallVector<int64_t> indices;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    int64_t src = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t idx = (i / outStrides[d]) % type.getDimSize(d);
      src += (p->start[d] + idx * p->step[d]) * inStrides[d];
    }
    indices.push_back(src);
  }
  return gatherElements(dense, indices, type);
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  RankedTensorType type = staticResultType(*this);
  auto dense = asDense(a.getInput());
  SmallVector<int64_t> idx;
  if (!type || !dense || type.getNumElements() > kMaxFoldElements ||
      failed(getConstantInts(getIndices(), idx)))
    return {};
  ArrayRef<int64_t> inShape = dense.getType().getShape();
  int64_t rank = inShape.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  int64_t outer = 1, inner = 1, dim = inShape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= inShape[i];
  for (int64_t i = axis + 1; i < rank; ++i)
    inner *= inShape[i];
  SmallVector<int64_t> indices;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : idx) {
      if (k < -dim || k >= dim)
        return {};
      int64_t kk = k < 0 ? k + dim : k;
      for (int64_t j = 0; j < inner; ++j)
        indices.push_back((o * dim + kk) * inner + j);
    }
  return gatherElements(dense, indices, type);
}
