//===- GraphToLinalg.cpp - lower graph ops to linalg on tensors -----------===//
//
// Conversion patterns from the graph dialect (static shapes) to linalg,
// tensor, arith and math on tensors, and the tfrt-lower-graph-to-linalg pass.
//
// Conventions shared by every pattern:
//  * Every operand and result must be a ranked tensor of static shape; an op
//    that is not gets an error at its location (which names the model node)
//    and the conversion fails.
//  * Only ops that one-shot bufferization handles are produced: tensor.empty,
//    linalg.generic / named linalg ops, tensor.extract_slice / insert_slice /
//    collapse_shape / expand_shape / pad / extract, arith.constant.
//  * Unsigned element types (`uiN`) are not accepted by arith and linalg: all
//    types are converted to the signless type of the same width (also in the
//    function signature), and the signedness is taken from the *original*
//    graph types to pick the unsigned arith ops (divui, uitofp, maxui, ...).
//  * A result with zero elements becomes a plain tensor.empty.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

namespace tfrt {
#define GEN_PASS_DEF_LOWERGRAPHTOLINALG
#include "passes/Conversion/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using namespace tfrt::graph;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// `uiN` -> `iN`, elementwise through tensor types; everything else as is.
Type toSignless(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.isSignless() ? type
                          : IntegerType::get(type.getContext(), i.getWidth());
  if (auto r = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(r.getShape(), toSignless(r.getElementType()),
                                 r.getEncoding());
  if (auto u = dyn_cast<UnrankedTensorType>(type))
    return UnrankedTensorType::get(toSignless(u.getElementType()));
  return type;
}

bool isUnsignedElem(Type type) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
  return i && i.isUnsigned();
}

bool isFloatElem(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

/// Emits `msg` as an error at the op (so the pass fails with a diagnostic
/// naming the model node) and reports the match failure.
LogicalResult failOp(ConversionPatternRewriter &rewriter, Operation *op,
                     const Twine &msg) {
  std::string text = msg.str();
  op->emitError() << text;
  return rewriter.notifyMatchFailure(op, text);
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string opName(Operation *op) {
  return op->getName().stripDialect().str();
}

/// Fails unless every operand and result is a ranked tensor of static shape.
LogicalResult requireStatic(ConversionPatternRewriter &rewriter,
                            Operation *op) {
  for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                         op->getResultTypes())) {
    auto r = dyn_cast<RankedTensorType>(t);
    if (!r || !r.hasStaticShape())
      return failOp(rewriter, op,
                    opName(op) + " with dynamic or unranked shapes is not "
                                 "supported (run tfrt-specialize-shapes)");
  }
  return success();
}

/// Fails unless the op's result element type is a float.
LogicalResult requireFloat(ConversionPatternRewriter &rewriter, Operation *op) {
  if (!isFloatElem(op->getResult(0).getType()))
    return failOp(rewriter, op,
                  opName(op) + " on element type " +
                      typeStr(getElementTypeOrSelf(
                          op->getResult(0).getType())) +
                      " is not supported");
  return success();
}

RankedTensorType loweredType(Value v) {
  return cast<RankedTensorType>(toSignless(v.getType()));
}

RankedTensorType loweredResultType(Operation *op) {
  return loweredType(op->getResult(0));
}

/// Replaces `op` by a tensor.empty when its result has no elements.
bool replaceIfEmpty(ConversionPatternRewriter &rewriter, Operation *op) {
  RankedTensorType type = loweredResultType(op);
  if (type.getNumElements() != 0)
    return false;
  rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                               type.getElementType());
  return true;
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elem) {
  return tensor::EmptyOp::create(b, loc, shape, elem);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Value scalar) {
  Value init = emptyTensor(b, loc, shape, scalar.getType());
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{init})
      .getResult(0);
}

/// A scalar constant of `type` (float or integer) holding `v`.
Value scalarConst(OpBuilder &b, Location loc, Type type, double v) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, v));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(v)));
}

Value zeroConst(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type)));
}

/// The bounds of activation clamps (Relu, Clip, HardSigmoid, HardSwish):
/// `maximumf` / `minimumf` that still propagate a NaN but may return either
/// zero when the operands are -0 and +0 (`nsz`). A strict IEEE maximum of x
/// and +0 needs a NaN test and a masked move on x86 besides `vmaxps` (LLVM
/// orders the operands so that the constant bound never decides a NaN, but
/// only where signed zeros may be ignored); with `nsz`, Relu(-0) may be -0,
/// as ONNX Runtime's Clip (std::max) already returns.
template <typename OpTy>
Value clamp(OpBuilder &b, Location loc, Value x, Value bound) {
  return OpTy::create(
      b, loc, x, bound,
      arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::nsz));
}

Value clampMax(OpBuilder &b, Location loc, Value x, Value bound) {
  return clamp<arith::MaximumFOp>(b, loc, x, bound);
}

Value clampMin(OpBuilder &b, Location loc, Value x, Value bound) {
  return clamp<arith::MinimumFOp>(b, loc, x, bound);
}

/// The value that never wins a maximum: -inf, or the lowest integer.
Value lowestConst(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), true)));
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? APInt::getZero(w) : APInt::getSignedMinValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

SmallVector<utils::IteratorType> parallelIters(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// Numpy broadcasting of an operand of shape `operand` into a loop nest over
/// `result`: missing leading dims are dropped, a dim of 1 where the result is
/// larger reads index 0.
AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operand,
                       ArrayRef<int64_t> result) {
  int64_t rank = result.size(), offset = rank - operand.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, d] : llvm::enumerate(operand)) {
    int64_t j = i + offset;
    exprs.push_back(d == 1 && result[j] != 1 ? getAffineConstantExpr(0, ctx)
                                             : getAffineDimExpr(j, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// One linalg.generic with `maps` (inputs then the output) over the output.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs, Value init,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iters, BodyFn body) {
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args));
      });
  return generic.getResult(0);
}

/// An elementwise linalg.generic producing `type` from `inputs`, each
/// broadcast numpy-style. `body` gets the input elements (and the unused
/// output element last).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType type,
                       ValueRange inputs, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(broadcastMap(
        ctx, cast<RankedTensorType>(v.getType()).getShape(), type.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  Value init = emptyTensor(b, loc, type.getShape(), type.getElementType());
  return buildGeneric(b, loc, inputs, init, maps,
                      parallelIters(type.getRank()), body);
}

Value mulAdd(OpBuilder &b, Location l, Value acc, Value x, Value y) {
  if (isa<FloatType>(acc.getType()))
    return arith::AddFOp::create(
        b, l, acc, arith::MulFOp::create(b, l, x, y).getResult());
  return arith::AddIOp::create(b, l, acc,
                               arith::MulIOp::create(b, l, x, y).getResult());
}

Value addScalar(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}

Value mulScalar(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}

/// Float -> float with ONNX rounding: to bf16 truncates the f32 bit pattern
/// (as the ONNX reference does), NaN staying a quiet NaN; f16 <-> bf16 goes
/// through f32.
Value convertFloat(OpBuilder &b, Location l, Value x, FloatType to) {
  auto from = cast<FloatType>(x.getType());
  if (from == to)
    return x;
  if (to.isBF16()) {
    Type f32 = b.getF32Type();
    Value x32 = x;
    if (from.getWidth() > 32)
      x32 = arith::TruncFOp::create(b, l, f32, x);
    else if (from.getWidth() < 32)
      x32 = arith::ExtFOp::create(b, l, f32, x);
    Type i32 = b.getI32Type(), i16 = b.getI16Type();
    Value bits = arith::BitcastOp::create(b, l, i32, x32);
    Value hi = arith::ShRUIOp::create(
        b, l, bits, arith::ConstantOp::create(b, l, b.getI32IntegerAttr(16)));
    Value hi16 = arith::TruncIOp::create(b, l, i16, hi);
    Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x32,
                                        x32);
    Value qnan = arith::ConstantOp::create(b, l, b.getI16IntegerAttr(0x7FC0));
    Value sel = arith::SelectOp::create(b, l, isNan, qnan, hi16);
    return arith::BitcastOp::create(b, l, to, sel);
  }
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, l, to, x);
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(b, l, to, x);
  // Same width, different formats (bf16 -> f16).
  Value x32 = arith::ExtFOp::create(b, l, b.getF32Type(), x);
  return arith::TruncFOp::create(b, l, to, x32);
}

/// ONNX Cast of one element from `from` to `to` (signless types; the
/// signedness is passed separately).
Value convertScalar(OpBuilder &b, Location l, Value x, Type to,
                    bool fromUnsigned, bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return convertFloat(b, l, x, toF);
  if (fromF) {
    if (to.getIntOrFloatBitWidth() == 1)
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, x,
                                   zeroConst(b, l, from));
    // Narrow targets go through a wider signed integer and truncate, so an
    // out-of-range value wraps (as numpy's astype does on common targets)
    // instead of being poison; in-range values are exact either way.
    unsigned wt = to.getIntOrFloatBitWidth();
    if (wt < 32 || (toUnsigned && wt == 32)) {
      Type wide = b.getIntegerType(wt < 32 ? 32 : 64);
      Value w = arith::FPToSIOp::create(b, l, wide, x);
      return arith::TruncIOp::create(b, l, to, w);
    }
    if (toUnsigned)
      return arith::FPToUIOp::create(b, l, to, x);
    return arith::FPToSIOp::create(b, l, to, x);
  }
  unsigned wf = from.getIntOrFloatBitWidth();
  bool zext = fromUnsigned || wf == 1;
  if (toF) {
    if (toF.isBF16()) {
      // Through f32, with the bf16 truncation of the ONNX reference.
      Value f = zext ? arith::UIToFPOp::create(b, l, b.getF32Type(), x)
                           .getResult()
                     : arith::SIToFPOp::create(b, l, b.getF32Type(), x)
                           .getResult();
      return convertFloat(b, l, f, toF);
    }
    if (zext)
      return arith::UIToFPOp::create(b, l, to, x);
    return arith::SIToFPOp::create(b, l, to, x);
  }
  unsigned wt = to.getIntOrFloatBitWidth();
  if (wt == 1)
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x,
                                 zeroConst(b, l, from));
  if (wt > wf)
    return zext ? arith::ExtUIOp::create(b, l, to, x).getResult()
                : arith::ExtSIOp::create(b, l, to, x).getResult();
  if (wt < wf)
    return arith::TruncIOp::create(b, l, to, x);
  return x;
}

/// The first element of a one-element tensor (any rank) as a scalar.
Value extractScalar(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> idx;
  if (type.getRank() > 0)
    idx.assign(type.getRank(), indexConst(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, idx);
}

/// Pads the spatial dims (2..) of an NC... tensor with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, Value value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> lo{0, 0}, hi{0, 0}, shape(type.getShape());
  lo.append(low.begin(), low.end());
  hi.append(high.begin(), high.end());
  for (size_t i = 0; i < shape.size(); ++i)
    shape[i] += lo[i] + hi[i];
  auto padded = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, padded, x,
                               getAsIndexOpFoldResult(b.getContext(), lo),
                               getAsIndexOpFoldResult(b.getContext(), hi),
                               value);
}

//===----------------------------------------------------------------------===//
// graph.constant, graph.shape
//===----------------------------------------------------------------------===//

/// graph.constant -> arith.constant (unsigned element types are reinterpreted
/// as signless of the same width).
///
///   %0 = graph.constant dense<[1, 2]> : tensor<2xui8>
/// becomes
///   %0 = arith.constant dense<[1, 2]> : tensor<2xi8>
struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Attribute value = op.getValue();
    auto shaped = cast<ShapedType>(cast<TypedAttr>(value).getType());
    if (isUnsignedElem(shaped)) {
      auto signless = cast<ShapedType>(toSignless(shaped));
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(signless.getElementType());
      else if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(signless, res.getRawHandle());
      else
        return failOp(rewriter, op,
                      "unsigned constant of this attribute kind is not "
                      "supported");
    }
    auto typed = dyn_cast<TypedAttr>(value);
    if (!typed)
      return failOp(rewriter, op, "unsupported constant attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, typed);
    return success();
  }
};

/// graph.shape on a static input (normally folded before) -> arith.constant.
/// Only the dimensions in [start, end) must be static.
///
///   %0 = graph.shape %x {start = 1} : (tensor<2x3x4xf32>) -> tensor<2xi64>
/// becomes
///   %0 = arith.constant dense<[3, 4]> : tensor<2xi64>
struct ShapeLowering : OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ShapeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Only the dimensions that the result reads must be static.
    auto x = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!x || !resultType || !resultType.hasStaticShape())
      return failOp(rewriter, op,
                    "shape of an unranked tensor is not supported (run "
                    "tfrt-specialize-shapes)");
    auto [s, e] = shapeOpRange(x.getRank(), op.getStart(), op.getEnd());
    SmallVector<APInt> dims;
    RankedTensorType type = loweredResultType(op);
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    for (int64_t i = s; i < e; ++i) {
      if (x.isDynamicDim(i))
        return failOp(rewriter, op,
                      "shape of a dynamic dimension is not supported (run "
                      "tfrt-specialize-shapes)");
      dims.push_back(APInt(width, x.getDimSize(i)));
    }
    if (static_cast<int64_t>(dims.size()) != type.getNumElements())
      return failOp(rewriter, op, "shape result type does not match its input");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseIntElementsAttr::get(type, dims));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

/// add/sub/mul/div/pow with numpy broadcasting -> one linalg.generic.
///
///   %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
/// becomes
///   %e = tensor.empty() : tensor<2x3xf32>
///   %0 = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1),
///                                         (d0, d1) -> (d1), (d0, d1) -> (d0, d1)],
///                        iterator_types = ["parallel", "parallel"]}
///       ins(%a, %b : ...) outs(%e : tensor<2x3xf32>) {
///     ^bb0(%x: f32, %y: f32, %o: f32):
///       %s = arith.addf %x, %y : f32
///       linalg.yield %s : f32
///   } -> tensor<2x3xf32>
/// An operand dim of 1 where the result is larger reads index 0. Integer div
/// truncates toward zero (divsi; divui for uiN). Pow keeps the base's type:
/// a float base with an integer exponent converts the exponent (sitofp or
/// uitofp); an integer base computes in f64 and converts back.
template <typename OpTy>
struct BinaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  static Value compute(OpBuilder &b, Location l, Value x, Value y,
                       bool lhsUnsigned, bool rhsUnsigned) {
    bool isFloat = isa<FloatType>(x.getType());
    if constexpr (std::is_same_v<OpTy, AddOp>)
      return addScalar(b, l, x, y);
    if constexpr (std::is_same_v<OpTy, MulOp>)
      return mulScalar(b, l, x, y);
    if constexpr (std::is_same_v<OpTy, SubOp>) {
      if (isFloat)
        return arith::SubFOp::create(b, l, x, y);
      return arith::SubIOp::create(b, l, x, y);
    }
    if constexpr (std::is_same_v<OpTy, DivOp>) {
      if (isFloat)
        return arith::DivFOp::create(b, l, x, y);
      // Integer division traps on x86 for a zero divisor and for the
      // smallest value over -1: a zero divisor gives 0 (as Mod's does), and
      // x / -1 is the wrapping negation (the smallest value stays itself).
      Type t = x.getType();
      Value zero = zeroConst(b, l, t);
      Value one = scalarConst(b, l, t, 1);
      Value yZero =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y, zero);
      if (lhsUnsigned) {
        Value q = arith::DivUIOp::create(
            b, l, x, arith::SelectOp::create(b, l, yZero, one, y));
        return arith::SelectOp::create(b, l, yZero, zero, q);
      }
      Value yMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                              scalarConst(b, l, t, -1));
      Value special = arith::OrIOp::create(b, l, yZero, yMinusOne);
      Value q = arith::DivSIOp::create(
          b, l, x, arith::SelectOp::create(b, l, special, one, y));
      q = arith::SelectOp::create(b, l, yMinusOne,
                                  arith::SubIOp::create(b, l, zero, x), q);
      return arith::SelectOp::create(b, l, yZero, zero, q);
    }
    if constexpr (std::is_same_v<OpTy, PowOp>) {
      Type baseType = x.getType();
      if (auto f = dyn_cast<FloatType>(baseType)) {
        Value e = convertScalar(b, l, y, f, rhsUnsigned, false);
        return math::PowFOp::create(b, l, x, e);
      }
      FloatType f64 = b.getF64Type();
      Value xf = convertScalar(b, l, x, f64, lhsUnsigned, false);
      Value ef = convertScalar(b, l, y, f64, rhsUnsigned, false);
      Value r = math::PowFOp::create(b, l, xf, ef);
      return convertScalar(b, l, r, baseType, false, lhsUnsigned);
    }
    llvm_unreachable("unhandled binary op");
  }

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Type lhsElem = getElementTypeOrSelf(adaptor.getLhs().getType());
    Type rhsElem = getElementTypeOrSelf(adaptor.getRhs().getType());
    if (!lhsElem.isIntOrFloat() || !rhsElem.isIntOrFloat())
      return failOp(rewriter, op, opName(op) + " on non-numeric types");
    if (!std::is_same_v<OpTy, PowOp> && lhsElem != rhsElem)
      return failOp(rewriter, op,
                    opName(op) + " operands have different element types");
    bool lu = isUnsignedElem(op.getLhs().getType());
    bool ru = isUnsignedElem(op.getRhs().getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), loweredResultType(op),
        {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return compute(b, l, args[0], args[1], lu, ru);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

/// Elementwise unary op -> one linalg.generic applying the op to each element.
///
///   %0 = graph.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
/// becomes
///   %e = tensor.empty() : tensor<4xf32>
///   %0 = linalg.generic {indexing_maps = [(d0) -> (d0), (d0) -> (d0)],
///                        iterator_types = ["parallel"]}
///       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
///     ^bb0(%in: f32, %out: f32):
///       %n = arith.negf %in : f32
///       %x = math.exp %n : f32
///       %d = arith.addf %x, %one : f32
///       %r = arith.divf %one, %d : f32
///       linalg.yield %r : f32
///   } -> tensor<4xf32>
/// relu/neg/abs also take integers (signed; abs and relu of uiN are the
/// identity); the others need floats. graph.identity is replaced by its input.
template <typename OpTy>
struct UnaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  static constexpr bool acceptsInt =
      std::is_same_v<OpTy, ReluOp> || std::is_same_v<OpTy, NegOp> ||
      std::is_same_v<OpTy, AbsOp>;

  static Value compute(OpTy op, OpBuilder &b, Location l, Value x,
                       bool isUnsigned) {
    Type t = x.getType();
    bool isFloat = isa<FloatType>(t);
    if constexpr (std::is_same_v<OpTy, ReluOp>) {
      if (isUnsigned)
        return x;
      if (isFloat)
        return clampMax(b, l, x, zeroConst(b, l, t));
      return arith::MaxSIOp::create(b, l, x, zeroConst(b, l, t));
    }
    if constexpr (std::is_same_v<OpTy, NegOp>) {
      if (isFloat)
        return arith::NegFOp::create(b, l, x);
      return arith::SubIOp::create(b, l, zeroConst(b, l, t), x);
    }
    if constexpr (std::is_same_v<OpTy, AbsOp>) {
      if (isUnsigned)
        return x;
      if (isFloat)
        return math::AbsFOp::create(b, l, x);
      // max(x, 0 - x) rather than math.absi, which not every math lowering
      // handles; INT_MIN stays INT_MIN as in numpy.
      return arith::MaxSIOp::create(
          b, l, x, arith::SubIOp::create(b, l, zeroConst(b, l, t), x));
    }
    if constexpr (std::is_same_v<OpTy, SigmoidOp>) {
      // s = 1 / (1 + exp(-|x|)) is sigmoid(|x|); for x < 0 the result is
      // exp(x) * s = exp(x) / (1 + exp(x)), which stays accurate where
      // 1 / (1 + exp(-x)) would overflow exp (x < -88.7; the value is then
      // subnormal, down to x = -103.97). NaN gives NaN either way.
      Value one = scalarConst(b, l, t, 1.0);
      Value e = math::ExpOp::create(
          b, l, arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, x)));
      Value s =
          arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
      Value negative = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x,
                                             zeroConst(b, l, t));
      return arith::SelectOp::create(b, l, negative,
                                     arith::MulFOp::create(b, l, e, s), s);
    }
    if constexpr (std::is_same_v<OpTy, TanhOp>)
      return math::TanhOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, ExpOp>)
      return math::ExpOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, LogOp>)
      return math::LogOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, SqrtOp>)
      return math::SqrtOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, HardSigmoidOp> ||
                  std::is_same_v<OpTy, HardSwishOp>) {
      double alpha = 1.0 / 6.0, beta = 0.5;
      if constexpr (std::is_same_v<OpTy, HardSigmoidOp>) {
        alpha = op.getAlpha().convertToDouble();
        beta = op.getBeta().convertToDouble();
      }
      Value v = arith::AddFOp::create(
          b, l, arith::MulFOp::create(b, l, scalarConst(b, l, t, alpha), x),
          scalarConst(b, l, t, beta));
      v = clampMin(b, l, v, scalarConst(b, l, t, 1.0));
      v = clampMax(b, l, v, zeroConst(b, l, t));
      if constexpr (std::is_same_v<OpTy, HardSwishOp>)
        v = arith::MulFOp::create(b, l, x, v);
      return v;
    }
    llvm_unreachable("unhandled unary op");
  }

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if constexpr (std::is_same_v<OpTy, IdentityOp>) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    } else {
      bool isUnsigned = isUnsignedElem(op.getInput().getType());
      Type elem = getElementTypeOrSelf(op.getType());
      if (!isFloatElem(elem) &&
          (!acceptsInt || !elem.isInteger() ||
           (std::is_same_v<OpTy, NegOp> && isUnsigned)))
        return requireFloat(rewriter, op);
      if (replaceIfEmpty(rewriter, op))
        return success();
      Value result = buildElementwise(
          rewriter, op.getLoc(), loweredResultType(op), {adaptor.getInput()},
          [&](OpBuilder &b, Location l, ValueRange args) {
            return compute(op, b, l, args[0], isUnsigned);
          });
      rewriter.replaceOp(op, result);
      return success();
    }
  }
};

