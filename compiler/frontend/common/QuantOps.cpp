//===- QuantOps.cpp - linear quantization ops
//------------------------------===//
//
// ONNX's linear (de)quantization ops as graph ops on int32 and f32:
//  * QuantizeLinear:  y = saturate(round(x / scale) + zero_point)
//  * DequantizeLinear: y = (x - zero_point) * scale
//  * DynamicQuantizeLinear: scale and zero point from the range of x
//    (widened to include 0), then QuantizeLinear to uint8
//  * MatMulInteger / ConvInteger: the operands minus their zero points in
//    int32, then an int32 matmul / conv (zero padding of x - x_zero_point is
//    padding x with its zero point)
//  * QLinearMatMul / QLinearConv: the same int32 product, then requantized
//    with the multiplier a_scale * b_scale / y_scale
// round is round-half-to-even (graph.round); saturate clamps to the range of
// the output's integer type. Per-axis scales and zero points (1-D tensors) are
// reshaped to broadcast along their axis.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

using namespace mlir;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

namespace {

/// The integer operand types of the *Integer and QLinear* ops.
bool isQuantizedType(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return it && it.getWidth() == 8;
}

/// `param` (a scalar, or a 1-D tensor of one value per element of x's
/// dimension `axis`, or of one value) reshaped to broadcast against `x`.
/// Null (with an error naming `what`) when it cannot.
Value alongAxis(OpChain &c, NodeCtx &n, Value param, Value x, int64_t axis,
                StringRef what) {
  if (!param || !x)
    return Value();
  auto pt = rankedOf(param);
  auto xt = rankedOf(x);
  if (!pt || !xt || !pt.hasStaticShape()) {
    emitError(n.loc) << what << " and the input need known shapes";
    return Value();
  }
  if (pt.getRank() == 0)
    return param;
  if (pt.getRank() != 1) {
    emitError(n.loc) << what << " must be a scalar or a 1-D tensor; got shape "
                     << shapeString(pt.getShape());
    return Value();
  }
  int64_t size = pt.getDimSize(0), rank = xt.getRank();
  if (rank == 0) {
    if (size != 1) {
      emitError(n.loc) << what << " has " << size
                       << " values for a scalar input; expected 1";
      return Value();
    }
    return c.reshape(param, {});
  }
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    emitError(n.loc) << "attribute 'axis' (" << axis
                     << ") is out of range for rank " << rank;
    return Value();
  }
  int64_t dim = xt.getDimSize(a);
  if (size != 1 && dim != kDyn && size != dim) {
    emitError(n.loc) << what << " has " << size << " values; dimension " << a
                     << " of the input has " << dim;
    return Value();
  }
  SmallVector<int64_t> shape(rank, 1);
  shape[a] = size;
  return c.reshape(param, shape);
}

/// saturate(round(scaled) + zeroPoint) as the integer type `elem`: `scaled`
/// is a float tensor, the zero point (null: 0) is of type `elem` and
/// broadcasts.
Value saturateTo(OpChain &c, NodeCtx &n, Value scaled, Value zeroPoint,
                 Type elem) {
  auto it = dyn_cast<IntegerType>(elem);
  if (!it || it.getWidth() < 2 || it.getWidth() > 32) {
    emitError(n.loc) << "quantized type " << elem
                     << " is not supported (2- to 32-bit integers are)";
    return Value();
  }
  unsigned w = it.getWidth();
  double lo = it.isUnsigned() ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi =
      it.isUnsigned() ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  // In f64 for 32-bit results: the f32 nearest 2^31 - 1 is out of int32.
  Builder b(c.context());
  Type ft = w == 32 ? Type(b.getF64Type()) : Type(b.getF32Type());
  Value y = c.cast(c.unary("graph.round", scaled), ft);
  if (zeroPoint)
    y = c.add(y, c.cast(zeroPoint, ft));
  y = c.op("graph.clip", {y, c.scalar(ft, lo), c.scalar(ft, hi)});
  return c.cast(y, elem);
}

/// `v - zeroPoint` in int32, the zero point broadcast along `axis` of v.
Value minusZeroPoint(OpChain &c, NodeCtx &n, Value v, Value zeroPoint,
                     int64_t axis, StringRef what) {
  Type i32 = IntegerType::get(c.context(), 32);
  Value vi = c.cast(v, i32);
  if (!zeroPoint)
    return vi;
  return c.sub(vi, c.cast(alongAxis(c, n, zeroPoint, v, axis, what), i32));
}

/// The axes of MatMul operands along which A has per-row and B per-column
/// zero points and scales.
int64_t rowAxis(Value a) {
  return std::max<int64_t>(0, rankedOf(a).getRank() - 2);
}
int64_t columnAxis(Value b) {
  return std::max<int64_t>(0, rankedOf(b).getRank() - 1);
}

