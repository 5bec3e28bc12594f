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

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
    int64_t rank = x.getRank();
    auto clampIndex = [&](std::optional<int64_t> v, int64_t dflt) {
      int64_t i = v ? *v : dflt;
      if (i < 0)
        i += rank;
      return std::clamp<int64_t>(i, 0, rank);
    };
    int64_t s = clampIndex(op.getStart(), 0), e = clampIndex(op.getEnd(), rank);
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
      if (lhsUnsigned)
        return arith::DivUIOp::create(b, l, x, y);
      return arith::DivSIOp::create(b, l, x, y);
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
        return arith::MaximumFOp::create(b, l, x, zeroConst(b, l, t));
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
      Value one = scalarConst(b, l, t, 1.0);
      Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
      return arith::DivFOp::create(b, l, one,
                                   arith::AddFOp::create(b, l, one, e));
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
      v = arith::MinimumFOp::create(b, l, v, scalarConst(b, l, t, 1.0));
      v = arith::MaximumFOp::create(b, l, v, zeroConst(b, l, t));
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
            return arith::MinimumFOp::create(
                b, l, arith::MaximumFOp::create(b, l, x, lo), hi);
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

/// graph.softmax -> four generics: max over the axis, exp(x - max), sum over
/// the axis, divide (numerically stable).
///
///   %0 = graph.softmax %x {axis = -1} : (tensor<2x5xf32>) -> tensor<2x5xf32>
/// becomes
///   %m = linalg.generic {maps = [(i,j) -> (i,j), (i,j) -> (i)], [par, red]}
///       ins(%x) outs(%neginf_fill : tensor<2xf32>) { maximumf }
///   %e = linalg.generic {maps = [id, (i,j) -> (i), id]} ins(%x, %m) outs(..) { exp(x - m) }
///   %s = linalg.generic {maps = [id, (i,j) -> (i)], [par, red]} ins(%e) outs(%zeros) { addf }
///   %0 = linalg.generic {maps = [id, (i,j) -> (i), id]} ins(%e, %s) outs(..) { divf }
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
    Value result = buildGeneric(
        rewriter, loc, {exp, sum}, emptyTensor(rewriter, loc, shape, elem),
        {id, red, id}, parallelIters(rank),
        [](OpBuilder &b, Location l, ValueRange a) {
          return arith::DivFOp::create(b, l, a[0], a[1]).getResult();
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
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // uiN -> iN everywhere, including the function signature.
    TypeConverter converter;
    converter.addConversion([](Type t) { return toSignless(t); });

    ConversionTarget target(*ctx);
    target.addIllegalDialect<GraphDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>([&](func::ReturnOp r) {
      return converter.isLegal(r.getOperandTypes());
    });

    RewritePatternSet patterns(ctx);
    tfrt::populateGraphToLinalgPatterns(patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    patterns.add<ReturnLowering>(converter, ctx);
    if (failed(applyFullConversion(getOperation(), target,
                                   std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void tfrt::populateGraphToLinalgPatterns(RewritePatternSet &patterns) {
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
}