/// graph.clip -> scalar bounds extracted from the 0-D / one-element min and
/// max tensors, then min(max(x, lo), hi) in one generic.
///
///   %0 = graph.clip %x, %lo, %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
/// becomes
///   %l = tensor.extract %lo[] : tensor<f32>
///   %h = tensor.extract %hi[] : tensor<f32>
///   %0 = linalg.generic ... ins(%x) outs(%e) {
///     ^bb0(%in: f32, %out: f32):
///       %a = arith.maximumf %in, %l : f32
///       %b = arith.minimumf %a, %h : f32
///       linalg.yield %b : f32
///   }
/// Integers use maxsi/minsi (maxui/minui for uiN).
struct ClipLowering : OpConversionPattern<ClipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    for (Value bound : {op.getMin(), op.getMax()})
      if (cast<RankedTensorType>(bound.getType()).getNumElements() != 1)
        return failOp(rewriter, op, "clip bounds must have one element");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    Value lo = extractScalar(rewriter, loc, adaptor.getMin());
    Value hi = extractScalar(rewriter, loc, adaptor.getMax());
    Value result = buildElementwise(
        rewriter, loc, loweredResultType(op), {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = args[0];
          if (isa<FloatType>(x.getType()))
            return clampMin(b, l, clampMax(b, l, x, lo), hi);
          if (isUnsigned)
            return arith::MinUIOp::create(
                b, l, arith::MaxUIOp::create(b, l, x, lo), hi);
          return arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, x, lo), hi);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.cast -> one generic converting each element.
///
///   %0 = graph.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
/// becomes
///   %0 = linalg.generic ... ins(%x : tensor<4xf32>) outs(%e : tensor<4xi32>) {
///     ^bb0(%in: f32, %out: i32):
///       %c = arith.fptosi %in : f32 to i32
///       linalg.yield %c : i32
///   }
/// float -> int truncates toward zero (fptosi/fptoui; targets narrower than
/// 32 bits, and ui32, convert to a wider signed int first and truncate, so
/// out-of-range values wrap rather than being poison), int -> float uses
/// sitofp (uitofp for uiN and i1), ints extend by the source signedness or
/// truncate, to bool is `x != 0`, float -> bf16 truncates the f32 bits (as the
/// ONNX reference does), other float conversions extf/truncf (round to
/// nearest even).
struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    Type from = getElementTypeOrSelf(op.getInput().getType());
    Type to = getElementTypeOrSelf(op.getType());
    if (!from.isIntOrFloat() || !to.isIntOrFloat())
      return failOp(rewriter, op,
                    "cast from " + typeStr(from) + " to " + typeStr(to) +
                        " is not supported");
    if (replaceIfEmpty(rewriter, op))
      return success();
    RankedTensorType type = loweredResultType(op);
    if (loweredType(op.getInput()) == type) {
      // Same bits (e.g. ui8 <-> i8): nothing to compute.
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    bool fu = isUnsignedElem(from), tu = isUnsignedElem(to);
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return convertScalar(b, l, args[0], type.getElementType(), fu, tu);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.batch_norm -> one generic, the parameters indexed by channel dim 1.
///
///   %0 = graph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
///       : (tensor<1x4x8x8xf32>, tensor<4xf32>, ...) -> tensor<1x4x8x8xf32>
/// becomes
///   %0 = linalg.generic {indexing_maps = [(n,c,h,w) -> (n,c,h,w), (n,c,h,w) -> (c),
///                        (..) -> (c), (..) -> (c), (..) -> (c), (..) -> (n,c,h,w)]}
///       ins(%x, %s, %b, %m, %v) outs(%e) {
///     ^bb0(%x, %s, %b, %m, %v, %o):
///       (x - m) / sqrt(v + eps) * s + b
///   }
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    MLIRContext *ctx = getContext();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap chan = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    Location loc = op.getLoc();
    Type elem = type.getElementType();
    Value init = emptyTensor(rewriter, loc, type.getShape(), elem);
    double eps = op.getEpsilon().convertToDouble();
    Value result = buildGeneric(
        rewriter, loc,
        {adaptor.getInput(), adaptor.getScale(), adaptor.getBias(),
         adaptor.getMean(), adaptor.getVariance()},
        init, {id, chan, chan, chan, chan, id}, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
          Value stddev = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[4], scalarConst(b, l, elem, eps)));
          Value norm = arith::DivFOp::create(b, l, centered, stddev);
          return arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, norm, a[1]), a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// MatMul, Gemm
//===----------------------------------------------------------------------===//

/// graph.matmul (numpy semantics) -> linalg.matmul for 2-D x 2-D,
/// linalg.batch_matmul for 3-D x 3-D with equal batch sizes, otherwise a
/// contraction generic over (batch..., m, n, k) with broadcast batch maps; a
/// 1-D operand has no m (lhs) / n (rhs) loop. The init is linalg.fill 0.
///
///   %0 = graph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
/// becomes
///   %z = linalg.fill ins(%cst0) outs(%e : tensor<2x3x5xf32>)
///   %0 = linalg.generic {indexing_maps = [(b,m,n,k) -> (b,m,k), (b,m,n,k) -> (k,n),
///                                         (b,m,n,k) -> (b,m,n)],
///                        iterator_types = [par, par, par, red]}
///       ins(%a, %b) outs(%z) { %o + %x * %y }
struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    if (!elem.isIntOrFloat() || lt.getElementType() != elem ||
        rt.getElementType() != elem)
      return failOp(rewriter, op,
                    "matmul needs numeric operands of the result type");
    int64_t ra = lt.getRank(), rb = rt.getRank(), rank = type.getRank();
    if (ra == 0 || rb == 0)
      return failOp(rewriter, op, "matmul operands must have rank >= 1");
    bool hasM = ra >= 2, hasN = rb >= 2;
    int64_t nb = rank - hasM - hasN;
    if (nb < 0 || (hasM && nb < ra - 2) || (hasN && nb < rb - 2))
      return failOp(rewriter, op, "matmul result rank does not match");
    Value init = filledTensor(rewriter, loc, type.getShape(),
                              zeroConst(rewriter, loc, elem));
    if (ra == 2 && rb == 2) {
      auto mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{type},
                                         ValueRange{lhs, rhs},
                                         ValueRange{init});
      rewriter.replaceOp(op, mm.getResult(0));
      return success();
    }
    if (ra == 3 && rb == 3 && lt.getDimSize(0) == rt.getDimSize(0)) {
      auto bmm = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{type},
                                               ValueRange{lhs, rhs},
                                               ValueRange{init});
      rewriter.replaceOp(op, bmm.getResult(0));
      return success();
    }
    int64_t dimM = nb, dimN = nb + hasM, dimK = nb + hasM + hasN;
    int64_t loops = dimK + 1;
    ArrayRef<int64_t> shape = type.getShape();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto batchExprs = [&](ArrayRef<int64_t> opBatch) {
      SmallVector<AffineExpr> exprs;
      int64_t off = nb - opBatch.size();
      for (auto [i, s] : llvm::enumerate(opBatch)) {
        int64_t j = i + off;
        exprs.push_back(s == 1 && shape[j] != 1 ? getAffineConstantExpr(0, ctx)
                                                : d(j));
      }
      return exprs;
    };
    SmallVector<AffineExpr> le, re, oe;
    if (hasM) {
      le = batchExprs(lt.getShape().drop_back(2));
      le.append({d(dimM), d(dimK)});
    } else {
      le.push_back(d(dimK));
    }
    if (hasN) {
      re = batchExprs(rt.getShape().drop_back(2));
      re.append({d(dimK), d(dimN)});
    } else {
      re.push_back(d(dimK));
    }
    for (int64_t i = 0; i < nb; ++i)
      oe.push_back(d(i));
    if (hasM)
      oe.push_back(d(dimM));
    if (hasN)
      oe.push_back(d(dimN));
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, le, ctx),
                                AffineMap::get(loops, 0, re, ctx),
                                AffineMap::get(loops, 0, oe, ctx)};
    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    iters.back() = utils::IteratorType::reduction;
    Value result = buildGeneric(rewriter, loc, {lhs, rhs}, init, maps, iters,
                                [](OpBuilder &b, Location l, ValueRange a) {
                                  return mulAdd(b, l, a[2], a[0], a[1]);
                                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.gemm -> alpha * op(A) * op(B) + beta * C: a contraction generic over
/// (m, n, k) with the transposes in the maps. With alpha == 1 the init holds
/// beta * C (C broadcast to [M, N]) and the contraction accumulates onto it;
/// otherwise a final generic computes alpha * acc + beta * C. C is ignored
/// when absent or beta == 0.
///
///   %0 = graph.gemm %a, %b, %c {alpha = 1.0, beta = 1.0, trans_a = false, trans_b = true}
///       : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
/// becomes
///   %i = linalg.generic {maps = [(m,n) -> (n), (m,n) -> (m,n)]} ins(%c) outs(%e) { %c }
///   %0 = linalg.generic {indexing_maps = [(m,n,k) -> (m,k), (m,n,k) -> (n,k),
///                                         (m,n,k) -> (m,n)],
///                        iterator_types = [par, par, red]}
///       ins(%a, %b) outs(%i) { %o + %x * %y }
struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    auto at = cast<RankedTensorType>(adaptor.getA().getType());
    auto bt = cast<RankedTensorType>(adaptor.getB().getType());
    if (at.getRank() != 2 || bt.getRank() != 2 || type.getRank() != 2)
      return failOp(rewriter, op, "gemm operands must be 2-D");
    if (!elem.isIntOrFloat() || at.getElementType() != elem ||
        bt.getElementType() != elem)
      return failOp(rewriter, op,
                    "gemm needs numeric operands of the result type");
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    bool hasC = c && beta != 0.0;
    bool isFloat = isa<FloatType>(elem);
    if (!isFloat && (alpha != 1.0 || (hasC && beta != 1.0)))
      return failOp(rewriter, op,
                    "integer gemm with alpha or beta other than 1 is not "
                    "supported");
    ArrayRef<int64_t> shape = type.getShape();
    AffineMap id2 = rewriter.getMultiDimIdentityMap(2);
    auto scaledC = [&](OpBuilder &b, Location l, Value cv) -> Value {
      return beta == 1.0 ? cv : mulScalar(b, l, scalarConst(b, l, elem, beta), cv);
    };

    // The accumulator's init: beta * C when alpha == 1, else zeros.
    Value init;
    bool cInInit = hasC && alpha == 1.0;
    if (cInInit) {
      auto ct = cast<RankedTensorType>(c.getType());
      init = buildGeneric(
          rewriter, loc, {c}, emptyTensor(rewriter, loc, shape, elem),
          {broadcastMap(ctx, ct.getShape(), shape), id2}, parallelIters(2),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return scaledC(b, l, a[0]);
          });
    } else {
      init = filledTensor(rewriter, loc, shape, zeroConst(rewriter, loc, elem));
    }

    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    AffineExpr m = d(0), n = d(1), k = d(2);
    SmallVector<AffineMap> maps{
        AffineMap::get(3, 0,
                       op.getTransA() ? ArrayRef<AffineExpr>{k, m}
                                      : ArrayRef<AffineExpr>{m, k},
                       ctx),
        AffineMap::get(3, 0,
                       op.getTransB() ? ArrayRef<AffineExpr>{n, k}
                                      : ArrayRef<AffineExpr>{k, n},
                       ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    SmallVector<utils::IteratorType> iters = parallelIters(3);
    iters[2] = utils::IteratorType::reduction;
    Value acc = buildGeneric(rewriter, loc, {adaptor.getA(), adaptor.getB()},
                             init, maps, iters,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return mulAdd(b, l, a[2], a[0], a[1]);
                             });
    if (alpha == 1.0) {
      rewriter.replaceOp(op, acc);
      return success();
    }
    SmallVector<Value> ins{acc};
    SmallVector<AffineMap> finalMaps{id2};
    if (hasC) {
      ins.push_back(c);
      finalMaps.push_back(broadcastMap(
          ctx, cast<RankedTensorType>(c.getType()).getShape(), shape));
    }
    finalMaps.push_back(id2);
    Value result = buildGeneric(
        rewriter, loc, ins, emptyTensor(rewriter, loc, shape, elem), finalMaps,
        parallelIters(2), [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = mulScalar(b, l, scalarConst(b, l, elem, alpha), a[0]);
          if (hasC)
            v = addScalar(b, l, v, scaledC(b, l, a[1]));
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

/// graph.conv (N-D, NC[D]HW, grouped) -> zero tensor.pad of the input, then
/// one contraction generic. With group G > 1 the channels are split by
/// tensor.expand_shape: input [N, C, s...] -> [N, G, C/G, s...], weight
/// [M, C/G, k...] -> [G, M/G, C/G, k...], and the [N, G, M/G, o...] result is
/// collapsed back to [N, M, o...]. The init is the bias broadcast over the
/// output (or zeros).
///
///   %0 = graph.conv %x, %w, %b {strides = [2, 2], pads = [1, 1, 1, 1],
///                               dilations = [1, 1], group = 1}
///       : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
/// becomes
///   %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 0] { yield %cst0 }
///   %i = linalg.generic {maps = [(n,m,oh,ow) -> (m), id]} ins(%b) outs(%e) { %b }
///   %0 = linalg.generic {indexing_maps = [
///          (n,m,oh,ow,c,kh,kw) -> (n, c, oh * 2 + kh, ow * 2 + kw),
///          (n,m,oh,ow,c,kh,kw) -> (m, c, kh, kw),
///          (n,m,oh,ow,c,kh,kw) -> (n, m, oh, ow)],
///        iterator_types = [par, par, par, par, red, red, red]}
///       ins(%p, %w) outs(%i) { %o + %x * %y }
/// (The end padding is only what the windows reach.)
struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    auto xt = cast<RankedTensorType>(x.getType());
    auto wt = cast<RankedTensorType>(w.getType());
    int64_t rank = xt.getRank(), spatial = rank - 2;
    if (rank < 3 || wt.getRank() != rank || type.getRank() != rank)
      return failOp(rewriter, op, "conv operands must have matching rank >= 3");
    if (!elem.isIntOrFloat() || xt.getElementType() != elem ||
        wt.getElementType() != elem)
      return failOp(rewriter, op,
                    "conv needs numeric operands of the result type");
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    if (static_cast<int64_t>(strides.size()) != spatial ||
        static_cast<int64_t>(dilations.size()) != spatial ||
        static_cast<int64_t>(pads.size()) != 2 * spatial)
      return failOp(rewriter, op, "conv attributes do not match its rank");
    int64_t groups = static_cast<int64_t>(op.getGroup());
    int64_t n = xt.getDimSize(0), cin = xt.getDimSize(1);
    int64_t m = wt.getDimSize(0), cg = wt.getDimSize(1);
    if (groups < 1 || cin != cg * groups || m % groups != 0 ||
        type.getDimSize(1) != m || type.getDimSize(0) != n)
      return failOp(rewriter, op,
                    "conv channels do not match the weight and group");
    for (int64_t i = 0; i < spatial; ++i)
      if (strides[i] < 1 || dilations[i] < 1 || pads[i] < 0 ||
          pads[i + spatial] < 0)
        return failOp(rewriter, op, "conv has invalid strides/dilations/pads");
    if (Value bias = adaptor.getBias()) {
      auto bt = cast<RankedTensorType>(bias.getType());
      if (bt.getRank() != 1 || bt.getDimSize(0) != m ||
          bt.getElementType() != elem)
        return failOp(rewriter, op, "conv bias must have shape [M]");
    }
    if (replaceIfEmpty(rewriter, op))
      return success();

    // Pad the input: begin pads as given, end pads as far as windows reach.
    SmallVector<int64_t> low, high;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t needed = (type.getDimSize(2 + i) - 1) * strides[i] +
                       (wt.getDimSize(2 + i) - 1) * dilations[i] + 1;
      low.push_back(pads[i]);
      high.push_back(
          std::max<int64_t>(0, needed - xt.getDimSize(2 + i) - pads[i]));
    }
    Value padded =
        padSpatial(rewriter, loc, x, low, high, zeroConst(rewriter, loc, elem));

    // Loops: n, [g,] m, o..., c, k...
    bool grouped = groups > 1;
    int64_t mg = m / groups;
    int64_t dN = 0, dG = 1, dM = grouped ? 2 : 1, dO = dM + 1,
            dC = dO + spatial, dK = dC + 1, loops = dK + spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xe{d(dN)}, we, oe{d(dN)};
    if (grouped) {
      xe.push_back(d(dG));
      we.push_back(d(dG));
      oe.push_back(d(dG));
    }
    xe.push_back(d(dC));
    we.append({d(dM), d(dC)});
    oe.push_back(d(dM));
    for (int64_t i = 0; i < spatial; ++i) {
      xe.push_back(d(dO + i) * strides[i] + d(dK + i) * dilations[i]);
      we.push_back(d(dK + i));
      oe.push_back(d(dO + i));
    }
    SmallVector<int64_t> outShape{n};
    if (grouped) {
      auto pt = cast<RankedTensorType>(padded.getType());
      SmallVector<int64_t> xs{n, groups, cg}, ws{groups, mg, cg};
      SmallVector<ReassociationIndices> xr{{0}, {1, 2}}, wr{{0, 1}, {2}};
      for (int64_t i = 0; i < spatial; ++i) {
        xs.push_back(pt.getDimSize(2 + i));
        ws.push_back(wt.getDimSize(2 + i));
        xr.push_back({3 + i});
        wr.push_back({3 + i});
      }
      padded = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(xs, elem), padded, xr);
      w = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(ws, elem), w, wr);
      outShape.append({groups, mg});
    } else {
      outShape.push_back(m);
    }
    for (int64_t i = 0; i < spatial; ++i)
      outShape.push_back(type.getDimSize(2 + i));
    int64_t outRank = outShape.size();

    // Init: the bias broadcast over the output, or zeros.
    Value init;
    if (Value bias = adaptor.getBias()) {
      SmallVector<AffineExpr> be;
      if (grouped) {
        bias = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get({groups, mg}, elem), bias,
            ArrayRef<ReassociationIndices>{{0, 1}});
        be = {d(1), d(2)};
      } else {
        be = {d(1)};
      }
      init = buildGeneric(
          rewriter, loc, {bias}, emptyTensor(rewriter, loc, outShape, elem),
          {AffineMap::get(outRank, 0, be, ctx),
           rewriter.getMultiDimIdentityMap(outRank)},
          parallelIters(outRank),
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    } else {
      init = filledTensor(rewriter, loc, outShape,
                          zeroConst(rewriter, loc, elem));
    }

    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    for (int64_t i = dC; i < loops; ++i)
      iters[i] = utils::IteratorType::reduction;
    Value result = buildGeneric(
        rewriter, loc, {padded, w}, init,
        {AffineMap::get(loops, 0, xe, ctx), AffineMap::get(loops, 0, we, ctx),
         AffineMap::get(loops, 0, oe, ctx)},
        iters, [](OpBuilder &b, Location l, ValueRange a) {
          return mulAdd(b, l, a[2], a[0], a[1]);
        });
    if (grouped) {
      SmallVector<ReassociationIndices> orr{{0}, {1, 2}};
      for (int64_t i = 0; i < spatial; ++i)
        orr.push_back({3 + i});
      result = tensor::CollapseShapeOp::create(rewriter, loc, type, result, orr);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Validated pooling parameters of an [N, C, s...] -> [N, C, o...] window op.
struct PoolParams {
  SmallVector<int64_t> kernel, strides, padBegin, padEnd, dilations;
  int64_t spatial;
};

FailureOr<PoolParams> getPoolParams(ConversionPatternRewriter &rewriter,
                                    Operation *op, ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> pads,
                                    ArrayRef<int64_t> dilations) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  PoolParams p;
  p.spatial = xt.getRank() - 2;
  size_t s = p.spatial;
  if (p.spatial < 1 || rt.getRank() != xt.getRank() || kernel.size() != s ||
      strides.size() != s || dilations.size() != s || pads.size() != 2 * s) {
    (void)failOp(rewriter, op, opName(op) + " attributes do not match its rank");
    return failure();
  }
  for (size_t i = 0; i < s; ++i) {
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1 || pads[i] < 0 ||
        pads[i + s] < 0) {
      (void)failOp(rewriter, op,
                   opName(op) + " has invalid kernel/strides/dilations/pads");
      return failure();
    }
  }
  p.kernel.assign(kernel.begin(), kernel.end());
  p.strides.assign(strides.begin(), strides.end());
  p.dilations.assign(dilations.begin(), dilations.end());
  p.padBegin.assign(pads.begin(), pads.begin() + s);
  p.padEnd.assign(pads.begin() + s, pads.end());
  return p;
}