/// Checks that the inputs `which` (those present) are int8 or uint8.
LogicalResult checkQuantized(NodeCtx &n, ArrayRef<unsigned> which,
                             ArrayRef<const char *> names) {
  for (unsigned i : which) {
    Value v = n.in(i);
    if (v && !isQuantizedType(elementTypeOf(v))) {
      emitError(n.loc) << "input " << names[i] << " has element type "
                       << elementTypeOf(v) << "; int8 or uint8 is required";
      return failure();
    }
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::quantizeLinear(NodeCtx &n) {
  auto x = requireInput(n, 0, "x");
  auto scale = requireInput(n, 1, "y_scale");
  auto axis = n.opset() >= 13 ? intAttr(n, "axis", 1) : FailureOr<int64_t>(1);
  if (failed(x) || failed(scale) || failed(axis))
    return failure();
  Value zp = n.in(2);
  Type xElem = elementTypeOf(*x);
  if (!isa<FloatType>(xElem) && !xElem.isSignlessInteger(32)) {
    error(n) << "input x has element type " << xElem
             << "; float or int32 is required";
    return failure();
  }
  Type out =
      zp ? elementTypeOf(zp) : IntegerType::get(ctx, 8, IntegerType::Unsigned);
  if (!isQuantizedType(out)) {
    error(n) << "input y_zero_point has element type " << out
             << "; int8 or uint8 is required";
    return failure();
  }
  Type f32 = builder.getF32Type();
  OpChain c(builder, n.loc);
  Value s = alongAxis(c, n, c.cast(*scale, f32), *x, *axis, "y_scale");
  Value z = zp ? alongAxis(c, n, zp, *x, *axis, "y_zero_point") : Value();
  if (!s || (zp && !z))
    return failure();
  Value y = saturateTo(c, n, c.div(c.cast(*x, f32), s), z, out);
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::dequantizeLinear(NodeCtx &n) {
  auto x = requireInput(n, 0, "x");
  auto scale = requireInput(n, 1, "x_scale");
  auto axis = n.opset() >= 13 ? intAttr(n, "axis", 1) : FailureOr<int64_t>(1);
  if (failed(x) || failed(scale) || failed(axis))
    return failure();
  Type xElem = elementTypeOf(*x);
  if (!isQuantizedType(xElem) && !xElem.isSignlessInteger(32)) {
    error(n) << "input x has element type " << xElem
             << "; int8, uint8 or int32 is required";
    return failure();
  }
  Type f32 = builder.getF32Type();
  OpChain c(builder, n.loc);
  // x - x_zero_point is exact in int32.
  Value xi = minusZeroPoint(c, n, *x, n.in(2), *axis, "x_zero_point");
  Value s = alongAxis(c, n, c.cast(*scale, f32), *x, *axis, "x_scale");
  Value y = c.mul(c.cast(xi, f32), s);
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::dynamicQuantizeLinear(NodeCtx &n) {
  auto x = requireInput(n, 0, "x");
  if (failed(x))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !isa<FloatType>(xt.getElementType())) {
    error(n) << "input x must be a float tensor of known rank";
    return failure();
  }
  Type f32 = builder.getF32Type();
  Type u8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  OpChain c(builder, n.loc);
  Value xf = c.cast(*x, f32);
  Value zero = c.scalar(f32, 0), qmax = c.scalar(f32, 255);
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()));
  // The range of x widened to include 0, so that 0 is exact.
  Value mx = c.max(c.reduce("graph.reduce_max", xf, axes, false), zero);
  Value mn = c.min(c.reduce("graph.reduce_min", xf, axes, false), zero);
  Value scale = c.div(c.sub(mx, mn), qmax);
  // y_zero_point = saturate(round(0 - min / scale)).
  Value zpf =
      c.op("graph.clip",
           {c.unary("graph.round", c.sub(zero, c.div(mn, scale))), zero, qmax});
  Value zp = c.cast(zpf, u8);
  Value y = saturateTo(c, n, c.div(xf, scale), zp, u8);
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y, scale, zp};
}

//===----------------------------------------------------------------------===//
// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::matMulInteger(NodeCtx &n) {
  static const char *const names[] = {"A", "B", "a_zero_point", "b_zero_point"};
  auto a = requireInput(n, 0, "A");
  auto b = requireInput(n, 1, "B");
  if (failed(a) || failed(b) || failed(checkQuantized(n, {0, 1, 2, 3}, names)))
    return failure();
  if (!rankedOf(*a) || !rankedOf(*b)) {
    error(n) << "needs inputs of known rank";
    return failure();
  }
  OpChain c(builder, n.loc);
  Value y =
      c.op("graph.matmul",
           {minusZeroPoint(c, n, *a, n.in(2), rowAxis(*a), "a_zero_point"),
            minusZeroPoint(c, n, *b, n.in(3), columnAxis(*b), "b_zero_point")});
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::convInteger(NodeCtx &n) {
  static const char *const names[] = {"x", "w", "x_zero_point", "w_zero_point"};
  auto x = requireInput(n, 0, "x");
  auto w = requireInput(n, 1, "w");
  if (failed(x) || failed(w) || failed(checkQuantized(n, {0, 1, 2, 3}, names)))
    return failure();
  OpChain c(builder, n.loc);
  Value xi = minusZeroPoint(c, n, *x, n.in(2), 1, "x_zero_point");
  Value wi = minusZeroPoint(c, n, *w, n.in(3), 0, "w_zero_point");
  if (c.failed() || !xi || !wi)
    return failure();
  // ConvInteger has Conv's attributes: convert a Conv of the int32 operands.
  NodeCtx conv32{n.node, n.displayName, n.loc, {xi, wi}, {}};
  return conv(conv32);
}