/// Reduces every window of `x` (padded with `padValue`) into `init`, in one
/// generic over (n, c, o..., k...) with a kernel-shaped window operand, like
/// the linalg.pooling_* ops. The end padding is what the windows reach
/// (ceil_mode windows may reach past the explicit pads).
Value buildWindowReduce(OpBuilder &b, Location loc, Value x, Value init,
                        const PoolParams &p, Value padValue, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  auto ot = cast<RankedTensorType>(init.getType());
  int64_t s = p.spatial;
  SmallVector<int64_t> high;
  for (int64_t i = 0; i < s; ++i) {
    int64_t needed = (ot.getDimSize(2 + i) - 1) * p.strides[i] +
                     (p.kernel[i] - 1) * p.dilations[i] + 1;
    high.push_back(
        std::max<int64_t>(0, needed - xt.getDimSize(2 + i) - p.padBegin[i]));
  }
  Value padded = padSpatial(b, loc, x, p.padBegin, high, padValue);
  Value window = emptyTensor(b, loc, p.kernel, xt.getElementType());
  int64_t loops = 2 + 2 * s;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe{d(0), d(1)}, we, oe{d(0), d(1)};
  for (int64_t i = 0; i < s; ++i) {
    xe.push_back(d(2 + i) * p.strides[i] + d(2 + s + i) * p.dilations[i]);
    we.push_back(d(2 + s + i));
    oe.push_back(d(2 + i));
  }
  SmallVector<utils::IteratorType> iters = parallelIters(loops);
  for (int64_t i = 2 + s; i < loops; ++i)
    iters[i] = utils::IteratorType::reduction;
  return buildGeneric(b, loc, {padded, window}, init,
                      {AffineMap::get(loops, 0, xe, ctx),
                       AffineMap::get(loops, 0, we, ctx),
                       AffineMap::get(loops, 0, oe, ctx)},
                      iters, body);
}

/// graph.max_pool -> pad with -inf (lowest integer), max over each window.
///
///   %0 = graph.max_pool %x {kernel_shape = [2, 2], strides = [2, 2], pads = [0, 0, 0, 0],
///                           dilations = [1, 1], ceil_mode = false}
///       : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
/// becomes
///   %i = linalg.fill ins(%neginf) outs(%e : tensor<1x4x4x4xf32>)
///   %w = tensor.empty() : tensor<2x2xf32>
///   %0 = linalg.generic {indexing_maps = [
///          (n,c,oh,ow,kh,kw) -> (n, c, oh * 2 + kh, ow * 2 + kw),
///          (n,c,oh,ow,kh,kw) -> (kh, kw), (n,c,oh,ow,kh,kw) -> (n, c, oh, ow)],
///        iterator_types = [par, par, par, par, red, red]}
///       ins(%x, %w) outs(%i) { arith.maximumf %in, %out }
struct MaxPoolLowering : OpConversionPattern<MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    auto p = getPoolParams(rewriter, op, op.getKernelShape(), op.getStrides(),
                           op.getPads(), op.getDilations());
    if (failed(p))
      return failure();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    if (!elem.isIntOrFloat())
      return failOp(rewriter, op, "max_pool on non-numeric types");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    bool isUnsigned = isUnsignedElem(op.getType());
    Value lowest = lowestConst(rewriter, loc, elem, isUnsigned);
    Value init = filledTensor(rewriter, loc, type.getShape(), lowest);
    Value result = buildWindowReduce(
        rewriter, loc, adaptor.getInput(), init, *p, lowest,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if (isa<FloatType>(elem))
            return arith::MaximumFOp::create(b, l, a[0], a[2]);
          if (isUnsigned)
            return arith::MaxUIOp::create(b, l, a[0], a[2]);
          return arith::MaxSIOp::create(b, l, a[0], a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.average_pool -> zero pad, sum over each window, then divide by the
/// per-position divisor computed here: the number of window taps inside the
/// input (count_include_pad = false) or inside the explicitly padded input
/// (count_include_pad = true; taps that ceil_mode adds past the end pads do
/// not count, as in ONNX Runtime/PyTorch). A uniform divisor is a scalar,
/// otherwise a constant tensor of shape [o...] broadcast over N and C.
///
///   %0 = graph.average_pool %x {kernel_shape = [3], strides = [1], pads = [1, 1],
///                               dilations = [1], ceil_mode = false,
///                               count_include_pad = false}
///       : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
/// becomes
///   %p = tensor.pad %x low[0, 0, 1] high[0, 0, 1] { yield %cst0 }
///   %s = linalg.generic {maps = [(n,c,o,k) -> (n, c, o + k), (n,c,o,k) -> (k),
///                        (n,c,o,k) -> (n, c, o)]} ins(%p, %w) outs(%zeros) { + }
///   %d = arith.constant dense<[2.0, 3.0, 3.0, 2.0]> : tensor<4xf32>
///   %0 = linalg.generic {maps = [id, (n,c,o) -> (o), id]} ins(%s, %d) outs(%e) { / }
struct AveragePoolLowering : OpConversionPattern<AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    auto p = getPoolParams(rewriter, op, op.getKernelShape(), op.getStrides(),
                           op.getPads(), op.getDilations());
    if (failed(p))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    auto elem = cast<FloatType>(type.getElementType());
    auto xt = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t s = p->spatial, rank = type.getRank();
    Value zero = zeroConst(rewriter, loc, elem);
    Value init = filledTensor(rewriter, loc, type.getShape(), zero);
    Value sum = buildWindowReduce(
        rewriter, loc, adaptor.getInput(), init, *p, zero,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, a[0], a[2]);
        });

    // Divisor per spatial dim and output position, then their product.
    bool includePad = op.getCountIncludePad();
    ArrayRef<int64_t> outSpatial = type.getShape().drop_front(2);
    SmallVector<SmallVector<int64_t>> counts(s);
    for (int64_t i = 0; i < s; ++i) {
      int64_t in = xt.getDimSize(2 + i);
      int64_t lo = includePad ? 0 : p->padBegin[i];
      int64_t hi = includePad ? in + p->padBegin[i] + p->padEnd[i]
                              : p->padBegin[i] + in;
      for (int64_t o = 0; o < outSpatial[i]; ++o) {
        int64_t c = 0;
        for (int64_t k = 0; k < p->kernel[i]; ++k) {
          int64_t pos = o * p->strides[i] + k * p->dilations[i];
          c += pos >= lo && pos < hi;
        }
        counts[i].push_back(c);
      }
    }
    int64_t numOut = ShapedType::getNumElements(outSpatial);
    SmallVector<APFloat> divisors;
    divisors.reserve(numOut);
    SmallVector<int64_t> idx(s, 0);
    bool uniform = true;
    double first = 0;
    for (int64_t lin = 0; lin < numOut; ++lin) {
      int64_t rem = lin;
      for (int64_t i = s - 1; i >= 0; --i) {
        idx[i] = rem % outSpatial[i];
        rem /= outSpatial[i];
      }
      double v = 1;
      for (int64_t i = 0; i < s; ++i)
        v *= counts[i][idx[i]];
      if (lin == 0)
        first = v;
      uniform &= v == first;
      APFloat f(v);
      bool lost;
      f.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      divisors.push_back(f);
    }
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    Value empty = emptyTensor(rewriter, loc, type.getShape(), elem);
    Value result;
    if (uniform) {
      Value div = scalarConst(rewriter, loc, elem, first);
      result = buildGeneric(rewriter, loc, {sum}, empty, {id, id},
                            parallelIters(rank),
                            [&](OpBuilder &b, Location l, ValueRange a) {
                              return arith::DivFOp::create(b, l, a[0], div)
                                  .getResult();
                            });
    } else {
      auto divType = RankedTensorType::get(outSpatial, elem);
      Value div = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(divType, divisors));
      SmallVector<AffineExpr> de;
      for (int64_t i = 0; i < s; ++i)
        de.push_back(getAffineDimExpr(2 + i, ctx));
      result = buildGeneric(rewriter, loc, {sum, div}, empty,
                            {id, AffineMap::get(rank, 0, de, ctx), id},
                            parallelIters(rank),
                            [](OpBuilder &b, Location l, ValueRange a) {
                              return arith::DivFOp::create(b, l, a[0], a[1])
                                  .getResult();
                            });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.global_average_pool -> sum over the spatial dims into [N, C], then
/// divide by their count writing [N, C, 1...].
///
///   %0 = graph.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
/// becomes
///   %s = linalg.generic {maps = [(n,c,h,w) -> (n,c,h,w), (n,c,h,w) -> (n,c)],
///                        iterator_types = [par, par, red, red]}
///       ins(%x) outs(%zeros : tensor<1x4xf32>) { + }
///   %0 = linalg.generic {maps = [(n,c,h,w) -> (n,c), id]} ins(%s) outs(%e) { / 64.0 }
struct GlobalAveragePoolLowering : OpConversionPattern<GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    auto xt = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = xt.getRank();
    if (rank < 3 || type.getRank() != rank)
      return failOp(rewriter, op, "global_average_pool needs rank >= 3");
    int64_t count = ShapedType::getNumElements(xt.getShape().drop_front(2));
    AffineMap nc = AffineMap::get(
        rank, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iters = parallelIters(rank);
    for (int64_t i = 2; i < rank; ++i)
      iters[i] = utils::IteratorType::reduction;
    Value init = filledTensor(rewriter, loc,
                              {xt.getDimSize(0), xt.getDimSize(1)},
                              zeroConst(rewriter, loc, elem));
    Value sum = buildGeneric(
        rewriter, loc, {adaptor.getInput()}, init, {id, nc}, iters,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, a[0], a[1]);
        });
    Value div = scalarConst(rewriter, loc, elem, count);
    Value result = buildGeneric(
        rewriter, loc, {sum}, emptyTensor(rewriter, loc, type.getShape(), elem),
        {nc, id}, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::DivFOp::create(b, l, a[0], div);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.softmax -> five generics: max over the axis, exp(x - max), sum over
/// the axis, its inverse, product (numerically stable).
///
///   %0 = graph.softmax %x {axis = -1} : (tensor<2x5xf32>) -> tensor<2x5xf32>
/// becomes
///   %m = linalg.generic {maps = [(i,j) -> (i,j), (i,j) -> (i)], [par, red]}
///       ins(%x) outs(%neginf_fill : tensor<2xf32>) { maximumf }
///   %e = linalg.generic {maps = [id, (i,j) -> (i), id]} ins(%x, %m) outs(..) { exp(x - m) }
///   %s = linalg.generic {maps = [id, (i,j) -> (i)], [par, red]} ins(%e) outs(%zeros) { addf }
///   %r = linalg.generic {maps = [(i) -> (i), (i) -> (i)]} ins(%s) outs(..) { 1 / s }
///   %0 = linalg.generic {maps = [id, (i,j) -> (i), id]} ins(%e, %r) outs(..) { mulf }
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return failOp(rewriter, op, "softmax axis is out of range");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type elem = type.getElementType();
    ArrayRef<int64_t> shape = type.getShape();
    SmallVector<int64_t> redShape;
    SmallVector<AffineExpr> redExprs;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        continue;
      redShape.push_back(shape[i]);
      redExprs.push_back(getAffineDimExpr(i, ctx));
    }
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap red = AffineMap::get(rank, 0, redExprs, ctx);
    SmallVector<utils::IteratorType> redIters = parallelIters(rank);
    redIters[axis] = utils::IteratorType::reduction;
    Value x = adaptor.getInput();

    Value maxInit = filledTensor(rewriter, loc, redShape,
                                 lowestConst(rewriter, loc, elem, false));
    Value max = buildGeneric(rewriter, loc, {x}, maxInit, {id, red}, redIters,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return arith::MaximumFOp::create(b, l, a[0],
                                                                a[1])
                                   .getResult();
                             });
    Value exp = buildGeneric(
        rewriter, loc, {x, max}, emptyTensor(rewriter, loc, shape, elem),
        {id, red, id}, parallelIters(rank),
        [](OpBuilder &b, Location l, ValueRange a) {
          return math::ExpOp::create(
                     b, l, arith::SubFOp::create(b, l, a[0], a[1]))
              .getResult();
        });
    Value sumInit =
        filledTensor(rewriter, loc, redShape, zeroConst(rewriter, loc, elem));
    Value sum = buildGeneric(rewriter, loc, {exp}, sumInit, {id, red},
                             redIters,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return arith::AddFOp::create(b, l, a[0], a[1])
                                   .getResult();
                             });
    // One division per row, then a product per element (as ONNX Runtime's
    // CPU kernel does): a vector division costs several multiplies.
    int64_t redRank = static_cast<int64_t>(redShape.size());
    AffineMap redId = rewriter.getMultiDimIdentityMap(redRank);
    Value one = arith::ConstantOp::create(rewriter, loc, elem,
                                          rewriter.getFloatAttr(elem, 1.0));
    Value inverse = buildGeneric(
        rewriter, loc, {sum}, emptyTensor(rewriter, loc, redShape, elem),
        {redId, redId}, parallelIters(redRank),
        [one](OpBuilder &b, Location l, ValueRange a) {
          return arith::DivFOp::create(b, l, one, a[0]).getResult();
        });
    Value result = buildGeneric(
        rewriter, loc, {exp, inverse}, emptyTensor(rewriter, loc, shape, elem),
        {id, red, id}, parallelIters(rank),
        [](OpBuilder &b, Location l, ValueRange a) {
          return arith::MulFOp::create(b, l, a[0], a[1]).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// reshape/flatten/squeeze/unsqueeze (static) -> tensor.collapse_shape or
/// tensor.expand_shape when one suffices, else collapse to 1-D then expand.
/// The same type is the input itself.
///
///   %0 = graph.reshape %x, %s {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
/// becomes
///   %f = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
///   %0 = tensor.expand_shape %f [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
template <typename OpTy>
struct ReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto dst = dyn_cast<RankedTensorType>(op.getType());
    if (!src || !dst || !src.hasStaticShape() || !dst.hasStaticShape())
      return failOp(rewriter, op,
                    opName(op) + " with dynamic or unranked shapes is not "
                                 "supported (run tfrt-specialize-shapes)");
    if (src.getNumElements() != dst.getNumElements())
      return failOp(rewriter, op,
                    opName(op) + " changes the number of elements");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    RankedTensorType srcT = loweredType(x), dstT = loweredResultType(op);
    int64_t sr = srcT.getRank(), dr = dstT.getRank();
    Value result;
    if (srcT == dstT) {
      result = x;
    } else if (dr == 0) {
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, dstT, x, ArrayRef<ReassociationIndices>{});
    } else if (sr == 0) {
      result = tensor::ExpandShapeOp::create(rewriter, loc, dstT, x,
                                             ArrayRef<ReassociationIndices>{});
    } else {
      std::optional<SmallVector<ReassociationIndices>> re;
      if (sr > dr)
        re = getReassociationIndicesForCollapse(srcT.getShape(),
                                                dstT.getShape());
      else if (sr < dr)
        re = getReassociationIndicesForCollapse(dstT.getShape(),
                                                srcT.getShape());
      if (re && sr > dr) {
        result = tensor::CollapseShapeOp::create(rewriter, loc, dstT, x, *re);
      } else if (re) {
        result = tensor::ExpandShapeOp::create(rewriter, loc, dstT, x, *re);
      } else {
        Value flat = x;
        auto flatT = RankedTensorType::get({srcT.getNumElements()},
                                           srcT.getElementType());
        auto all = [](int64_t n) {
          ReassociationIndices r;
          for (int64_t i = 0; i < n; ++i)
            r.push_back(i);
          return SmallVector<ReassociationIndices>{r};
        };
        if (sr != 1)
          flat = tensor::CollapseShapeOp::create(rewriter, loc, flatT, x,
                                                 all(sr));
        result = dr == 1 ? flat
                         : tensor::ExpandShapeOp::create(rewriter, loc, dstT,
                                                         flat, all(dr))
                               .getResult();
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.transpose -> linalg.transpose (same permutation convention).
///
///   %0 = graph.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
/// becomes
///   %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    ArrayRef<int64_t> perm = op.getPerm();
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= static_cast<int64_t>(i) == p;
    if (identity) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    RankedTensorType type = loweredResultType(op);
    Value init = emptyTensor(rewriter, op.getLoc(), type.getShape(),
                             type.getElementType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                         adaptor.getInput(), init, perm);
    rewriter.replaceOp(op, t->getResult(0));
    return success();
  }
};

/// graph.concat -> tensor.empty and one tensor.insert_slice per input.
///
///   %0 = graph.concat %a, %b {axis = 0} : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
/// becomes
///   %e = tensor.empty() : tensor<3x4xf32>
///   %1 = tensor.insert_slice %a into %e[0, 0] [2, 4] [1, 1]
///   %0 = tensor.insert_slice %b into %1[2, 0] [1, 4] [1, 1]
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return failOp(rewriter, op, "concat axis is out of range");
    int64_t total = 0;
    for (Value v : adaptor.getInputs())
      total += cast<RankedTensorType>(v.getType()).getDimSize(axis);
    if (total != type.getDimSize(axis))
      return failOp(rewriter, op, "concat inputs do not fill the result");
    Location loc = op.getLoc();
    Value dest = emptyTensor(rewriter, loc, type.getShape(),
                             type.getElementType());
    int64_t offset = 0;
    for (Value v : adaptor.getInputs()) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t size = t.getDimSize(axis);
      if (size == 0)
        continue;
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[axis] = offset;
      dest = tensor::InsertSliceOp::create(
          rewriter, loc, v, dest, getAsIndexOpFoldResult(getContext(), offsets),
          getAsIndexOpFoldResult(getContext(), t.getShape()),
          getAsIndexOpFoldResult(getContext(), strides));
      offset += size;
    }
    rewriter.replaceOp(op, dest);
    return success();
  }
};

/// graph.slice with constant starts/ends/axes/steps -> tensor.extract_slice
/// (positive steps), or a generic reading `start + i * step` (negative steps).
///
///   %0 = graph.slice %x, %s, %e, %a, %st : (tensor<10xf32>, ...) -> tensor<3xf32>  // 1:7:2
/// becomes
///   %0 = tensor.extract_slice %x[1] [3] [2] : tensor<10xf32> to tensor<3xf32>
/// and with steps = [-2] (start 8):
///   %0 = linalg.generic {maps = [(d0) -> (-d0 * 2 + 8), (d0) -> (d0)]} ins(%x) outs(%e) { yield %in }
struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    auto xt = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<int64_t> tmp;
    for (Value v :
         {op.getStarts(), op.getEnds(), op.getAxes(), op.getSteps()})
      if (failed(getConstantInts(v, tmp)))
        return failOp(rewriter, op,
                      "slice with non-constant starts/ends/axes/steps is not "
                      "supported");
    auto p = computeSliceParams(xt.getShape(), op.getStarts(), op.getEnds(),
                                op.getAxes(), op.getSteps(), op.getLoc());
    if (failed(p))
      return rewriter.notifyMatchFailure(op, "invalid slice parameters");
    RankedTensorType type = loweredResultType(op);
    if (ArrayRef<int64_t>(p->size) != type.getShape())
      return failOp(rewriter, op, "slice result type does not match");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Value result;
    if (llvm::all_of(p->step, [](int64_t s) { return s > 0; })) {
      result = tensor::ExtractSliceOp::create(
          rewriter, loc, type, x, getAsIndexOpFoldResult(getContext(), p->start),
          getAsIndexOpFoldResult(getContext(), p->size),
          getAsIndexOpFoldResult(getContext(), p->step));
    } else {
      MLIRContext *ctx = getContext();
      int64_t rank = type.getRank();
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < rank; ++i)
        exprs.push_back(getAffineDimExpr(i, ctx) * p->step[i] + p->start[i]);
      result = buildGeneric(
          rewriter, loc, {x},
          emptyTensor(rewriter, loc, type.getShape(), type.getElementType()),
          {AffineMap::get(rank, 0, exprs, ctx),
           rewriter.getMultiDimIdentityMap(rank)},
          parallelIters(rank),
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.gather -> a generic over the output reading the indices, with a
/// tensor.extract from the data; negative indices count from the end and
/// indices are clamped into range (never an out-of-bounds read).
///
///   %0 = graph.gather %x, %i {axis = 0} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
/// becomes
///   %0 = linalg.generic {maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)]}
///       ins(%i : tensor<2xi64>) outs(%e : tensor<2x3xf32>) {
///     ^bb0(%in: i64, %out: f32):
///       %k = arith.index_cast %in : i64 to index
///       (k < 0 ? k + 5 : k, clamped to [0, 4])
///       %j = linalg.index 1 : index
///       %v = tensor.extract %x[%k', %j] : tensor<5x3xf32>
///       linalg.yield %v : f32
///   }
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value data = adaptor.getInput(), indices = adaptor.getIndices();
    auto dt = cast<RankedTensorType>(data.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    RankedTensorType type = loweredResultType(op);
    int64_t r = dt.getRank(), q = it.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += r;
    if (axis < 0 || axis >= r || type.getRank() != r + q - 1)
      return failOp(rewriter, op, "gather axis or result rank is invalid");
    int64_t dim = dt.getDimSize(axis);
    if (dim == 0)
      return failOp(rewriter, op, "gather from an empty axis");
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> ie;
    for (int64_t i = 0; i < q; ++i)
      ie.push_back(getAffineDimExpr(axis + i, ctx));
    Location loc = op.getLoc();
    Value result = buildGeneric(
        rewriter, loc, {indices},
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType()),
        {AffineMap::get(rank, 0, ie, ctx),
         rewriter.getMultiDimIdentityMap(rank)},
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value k = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value zero = indexConst(b, l, 0);
          Value isNeg =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
          Value wrapped =
              arith::AddIOp::create(b, l, k, indexConst(b, l, dim));
          k = arith::SelectOp::create(b, l, isNeg, wrapped, k);
          k = arith::MaxSIOp::create(b, l, k, zero);
          k = arith::MinSIOp::create(b, l, k, indexConst(b, l, dim - 1));
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          coords.push_back(k);
          for (int64_t i = axis + 1; i < r; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i - 1 + q));
          return tensor::ExtractOp::create(b, l, data, coords).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// More elementwise ops
//===----------------------------------------------------------------------===//

/// The value that never wins a minimum: +inf, or the highest integer.
Value highestConst(OpBuilder &b, Location loc, Type type, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), false)));
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = isUnsigned || w == 1 ? APInt::getMaxValue(w)
                                 : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

Value maxScalar(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, l, x, y);
  if (isUnsigned || x.getType().isInteger(1))
    return arith::MaxUIOp::create(b, l, x, y);
  return arith::MaxSIOp::create(b, l, x, y);
}

Value minScalar(OpBuilder &b, Location l, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, l, x, y);
  if (isUnsigned || x.getType().isInteger(1))
    return arith::MinUIOp::create(b, l, x, y);
  return arith::MinSIOp::create(b, l, x, y);
}

/// Reshapes a static tensor to another static shape of the same size
/// (collapse/expand where one suffices, else through 1-D).
Value reshapeStatic(OpBuilder &b, Location loc, Value x,
                    RankedTensorType dstT) {
  auto srcT = cast<RankedTensorType>(x.getType());
  int64_t sr = srcT.getRank(), dr = dstT.getRank();
  if (srcT == dstT)
    return x;
  if (dr == 0)
    return tensor::CollapseShapeOp::create(b, loc, dstT, x,
                                           ArrayRef<ReassociationIndices>{});
  if (sr == 0)
    return tensor::ExpandShapeOp::create(b, loc, dstT, x,
                                         ArrayRef<ReassociationIndices>{});
  std::optional<SmallVector<ReassociationIndices>> re;
  if (sr > dr)
    re = getReassociationIndicesForCollapse(srcT.getShape(), dstT.getShape());
  else if (sr < dr)
    re = getReassociationIndicesForCollapse(dstT.getShape(), srcT.getShape());
  if (re && sr > dr)
    return tensor::CollapseShapeOp::create(b, loc, dstT, x, *re);
  if (re)
    return tensor::ExpandShapeOp::create(b, loc, dstT, x, *re);
  auto all = [](int64_t n) {
    ReassociationIndices r;
    for (int64_t i = 0; i < n; ++i)
      r.push_back(i);
    return SmallVector<ReassociationIndices>{r};
  };
  auto flatT =
      RankedTensorType::get({srcT.getNumElements()}, srcT.getElementType());
  Value flat = x;
  if (sr != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatT, x, all(sr));
  if (dr == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, dstT, flat, all(dr));
}

/// Binary elementwise ops beyond the arithmetic ones, broadcasting.
///
///   %0 = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
/// becomes one generic whose body is `arith.cmpf olt`; max/min use
/// maximumf/minimumf (maxsi/maxui on integers), and/or/xor the arith bit ops,
/// prelu `x < 0 ? x * slope : x`, mod remf (fmod) or a sign-corrected
/// remainder, bit_shift shli/shrui.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  static Value compute(OpTy op, OpBuilder &b, Location l, Value x, Value y,
                       bool isUnsigned) {
    Type t = x.getType();
    bool isFloat = isa<FloatType>(t);
    auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate sp,
                   arith::CmpIPredicate up) -> Value {
      if (isFloat)
        return arith::CmpFOp::create(b, l, fp, x, y);
      return arith::CmpIOp::create(b, l, isUnsigned || t.isInteger(1) ? up : sp,
                                   x, y);
    };
    using FP = arith::CmpFPredicate;
    using IP = arith::CmpIPredicate;
    if constexpr (std::is_same_v<OpTy, MaxOp>)
      return maxScalar(b, l, x, y, isUnsigned);
    if constexpr (std::is_same_v<OpTy, MinOp>)
      return minScalar(b, l, x, y, isUnsigned);
    if constexpr (std::is_same_v<OpTy, AndOp>)
      return arith::AndIOp::create(b, l, x, y);
    if constexpr (std::is_same_v<OpTy, OrOp>)
      return arith::OrIOp::create(b, l, x, y);
    if constexpr (std::is_same_v<OpTy, XorOp>)
      return arith::XOrIOp::create(b, l, x, y);
    if constexpr (std::is_same_v<OpTy, EqualOp>)
      return cmp(FP::OEQ, IP::eq, IP::eq);
    if constexpr (std::is_same_v<OpTy, LessOp>)
      return cmp(FP::OLT, IP::slt, IP::ult);
    if constexpr (std::is_same_v<OpTy, LessOrEqualOp>)
      return cmp(FP::OLE, IP::sle, IP::ule);
    if constexpr (std::is_same_v<OpTy, GreaterOp>)
      return cmp(FP::OGT, IP::sgt, IP::ugt);
    if constexpr (std::is_same_v<OpTy, GreaterOrEqualOp>)
      return cmp(FP::OGE, IP::sge, IP::uge);
    if constexpr (std::is_same_v<OpTy, PReluOp>) {
      Value zero = zeroConst(b, l, t);
      Value neg = isFloat ? arith::CmpFOp::create(b, l, FP::OLT, x, zero)
                                .getResult()
                          : arith::CmpIOp::create(b, l, IP::slt, x, zero)
                                .getResult();
      return arith::SelectOp::create(b, l, neg, mulScalar(b, l, x, y), x);
    }
    if constexpr (std::is_same_v<OpTy, BitShiftOp>) {
      if (op.getLeft())
        return arith::ShLIOp::create(b, l, x, y);
      return arith::ShRUIOp::create(b, l, x, y);
    }
    if constexpr (std::is_same_v<OpTy, ModOp>) {
      if (isFloat) {
        Value r = arith::RemFOp::create(b, l, x, y);
        if (op.getFmod())
          return r;
        // Python %: add the divisor when the signs differ and r != 0.
        Value zero = zeroConst(b, l, t);
        Value rNeg = arith::CmpFOp::create(b, l, FP::OLT, r, zero);
        Value yNeg = arith::CmpFOp::create(b, l, FP::OLT, y, zero);
        Value rNz = arith::CmpFOp::create(b, l, FP::UNE, r, zero);
        Value differ = arith::AndIOp::create(
            b, l, arith::XOrIOp::create(b, l, rNeg, yNeg), rNz);
        return arith::SelectOp::create(b, l, differ,
                                       arith::AddFOp::create(b, l, r, y), r);
      }
      // Integer: a zero divisor gives 0 instead of trapping, and so does
      // -1 (x % -1 is 0; the smallest value over -1 traps on x86).
      Value zero = zeroConst(b, l, t);
      Value one = scalarConst(b, l, t, 1);
      Value yZero = arith::CmpIOp::create(b, l, IP::eq, y, zero);
      Value yTrap = yZero;
      if (!isUnsigned)
        yTrap = arith::OrIOp::create(
            b, l, yZero,
            arith::CmpIOp::create(b, l, IP::eq, y, scalarConst(b, l, t, -1)));
      Value ySafe = arith::SelectOp::create(b, l, yTrap, one, y);
      Value r = isUnsigned ? arith::RemUIOp::create(b, l, x, ySafe).getResult()
                           : arith::RemSIOp::create(b, l, x, ySafe).getResult();
      if (!isUnsigned && !op.getFmod()) {
        Value rNeg = arith::CmpIOp::create(b, l, IP::slt, r, zero);
        Value yNeg = arith::CmpIOp::create(b, l, IP::slt, ySafe, zero);
        Value rNz = arith::CmpIOp::create(b, l, IP::ne, r, zero);
        Value differ = arith::AndIOp::create(
            b, l, arith::XOrIOp::create(b, l, rNeg, yNeg), rNz);
        r = arith::SelectOp::create(b, l, differ,
                                    arith::AddIOp::create(b, l, r, ySafe), r);
      }
      return arith::SelectOp::create(b, l, yZero, zero, r);
    }
    llvm_unreachable("unhandled elementwise op");
  }

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    Type elem = getElementTypeOrSelf(adaptor.getLhs().getType());
    if (!elem.isIntOrFloat())
      return failOp(rewriter, op, opName(op) + " on non-numeric types");
    constexpr bool logical = std::is_same_v<OpTy, AndOp> ||
                             std::is_same_v<OpTy, OrOp> ||
                             std::is_same_v<OpTy, XorOp>;
    if ((logical || std::is_same_v<OpTy, BitShiftOp>) && isa<FloatType>(elem))
      return failOp(rewriter, op, opName(op) + " needs integer operands");
    if (replaceIfEmpty(rewriter, op))
      return success();
    bool isUnsigned = isUnsignedElem(op.getLhs().getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), loweredResultType(op),
        {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return compute(op, b, l, args[0], args[1], isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.where -> one generic selecting between the broadcast operands.
struct WhereLowering : OpConversionPattern<WhereOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value result = buildElementwise(
        rewriter, op.getLoc(), loweredResultType(op),
        {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename T, typename = void>
struct HasAlphaBeta : std::false_type {};
template <typename T>
struct HasAlphaBeta<T, std::void_t<decltype(std::declval<T &>().getBeta())>>
    : std::true_type {};

Value indexConstI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

/// Float unary math and activations -> one generic each.
///
///   %0 = graph.sin %x : (tensor<4xf32>) -> tensor<4xf32>
/// becomes a generic with `math.sin`; the activations are written out in
/// arith/math (elu: `x < 0 ? alpha * (exp(x) - 1) : x`, ...). sign and not
/// also take integers; is_nan/is_inf return i1.
template <typename OpTy>
struct MathLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  static constexpr bool acceptsInt =
      std::is_same_v<OpTy, SignOp> || std::is_same_v<OpTy, NotOp> ||
      std::is_same_v<OpTy, FloorOp> || std::is_same_v<OpTy, CeilOp> ||
      std::is_same_v<OpTy, RoundOp>;

  static Value compute(OpTy op, OpBuilder &b, Location l, Value x,
                       bool isUnsigned) {
    Type t = x.getType();
    bool isFloat = isa<FloatType>(t);
    using FP = arith::CmpFPredicate;
    auto c = [&](double v) { return scalarConst(b, l, t, v); };
    [[maybe_unused]] auto alpha = [&]() -> double {
      if constexpr (HasAlphaBeta<OpTy>::value)
        return op.getAlpha().convertToDouble();
      return 0.0;
    };
    [[maybe_unused]] auto beta = [&]() -> double {
      if constexpr (HasAlphaBeta<OpTy>::value)
        return op.getBeta().convertToDouble();
      return 0.0;
    };
    if constexpr (std::is_same_v<OpTy, FloorOp>)
      return isFloat ? math::FloorOp::create(b, l, x).getResult() : x;
    if constexpr (std::is_same_v<OpTy, CeilOp>)
      return isFloat ? math::CeilOp::create(b, l, x).getResult() : x;
    if constexpr (std::is_same_v<OpTy, RoundOp>)
      return isFloat ? math::RoundEvenOp::create(b, l, x).getResult() : x;
    if constexpr (std::is_same_v<OpTy, SignOp>) {
      if (isFloat) {
        Value pos = arith::CmpFOp::create(b, l, FP::OGT, x, c(0));
        Value neg = arith::CmpFOp::create(b, l, FP::OLT, x, c(0));
        Value r = arith::SelectOp::create(b, l, neg, c(-1), c(0));
        r = arith::SelectOp::create(b, l, pos, c(1), r);
        // NaN stays NaN.
        Value nan = arith::CmpFOp::create(b, l, FP::UNO, x, x);
        return arith::SelectOp::create(b, l, nan, x, r);
      }
      Value zero = zeroConst(b, l, t);
      Value pos = arith::CmpIOp::create(
          b, l, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
          x, zero);
      Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, zero);
      Value r = isUnsigned ? zero
                           : arith::SelectOp::create(b, l, neg, c(-1), zero)
                                 .getResult();
      return arith::SelectOp::create(b, l, pos, c(1), r);
    }
    if constexpr (std::is_same_v<OpTy, NotOp>)
      return arith::XOrIOp::create(
          b, l, x, arith::ConstantOp::create(b, l, b.getIntegerAttr(t, -1)));
    if constexpr (std::is_same_v<OpTy, ReciprocalOp>)
      return arith::DivFOp::create(b, l, c(1), x);
    if constexpr (std::is_same_v<OpTy, ErfOp>)
      return math::ErfOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, SinOp>)
      return math::SinOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, CosOp>)
      return math::CosOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, TanOp>)
      return math::TanOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AsinOp>)
      return math::AsinOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AcosOp>)
      return math::AcosOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AtanOp>)
      return math::AtanOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, SinhOp>)
      return math::SinhOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, CoshOp>)
      return math::CoshOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AsinhOp>)
      return math::AsinhOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AcoshOp>)
      return math::AcoshOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, AtanhOp>)
      return math::AtanhOp::create(b, l, x);
    if constexpr (std::is_same_v<OpTy, SoftplusOp>) {
      // log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)).
      Value ax = math::AbsFOp::create(b, l, x);
      Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, ax));
      Value lg = math::Log1pOp::create(b, l, e);
      return arith::AddFOp::create(
          b, l, arith::MaximumFOp::create(b, l, x, c(0)), lg);
    }
    if constexpr (std::is_same_v<OpTy, SoftsignOp>)
      return arith::DivFOp::create(
          b, l, x, arith::AddFOp::create(b, l, c(1), math::AbsFOp::create(b, l, x)));
    if constexpr (std::is_same_v<OpTy, IsNaNOp>)
      return arith::CmpFOp::create(b, l, FP::UNO, x, x);
    if constexpr (std::is_same_v<OpTy, IsInfOp>) {
      auto ft = cast<FloatType>(t);
      Value pinf = arith::ConstantOp::create(
          b, l, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics())));
      Value ninf = arith::ConstantOp::create(
          b, l,
          b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), true)));
      Value r = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
      if (op.getDetectPositive())
        r = arith::OrIOp::create(
            b, l, r, arith::CmpFOp::create(b, l, FP::OEQ, x, pinf));
      if (op.getDetectNegative())
        r = arith::OrIOp::create(
            b, l, r, arith::CmpFOp::create(b, l, FP::OEQ, x, ninf));
      return r;
    }
    if constexpr (std::is_same_v<OpTy, LeakyReluOp>) {
      Value neg = arith::CmpFOp::create(b, l, FP::OLT, x, c(0));
      return arith::SelectOp::create(
          b, l, neg, arith::MulFOp::create(b, l, x, c(alpha())), x);
    }
    if constexpr (std::is_same_v<OpTy, EluOp> || std::is_same_v<OpTy, SeluOp>) {
      bool selu = std::is_same_v<OpTy, SeluOp>;
      Value neg = arith::CmpFOp::create(b, l, selu ? FP::OLE : FP::OLT, x, c(0));
      // expm1, not exp - 1: the difference loses the digits near 0.
      Value em1 = math::ExpM1Op::create(b, l, x);
      Value r = arith::SelectOp::create(
          b, l, neg, arith::MulFOp::create(b, l, em1, c(alpha())), x);
      if (selu)
        r = arith::MulFOp::create(b, l, r, c(beta()));
      return r;
    }
    if constexpr (std::is_same_v<OpTy, CeluOp>) {
      double a = alpha();
      Value e =
          math::ExpM1Op::create(b, l, arith::DivFOp::create(b, l, x, c(a)));
      Value neg = arith::MinimumFOp::create(
          b, l, arith::MulFOp::create(b, l, e, c(a)), c(0));
      return arith::AddFOp::create(
          b, l, arith::MaximumFOp::create(b, l, x, c(0)), neg);
    }
    if constexpr (std::is_same_v<OpTy, ThresholdedReluOp>) {
      Value gt = arith::CmpFOp::create(b, l, FP::OGT, x, c(alpha()));
      return arith::SelectOp::create(b, l, gt, x, c(0));
    }
    if constexpr (std::is_same_v<OpTy, ShrinkOp>) {
      double lambd = alpha(), bias = beta();
      if (!isFloat) {
        Value lo = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x,
                                         c(-lambd));
        Value hi = arith::CmpIOp::create(
            b, l, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
            x, c(lambd));
        Value r = arith::SelectOp::create(
            b, l, hi, arith::SubIOp::create(b, l, x, c(bias)), zeroConst(b, l, t));
        if (isUnsigned)
          return r;
        return arith::SelectOp::create(
            b, l, lo, arith::AddIOp::create(b, l, x, c(bias)), r);
      }
      Value lo = arith::CmpFOp::create(b, l, FP::OLT, x, c(-lambd));
      Value hi = arith::CmpFOp::create(b, l, FP::OGT, x, c(lambd));
      Value r = arith::SelectOp::create(
          b, l, hi, arith::SubFOp::create(b, l, x, c(bias)), c(0));
      return arith::SelectOp::create(
          b, l, lo, arith::AddFOp::create(b, l, x, c(bias)), r);
    }
    llvm_unreachable("unhandled math op");
  }

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    Type elem = getElementTypeOrSelf(op.getInput().getType());
    if (!isFloatElem(elem) &&
        !((acceptsInt || std::is_same_v<OpTy, ShrinkOp>) && elem.isInteger()))
      return failOp(rewriter, op,
                    opName(op) + " on element type " + typeStr(elem) +
                        " is not supported");
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value result = buildElementwise(
        rewriter, op.getLoc(), loweredResultType(op), {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return compute(op, b, l, args[0], isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp,
                        SumSquare };

template <typename OpTy> constexpr ReduceKind reduceKindOf() {
  if constexpr (std::is_same_v<OpTy, ReduceSumOp>) return ReduceKind::Sum;
  if constexpr (std::is_same_v<OpTy, ReduceMeanOp>) return ReduceKind::Mean;
  if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) return ReduceKind::Max;
  if constexpr (std::is_same_v<OpTy, ReduceMinOp>) return ReduceKind::Min;
  if constexpr (std::is_same_v<OpTy, ReduceProdOp>) return ReduceKind::Prod;
  if constexpr (std::is_same_v<OpTy, ReduceL1Op>) return ReduceKind::L1;
  if constexpr (std::is_same_v<OpTy, ReduceL2Op>) return ReduceKind::L2;
  if constexpr (std::is_same_v<OpTy, ReduceLogSumOp>) return ReduceKind::LogSum;
  if constexpr (std::is_same_v<OpTy, ReduceLogSumExpOp>) return ReduceKind::LogSumExp;
  return ReduceKind::SumSquare;
}

/// A reduction of a tensor over the dims marked in `reduced`: the kept
/// dims' shape, their exprs (the map of the result), the iterators and the
/// number of elements reduced into each result.
struct ReductionDims {
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> exprs;
  SmallVector<utils::IteratorType> iters;
  int64_t count = 1;
};

ReductionDims reductionDims(RankedTensorType xt, ArrayRef<bool> reduced) {
  ReductionDims d;
  int64_t rank = xt.getRank();
  d.iters = parallelIters(rank);
  for (int64_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      d.iters[i] = utils::IteratorType::reduction;
      d.count *= xt.getDimSize(i);
      continue;
    }
    d.shape.push_back(xt.getDimSize(i));
    d.exprs.push_back(getAffineDimExpr(i, xt.getContext()));
  }
  return d;
}