FailureOr<SmallVector<Value>> NodeImporter::qLinearMatMul(NodeCtx &n) {
  static const char *const names[] = {"a",       "a_scale",     "a_zero_point",
                                      "b",       "b_scale",     "b_zero_point",
                                      "y_scale", "y_zero_point"};
  for (auto [i, name] : llvm::enumerate(names))
    if (failed(requireInput(n, i, name)))
      return failure();
  if (failed(checkQuantized(n, {0, 2, 3, 5, 7}, names)))
    return failure();
  Value a = n.in(0), b = n.in(3), yzp = n.in(7);
  if (!rankedOf(a) || !rankedOf(b)) {
    error(n) << "needs inputs of known rank";
    return failure();
  }
  Type f32 = builder.getF32Type();
  OpChain c(builder, n.loc);
  Value acc =
      c.op("graph.matmul",
           {minusZeroPoint(c, n, a, n.in(2), rowAxis(a), "a_zero_point"),
            minusZeroPoint(c, n, b, n.in(5), columnAxis(b), "b_zero_point")});
  if (c.failed() || !acc)
    return failure();
  // The result's rows take a's per-row scales, its columns b's.
  int64_t rank = rankedOf(acc).getRank();
  int64_t rows =
      std::max<int64_t>(0, rank - (rankedOf(b).getRank() >= 2 ? 2 : 1));
  Value multiplier = c.div(
      c.mul(alongAxis(c, n, c.cast(n.in(1), f32), acc, rows, "a_scale"),
            alongAxis(c, n, c.cast(n.in(4), f32), acc, rank - 1, "b_scale")),
      alongAxis(c, n, c.cast(n.in(6), f32), acc, rank - 1, "y_scale"));
  Value zp = alongAxis(c, n, yzp, acc, rank - 1, "y_zero_point");
  if (c.failed() || !multiplier || !zp)
    return failure();
  Value y = saturateTo(c, n, c.mul(c.cast(acc, f32), multiplier), zp,
                       elementTypeOf(yzp));
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::qLinearConv(NodeCtx &n) {
  static const char *const names[] = {"x",       "x_scale",      "x_zero_point",
                                      "w",       "w_scale",      "w_zero_point",
                                      "y_scale", "y_zero_point", "B"};
  for (unsigned i = 0; i < 8; ++i)
    if (failed(requireInput(n, i, names[i])))
      return failure();
  if (failed(checkQuantized(n, {0, 2, 3, 5, 7}, names)))
    return failure();
  Value bias = n.in(8), yzp = n.in(7);
  if (bias && !elementTypeOf(bias).isSignlessInteger(32)) {
    error(n) << "input B has element type " << elementTypeOf(bias)
             << "; int32 is required";
    return failure();
  }
  Type f32 = builder.getF32Type();
  OpChain c(builder, n.loc);
  Value xi = minusZeroPoint(c, n, n.in(0), n.in(2), 1, "x_zero_point");
  Value wi = minusZeroPoint(c, n, n.in(3), n.in(5), 0, "w_zero_point");
  if (c.failed() || !xi || !wi)
    return failure();
  // The int32 accumulation, bias included, as a Conv of the same attributes.
  NodeCtx conv32{n.node, n.displayName, n.loc, {xi, wi}, {}};
  if (bias)
    conv32.ins.push_back(bias);
  auto acc = conv(conv32);
  if (failed(acc))
    return failure();
  Value sum = (*acc)[0];
  // Per output channel weight scales apply along the result's channels.
  Value multiplier =
      c.div(c.mul(alongAxis(c, n, c.cast(n.in(1), f32), sum, 1, "x_scale"),
                  alongAxis(c, n, c.cast(n.in(4), f32), sum, 1, "w_scale")),
            alongAxis(c, n, c.cast(n.in(6), f32), sum, 1, "y_scale"));
  Value zp = alongAxis(c, n, yzp, sum, 1, "y_zero_point");
  if (c.failed() || !multiplier || !zp)
    return failure();
  Value y = saturateTo(c, n, c.mul(c.cast(sum, f32), multiplier), zp,
                       elementTypeOf(yzp));
  if (c.failed() || !y)
    return failure();
  return SmallVector<Value>{y};
}