/// Reduces `x` over the dims marked in `reduced` with `kind`; the result has
/// the kept dims only. Mean/L2/LogSum/LogSumExp get their final step.
Value buildReduce(OpBuilder &b, Location loc, Value x, ArrayRef<bool> reduced,
                  ReduceKind kind, bool isUnsigned) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  int64_t rank = xt.getRank();
  ReductionDims dims = reductionDims(xt, reduced);
  ArrayRef<int64_t> shape = dims.shape;
  ArrayRef<AffineExpr> exprs = dims.exprs;
  ArrayRef<utils::IteratorType> iters = dims.iters;
  int64_t count = dims.count;
  Value initV;
  switch (kind) {
  case ReduceKind::Max: initV = lowestConst(b, loc, elem, isUnsigned); break;
  case ReduceKind::Min: initV = highestConst(b, loc, elem, isUnsigned); break;
  case ReduceKind::Prod: initV = scalarConst(b, loc, elem, 1); break;
  default: initV = zeroConst(b, loc, elem); break;
  }
  Value init = filledTensor(b, loc, shape, initV);
  bool isFloat = isa<FloatType>(elem);
  Value acc = buildGeneric(
      b, loc, {x}, init,
      {b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, exprs, ctx)},
      iters, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = a[0], o = a[1];
        switch (kind) {
        case ReduceKind::Max: return maxScalar(nb, l, v, o, isUnsigned);
        case ReduceKind::Min: return minScalar(nb, l, v, o, isUnsigned);
        case ReduceKind::Prod: return mulScalar(nb, l, v, o);
        case ReduceKind::L1:
          if (isFloat)
            v = math::AbsFOp::create(nb, l, v);
          else if (!isUnsigned)
            v = arith::MaxSIOp::create(
                nb, l, v, arith::SubIOp::create(nb, l, zeroConst(nb, l, elem), v));
          return addScalar(nb, l, v, o);
        case ReduceKind::L2:
        case ReduceKind::SumSquare:
          return mulAdd(nb, l, o, v, v);
        case ReduceKind::LogSumExp:
          return addScalar(nb, l, math::ExpOp::create(nb, l, v), o);
        default: return addScalar(nb, l, v, o);
        }
      });
  if (kind != ReduceKind::Mean && kind != ReduceKind::L2 &&
      kind != ReduceKind::LogSum && kind != ReduceKind::LogSumExp)
    return acc;
  int64_t r = shape.size();
  AffineMap id = b.getMultiDimIdentityMap(r);
  return buildGeneric(
      b, loc, {acc}, emptyTensor(b, loc, shape, elem), {id, id},
      parallelIters(r), [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = a[0];
        switch (kind) {
        case ReduceKind::Mean:
          if (isFloat)
            return arith::DivFOp::create(nb, l, v,
                                         scalarConst(nb, l, elem, count));
          if (isUnsigned)
            return arith::DivUIOp::create(nb, l, v,
                                          scalarConst(nb, l, elem, count));
          return arith::DivSIOp::create(nb, l, v,
                                        scalarConst(nb, l, elem, count));
        case ReduceKind::L2: return math::SqrtOp::create(nb, l, v);
        default: return math::LogOp::create(nb, l, v);
        }
      });
}

/// log(sum(exp(x))) over the dims marked in `reduced`, computed as
/// m + log(sum(exp(x - m))) with m the maximum (0 where it is not finite,
/// so that +inf gives +inf, an all -inf slice -inf, and NaN NaN): the naive
/// sum overflows to inf once an element passes 88.7.
Value buildLogSumExp(OpBuilder &b, Location loc, Value x,
                     ArrayRef<bool> reduced) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  int64_t rank = xt.getRank();
  ReductionDims dims = reductionDims(xt, reduced);
  ArrayRef<int64_t> shape = dims.shape;
  Value max = buildReduce(b, loc, x, reduced, ReduceKind::Max, false);
  int64_t r = shape.size();
  AffineMap id = b.getMultiDimIdentityMap(r);
  Value shift = buildGeneric(
      b, loc, {max}, emptyTensor(b, loc, shape, elem), {id, id},
      parallelIters(r), [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        auto f = cast<FloatType>(elem);
        Value inf = arith::ConstantOp::create(
            nb, l, nb.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics())));
        Value finite =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT,
                                  math::AbsFOp::create(nb, l, a[0]), inf);
        return arith::SelectOp::create(nb, l, finite, a[0],
                                       zeroConst(nb, l, elem));
      });
  AffineMap kept = AffineMap::get(rank, 0, dims.exprs, ctx);
  Value sum = buildGeneric(
      b, loc, {x, shift}, filledTensor(b, loc, shape, zeroConst(b, loc, elem)),
      {b.getMultiDimIdentityMap(rank), kept, kept}, dims.iters,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value e = math::ExpOp::create(nb, l,
                                      arith::SubFOp::create(nb, l, a[0], a[1]));
        return arith::AddFOp::create(nb, l, e, a[2]);
      });
  return buildGeneric(b, loc, {shift, sum}, emptyTensor(b, loc, shape, elem),
                      {id, id, id}, parallelIters(r),
                      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::AddFOp::create(
                            nb, l, a[0], math::LogOp::create(nb, l, a[1]));
                      });
}

/// graph.reduce_* -> a reduction generic into the kept dims (init: 0, 1,
/// -inf or +inf), a finishing generic for mean/l2/log_sum/log_sum_exp, and
/// an expand_shape for keepdims.
///
///   %0 = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
/// becomes
///   %s = linalg.generic {maps = [(i,j) -> (i,j), (i,j) -> (i)], [par, red]} ins(%x) outs(%zeros) { addf }
///   %m = linalg.generic {maps = [id, id]} ins(%s) outs(%e) { divf %in, 3.0 }
///   %0 = tensor.expand_shape %m [[0, 1]] output_shape [2, 1]
template <typename OpTy>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    constexpr ReduceKind kind = reduceKindOf<OpTy>();
    Type elem = getElementTypeOrSelf(op.getType());
    if (!elem.isIntOrFloat() ||
        (!isa<FloatType>(elem) &&
         (kind == ReduceKind::L2 || kind == ReduceKind::LogSum ||
          kind == ReduceKind::LogSumExp)))
      return failOp(rewriter, op,
                    opName(op) + " on element type " + typeStr(elem) +
                        " is not supported");
    if (replaceIfEmpty(rewriter, op))
      return success();
    auto xt = cast<RankedTensorType>(adaptor.getInput().getType());
    SmallVector<bool> reduced(xt.getRank(), false);
    for (int64_t a : op.getAxes()) {
      if (a < 0)
        a += xt.getRank();
      if (a < 0 || a >= xt.getRank())
        return failOp(rewriter, op, "reduction axis out of range");
      reduced[a] = true;
    }
    Value r =
        kind == ReduceKind::LogSumExp
            ? buildLogSumExp(rewriter, op.getLoc(), adaptor.getInput(), reduced)
            : buildReduce(rewriter, op.getLoc(), adaptor.getInput(), reduced,
                          kind, isUnsignedElem(op.getInput().getType()));
    rewriter.replaceOp(op, reshapeStatic(rewriter, op.getLoc(), r,
                                         loweredResultType(op)));
    return success();
  }
};

/// Index of the max (min) of `x` along `axis`: a two-output reduction
/// generic (value, i64 index); the first extreme wins unless `last`.
Value buildArgReduce(OpBuilder &b, Location loc, Value x, int64_t axis,
                     bool isMax, bool last, bool isUnsigned) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  int64_t rank = xt.getRank();
  SmallVector<bool> reduced(rank, false);
  reduced[axis] = true;
  ReductionDims dims = reductionDims(xt, reduced);
  ArrayRef<int64_t> shape = dims.shape;
  ArrayRef<AffineExpr> exprs = dims.exprs;
  ArrayRef<utils::IteratorType> iters = dims.iters;
  Type i64 = b.getI64Type();
  Value valInit = filledTensor(
      b, loc, shape,
      isMax ? lowestConst(b, loc, elem, isUnsigned)
            : highestConst(b, loc, elem, isUnsigned));
  Value idxInit = filledTensor(b, loc, shape, indexConstI64(b, loc, -1));
  AffineMap out = AffineMap::get(rank, 0, exprs, ctx);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{valInit.getType(), idxInit.getType()}, ValueRange{x},
      ValueRange{valInit, idxInit},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), out, out}, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0], best = a[1], bestIdx = a[2];
        Value i = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, axis));
        Value better;
        if (isa<FloatType>(elem)) {
          auto p = isMax ? (last ? arith::CmpFPredicate::OGE
                                 : arith::CmpFPredicate::OGT)
                         : (last ? arith::CmpFPredicate::OLE
                                 : arith::CmpFPredicate::OLT);
          better = arith::CmpFOp::create(nb, l, p, v, best);
          // NaN counts as the extreme (numpy's and ONNX Runtime's arg max
          // and arg min): the first NaN, or the last with select_last_index.
          auto isNan = [&](Value x) {
            return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, x,
                                         x);
          };
          Value nan = isNan(v);
          if (!last)
            nan = arith::AndIOp::create(
                nb, l, nan,
                arith::XOrIOp::create(
                    nb, l, isNan(best),
                    arith::ConstantOp::create(nb, l, nb.getBoolAttr(true))));
          better = arith::OrIOp::create(nb, l, better, nan);
        } else {
          using IP = arith::CmpIPredicate;
          IP p = isMax ? (last ? (isUnsigned ? IP::uge : IP::sge)
                               : (isUnsigned ? IP::ugt : IP::sgt))
                       : (last ? (isUnsigned ? IP::ule : IP::sle)
                               : (isUnsigned ? IP::ult : IP::slt));
          better = arith::CmpIOp::create(nb, l, p, v, best);
        }
        // The first element always counts (all -inf / NaN-free inputs).
        Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            bestIdx, indexConstI64(nb, l, 0));
        better = arith::OrIOp::create(nb, l, better, first);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, better, v, best),
                       arith::SelectOp::create(nb, l, better, i, bestIdx)});
      });
  return generic.getResult(1);
}

/// graph.arg_max / arg_min -> a (value, index) reduction generic along the
/// axis, then expand_shape for keepdims.
template <typename OpTy>
struct ArgLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    auto xt = cast<RankedTensorType>(adaptor.getInput().getType());
    if (!xt.getElementType().isIntOrFloat())
      return failOp(rewriter, op, opName(op) + " on non-numeric types");
    if (replaceIfEmpty(rewriter, op))
      return success();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += xt.getRank();
    Value r = buildArgReduce(rewriter, op.getLoc(), adaptor.getInput(), axis,
                             std::is_same_v<OpTy, ArgMaxOp>,
                             op.getSelectLastIndex(),
                             isUnsignedElem(op.getInput().getType()));
    rewriter.replaceOp(op, reshapeStatic(rewriter, op.getLoc(), r,
                                         loweredResultType(op)));
    return success();
  }
};

/// graph.log_softmax -> max, x - max, log(sum(exp(x - max))), subtract.
/// graph.hardmax -> arg max along the axis, then `index == argmax`.
template <typename OpTy>
struct AxisNormLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    Type elem = type.getElementType();
    Value x = adaptor.getInput();
    SmallVector<AffineExpr> redExprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        redExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap red = AffineMap::get(rank, 0, redExprs, ctx);
    if constexpr (std::is_same_v<OpTy, HardmaxOp>) {
      Value idx = buildArgReduce(rewriter, loc, x, axis, true, false, false);
      Value result = buildGeneric(
          rewriter, loc, {idx}, emptyTensor(rewriter, loc, type.getShape(), elem),
          {red, id}, parallelIters(rank),
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value i = arith::IndexCastOp::create(
                b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
            Value eq = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i,
                                             a[0]);
            return arith::SelectOp::create(b, l, eq, scalarConst(b, l, elem, 1),
                                           zeroConst(b, l, elem));
          });
      rewriter.replaceOp(op, result);
    } else {
      SmallVector<bool> reduced(rank, false);
      reduced[axis] = true;
      Value max = buildReduce(rewriter, loc, x, reduced, ReduceKind::Max, false);
      Value shifted = buildGeneric(
          rewriter, loc, {x, max}, emptyTensor(rewriter, loc, type.getShape(), elem),
          {id, red, id}, parallelIters(rank),
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::SubFOp::create(b, l, a[0], a[1]);
          });
      Value lse = buildReduce(rewriter, loc, shifted, reduced,
                              ReduceKind::LogSumExp, false);
      Value result = buildGeneric(
          rewriter, loc, {shifted, lse},
          emptyTensor(rewriter, loc, type.getShape(), elem), {id, red, id},
          parallelIters(rank),
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::SubFOp::create(b, l, a[0], a[1]);
          });
      rewriter.replaceOp(op, result);
    }
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

/// Per output position of one dimension: the source indices and weights of
/// its taps (all rows have the same number of taps; -1 marks a position
/// outside a tf_crop_and_resize roi, which yields the extrapolation value).
struct ResizeTable {
  int64_t taps = 1;
  SmallVector<int64_t> idx;  // [out][taps]
  SmallVector<double> w;     // [out][taps]
  bool identity = false, unitWeights = false, outside = false;
};

ResizeTable computeResizeTable(ResizeOp op, int64_t dim, int64_t in,
                               int64_t out) {
  double scale = op.getScales()[dim];
  StringRef mode = op.getMode(), ct = op.getCoordinateTransformationMode(),
            nm = op.getNearestMode();
  double a = op.getCubicCoeffA().convertToDouble();
  bool exclude = op.getExcludeOutside();
  ArrayRef<double> roi = op.getRoi();
  int64_t rank = op.getScales().size();
  double outWidth = scale * in;
  int64_t n = mode == "nearest" ? 2 : mode == "linear" ? 2 : 4;
  int64_t pad = (n + 1) / 2;
  ResizeTable t;
  SmallVector<SmallVector<std::pair<int64_t, double>>> rows;
  for (int64_t x = 0; x < out; ++x) {
    double xo;
    bool outside = false;
    if (ct == "align_corners") {
      xo = outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
    } else if (ct == "asymmetric") {
      xo = x / scale;
    } else if (ct == "tf_crop_and_resize") {
      double r0 = roi[dim], r1 = roi[dim + rank];
      xo = outWidth == 1 ? (r1 - r0) * (in - 1) / 2
                         : x * (r1 - r0) * (in - 1) / (outWidth - 1);
      xo += r0 * (in - 1);
      outside = xo < 0 || xo > in - 1;
    } else if (ct == "pytorch_half_pixel") {
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (ct == "tf_half_pixel_for_nn") {
      xo = (x + 0.5) / scale;
    } else {
      xo = (x + 0.5) / scale - 0.5;
    }
    double fl = std::floor(xo);
    double ratio = xo == fl ? 1.0 : xo - fl;
    SmallVector<double> coeffs;
    if (mode == "nearest") {
      if (ratio == 1.0)
        coeffs = {0, 1};
      else if (nm == "round_prefer_ceil")
        coeffs = {double(ratio < 0.5), double(ratio >= 0.5)};
      else if (nm == "floor")
        coeffs = {1, 0};
      else if (nm == "ceil")
        coeffs = {0, 1};
      else
        coeffs = {double(ratio <= 0.5), double(ratio > 0.5)};
    } else if (mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else {
      double r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    }
    // The n nearest positions of the edge-padded axis (ties: the smaller).
    double xp = xo + pad;
    int64_t base = (int64_t)std::floor(xp);
    SmallVector<int64_t> cand;
    for (int64_t c = base - n - 1; c <= base + n + 1; ++c)
      if (c >= 0 && c < in + 2 * pad)
        cand.push_back(c);
    llvm::sort(cand, [&](int64_t p, int64_t q) {
      double dp = std::abs(xp - p), dq = std::abs(xp - q);
      return dp != dq ? dp < dq : p < q;
    });
    cand.resize(std::min<size_t>(n, cand.size()));
    llvm::sort(cand);
    SmallVector<std::pair<int64_t, double>> row;
    double sum = 0;
    for (auto [i, c] : llvm::enumerate(cand)) {
      int64_t idx = c - pad;
      double w = coeffs[i];
      if (exclude && (idx < 0 || idx >= in))
        w = 0;
      sum += w;
      row.push_back({std::clamp<int64_t>(idx, 0, in - 1), w});
    }
    if (exclude && sum != 0)
      for (auto &p : row)
        p.second /= sum;
    // Taps with a weight first.
    std::stable_sort(row.begin(), row.end(), [](auto &p, auto &q) {
      return p.second != 0 && q.second == 0;
    });
    if (outside) {
      t.outside = true;
      for (auto &p : row)
        p.first = -1;
    }
    rows.push_back(row);
  }
  int64_t taps = 1;
  for (auto &row : rows)
    for (int64_t i = 0; i < (int64_t)row.size(); ++i)
      if (row[i].second != 0)
        taps = std::max(taps, i + 1);
  t.taps = taps;
  t.identity = in == out && !t.outside;
  t.unitWeights = true;
  for (auto [o, row] : llvm::enumerate(rows)) {
    for (int64_t i = 0; i < taps; ++i) {
      int64_t idx = i < (int64_t)row.size() ? row[i].first : 0;
      double w = i < (int64_t)row.size() ? row[i].second : 0;
      t.idx.push_back(idx);
      t.w.push_back(w);
      t.unitWeights &= w == 1.0;
      t.identity &= taps == 1 && w == 1.0 && idx == (int64_t)o;
    }
  }
  return t;
}

/// graph.resize (static) -> one generic over the result (and one reduction
/// loop per resized dimension with several taps) reading the input with
/// tensor.extract at indices from constant per-dimension tables; the tap
/// weights (linear, cubic) come from constant tables too. All coordinate
/// math happens at compile time, following the ONNX reference.
///
///   %0 = graph.resize %x {mode = "nearest", scales = [1, 1, 2, 2], ...}
///       : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
/// becomes
///   %i2 = arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
///   %0 = linalg.generic {maps = [(n,c,h,w) -> (h), (n,c,h,w) -> (w), id]}
///       ins(%i2, %i3) outs(%e) { %v = tensor.extract %x[n, c, %h, %w] }
/// A resize that repeats every element of each dimension an integer number
/// of times (nearest mode whose table is idx[o] = o / factor, e.g. scale 2
/// with asymmetric coordinates and floor rounding): a generic over the
/// output reading the input at (o floordiv factor) per repeated dimension.
/// Unlike the table form (tensor.extract at looked-up indices), it is an
/// input operand, which elementwise fusion folds into the consumers' loops
/// without index tables. Returns null when some dimension is not such a
/// repetition.
Value repeatNearest(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                    ArrayRef<ResizeTable> tables) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> inExprs;
  for (int64_t i = 0; i < rank; ++i) {
    const ResizeTable &t = tables[i];
    int64_t in = xt.getDimSize(i), out = type.getDimSize(i);
    AffineExpr d = getAffineDimExpr(i, ctx);
    if (t.identity) {
      inExprs.push_back(d);
      continue;
    }
    if (t.taps != 1 || !t.unitWeights || t.outside || in <= 0 ||
        out % in != 0)
      return nullptr;
    int64_t f = out / in;
    for (int64_t o = 0; o < out; ++o)
      if (t.idx[o] != o / f)
        return nullptr;
    inExprs.push_back(d.floorDiv(f));
  }
  Value init = emptyTensor(b, loc, type.getShape(), type.getElementType());
  return buildGeneric(
      b, loc, ValueRange{x}, init,
      {AffineMap::get(rank, 0, inExprs, ctx), b.getMultiDimIdentityMap(rank)},
      parallelIters(rank),
      [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
}

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    SmallVector<ResizeTable> tables;
    bool needWeights = false;
    for (int64_t i = 0; i < rank; ++i) {
      tables.push_back(computeResizeTable(op, i, xt.getDimSize(i),
                                          type.getDimSize(i)));
      needWeights |= !tables.back().unitWeights;
    }
    if (needWeights && !isa<FloatType>(elem))
      return failOp(rewriter, op,
                    "resize with interpolation needs a float element type");
    if (Value repeated = repeatNearest(rewriter, loc, x, type, tables)) {
      rewriter.replaceOp(op, repeated);
      return success();
    }
    // Loops: the result dims, then one tap loop per dim with several taps.
    SmallVector<int64_t> tapLoop(rank, -1);
    int64_t loops = rank;
    for (int64_t i = 0; i < rank; ++i)
      if (!tables[i].identity && tables[i].taps > 1)
        tapLoop[i] = loops++;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    SmallVector<int64_t> idxArg(rank, -1), wArg(rank, -1);
    Type i64 = rewriter.getI64Type();
    for (int64_t i = 0; i < rank; ++i) {
      const ResizeTable &t = tables[i];
      if (t.identity)
        continue;
      int64_t o = type.getDimSize(i);
      SmallVector<int64_t> shape{o};
      SmallVector<AffineExpr> e{d(i)};
      if (t.taps > 1) {
        shape.push_back(t.taps);
        e.push_back(d(tapLoop[i]));
      }
      idxArg[i] = ins.size();
      ins.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get(shape, i64),
                                 ArrayRef<int64_t>(t.idx))));
      maps.push_back(AffineMap::get(loops, 0, e, ctx));
      if (!t.unitWeights) {
        SmallVector<APFloat> ws;
        for (double w : t.w) {
          APFloat f(w);
          bool lost;
          f.convert(cast<FloatType>(elem).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &lost);
          ws.push_back(f);
        }
        wArg[i] = ins.size();
        ins.push_back(arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(RankedTensorType::get(shape, elem), ws)));
        maps.push_back(AffineMap::get(loops, 0, e, ctx));
      }
    }
    SmallVector<AffineExpr> oe;
    for (int64_t i = 0; i < rank; ++i)
      oe.push_back(d(i));
    maps.push_back(AffineMap::get(loops, 0, oe, ctx));
    bool reduce = loops > rank;
    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    for (int64_t i = rank; i < loops; ++i)
      iters[i] = utils::IteratorType::reduction;
    Value init = reduce ? filledTensor(rewriter, loc, type.getShape(),
                                       zeroConst(rewriter, loc, elem))
                        : emptyTensor(rewriter, loc, type.getShape(), elem);
    double extrap = op.getExtrapolationValue().convertToDouble();
    Value result = buildGeneric(
        rewriter, loc, ins, init, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> coords;
          Value isOut;
          Value zero = indexConst(b, l, 0);
          for (int64_t i = 0; i < rank; ++i) {
            if (idxArg[i] < 0) {
              coords.push_back(linalg::IndexOp::create(b, l, i));
              continue;
            }
            Value k = arith::IndexCastOp::create(b, l, b.getIndexType(),
                                                 a[idxArg[i]]);
            if (tables[i].outside) {
              Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                k, zero);
              isOut = isOut ? arith::OrIOp::create(b, l, isOut, neg).getResult()
                            : neg;
              k = arith::MaxSIOp::create(b, l, k, zero);
            }
            coords.push_back(k);
          }
          Value v = tensor::ExtractOp::create(b, l, x, coords);
          if (isOut)
            v = arith::SelectOp::create(b, l, isOut,
                                        scalarConst(b, l, elem, extrap), v);
          for (int64_t i = 0; i < rank; ++i)
            if (wArg[i] >= 0)
              v = arith::MulFOp::create(b, l, v, a[wArg[i]]);
          if (reduce)
            v = addScalar(b, l, v, a.back());
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

/// graph.conv_transpose -> the input scattered with the stride into a zero
/// tensor (tensor.insert_slice with strides; the begin padding shifts or
/// crops it), then a convolution generic reading the window flipped
/// (o + (k - 1 - kk) * dilation in its map) and with input/output channels swapped. With
/// groups the channels are split by expand_shape like graph.conv.
///
///   %0 = graph.conv_transpose %x, %w {strides = [2], pads = [0, 0], dilations = [1],
///                                     output_padding = [0], group = 1}
///       : (tensor<1x4x8xf32>, tensor<4x2x2xf32>) -> tensor<1x2x16xf32>
/// becomes
///   %z = tensor.insert_slice %x into %zeros[0, 0, 1] [1, 4, 8] [1, 1, 2] : into tensor<1x4x17xf32>
///   %0 = linalg.generic {indexing_maps = [(n,m,o,c,k) -> (n, c, o - k + 1),
///                                         (n,m,o,c,k) -> (c, m, k),
///                                         (n,m,o,c,k) -> (n, m, o)], ...}
///       ins(%z, %w) outs(%init) { %o + %x * %y }
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    auto xt = cast<RankedTensorType>(x.getType());
    auto wt = cast<RankedTensorType>(w.getType());
    int64_t rank = xt.getRank(), spatial = rank - 2;
    if (!elem.isIntOrFloat() || xt.getElementType() != elem ||
        wt.getElementType() != elem)
      return failOp(rewriter, op,
                    "conv_transpose needs numeric operands of the result type");
    if (replaceIfEmpty(rewriter, op))
      return success();
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    int64_t groups = op.getGroup();
    int64_t n = xt.getDimSize(0), c = xt.getDimSize(1);
    int64_t mg = wt.getDimSize(1), cg = c / groups, m = mg * groups;

    // z: zeros with x[i] at P + i * s, P = (k - 1) * d - pad_begin.
    SmallVector<int64_t> zShape{n, c}, offs{0, 0}, sizes{n, c}, zStr{1, 1},
        xOffs{0, 0};
    bool anyInput = true;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = xt.getDimSize(2 + i), k = wt.getDimSize(2 + i);
      int64_t s = strides[i], dl = dilations[i];
      int64_t len = type.getDimSize(2 + i) + (k - 1) * dl;
      int64_t p = (k - 1) * dl - pads[i];
      int64_t i0 = p >= 0 ? 0 : llvm::divideCeil(-p, s);
      int64_t i1 = std::min<int64_t>(in - 1, llvm::divideFloorSigned(len - 1 - p, s));
      zShape.push_back(len);
      offs.push_back(p + i0 * s);
      sizes.push_back(std::max<int64_t>(0, i1 - i0 + 1));
      zStr.push_back(s);
      xOffs.push_back(i0);
      anyInput &= i1 >= i0;
    }
    Value z = filledTensor(rewriter, loc, zShape, zeroConst(rewriter, loc, elem));
    if (anyInput) {
      Value part = x;
      if (ArrayRef<int64_t>(sizes) != xt.getShape())
        part = tensor::ExtractSliceOp::create(
            rewriter, loc, RankedTensorType::get(sizes, elem), x,
            getAsIndexOpFoldResult(ctx, xOffs), getAsIndexOpFoldResult(ctx, sizes),
            getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1)));
      z = tensor::InsertSliceOp::create(
          rewriter, loc, part, z, getAsIndexOpFoldResult(ctx, offs),
          getAsIndexOpFoldResult(ctx, sizes), getAsIndexOpFoldResult(ctx, zStr));
    }

    // Loops: n, [g,] m, o..., c, k...
    bool grouped = groups > 1;
    int64_t dN = 0, dG = 1, dM = grouped ? 2 : 1, dO = dM + 1,
            dC = dO + spatial, dK = dC + 1, loops = dK + spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> ze{d(dN)}, we, oe{d(dN)};
    if (grouped) {
      ze.push_back(d(dG));
      we.push_back(d(dG));
      oe.push_back(d(dG));
    }
    ze.push_back(d(dC));
    we.append({d(dC), d(dM)});
    oe.push_back(d(dM));
    for (int64_t i = 0; i < spatial; ++i) {
      // z[o + (k - 1 - kk) * d] * w[kk]: the weight read flipped.
      ze.push_back(d(dO + i) + (wt.getDimSize(2 + i) - 1) * dilations[i] -
                   d(dK + i) * dilations[i]);
      we.push_back(d(dK + i));
      oe.push_back(d(dO + i));
    }
    SmallVector<int64_t> outShape{n};
    if (grouped) {
      SmallVector<int64_t> zs{n, groups, cg}, ws{groups, cg, mg};
      SmallVector<ReassociationIndices> zr{{0}, {1, 2}}, wr{{0, 1}, {2}};
      for (int64_t i = 0; i < spatial; ++i) {
        zs.push_back(zShape[2 + i]);
        ws.push_back(wt.getDimSize(2 + i));
        zr.push_back({3 + i});
        wr.push_back({3 + i});
      }
      z = tensor::ExpandShapeOp::create(rewriter, loc,
                                        RankedTensorType::get(zs, elem), z, zr);
      w = tensor::ExpandShapeOp::create(rewriter, loc,
                                        RankedTensorType::get(ws, elem), w, wr);
      outShape.append({groups, mg});
    } else {
      outShape.push_back(m);
    }
    for (int64_t i = 0; i < spatial; ++i)
      outShape.push_back(type.getDimSize(2 + i));
    int64_t outRank = outShape.size();
    Value init;
    if (Value bias = adaptor.getBias()) {
      SmallVector<AffineExpr> be;
      if (grouped) {
        bias = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get({groups, mg}, elem), bias,
            ArrayRef<ReassociationIndices>{{0, 1}});
        be = {d(1), d(2)};
      } else {
        be = {d(1)};
      }
      init = buildGeneric(
          rewriter, loc, {bias}, emptyTensor(rewriter, loc, outShape, elem),
          {AffineMap::get(outRank, 0, be, ctx),
           rewriter.getMultiDimIdentityMap(outRank)},
          parallelIters(outRank),
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    } else {
      init = filledTensor(rewriter, loc, outShape, zeroConst(rewriter, loc, elem));
    }
    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    for (int64_t i = dC; i < loops; ++i)
      iters[i] = utils::IteratorType::reduction;
    Value result = buildGeneric(
        rewriter, loc, {z, w}, init,
        {AffineMap::get(loops, 0, ze, ctx), AffineMap::get(loops, 0, we, ctx),
         AffineMap::get(loops, 0, oe, ctx)},
        iters, [](OpBuilder &b, Location l, ValueRange a) {
          return mulAdd(b, l, a[2], a[0], a[1]);
        });
    if (grouped) {
      SmallVector<ReassociationIndices> orr{{0}, {1, 2}};
      for (int64_t i = 0; i < spatial; ++i)
        orr.push_back({3 + i});
      result = tensor::CollapseShapeOp::create(rewriter, loc, type, result, orr);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Training batch norm, max pool with indices
//===----------------------------------------------------------------------===//

/// graph.batch_norm_training -> per-channel mean and biased variance
/// (reduction generics over all dims but 1), the normalization generic, and
/// the running statistics `stat * momentum + batch_stat * (1 - momentum)`.
struct BatchNormTrainingLowering : OpConversionPattern<BatchNormTrainingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormTrainingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)) ||
        failed(requireFloat(rewriter, op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    Type elem = xt.getElementType();
    int64_t rank = xt.getRank();
    SmallVector<bool> reduced(rank, true);
    reduced[1] = false;
    Value mean = buildReduce(rewriter, loc, x, reduced, ReduceKind::Mean, false);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap chan = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    Value sq = buildGeneric(
        rewriter, loc, {x, mean}, emptyTensor(rewriter, loc, xt.getShape(), elem),
        {id, chan, id}, parallelIters(rank),
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value dlt = arith::SubFOp::create(b, l, a[0], a[1]);
          return arith::MulFOp::create(b, l, dlt, dlt);
        });
    Value var = buildReduce(rewriter, loc, sq, reduced, ReduceKind::Mean, false);
    double eps = op.getEpsilon().convertToDouble();
    double mom = op.getMomentum().convertToDouble();
    Value y = buildGeneric(
        rewriter, loc,
        {x, adaptor.getScale(), adaptor.getBias(), mean, var},
        emptyTensor(rewriter, loc, xt.getShape(), elem),
        {id, chan, chan, chan, chan, id}, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
          Value sd = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, a[4], scalarConst(b, l, elem, eps)));
          return arith::AddFOp::create(
              b, l,
              arith::MulFOp::create(
                  b, l, arith::DivFOp::create(b, l, centered, sd), a[1]),
              a[2]);
        });
    int64_t c = xt.getDimSize(1);
    AffineMap id1 = rewriter.getMultiDimIdentityMap(1);
    auto running = [&](Value old, Value batch) {
      return buildGeneric(
          rewriter, loc, {old, batch}, emptyTensor(rewriter, loc, {c}, elem),
          {id1, id1, id1}, parallelIters(1),
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::AddFOp::create(
                b, l, arith::MulFOp::create(b, l, a[0], scalarConst(b, l, elem, mom)),
                arith::MulFOp::create(b, l, a[1],
                                      scalarConst(b, l, elem, 1 - mom)));
          });
    };
    rewriter.replaceOp(op, {y, running(adaptor.getMean(), mean),
                            running(adaptor.getVariance(), var)});
    return success();
  }
};

/// graph.max_pool_with_indices -> like max_pool, but one generic with two
/// outputs: the maximum and the i64 flat input index of the first maximum
/// (computed from the window position; storage_order 1 swaps the spatial
/// order of the index to column-major).
struct MaxPoolWithIndicesLowering : OpConversionPattern<MaxPoolWithIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolWithIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    auto p = getPoolParams(rewriter, op, op.getKernelShape(), op.getStrides(),
                           op.getPads(), op.getDilations());
    if (failed(p))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    bool isUnsigned = isUnsignedElem(op.getResult().getType());
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    int64_t s = p->spatial;
    SmallVector<int64_t> high;
    for (int64_t i = 0; i < s; ++i) {
      int64_t needed = (type.getDimSize(2 + i) - 1) * p->strides[i] +
                       (p->kernel[i] - 1) * p->dilations[i] + 1;
      high.push_back(std::max<int64_t>(
          0, needed - xt.getDimSize(2 + i) - p->padBegin[i]));
    }
    Value lowest = lowestConst(rewriter, loc, elem, isUnsigned);
    Value padded = padSpatial(rewriter, loc, x, p->padBegin, high, lowest);
    Value window = emptyTensor(rewriter, loc, p->kernel, elem);
    int64_t loops = 2 + 2 * s;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xe{d(0), d(1)}, we, oe{d(0), d(1)};
    for (int64_t i = 0; i < s; ++i) {
      xe.push_back(d(2 + i) * p->strides[i] + d(2 + s + i) * p->dilations[i]);
      we.push_back(d(2 + s + i));
      oe.push_back(d(2 + i));
    }
    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    for (int64_t i = 2 + s; i < loops; ++i)
      iters[i] = utils::IteratorType::reduction;
    Value valInit = filledTensor(rewriter, loc, type.getShape(), lowest);
    Value idxInit = filledTensor(rewriter, loc, type.getShape(),
                                 indexConstI64(rewriter, loc, -1));
    AffineMap om = AffineMap::get(loops, 0, oe, ctx);
    bool colMajor = op.getStorageOrder() == 1;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valInit.getType(), idxInit.getType()},
        ValueRange{padded, window}, ValueRange{valInit, idxInit},
        ArrayRef<AffineMap>{AffineMap::get(loops, 0, xe, ctx),
                            AffineMap::get(loops, 0, we, ctx), om, om},
        iters, [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0], best = a[2], bestIdx = a[3];
          Type i64 = b.getI64Type();
          auto idx = [&](int64_t dim) -> Value {
            return arith::IndexCastOp::create(b, l, i64,
                                              linalg::IndexOp::create(b, l, dim));
          };
          // Flat input index: ((n * C + c) * H + h) * W + w (row-major).
          Value flat = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(b, l, idx(0),
                                    indexConstI64(b, l, xt.getDimSize(1))),
              idx(1));
          SmallVector<int64_t> order;
          for (int64_t i = 0; i < s; ++i)
            order.push_back(colMajor ? s - 1 - i : i);
          for (int64_t i : order) {
            Value pos = arith::SubIOp::create(
                b, l,
                arith::AddIOp::create(
                    b, l,
                    arith::MulIOp::create(b, l, idx(2 + i),
                                          indexConstI64(b, l, p->strides[i])),
                    arith::MulIOp::create(b, l, idx(2 + s + i),
                                          indexConstI64(b, l, p->dilations[i]))),
                indexConstI64(b, l, p->padBegin[i]));
            flat = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, flat,
                                      indexConstI64(b, l, xt.getDimSize(2 + i))),
                pos);
          }
          Value better =
              isa<FloatType>(elem)
                  ? arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, best)
                        .getResult()
                  : arith::CmpIOp::create(b, l,
                                          isUnsigned ? arith::CmpIPredicate::ugt
                                                     : arith::CmpIPredicate::sgt,
                                          v, best)
                        .getResult();
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              bestIdx, indexConstI64(b, l, 0));
          better = arith::OrIOp::create(b, l, better, first);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, v, best),
                         arith::SelectOp::create(b, l, better, flat, bestIdx)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// graph.expand -> one generic broadcasting the input (numpy maps).
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value result = buildElementwise(
        rewriter, op.getLoc(), loweredResultType(op), {adaptor.getInput()},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Builds a generic over `type` whose body computes input coordinates from
/// the loop indices (`coords`) and extracts from `x`.
Value buildIndexedCopy(
    OpBuilder &b, Location loc, RankedTensorType type, Value x,
    function_ref<Value(OpBuilder &, Location, SmallVectorImpl<Value> &)>
        body) {
  int64_t rank = type.getRank();
  Value init = emptyTensor(b, loc, type.getShape(), type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
      parallelIters(rank), [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t i = 0; i < rank; ++i)
          idx.push_back(linalg::IndexOp::create(nb, l, i));
        linalg::YieldOp::create(nb, l, body(nb, l, idx));
      });
  return generic.getResult(0);
}

/// graph.tile -> a generic over the result extracting x[i mod d].
struct TileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), loweredResultType(op), x,
        [&](OpBuilder &b, Location l, SmallVectorImpl<Value> &idx) -> Value {
          SmallVector<Value> c;
          for (auto [i, v] : llvm::enumerate(idx))
            c.push_back(arith::RemUIOp::create(
                b, l, v, indexConst(b, l, xt.getDimSize(i))));
          return tensor::ExtractOp::create(b, l, x, c);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.pad -> a generic over the result: per dim `i - pad_begin`, clamped
/// (edge), mirrored (reflect) or checked (constant, selecting the value).
struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    if (xt.getNumElements() == 0 && op.getMode() != "constant")
      return failOp(rewriter, op,
                    (op.getMode() + " pad of an empty tensor").str());
    int64_t rank = xt.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    StringRef mode = op.getMode();
    Value value = extractScalar(rewriter, loc, adaptor.getValue());
    Value result = buildIndexedCopy(
        rewriter, loc, loweredResultType(op), x,
        [&](OpBuilder &b, Location l, SmallVectorImpl<Value> &idx) -> Value {
          SmallVector<Value> c;
          Value inside;
          Value zero = indexConst(b, l, 0);
          for (int64_t i = 0; i < rank; ++i) {
            int64_t dim = xt.getDimSize(i);
            Value last = indexConst(b, l, dim - 1);
            Value s = arith::SubIOp::create(b, l, idx[i],
                                            indexConst(b, l, pads[i]));
            if (mode == "constant") {
              Value ok = arith::AndIOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, s, zero),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, s, last));
              inside = inside ? arith::AndIOp::create(b, l, inside, ok).getResult()
                              : ok;
            } else if (mode == "wrap" &&
                       (pads[i] != 0 || pads[i + rank] != 0)) {
              // Periodic over what is left of the dimension after the
              // negative pads (crops) of either end.
              int64_t lo = std::max<int64_t>(0, -pads[i]);
              int64_t kept = padKeptSize(dim, pads[i], pads[i + rank]);
              if (kept > 0) {
                Value period = indexConst(b, l, kept);
                Value t = arith::SubIOp::create(
                    b, l, idx[i],
                    indexConst(b, l, std::max<int64_t>(0, pads[i])));
                Value m = arith::RemSIOp::create(b, l, t, period);
                m = arith::SelectOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m,
                                          zero),
                    arith::AddIOp::create(b, l, m, period), m);
                s = arith::AddIOp::create(b, l, m, indexConst(b, l, lo));
              }
            } else if (mode == "reflect" && dim > 1) {
              // Mirror without repeating the edge, period 2 * (dim - 1).
              Value period = indexConst(b, l, 2 * (dim - 1));
              Value m = arith::RemSIOp::create(b, l, s, period);
              m = arith::SelectOp::create(
                  b, l,
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m, zero),
                  arith::AddIOp::create(b, l, m, period), m);
              Value mirrored = arith::SubIOp::create(b, l, period, m);
              s = arith::MinSIOp::create(b, l, m, mirrored);
            }
            s = arith::MaxSIOp::create(b, l, arith::MinSIOp::create(b, l, s, last),
                                       zero);
            c.push_back(s);
          }
          if (xt.getNumElements() == 0)
            return value;
          Value v = tensor::ExtractOp::create(b, l, x, c);
          if (inside)
            v = arith::SelectOp::create(b, l, inside, v, value);
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.cumsum -> a generic over (result..., j) summing the input at j
/// along the axis where j <= i (j < i exclusive; j >= i reversed).
struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    Type elem = type.getElementType();
    if (!elem.isIntOrFloat())
      return failOp(rewriter, op, "cumsum on non-numeric types");
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    SmallVector<AffineExpr> xe;
    for (int64_t i = 0; i < rank; ++i)
      xe.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    SmallVector<utils::IteratorType> iters = parallelIters(rank + 1);
    iters[rank] = utils::IteratorType::reduction;
    using IP = arith::CmpIPredicate;
    IP pred = op.getReverse() ? (op.getExclusive() ? IP::sgt : IP::sge)
                              : (op.getExclusive() ? IP::slt : IP::sle);
    Value result = buildGeneric(
        rewriter, loc, {adaptor.getInput()},
        filledTensor(rewriter, loc, type.getShape(), zeroConst(rewriter, loc, elem)),
        {AffineMap::get(rank + 1, 0, xe, ctx),
         AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)},
        iters, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value j = linalg::IndexOp::create(b, l, rank);
          Value i = linalg::IndexOp::create(b, l, axis);
          Value take = arith::CmpIOp::create(b, l, pred, j, i);
          Value v = arith::SelectOp::create(b, l, take, a[0],
                                            zeroConst(b, l, elem));
          return addScalar(b, l, a[1], v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An index read from a tensor element, negative values counted from `dim`
/// and clamped into [0, dim).
Value normalizedIndex(OpBuilder &b, Location l, Value v, int64_t dim) {
  Value k = isa<FloatType>(v.getType())
                ? arith::IndexCastOp::create(
                      b, l, b.getIndexType(),
                      arith::FPToSIOp::create(b, l, b.getI64Type(), v))
                      .getResult()
                : arith::IndexCastOp::create(b, l, b.getIndexType(), v)
                      .getResult();
  Value zero = indexConst(b, l, 0);
  Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, zero);
  k = arith::SelectOp::create(
      b, l, neg, arith::AddIOp::create(b, l, k, indexConst(b, l, dim)), k);
  k = arith::MaxSIOp::create(b, l, k, zero);
  return arith::MinSIOp::create(b, l, k, indexConst(b, l, std::max<int64_t>(0, dim - 1)));
}

/// graph.gather_elements -> a generic over the indices extracting from the
/// input at the loop indices with the axis one replaced.
struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    Location loc = op.getLoc();
    Value result = buildGeneric(
        rewriter, loc, {adaptor.getIndices()},
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType()),
        {id, id}, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> c;
          for (int64_t i = 0; i < rank; ++i)
            c.push_back(i == axis ? normalizedIndex(b, l, a[0], xt.getDimSize(i))
                                  : linalg::IndexOp::create(b, l, i).getResult());
          return tensor::ExtractOp::create(b, l, x, c);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.gather_nd -> a generic over the result reading each index tuple
/// with tensor.extract from the indices, then extracting from the input.
struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value x = adaptor.getInput(), indices = adaptor.getIndices();
    auto xt = cast<RankedTensorType>(x.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t q = it.getRank(), len = it.getDimSize(q - 1);
    int64_t bd = op.getBatchDims();
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), loweredResultType(op), x,
        [&](OpBuilder &b, Location l, SmallVectorImpl<Value> &idx) -> Value {
          SmallVector<Value> ic(idx.begin(), idx.begin() + (q - 1));
          ic.push_back(Value());
          SmallVector<Value> c(idx.begin(), idx.begin() + bd);
          for (int64_t k = 0; k < len; ++k) {
            ic.back() = indexConst(b, l, k);
            Value v = tensor::ExtractOp::create(b, l, indices, ic);
            c.push_back(normalizedIndex(b, l, v, xt.getDimSize(bd + k)));
          }
          for (size_t i = q - 1; i < idx.size(); ++i)
            c.push_back(idx[i]);
          return tensor::ExtractOp::create(b, l, x, c);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.trilu -> `k` extracted as a scalar, then one generic keeping x
/// where `j - i >= k` (upper) or `j - i <= k` (lower), else 0.
struct TriluLowering : OpConversionPattern<TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    Value k = arith::IndexCastOp::create(
        rewriter, op.getLoc(), rewriter.getIndexType(),
        extractScalar(rewriter, op.getLoc(), adaptor.getK()));
    bool upper = op.getUpper();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value diff = arith::SubIOp::create(b, l, j, i);
          Value keep = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, k);
          return arith::SelectOp::create(b, l, keep, a[0],
                                         zeroConst(b, l, a[0].getType()));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.one_hot -> a generic over the result reading the index (the axis
/// dim dropped from its map) and selecting on/off.
struct OneHotLowering : OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    RankedTensorType type = loweredResultType(op);
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    int64_t depth = op.getDepth();
    Value values = adaptor.getValues();
    Value off = tensor::ExtractOp::create(rewriter, loc, values,
                                          ValueRange{indexConst(rewriter, loc, 0)});
    Value on = tensor::ExtractOp::create(rewriter, loc, values,
                                         ValueRange{indexConst(rewriter, loc, 1)});
    SmallVector<AffineExpr> ie;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        ie.push_back(getAffineDimExpr(i, ctx));
    Value result = buildGeneric(
        rewriter, loc, {adaptor.getIndices()},
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType()),
        {AffineMap::get(rank, 0, ie, ctx), rewriter.getMultiDimIdentityMap(rank)},
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = a[0];
          Value k = isa<FloatType>(v.getType())
                        ? arith::FPToSIOp::create(b, l, b.getI64Type(), v).getResult()
                        : v;
          if (k.getType() != b.getI64Type())
            k = arith::ExtSIOp::create(b, l, b.getI64Type(), k);
          Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k,
                                            indexConstI64(b, l, 0));
          k = arith::SelectOp::create(
              b, l, neg, arith::AddIOp::create(b, l, k, indexConstI64(b, l, depth)),
              k);
          Value pos = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value eq = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, k, pos);
          return arith::SelectOp::create(b, l, eq, on, off);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// TopK, scatter
//===----------------------------------------------------------------------===//

/// graph.top_k -> two generics: the rank of every element along the axis
/// (how many elements precede it: larger, or equal at a lower index; an
/// O(n^2) count; NaN orders above every number, so the ranks are a
/// permutation and every output position is written), then for each output
/// position j the element whose rank is j (value and index outputs, a reduction
/// over the axis).
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    Type elem = xt.getElementType();
    if (!elem.isIntOrFloat())
      return failOp(rewriter, op, "top_k on non-numeric types");
    auto vt = cast<RankedTensorType>(toSignless(op.getValues().getType()));
    auto it = cast<RankedTensorType>(op.getIndices().getType());
    if (vt.getNumElements() == 0) {
      rewriter.replaceOp(op, {emptyTensor(rewriter, loc, vt.getShape(), elem),
                              emptyTensor(rewriter, loc, it.getShape(),
                                          it.getElementType())});
      return success();
    }
    int64_t rank = xt.getRank();
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    bool largest = op.getLargest();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    Type i64 = rewriter.getI64Type();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> self, other;
    for (int64_t i = 0; i < rank; ++i) {
      self.push_back(d(i));
      other.push_back(i == axis ? d(rank) : d(i));
    }
    SmallVector<utils::IteratorType> iters = parallelIters(rank + 1);
    iters[rank] = utils::IteratorType::reduction;
    AffineMap selfMap = AffineMap::get(rank + 1, 0, self, ctx);
    AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
    Value ranks = buildGeneric(
        rewriter, loc, {x, x},
        filledTensor(rewriter, loc, xt.getShape(), indexConstI64(rewriter, loc, 0)),
        {selfMap, otherMap, selfMap}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value v = a[0], w = a[1];
          Value before, equal;
          if (isa<FloatType>(elem)) {
            // NaN orders above every number (as numpy's sort and PyTorch's
            // topk do), and NaNs are equal to each other, so the ranks stay
            // a permutation: largest, w precedes v when (w > v or w is NaN)
            // and v is not NaN; smallest, when (w < v or v is NaN) and w is
            // not NaN.
            using FP = arith::CmpFPredicate;
            Value wNaN = arith::CmpFOp::create(b, l, FP::UNO, w, w);
            Value vNaN = arith::CmpFOp::create(b, l, FP::UNO, v, v);
            Value trueV = arith::ConstantIntOp::create(b, l, 1, 1);
            auto notOf = [&](Value c) {
              return arith::XOrIOp::create(b, l, c, trueV).getResult();
            };
            before = arith::AndIOp::create(
                b, l,
                arith::CmpFOp::create(b, l, largest ? FP::UGT : FP::ULT, w, v),
                notOf(largest ? vNaN : wNaN));
            equal = arith::OrIOp::create(
                b, l, arith::CmpFOp::create(b, l, FP::OEQ, w, v),
                arith::AndIOp::create(b, l, wNaN, vNaN));
          } else {
            using IP = arith::CmpIPredicate;
            before = arith::CmpIOp::create(
                b, l,
                largest ? (isUnsigned ? IP::ugt : IP::sgt)
                        : (isUnsigned ? IP::ult : IP::slt),
                w, v);
            equal = arith::CmpIOp::create(b, l, IP::eq, w, v);
          }
          Value lower = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ult, linalg::IndexOp::create(b, l, rank),
              linalg::IndexOp::create(b, l, axis));
          Value counts = arith::OrIOp::create(
              b, l, before, arith::AndIOp::create(b, l, equal, lower));
          return arith::AddIOp::create(
              b, l, a[2], arith::ExtUIOp::create(b, l, i64, counts));
        });
    // Output position j along the axis takes the element of rank j.
    Value valInit = emptyTensor(rewriter, loc, vt.getShape(), elem);
    Value idxInit = filledTensor(rewriter, loc, vt.getShape(),
                                 indexConstI64(rewriter, loc, 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valInit.getType(), idxInit.getType()},
        ValueRange{x, ranks}, ValueRange{valInit, idxInit},
        ArrayRef<AffineMap>{otherMap, otherMap, selfMap, selfMap}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value j = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value match =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], j);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, match, a[0], a[2]),
                         arith::SelectOp::create(b, l, match, i, a[3])});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// The element an update leaves at its target: the update itself, or its
/// sum, product, maximum or minimum with the element there (NaN wins a float
/// maximum or minimum, as in ONNX's reference).
Value scatterCombine(OpBuilder &b, Location l, StringRef reduction, Value acc,
                     Value upd, bool isUnsigned) {
  if (reduction == "add")
    return addScalar(b, l, acc, upd);
  if (reduction == "mul")
    return mulScalar(b, l, acc, upd);
  bool isFloat = isa<FloatType>(acc.getType());
  if (reduction == "max") {
    if (isFloat)
      return arith::MaximumFOp::create(b, l, acc, upd);
    return isUnsigned ? arith::MaxUIOp::create(b, l, acc, upd).getResult()
                      : arith::MaxSIOp::create(b, l, acc, upd).getResult();
  }
  if (reduction == "min") {
    if (isFloat)
      return arith::MinimumFOp::create(b, l, acc, upd);
    return isUnsigned ? arith::MinUIOp::create(b, l, acc, upd).getResult()
                      : arith::MinSIOp::create(b, l, acc, upd).getResult();
  }
  return upd;
}

/// The loop nest of a scatter lowered as loops: one `scf.for` per bound,
/// the input carried through them and updated in place.
Value scatterLoopNest(
    OpBuilder &b, Location loc, ArrayRef<int64_t> bounds, Value input,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t n : bounds) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, n));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, ValueRange{input},
                         [&](OpBuilder &nb, Location l, ValueRange ivs,
                             ValueRange acc) -> scf::ValueVector {
                           return {body(nb, l, ivs, acc.front())};
                         });
  return nest.results.front();
}

/// graph.scatter_elements. With `loops` (`scatter-loops`, CPU targets): an
/// `scf.for` nest over the updates that reads each update once and writes
/// it into the carried copy of the input at its coordinate with the axis
/// replaced by its index, linear in the updates. Otherwise a reduction
/// generic over (input dims..., j), j running over the updates along the
/// axis, initialised with the input: update u = (o with the axis at j)
/// lands at o when it exists and indices[u] == o[axis]. Either way updates
/// past the input's extent along another dim are dropped, and later updates
/// win or combine in order.
struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  ScatterElementsLowering(MLIRContext *ctx, bool loops)
      : OpConversionPattern(ctx), useLoops(loops) {}
  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value x = adaptor.getInput();
    auto ut = cast<RankedTensorType>(adaptor.getUpdates().getType());
    if (ut.getNumElements() == 0) {
      rewriter.replaceOp(op, x);
      return success();
    }
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += ut.getRank();
    rewriter.replaceOp(op, useLoops
                               ? lowerToLoops(rewriter, op, adaptor, axis)
                               : lowerToGeneric(rewriter, op, adaptor, axis));
    return success();
  }

private:
  Value lowerToLoops(OpBuilder &rewriter, ScatterElementsOp op,
                     OpAdaptor adaptor, int64_t axis) const {
    Value x = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto xt = cast<RankedTensorType>(x.getType());
    auto ut = cast<RankedTensorType>(updates.getType());
    SmallVector<int64_t> bounds;
    for (int64_t i = 0; i < xt.getRank(); ++i)
      bounds.push_back(i == axis
                           ? ut.getDimSize(i)
                           : std::min(ut.getDimSize(i), xt.getDimSize(i)));
    StringRef reduction = op.getReduction();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    return scatterLoopNest(
        rewriter, op.getLoc(), bounds, x,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) -> Value {
          SmallVector<Value> at(ivs);
          at[axis] = normalizedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ivs),
              xt.getDimSize(axis));
          Value v = tensor::ExtractOp::create(b, l, updates, ivs);
          if (reduction != "none")
            v = scatterCombine(b, l, reduction,
                               tensor::ExtractOp::create(b, l, acc, at), v,
                               isUnsigned);
          return tensor::InsertOp::create(b, l, v, acc, at);
        });
  }

  Value lowerToGeneric(OpBuilder &rewriter, ScatterElementsOp op,
                       OpAdaptor adaptor, int64_t axis) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value x = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto xt = cast<RankedTensorType>(x.getType());
    auto ut = cast<RankedTensorType>(updates.getType());
    int64_t rank = xt.getRank();
    StringRef reduction = op.getReduction();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    SmallVector<utils::IteratorType> iters = parallelIters(rank + 1);
    iters[rank] = utils::IteratorType::reduction;
    AffineMap out = AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                        .getMajorSubMap(rank);
    // A shape-only operand gives the j loop its range (like pooling windows).
    Value range = emptyTensor(rewriter, loc, {ut.getDimSize(axis)},
                              rewriter.getI8Type());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{x.getType()}, ValueRange{range}, ValueRange{x},
        ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
                            out},
        iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> u;
          Value inRange = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          for (int64_t i = 0; i < rank; ++i) {
            if (i == axis) {
              u.push_back(linalg::IndexOp::create(b, l, rank));
              continue;
            }
            Value o = linalg::IndexOp::create(b, l, i);
            inRange = arith::AndIOp::create(
                b, l, inRange,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, o,
                                      indexConst(b, l, ut.getDimSize(i))));
            u.push_back(arith::MinUIOp::create(
                b, l, o, indexConst(b, l, ut.getDimSize(i) - 1)));
          }
          Value target = normalizedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, u),
              xt.getDimSize(axis));
          Value hit = arith::AndIOp::create(
              b, l, inRange,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, target,
                                    linalg::IndexOp::create(b, l, axis)));
          Value v = tensor::ExtractOp::create(b, l, updates, u);
          Value combined = scatterCombine(b, l, reduction, a[1], v, isUnsigned);
          linalg::YieldOp::create(
              b, l, ValueRange{arith::SelectOp::create(b, l, hit, combined, a[1])});
        });
    return generic.getResult(0);
  }

  bool useLoops;
};

/// graph.scatter_nd. With `loops` (`scatter-loops`, CPU targets): an
/// `scf.for` nest over the index tuples that inserts each tuple's slice of
/// the updates into the carried copy of the input (or combines it with the
/// slice there by an elementwise generic that writes it in place), linear
/// in the updates. Otherwise a reduction generic over (input dims...,
/// update batch dims...) initialised with the input: the update at u lands
/// at o when its index tuple equals o's leading dims. Later updates win or
/// combine in order.
struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  ScatterNDLowering(MLIRContext *ctx, bool loops)
      : OpConversionPattern(ctx), useLoops(loops) {}
  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(rewriter, op)))
      return failure();
    if (replaceIfEmpty(rewriter, op))
      return success();
    Value x = adaptor.getInput();
    auto xt = cast<RankedTensorType>(x.getType());
    auto it = cast<RankedTensorType>(adaptor.getIndices().getType());
    if (it.getNumElements() == 0) {
      rewriter.replaceOp(op, x);
      return success();
    }
    if (it.getDimSize(it.getRank() - 1) > xt.getRank())
      return failOp(rewriter, op, "scatter_nd index tuples are too long");
    rewriter.replaceOp(op, useLoops ? lowerToLoops(rewriter, op, adaptor)
                                    : lowerToGeneric(rewriter, op, adaptor));
    return success();
  }

private:
  Value lowerToLoops(OpBuilder &rewriter, ScatterNDOp op,
                     OpAdaptor adaptor) const {
    Value x = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto xt = cast<RankedTensorType>(x.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t rank = xt.getRank(), q = it.getRank();
    int64_t len = it.getDimSize(q - 1);
    StringRef reduction = op.getReduction();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    ArrayRef<int64_t> sliceShape = xt.getShape().drop_front(len);
    auto sliceType = RankedTensorType::get(sliceShape, xt.getElementType());
    return scatterLoopNest(
        rewriter, op.getLoc(), it.getShape().drop_back(), x,
        [&](OpBuilder &b, Location l, ValueRange ivs, Value acc) -> Value {
          // The tuple's coordinates, then the slice's.
          SmallVector<Value> ic(ivs), at;
          ic.push_back(Value());
          for (int64_t k = 0; k < len; ++k) {
            ic.back() = indexConst(b, l, k);
            at.push_back(normalizedIndex(
                b, l, tensor::ExtractOp::create(b, l, indices, ic),
                xt.getDimSize(k)));
          }
          if (len == rank) {
            Value v = tensor::ExtractOp::create(b, l, updates, ivs);
            if (reduction != "none")
              v = scatterCombine(b, l, reduction,
                                 tensor::ExtractOp::create(b, l, acc, at), v,
                                 isUnsigned);
            return tensor::InsertOp::create(b, l, v, acc, at);
          }
          SmallVector<OpFoldResult> offsets(at.begin(), at.end()), sizes,
              strides(rank, b.getIndexAttr(1));
          sizes.append(len, b.getIndexAttr(1));
          for (int64_t d : sliceShape) {
            offsets.push_back(b.getIndexAttr(0));
            sizes.push_back(b.getIndexAttr(d));
          }
          // The updates' slice: the loop's coordinates, then whole dims.
          int64_t urank = q - 1 + rank - len;
          SmallVector<OpFoldResult> uOffsets(ivs.begin(), ivs.end()),
              uSizes(q - 1, b.getIndexAttr(1)),
              uStrides(urank, b.getIndexAttr(1));
          for (int64_t d : sliceShape) {
            uOffsets.push_back(b.getIndexAttr(0));
            uSizes.push_back(b.getIndexAttr(d));
          }
          Value slice = tensor::ExtractSliceOp::create(
              b, l, sliceType, updates, uOffsets, uSizes, uStrides);
          if (reduction != "none") {
            Value cur = tensor::ExtractSliceOp::create(b, l, sliceType, acc,
                                                       offsets, sizes, strides);
            int64_t srank = sliceType.getRank();
            AffineMap id = b.getMultiDimIdentityMap(srank);
            slice = linalg::GenericOp::create(
                        b, l, TypeRange{sliceType}, ValueRange{slice},
                        ValueRange{cur}, ArrayRef<AffineMap>{id, id},
                        parallelIters(srank),
                        [&](OpBuilder &gb, Location gl, ValueRange a) {
                          linalg::YieldOp::create(
                              gb, gl,
                              ValueRange{scatterCombine(gb, gl, reduction, a[1],
                                                        a[0], isUnsigned)});
                        })
                        .getResult(0);
          }
          return tensor::InsertSliceOp::create(b, l, slice, acc, offsets, sizes,
                                               strides);
        });
  }

  Value lowerToGeneric(OpBuilder &rewriter, ScatterNDOp op,
                       OpAdaptor adaptor) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value x = adaptor.getInput(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto xt = cast<RankedTensorType>(x.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t rank = xt.getRank(), q = it.getRank();
    int64_t len = it.getDimSize(q - 1);
    StringRef reduction = op.getReduction();
    bool isUnsigned = isUnsignedElem(op.getInput().getType());
    int64_t loops = rank + q - 1;
    SmallVector<utils::IteratorType> iters = parallelIters(loops);
    for (int64_t i = rank; i < loops; ++i)
      iters[i] = utils::IteratorType::reduction;
    AffineMap out =
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(rank);
    // A shape-only operand gives the update loops their ranges.
    SmallVector<AffineExpr> re;
    for (int64_t i = rank; i < loops; ++i)
      re.push_back(getAffineDimExpr(i, ctx));
    Value range = emptyTensor(rewriter, loc, it.getShape().drop_back(),
                              rewriter.getI8Type());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{x.getType()}, ValueRange{range}, ValueRange{x},
        ArrayRef<AffineMap>{AffineMap::get(loops, 0, re, ctx), out}, iters,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> ic, uc;
          for (int64_t i = rank; i < loops; ++i) {
            ic.push_back(linalg::IndexOp::create(b, l, i));
            uc.push_back(ic.back());
          }
          ic.push_back(Value());
          Value hit = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          for (int64_t k = 0; k < len; ++k) {
            ic.back() = indexConst(b, l, k);
            Value t = normalizedIndex(
                b, l, tensor::ExtractOp::create(b, l, indices, ic),
                xt.getDimSize(k));
            hit = arith::AndIOp::create(
                b, l, hit,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, t,
                                      linalg::IndexOp::create(b, l, k)));
          }
          for (int64_t i = len; i < rank; ++i)
            uc.push_back(linalg::IndexOp::create(b, l, i));
          Value v = tensor::ExtractOp::create(b, l, updates, uc);
          Value combined = scatterCombine(b, l, reduction, a[1], v, isUnsigned);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, hit, combined, a[1])});
        });
    return generic.getResult(0);
  }

  bool useLoops;
};

/// func.return with converted (signless) operand types.
struct ReturnLowering : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

struct LowerGraphToLinalgPass
    : public tfrt::impl::LowerGraphToLinalgBase<LowerGraphToLinalgPass> {
  using LowerGraphToLinalgBase::LowerGraphToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // uiN -> iN everywhere, including the function signature.
    TypeConverter converter;
    converter.addConversion([](Type t) { return toSignless(t); });

    ConversionTarget target(*ctx);
    target.addIllegalDialect<GraphDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect, scf::SCFDialect>();
    // The run-time checks of tfrt-check-indices.
    target.addLegalOp<cf::AssertOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>([&](func::ReturnOp r) {
      return converter.isLegal(r.getOperandTypes());
    });

    RewritePatternSet patterns(ctx);
    tfrt::populateGraphToLinalgPatterns(patterns, scatterLoops);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    patterns.add<ReturnLowering>(converter, ctx);
    if (failed(applyFullConversion(getOperation(), target,
                                   std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void tfrt::populateGraphToLinalgPatterns(RewritePatternSet &patterns,
                                         bool scatterLoops) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantLowering, ShapeLowering, BinaryLowering<AddOp>,
               BinaryLowering<SubOp>, BinaryLowering<MulOp>,
               BinaryLowering<DivOp>, BinaryLowering<PowOp>,
               UnaryLowering<ReluOp>, UnaryLowering<SigmoidOp>,
               UnaryLowering<TanhOp>, UnaryLowering<ExpOp>,
               UnaryLowering<LogOp>, UnaryLowering<SqrtOp>,
               UnaryLowering<NegOp>, UnaryLowering<AbsOp>,
               UnaryLowering<HardSigmoidOp>, UnaryLowering<HardSwishOp>,
               UnaryLowering<IdentityOp>, ClipLowering, CastLowering,
               BatchNormLowering, MatMulLowering, GemmLowering, ConvLowering,
               MaxPoolLowering, AveragePoolLowering,
               GlobalAveragePoolLowering, SoftmaxLowering,
               ReshapeLowering<ReshapeOp>, ReshapeLowering<FlattenOp>,
               ReshapeLowering<SqueezeOp>, ReshapeLowering<UnsqueezeOp>,
               TransposeLowering, ConcatLowering, SliceLowering,
               GatherLowering>(ctx);
  patterns.add<
      ElementwiseLowering<MaxOp>, ElementwiseLowering<MinOp>,
      ElementwiseLowering<AndOp>, ElementwiseLowering<OrOp>,
      ElementwiseLowering<XorOp>, ElementwiseLowering<PReluOp>,
      ElementwiseLowering<EqualOp>, ElementwiseLowering<LessOp>,
      ElementwiseLowering<LessOrEqualOp>, ElementwiseLowering<GreaterOp>,
      ElementwiseLowering<GreaterOrEqualOp>, ElementwiseLowering<ModOp>,
      ElementwiseLowering<BitShiftOp>, WhereLowering, MathLowering<FloorOp>,
      MathLowering<CeilOp>, MathLowering<RoundOp>, MathLowering<SignOp>,
      MathLowering<ReciprocalOp>, MathLowering<ErfOp>, MathLowering<SinOp>,
      MathLowering<CosOp>, MathLowering<TanOp>, MathLowering<AsinOp>,
      MathLowering<AcosOp>, MathLowering<AtanOp>, MathLowering<SinhOp>,
      MathLowering<CoshOp>, MathLowering<AsinhOp>, MathLowering<AcoshOp>,
      MathLowering<AtanhOp>, MathLowering<SoftplusOp>, MathLowering<SoftsignOp>,
      MathLowering<NotOp>, MathLowering<IsNaNOp>, MathLowering<IsInfOp>,
      MathLowering<LeakyReluOp>, MathLowering<EluOp>, MathLowering<SeluOp>,
      MathLowering<CeluOp>, MathLowering<ThresholdedReluOp>,
      MathLowering<ShrinkOp>, ReduceLowering<ReduceSumOp>,
      ReduceLowering<ReduceMeanOp>, ReduceLowering<ReduceMaxOp>,
      ReduceLowering<ReduceMinOp>, ReduceLowering<ReduceProdOp>,
      ReduceLowering<ReduceL1Op>, ReduceLowering<ReduceL2Op>,
      ReduceLowering<ReduceLogSumOp>, ReduceLowering<ReduceLogSumExpOp>,
      ReduceLowering<ReduceSumSquareOp>, ArgLowering<ArgMaxOp>,
      ArgLowering<ArgMinOp>, AxisNormLowering<LogSoftmaxOp>,
      AxisNormLowering<HardmaxOp>, ResizeLowering, ConvTransposeLowering,
      BatchNormTrainingLowering, MaxPoolWithIndicesLowering, ExpandLowering,
      TileLowering, PadLowering, CumSumLowering, GatherElementsLowering,
      GatherNDLowering, TriluLowering, OneHotLowering, TopKLowering>(ctx);
  patterns.add<ScatterElementsLowering, ScatterNDLowering>(ctx, scatterLoops);
  populateDepthwiseConvPatterns(patterns);
  populateMatMulRowsPatterns(patterns);
  populateConvTransposeBlocksPatterns(patterns);
}
