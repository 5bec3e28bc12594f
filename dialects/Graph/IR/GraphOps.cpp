//===- GraphOps.cpp - graph dialect ops: shape inference, verifiers -------===//
//
// Result-type inference for every graph op (InferTypeOpInterface), the custom
// verifiers, and the shape helpers shared with the importers. Inference never
// asserts on user input: inconsistent shapes produce a diagnostic at the op's
// location (which carries the model's node name) and a failure; shapes that
// cannot be known yet (unranked operands, non-constant shape tensors) produce
// unranked or dynamic results, which tfrt-specialize-shapes later refines.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace tfrt::graph;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

RankedTensorType rankedOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

Type unranked(Type elem) { return UnrankedTensorType::get(elem); }

Type ranked(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ",";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

LogicalResult fail(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}

/// Normalizes an axis into [0, rank).
FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                 std::optional<Location> loc,
                                 StringRef what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    (void)fail(loc, Twine(what) + " " + Twine(axis) +
                        " is out of range for rank " + Twine(rank));
    return failure();
  }
  return a;
}

int64_t mulDims(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return kDyn;
  return a * b;
}
} // namespace

LogicalResult tfrt::graph::broadcastShapes(ArrayRef<int64_t> a,
                                           ArrayRef<int64_t> b,
                                           SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1) {
      result[i] = db;
    } else if (db == 1) {
      result[i] = da;
    } else if (ShapedType::isDynamic(da)) {
      result[i] = db;
    } else if (ShapedType::isDynamic(db)) {
      result[i] = da;
    } else if (da == db) {
      result[i] = da;
    } else {
      return failure();
    }
  }
  return success();
}

bool tfrt::graph::isCompatibleTensorTypes(TypeRange inferred,
                                          TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [i, a] : llvm::zip(inferred, actual)) {
    auto si = dyn_cast<ShapedType>(i);
    auto sa = dyn_cast<ShapedType>(a);
    if (!si || !sa || si.getElementType() != sa.getElementType())
      return false;
    if (!si.hasRank() || !sa.hasRank())
      continue;
    if (si.getRank() != sa.getRank())
      return false;
    for (auto [x, y] : llvm::zip(si.getShape(), sa.getShape()))
      if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
        return false;
  }
  return true;
}

LogicalResult tfrt::graph::getConstantInts(Value value,
                                           SmallVectorImpl<int64_t> &values) {
  if (!value)
    return failure();
  DenseIntElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return failure();
  values.clear();
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                : v.getSExtValue());
  return success();
}

int64_t tfrt::graph::windowOutputSize(int64_t in, int64_t kernel,
                                      int64_t stride, int64_t dilation,
                                      int64_t padBegin, int64_t padEnd,
                                      bool ceilMode) {
  if (ShapedType::isDynamic(in))
    return kDyn;
  int64_t effective = (kernel - 1) * dilation + 1;
  int64_t span = in + padBegin + padEnd - effective;
  if (span < 0)
    return 0;
  int64_t out = ceilMode ? llvm::divideCeil(span, stride) + 1 : span / stride + 1;
  // A window that starts entirely inside the end padding is dropped.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

std::pair<int64_t, int64_t>
tfrt::graph::shapeOpRange(int64_t rank, std::optional<int64_t> start,
                          std::optional<int64_t> end) {
  auto clampIndex = [&](std::optional<int64_t> v, int64_t dflt) {
    int64_t i = v ? *v : dflt;
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  return {clampIndex(start, 0), clampIndex(end, rank)};
}

LogicalResult tfrt::graph::refineResultTypes(Operation *op) {
  auto iface = dyn_cast<InferTypeOpInterface>(op);
  if (!iface)
    return success();
  SmallVector<Type> types;
  if (failed(iface.inferReturnTypes(op->getContext(), op->getLoc(),
                                    op->getOperands(),
                                    op->getRawDictionaryAttrs(),
                                    op->getPropertiesStorage(),
                                    op->getRegions(), types)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    if (result.getType() != type)
      result.setType(type);
  return success();
}

static LogicalResult foldOp(Operation *op, OpBuilder &builder,
                            SmallVectorImpl<Value> &replacements) {
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(folded)) || folded.empty())
    return failure();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  for (auto [result, f] : llvm::zip(op->getResults(), folded)) {
    if (auto v = dyn_cast<Value>(f)) {
      if (v.getType() != result.getType())
        return failure();
      replacements.push_back(v);
      continue;
    }
    Operation *cst = op->getDialect()->materializeConstant(
        builder, cast<Attribute>(f), result.getType(), op->getLoc());
    if (!cst)
      return failure();
    replacements.push_back(cst->getResult(0));
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return success();
}

LogicalResult tfrt::graph::foldInPlace(Operation *op, OpBuilder &builder) {
  SmallVector<Value> replacements;
  return foldOp(op, builder, replacements);
}

FailureOr<SmallVector<Value>>
tfrt::graph::createInferred(OpBuilder &builder, Location loc, StringRef opName,
                            ValueRange operands,
                            ArrayRef<NamedAttribute> attributes) {
  MLIRContext *ctx = builder.getContext();
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, ctx);
  if (!name)
    return emitError(loc) << "unknown graph op '" << opName << "'", failure();
  auto *concept_ = name->getInterface<InferTypeOpInterface>();
  if (!concept_)
    return emitError(loc) << "op '" << opName << "' cannot infer types",
           failure();
  DictionaryAttr dict = DictionaryAttr::get(ctx, attributes);
  SmallVector<Type> types;
  if (failed(concept_->inferReturnTypes(ctx, loc, operands, dict,
                                        OpaqueProperties(nullptr), {}, types)))
    return failure();
  OperationState state(loc, *name);
  state.addOperands(operands);
  state.addAttributes(attributes);
  state.addTypes(types);
  Operation *op = builder.create(state);
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  SmallVector<Value> replacements;
  if (succeeded(foldOp(op, builder, replacements)))
    return replacements;
  return SmallVector<Value>(op->getResults());
}

//===----------------------------------------------------------------------===//
// Compatibility of declared and inferred types (shared by every op)
//===----------------------------------------------------------------------===//

#define GRAPH_COMPATIBLE(OP)                                                   \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return isCompatibleTensorTypes(l, r);                                      \
  }
GRAPH_COMPATIBLE(AddOp)
GRAPH_COMPATIBLE(SubOp)
GRAPH_COMPATIBLE(MulOp)
GRAPH_COMPATIBLE(DivOp)
GRAPH_COMPATIBLE(PowOp)
GRAPH_COMPATIBLE(ReluOp)
GRAPH_COMPATIBLE(SigmoidOp)
GRAPH_COMPATIBLE(TanhOp)
GRAPH_COMPATIBLE(ExpOp)
GRAPH_COMPATIBLE(LogOp)
GRAPH_COMPATIBLE(SqrtOp)
GRAPH_COMPATIBLE(NegOp)
GRAPH_COMPATIBLE(AbsOp)
GRAPH_COMPATIBLE(HardSwishOp)
GRAPH_COMPATIBLE(IdentityOp)
GRAPH_COMPATIBLE(HardSigmoidOp)
GRAPH_COMPATIBLE(ClipOp)
GRAPH_COMPATIBLE(CastOp)
GRAPH_COMPATIBLE(MatMulOp)
GRAPH_COMPATIBLE(GemmOp)
GRAPH_COMPATIBLE(ConvOp)
GRAPH_COMPATIBLE(BatchNormOp)
GRAPH_COMPATIBLE(MaxPoolOp)
GRAPH_COMPATIBLE(AveragePoolOp)
GRAPH_COMPATIBLE(GlobalAveragePoolOp)
GRAPH_COMPATIBLE(SoftmaxOp)
GRAPH_COMPATIBLE(ReshapeOp)
GRAPH_COMPATIBLE(FlattenOp)
GRAPH_COMPATIBLE(TransposeOp)
GRAPH_COMPATIBLE(ConcatOp)
GRAPH_COMPATIBLE(SliceOp)
GRAPH_COMPATIBLE(SqueezeOp)
GRAPH_COMPATIBLE(UnsqueezeOp)
GRAPH_COMPATIBLE(ShapeOp)
GRAPH_COMPATIBLE(GatherOp)
GRAPH_COMPATIBLE(ConstantOp)
GRAPH_COMPATIBLE(MaxOp)
GRAPH_COMPATIBLE(MinOp)
GRAPH_COMPATIBLE(AndOp)
GRAPH_COMPATIBLE(OrOp)
GRAPH_COMPATIBLE(XorOp)
GRAPH_COMPATIBLE(PReluOp)
GRAPH_COMPATIBLE(EqualOp)
GRAPH_COMPATIBLE(LessOp)
GRAPH_COMPATIBLE(LessOrEqualOp)
GRAPH_COMPATIBLE(GreaterOp)
GRAPH_COMPATIBLE(GreaterOrEqualOp)
GRAPH_COMPATIBLE(ModOp)
GRAPH_COMPATIBLE(BitShiftOp)
GRAPH_COMPATIBLE(WhereOp)
GRAPH_COMPATIBLE(FloorOp)
GRAPH_COMPATIBLE(CeilOp)
GRAPH_COMPATIBLE(RoundOp)
GRAPH_COMPATIBLE(SignOp)
GRAPH_COMPATIBLE(ReciprocalOp)
GRAPH_COMPATIBLE(ErfOp)
GRAPH_COMPATIBLE(SinOp)
GRAPH_COMPATIBLE(CosOp)
GRAPH_COMPATIBLE(TanOp)
GRAPH_COMPATIBLE(AsinOp)
GRAPH_COMPATIBLE(AcosOp)
GRAPH_COMPATIBLE(AtanOp)
GRAPH_COMPATIBLE(SinhOp)
GRAPH_COMPATIBLE(CoshOp)
GRAPH_COMPATIBLE(AsinhOp)
GRAPH_COMPATIBLE(AcoshOp)
GRAPH_COMPATIBLE(AtanhOp)
GRAPH_COMPATIBLE(SoftplusOp)
GRAPH_COMPATIBLE(SoftsignOp)
GRAPH_COMPATIBLE(NotOp)
GRAPH_COMPATIBLE(IsNaNOp)
GRAPH_COMPATIBLE(IsInfOp)
GRAPH_COMPATIBLE(LeakyReluOp)
GRAPH_COMPATIBLE(EluOp)
GRAPH_COMPATIBLE(SeluOp)
GRAPH_COMPATIBLE(CeluOp)
GRAPH_COMPATIBLE(ThresholdedReluOp)
GRAPH_COMPATIBLE(ShrinkOp)
GRAPH_COMPATIBLE(LogSoftmaxOp)
GRAPH_COMPATIBLE(HardmaxOp)
GRAPH_COMPATIBLE(ReduceSumOp)
GRAPH_COMPATIBLE(ReduceMeanOp)
GRAPH_COMPATIBLE(ReduceMaxOp)
GRAPH_COMPATIBLE(ReduceMinOp)
GRAPH_COMPATIBLE(ReduceProdOp)
GRAPH_COMPATIBLE(ReduceL1Op)
GRAPH_COMPATIBLE(ReduceL2Op)
GRAPH_COMPATIBLE(ReduceLogSumOp)
GRAPH_COMPATIBLE(ReduceLogSumExpOp)
GRAPH_COMPATIBLE(ReduceSumSquareOp)
GRAPH_COMPATIBLE(ArgMaxOp)
GRAPH_COMPATIBLE(ArgMinOp)
GRAPH_COMPATIBLE(ResizeOp)
GRAPH_COMPATIBLE(ConvTransposeOp)
GRAPH_COMPATIBLE(ExpandOp)
GRAPH_COMPATIBLE(TileOp)
GRAPH_COMPATIBLE(PadOp)
GRAPH_COMPATIBLE(CumSumOp)
GRAPH_COMPATIBLE(GatherElementsOp)
GRAPH_COMPATIBLE(GatherNDOp)
GRAPH_COMPATIBLE(TriluOp)
GRAPH_COMPATIBLE(OneHotOp)
GRAPH_COMPATIBLE(BatchNormTrainingOp)
GRAPH_COMPATIBLE(MaxPoolWithIndicesOp)
GRAPH_COMPATIBLE(TopKOp)
GRAPH_COMPATIBLE(ScatterElementsOp)
GRAPH_COMPATIBLE(ScatterNDOp)
#undef GRAPH_COMPATIBLE

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static LogicalResult inferBinary(std::optional<Location> loc, Value lhs,
                                 Value rhs, bool sameElementType,
                                 SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(lhs);
  if (sameElementType && elem != elementTypeOf(rhs)) {
    std::string a, b;
    llvm::raw_string_ostream(a) << elem;
    llvm::raw_string_ostream(b) << elementTypeOf(rhs);
    return fail(loc, "operand element types differ: " + a + " vs " + b);
  }
  auto l = rankedOf(lhs), r = rankedOf(rhs);
  if (!l || !r) {
    types.push_back(unranked(elem));
    return success();
  }
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(l.getShape(), r.getShape(), shape)))
    return fail(loc, "operand shapes " + shapeStr(l.getShape()) + " and " +
                         shapeStr(r.getShape()) +
                         " are not broadcast-compatible");
  types.push_back(ranked(shape, elem));
  return success();
}

#define GRAPH_INFER_BINARY(OP, SAME)                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(), SAME, types);  \
  }
GRAPH_INFER_BINARY(AddOp, true)
GRAPH_INFER_BINARY(SubOp, true)
GRAPH_INFER_BINARY(MulOp, true)
GRAPH_INFER_BINARY(DivOp, true)
GRAPH_INFER_BINARY(PowOp, false)
GRAPH_INFER_BINARY(MaxOp, true)
GRAPH_INFER_BINARY(MinOp, true)
GRAPH_INFER_BINARY(AndOp, true)
GRAPH_INFER_BINARY(OrOp, true)
GRAPH_INFER_BINARY(XorOp, true)
GRAPH_INFER_BINARY(PReluOp, true)
GRAPH_INFER_BINARY(ModOp, true)
GRAPH_INFER_BINARY(BitShiftOp, true)
#undef GRAPH_INFER_BINARY

/// Comparisons: broadcast like binary ops, result i1.
#define GRAPH_INFER_COMPARE(OP)                                                \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    if (failed(inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(), true,      \
                           types)))                                            \
      return failure();                                                        \
    types[0] = cast<ShapedType>(types[0]).clone(IntegerType::get(ctx, 1));     \
    return success();                                                          \
  }
GRAPH_INFER_COMPARE(EqualOp)
GRAPH_INFER_COMPARE(LessOp)
GRAPH_INFER_COMPARE(LessOrEqualOp)
GRAPH_INFER_COMPARE(GreaterOp)
GRAPH_INFER_COMPARE(GreaterOrEqualOp)
#undef GRAPH_INFER_COMPARE

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (!elementTypeOf(adaptor.getCondition()).isInteger(1))
    return fail(loc, "where condition must be a tensor of i1");
  SmallVector<Type> xy;
  if (failed(inferBinary(loc, adaptor.getX(), adaptor.getY(), true, xy)))
    return failure();
  auto c = rankedOf(adaptor.getCondition());
  auto r = dyn_cast<RankedTensorType>(xy[0]);
  Type elem = elementTypeOf(adaptor.getX());
  if (!c || !r) {
    types.push_back(unranked(elem));
    return success();
  }
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(c.getShape(), r.getShape(), shape)))
    return fail(loc, "where condition shape " + shapeStr(c.getShape()) +
                         " does not broadcast with " + shapeStr(r.getShape()));
  types.push_back(ranked(shape, elem));
  return success();
}

#define GRAPH_INFER_SAME(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location>,   \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    types.push_back(adaptor.getInput().getType());                             \
    return success();                                                          \
  }
GRAPH_INFER_SAME(ReluOp)
GRAPH_INFER_SAME(SigmoidOp)
GRAPH_INFER_SAME(TanhOp)
GRAPH_INFER_SAME(ExpOp)
GRAPH_INFER_SAME(LogOp)
GRAPH_INFER_SAME(SqrtOp)
GRAPH_INFER_SAME(NegOp)
GRAPH_INFER_SAME(AbsOp)
GRAPH_INFER_SAME(HardSwishOp)
GRAPH_INFER_SAME(IdentityOp)
GRAPH_INFER_SAME(HardSigmoidOp)
GRAPH_INFER_SAME(ClipOp)
GRAPH_INFER_SAME(BatchNormOp)
GRAPH_INFER_SAME(FloorOp)
GRAPH_INFER_SAME(CeilOp)
GRAPH_INFER_SAME(RoundOp)
GRAPH_INFER_SAME(SignOp)
GRAPH_INFER_SAME(ReciprocalOp)
GRAPH_INFER_SAME(ErfOp)
GRAPH_INFER_SAME(SinOp)
GRAPH_INFER_SAME(CosOp)
GRAPH_INFER_SAME(TanOp)
GRAPH_INFER_SAME(AsinOp)
GRAPH_INFER_SAME(AcosOp)
GRAPH_INFER_SAME(AtanOp)
GRAPH_INFER_SAME(SinhOp)
GRAPH_INFER_SAME(CoshOp)
GRAPH_INFER_SAME(AsinhOp)
GRAPH_INFER_SAME(AcoshOp)
GRAPH_INFER_SAME(AtanhOp)
GRAPH_INFER_SAME(SoftplusOp)
GRAPH_INFER_SAME(SoftsignOp)
GRAPH_INFER_SAME(NotOp)
GRAPH_INFER_SAME(LeakyReluOp)
GRAPH_INFER_SAME(EluOp)
GRAPH_INFER_SAME(SeluOp)
GRAPH_INFER_SAME(CeluOp)
GRAPH_INFER_SAME(ThresholdedReluOp)
GRAPH_INFER_SAME(ShrinkOp)
GRAPH_INFER_SAME(CumSumOp)
#undef GRAPH_INFER_SAME

#define GRAPH_INFER_PREDICATE(OP)                                              \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location>, Adaptor adaptor, \
                                     SmallVectorImpl<Type> &types) {           \
    types.push_back(cast<ShapedType>(adaptor.getInput().getType())             \
                        .clone(IntegerType::get(ctx, 1)));                     \
    return success();                                                          \
  }
GRAPH_INFER_PREDICATE(IsNaNOp)
GRAPH_INFER_PREDICATE(IsInfOp)
#undef GRAPH_INFER_PREDICATE

#define GRAPH_INFER_AXIS(OP, WHAT)                                             \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    if (auto x = rankedOf(adaptor.getInput()))                                 \
      if (failed(normalizeAxis(adaptor.getAxis(), x.getRank(), loc, WHAT)))    \
        return failure();                                                      \
    types.push_back(adaptor.getInput().getType());                             \
    return success();                                                          \
  }
GRAPH_INFER_AXIS(LogSoftmaxOp, "log_softmax axis")
GRAPH_INFER_AXIS(HardmaxOp, "hardmax axis")
#undef GRAPH_INFER_AXIS

LogicalResult ClipOp::verify() {
  for (Value bound : {getMin(), getMax()}) {
    if (elementTypeOf(bound) != elementTypeOf(getInput()))
      return emitOpError("bound element type must match the input's");
    auto t = rankedOf(bound);
    if (t && t.getNumElements() != 1 && t.hasStaticShape())
      return emitOpError("bounds must be scalars, got shape ")
             << shapeStr(t.getShape());
  }
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type to = adaptor.getTo();
  if (!to)
    return fail(loc, "missing 'to' type");
  if (auto r = rankedOf(adaptor.getInput()))
    types.push_back(ranked(r.getShape(), to));
  else
    types.push_back(unranked(to));
  return success();
}

//===----------------------------------------------------------------------===//
// MatMul, Gemm, Conv, BatchNorm
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getLhs());
  if (elem != elementTypeOf(adaptor.getRhs()))
    return fail(loc, "matmul operands have different element types");
  auto a = rankedOf(adaptor.getLhs()), b = rankedOf(adaptor.getRhs());
  if (!a || !b) {
    types.push_back(unranked(elem));
    return success();
  }
  if (a.getRank() == 0 || b.getRank() == 0)
    return fail(loc, "matmul operands must have rank >= 1");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  bool dropM = as.size() == 1, dropN = bs.size() == 1;
  if (dropM)
    as.insert(as.begin(), 1);
  if (dropN)
    bs.push_back(1);
  int64_t k1 = as.back(), k2 = bs[bs.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return fail(loc, "matmul contraction dimensions differ: " + shapeStr(as) +
                         " x " + shapeStr(bs));
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(ArrayRef<int64_t>(as).drop_back(2),
                             ArrayRef<int64_t>(bs).drop_back(2), batch)))
    return fail(loc, "matmul batch dimensions are not broadcast-compatible");
  SmallVector<int64_t> shape(batch);
  if (!dropM)
    shape.push_back(as[as.size() - 2]);
  if (!dropN)
    shape.push_back(bs.back());
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getA());
  auto a = rankedOf(adaptor.getA()), b = rankedOf(adaptor.getB());
  if (!a || !b) {
    types.push_back(unranked(elem));
    return success();
  }
  if (a.getRank() != 2 || b.getRank() != 2)
    return fail(loc, "gemm operands must be 2-D");
  bool ta = adaptor.getTransA(), tb = adaptor.getTransB();
  int64_t m = a.getDimSize(ta ? 1 : 0), k1 = a.getDimSize(ta ? 0 : 1);
  int64_t k2 = b.getDimSize(tb ? 1 : 0), n = b.getDimSize(tb ? 0 : 1);
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return fail(loc, "gemm contraction dimensions differ: " + Twine(k1) +
                         " vs " + Twine(k2));
  if (Value c = adaptor.getC()) {
    SmallVector<int64_t> out;
    if (auto ct = rankedOf(c))
      if (failed(broadcastShapes({m, n}, ct.getShape(), out)) ||
          out.size() != 2 ||
          (!ShapedType::isDynamic(m) && out[0] != m && out[0] != kDyn) ||
          (!ShapedType::isDynamic(n) && out[1] != n && out[1] != kDyn))
        return fail(loc, "gemm bias of shape " + shapeStr(ct.getShape()) +
                             " does not broadcast to " + shapeStr({m, n}));
  }
  types.push_back(ranked({m, n}, elem));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput()), w = rankedOf(adaptor.getWeight());
  if (!x || !w) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t rank = x.getRank();
  if (rank < 3)
    return fail(loc, "conv input must have rank >= 3, got " + Twine(rank));
  if (w.getRank() != rank)
    return fail(loc, "conv weight rank " + Twine(w.getRank()) +
                         " does not match input rank " + Twine(rank));
  size_t spatial = rank - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides();
  ArrayRef<int64_t> dilations = adaptor.getDilations();
  ArrayRef<int64_t> pads = adaptor.getPads();
  if (strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return fail(loc, "conv needs " + Twine(spatial) +
                         " strides and dilations and " + Twine(2 * spatial) +
                         " pads");
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(dilations, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(pads, [](int64_t s) { return s < 0; }))
    return fail(loc, "conv strides and dilations must be positive and pads "
                     "non-negative");
  int64_t group = adaptor.getGroup();
  if (group <= 0)
    return fail(loc, "conv group must be positive");
  int64_t c = x.getDimSize(1), m = w.getDimSize(0), wc = w.getDimSize(1);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(wc) &&
      c != wc * group)
    return fail(loc, "conv input has " + Twine(c) +
                         " channels but weight expects " + Twine(wc) + " x " +
                         Twine(group) + " groups");
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return fail(loc, "conv output channels " + Twine(m) +
                         " not divisible by group " + Twine(group));
  if (Value b = adaptor.getBias())
    if (auto bt = rankedOf(b))
      if (bt.getRank() != 1 ||
          (!bt.isDynamicDim(0) && !ShapedType::isDynamic(m) &&
           bt.getDimSize(0) != m))
        return fail(loc, "conv bias must have shape [" + Twine(m) + "]");
  SmallVector<int64_t> shape = {x.getDimSize(0), m};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = w.getDimSize(2 + i);
    int64_t o = ShapedType::isDynamic(k)
                    ? kDyn
                    : windowOutputSize(x.getDimSize(2 + i), k, strides[i],
                                       dilations[i], pads[i],
                                       pads[i + spatial], false);
    if (o == 0)
      return fail(loc, "conv window is larger than the padded input");
    shape.push_back(o);
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult BatchNormOp::verify() {
  auto x = rankedOf(getInput());
  if (!x)
    return success();
  if (x.getRank() < 2)
    return emitOpError("input must have rank >= 2");
  int64_t c = x.getDimSize(1);
  for (Value p : {getScale(), getBias(), getMean(), getVariance()}) {
    auto t = rankedOf(p);
    if (!t)
      continue;
    if (t.getRank() != 1 ||
        (!t.isDynamicDim(0) && !ShapedType::isDynamic(c) &&
         t.getDimSize(0) != c))
      return emitOpError("parameters must have shape [")
             << c << "], got " << shapeStr(t.getShape());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and softmax
//===----------------------------------------------------------------------===//

static LogicalResult inferPool(std::optional<Location> loc, Value input,
                               ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations, bool ceilMode,
                               SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(input);
  auto x = rankedOf(input);
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  if (x.getRank() < 3)
    return fail(loc, "pooling input must have rank >= 3");
  size_t spatial = x.getRank() - 2;
  if (kernel.size() != spatial || strides.size() != spatial ||
      dilations.size() != spatial || pads.size() != 2 * spatial)
    return fail(loc, "pooling needs " + Twine(spatial) +
                         " kernel sizes, strides and dilations and " +
                         Twine(2 * spatial) + " pads");
  SmallVector<int64_t> shape = {x.getDimSize(0), x.getDimSize(1)};
  for (size_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0 ||
        pads[i] < 0 || pads[i + spatial] < 0)
      return fail(loc, "pooling kernel, strides and dilations must be "
                       "positive and pads non-negative");
    if (pads[i] >= kernel[i] || pads[i + spatial] >= kernel[i])
      return fail(loc, "pooling pads must be smaller than the kernel");
    int64_t o = windowOutputSize(x.getDimSize(2 + i), kernel[i], strides[i],
                                 dilations[i], pads[i], pads[i + spatial],
                                 ceilMode);
    if (o == 0)
      return fail(loc, "pooling window is larger than the padded input");
    shape.push_back(o);
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                   adaptor.getStrides(), adaptor.getPads(),
                   adaptor.getDilations(), adaptor.getCeilMode(), types);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                   adaptor.getStrides(), adaptor.getPads(),
                   adaptor.getDilations(), adaptor.getCeilMode(), types);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  if (x.getRank() < 3)
    return fail(loc, "global pooling input must have rank >= 3");
  SmallVector<int64_t> shape(x.getRank(), 1);
  shape[0] = x.getDimSize(0);
  shape[1] = x.getDimSize(1);
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (auto x = rankedOf(adaptor.getInput()))
    if (failed(normalizeAxis(adaptor.getAxis(), x.getRank(), loc,
                             "softmax axis")))
      return failure();
  types.push_back(adaptor.getInput().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  SmallVector<int64_t> target;
  if (failed(getConstantInts(adaptor.getShape(), target))) {
    auto st = rankedOf(adaptor.getShape());
    if (st && st.getRank() == 1 && !st.isDynamicDim(0))
      types.push_back(
          ranked(SmallVector<int64_t>(st.getDimSize(0), kDyn), elem));
    else
      types.push_back(unranked(elem));
    return success();
  }
  auto x = rankedOf(adaptor.getInput());
  int64_t inferIndex = -1;
  int64_t known = 1;
  bool knownDynamic = false;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == -1) {
      if (inferIndex >= 0)
        return fail(loc, "reshape shape has more than one -1");
      inferIndex = i;
      continue;
    }
    if (d < -1)
      return fail(loc, "reshape shape has invalid dimension " + Twine(d));
    if (d == 0 && !adaptor.getAllowzero()) {
      if (!x) {
        target[i] = kDyn;
        knownDynamic = true;
        continue;
      }
      if (static_cast<int64_t>(i) >= x.getRank())
        return fail(loc, "reshape copies dimension " + Twine(i) +
                             " which the input does not have");
      target[i] = x.getDimSize(i);
      if (ShapedType::isDynamic(target[i])) {
        knownDynamic = true;
        continue;
      }
    }
    known *= target[i];
  }
  if (x && x.hasStaticShape() && !knownDynamic) {
    int64_t total = x.getNumElements();
    if (inferIndex >= 0) {
      if (known == 0 || total % known != 0)
        return fail(loc, "cannot reshape " + shapeStr(x.getShape()) + " to " +
                             shapeStr(target));
      target[inferIndex] = total / known;
    } else if (known != total) {
      return fail(loc, "cannot reshape " + shapeStr(x.getShape()) + " (" +
                           Twine(total) + " elements) to " +
                           shapeStr(target));
    }
  } else if (inferIndex >= 0) {
    target[inferIndex] = kDyn;
  }
  types.push_back(ranked(target, elem));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(ranked({kDyn, kDyn}, elem));
    return success();
  }
  // Flatten's axis lies in [-rank, rank]; negative counts from the end.
  int64_t a = adaptor.getAxis() < 0 ? adaptor.getAxis() + x.getRank()
                                     : adaptor.getAxis();
  if (a < 0 || a > x.getRank())
    return fail(loc, "flatten axis " + Twine(adaptor.getAxis()) +
                         " is out of range for rank " + Twine(x.getRank()));
  std::optional<int64_t> axis = a;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < x.getRank(); ++i)
    (i < *axis ? outer : inner) = mulDims(i < *axis ? outer : inner,
                                          x.getDimSize(i));
  types.push_back(ranked({outer, inner}, elem));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != x.getRank())
    return fail(loc, "transpose perm has " + Twine(perm.size()) +
                         " entries for rank " + Twine(x.getRank()));
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank())
      return fail(loc, "transpose perm entry " + Twine(p) + " out of range");
    shape.push_back(x.getDimSize(p));
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult TransposeOp::verify() {
  SmallVector<bool> seen(getPerm().size(), false);
  for (int64_t p : getPerm()) {
    if (p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[p])
      return emitOpError("perm must be a permutation of [0, rank)");
    seen[p] = true;
  }
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return fail(loc, "concat needs at least one input");
  Type elem = elementTypeOf(inputs.front());
  RankedTensorType first;
  for (Value v : inputs) {
    if (elementTypeOf(v) != elem)
      return fail(loc, "concat inputs have different element types");
    if (auto r = rankedOf(v))
      if (!first)
        first = r;
  }
  if (!first) {
    types.push_back(unranked(elem));
    return success();
  }
  auto axis = normalizeAxis(adaptor.getAxis(), first.getRank(), loc,
                            "concat axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  for (Value v : inputs) {
    auto r = rankedOf(v);
    if (!r) {
      shape[*axis] = kDyn;
      continue;
    }
    if (r.getRank() != first.getRank())
      return fail(loc, "concat inputs have different ranks");
    for (int64_t i = 0; i < r.getRank(); ++i) {
      if (i == *axis) {
        shape[i] = (ShapedType::isDynamic(shape[i]) || r.isDynamicDim(i))
                       ? kDyn
                       : shape[i] + r.getDimSize(i);
        continue;
      }
      if (ShapedType::isDynamic(shape[i]))
        shape[i] = r.getDimSize(i);
      else if (!r.isDynamicDim(i) && r.getDimSize(i) != shape[i])
        return fail(loc, "concat inputs differ in dimension " + Twine(i) +
                             ": " + shapeStr(first.getShape()) + " vs " +
                             shapeStr(r.getShape()));
    }
  }
  types.push_back(ranked(shape, elem));
  return success();
}

FailureOr<SliceParams> tfrt::graph::computeSliceParams(
    ArrayRef<int64_t> shape, Value startsV, Value endsV, Value axesV,
    Value stepsV, std::optional<Location> loc) {
  SmallVector<int64_t> starts, ends, axes, steps;
  if (failed(getConstantInts(startsV, starts)) ||
      failed(getConstantInts(endsV, ends)))
    return failure();
  int64_t rank = shape.size();
  if (axesV) {
    if (failed(getConstantInts(axesV, axes)))
      return failure();
  } else {
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  }
  if (stepsV) {
    if (failed(getConstantInts(stepsV, steps)))
      return failure();
  } else {
    steps.assign(starts.size(), 1);
  }
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    (void)fail(loc, "slice starts, ends, axes and steps differ in length");
    return failure();
  }
  SliceParams p;
  p.start.assign(rank, 0);
  p.step.assign(rank, 1);
  p.size.assign(shape.begin(), shape.end());
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank, loc, "slice axis");
    if (failed(axis))
      return failure();
    if (seen[*axis]) {
      (void)fail(loc, "slice axis " + Twine(*axis) + " repeated");
      return failure();
    }
    seen[*axis] = true;
    int64_t dim = shape[*axis];
    int64_t step = steps[i];
    if (step == 0) {
      (void)fail(loc, "slice step must not be 0");
      return failure();
    }
    if (ShapedType::isDynamic(dim)) {
      p.size[*axis] = kDyn;
      continue;
    }
    int64_t s = starts[i], e = ends[i];
    if (s < 0)
      s = s < -dim ? -1 : s + dim;
    if (e < 0)
      e = e < -dim ? -1 : e + dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      p.size[*axis] = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      p.size[*axis] = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    p.start[*axis] = s;
    p.step[*axis] = step;
  }
  return p;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  SmallVector<int64_t> tmp;
  bool allConstant =
      succeeded(getConstantInts(adaptor.getStarts(), tmp)) &&
      succeeded(getConstantInts(adaptor.getEnds(), tmp)) &&
      (!adaptor.getAxes() ||
       succeeded(getConstantInts(adaptor.getAxes(), tmp))) &&
      (!adaptor.getSteps() ||
       succeeded(getConstantInts(adaptor.getSteps(), tmp)));
  if (!allConstant) {
    types.push_back(
        ranked(SmallVector<int64_t>(x.getRank(), kDyn), elem));
    return success();
  }
  auto p = computeSliceParams(x.getShape(), adaptor.getStarts(),
                              adaptor.getEnds(), adaptor.getAxes(),
                              adaptor.getSteps(), loc);
  if (failed(p))
    return failure();
  types.push_back(ranked(p->size, elem));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  SmallVector<int64_t> axes;
  SmallVector<bool> drop(x.getRank(), false);
  if (adaptor.getAxes()) {
    if (failed(getConstantInts(adaptor.getAxes(), axes))) {
      types.push_back(unranked(elem));
      return success();
    }
    for (int64_t a : axes) {
      auto axis = normalizeAxis(a, x.getRank(), loc, "squeeze axis");
      if (failed(axis))
        return failure();
      if (!x.isDynamicDim(*axis) && x.getDimSize(*axis) != 1)
        return fail(loc, "cannot squeeze dimension " + Twine(*axis) +
                             " of size " + Twine(x.getDimSize(*axis)));
      drop[*axis] = true;
    }
  } else {
    for (int64_t i = 0; i < x.getRank(); ++i) {
      if (x.isDynamicDim(i)) {
        types.push_back(unranked(elem));
        return success();
      }
      drop[i] = x.getDimSize(i) == 1;
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i)
    if (!drop[i])
      shape.push_back(x.getDimSize(i));
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  SmallVector<int64_t> axes;
  if (!x || failed(getConstantInts(adaptor.getAxes(), axes))) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t outRank = x.getRank() + axes.size();
  SmallVector<bool> inserted(outRank, false);
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, outRank, loc, "unsqueeze axis");
    if (failed(axis))
      return failure();
    if (inserted[*axis])
      return fail(loc, "unsqueeze axis " + Twine(*axis) + " repeated");
    inserted[*axis] = true;
  }
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    shape.push_back(inserted[i] ? 1 : x.getDimSize(next++));
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type i64 = IntegerType::get(ctx, 64);
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(ranked({kDyn}, i64));
    return success();
  }
  std::optional<int64_t> start, end;
  if (auto a = adaptor.getStartAttr())
    start = a.getInt();
  if (auto a = adaptor.getEndAttr())
    end = a.getInt();
  auto [s, e] = shapeOpRange(x.getRank(), start, end);
  types.push_back(ranked({std::max<int64_t>(0, e - s)}, i64));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  auto idx = rankedOf(adaptor.getIndices());
  if (!x || !idx) {
    types.push_back(unranked(elem));
    return success();
  }
  auto axis = normalizeAxis(adaptor.getAxis(), x.getRank(), loc,
                            "gather axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(x.getShape().take_front(*axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, x.getShape().drop_front(*axis + 1));
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = adaptor.getValue();
  if (!value)
    return fail(loc, "constant needs a value");
  types.push_back(value.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions, arg max/min
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> loc, Value input,
                                 ArrayRef<int64_t> axes, bool keepdims,
                                 Type elem, SmallVectorImpl<Type> &types) {
  auto x = rankedOf(input);
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t rank = x.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, rank, loc, "reduction axis");
    if (failed(axis))
      return failure();
    if (reduced[*axis])
      return fail(loc, "reduction axis " + Twine(*axis) + " repeated");
    reduced[*axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(x.getDimSize(i));
    else if (keepdims)
      shape.push_back(1);
  }
  types.push_back(ranked(shape, elem));
  return success();
}

#define GRAPH_INFER_REDUCE(OP)                                                 \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),             \
                       adaptor.getKeepdims(),                                  \
                       elementTypeOf(adaptor.getInput()), types);              \
  }
GRAPH_INFER_REDUCE(ReduceSumOp)
GRAPH_INFER_REDUCE(ReduceMeanOp)
GRAPH_INFER_REDUCE(ReduceMaxOp)
GRAPH_INFER_REDUCE(ReduceMinOp)
GRAPH_INFER_REDUCE(ReduceProdOp)
GRAPH_INFER_REDUCE(ReduceL1Op)
GRAPH_INFER_REDUCE(ReduceL2Op)
GRAPH_INFER_REDUCE(ReduceLogSumOp)
GRAPH_INFER_REDUCE(ReduceLogSumExpOp)
GRAPH_INFER_REDUCE(ReduceSumSquareOp)
#undef GRAPH_INFER_REDUCE

#define GRAPH_INFER_ARG(OP)                                                    \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    int64_t axis = adaptor.getAxis();                                          \
    return inferReduce(loc, adaptor.getInput(), ArrayRef<int64_t>(axis),       \
                       adaptor.getKeepdims(), IntegerType::get(ctx, 64),       \
                       types);                                                 \
  }
GRAPH_INFER_ARG(ArgMaxOp)
GRAPH_INFER_ARG(ArgMinOp)
#undef GRAPH_INFER_ARG

//===----------------------------------------------------------------------===//
// Resize, ConvTranspose
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  ArrayRef<double> scales = adaptor.getScales();
  StringRef mode = adaptor.getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return fail(loc, "resize mode '" + mode + "' is not one of nearest, "
                     "linear, cubic");
  StringRef ct = adaptor.getCoordinateTransformationMode();
  if (ct != "half_pixel" && ct != "pytorch_half_pixel" &&
      ct != "align_corners" && ct != "asymmetric" &&
      ct != "tf_half_pixel_for_nn" && ct != "tf_crop_and_resize")
    return fail(loc, "resize coordinate_transformation_mode '" + ct +
                         "' is not supported");
  StringRef nm = adaptor.getNearestMode();
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" &&
      nm != "floor" && nm != "ceil")
    return fail(loc, "resize nearest_mode '" + nm + "' is not supported");
  if (llvm::any_of(scales, [](double s) { return !(s > 0); }))
    return fail(loc, "resize scales must be positive");
  auto x = rankedOf(adaptor.getInput());
  std::optional<ArrayRef<int64_t>> sizes = adaptor.getSizes();
  if (!x) {
    if (sizes)
      types.push_back(ranked(*sizes, elem));
    else
      types.push_back(unranked(elem));
    return success();
  }
  int64_t rank = x.getRank();
  if ((int64_t)scales.size() != rank || (sizes && (int64_t)sizes->size() != rank))
    return fail(loc, "resize needs one scale (and size) per dimension, got " +
                         Twine(scales.size()) + " for rank " + Twine(rank));
  if (ct == "tf_crop_and_resize" && (int64_t)adaptor.getRoi().size() != 2 * rank)
    return fail(loc, "tf_crop_and_resize needs a roi of 2 * rank values");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes)
      shape.push_back((*sizes)[i]);
    else if (x.isDynamicDim(i))
      shape.push_back(kDyn);
    else
      shape.push_back((int64_t)std::floor(x.getDimSize(i) * scales[i]));
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput()), w = rankedOf(adaptor.getWeight());
  if (!x || !w) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t rank = x.getRank();
  if (rank < 3 || w.getRank() != rank)
    return fail(loc, "conv_transpose input and weight need the same rank >= 3");
  size_t spatial = rank - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides(),
                    dilations = adaptor.getDilations(),
                    pads = adaptor.getPads(),
                    outPad = adaptor.getOutputPadding();
  if (strides.size() != spatial || dilations.size() != spatial ||
      outPad.size() != spatial || pads.size() != 2 * spatial)
    return fail(loc, "conv_transpose needs " + Twine(spatial) +
                         " strides, dilations and output paddings and " +
                         Twine(2 * spatial) + " pads");
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(dilations, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(outPad, [](int64_t s) { return s < 0; }))
    return fail(loc, "conv_transpose strides and dilations must be positive "
                     "and output paddings non-negative");
  int64_t group = adaptor.getGroup();
  if (group <= 0)
    return fail(loc, "conv_transpose group must be positive");
  int64_t c = x.getDimSize(1), wc = w.getDimSize(0), mg = w.getDimSize(1);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(wc) && c != wc)
    return fail(loc, "conv_transpose input has " + Twine(c) +
                         " channels but the weight has " + Twine(wc));
  if (!ShapedType::isDynamic(c) && c % group != 0)
    return fail(loc, "conv_transpose channels not divisible by group");
  int64_t m = mulDims(mg, group);
  if (Value b = adaptor.getBias())
    if (auto bt = rankedOf(b))
      if (bt.getRank() != 1 || (!bt.isDynamicDim(0) && !ShapedType::isDynamic(m) &&
                                bt.getDimSize(0) != m))
        return fail(loc, "conv_transpose bias must have shape [" + Twine(m) + "]");
  SmallVector<int64_t> shape = {x.getDimSize(0), m};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = x.getDimSize(2 + i), k = w.getDimSize(2 + i);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      shape.push_back(kDyn);
      continue;
    }
    int64_t o = strides[i] * (in - 1) + outPad[i] + (k - 1) * dilations[i] +
                1 - pads[i] - pads[i + spatial];
    if (o <= 0)
      return fail(loc, "conv_transpose output would be empty");
    shape.push_back(o);
  }
  types.push_back(ranked(shape, elem));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  SmallVector<int64_t> target;
  if (!x || failed(getConstantInts(adaptor.getShape(), target))) {
    types.push_back(unranked(elem));
    return success();
  }
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(x.getShape(), target, shape)))
    return fail(loc, "expand: input shape " + shapeStr(x.getShape()) +
                         " does not broadcast to " + shapeStr(target));
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  SmallVector<int64_t> reps;
  if (!x || failed(getConstantInts(adaptor.getRepeats(), reps))) {
    types.push_back(x ? ranked(SmallVector<int64_t>(x.getRank(), kDyn), elem)
                      : unranked(elem));
    return success();
  }
  if ((int64_t)reps.size() != x.getRank())
    return fail(loc, "tile needs one repeat count per dimension");
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::zip(x.getShape(), reps)) {
    if (r < 0)
      return fail(loc, "tile repeat counts must be non-negative");
    shape.push_back(mulDims(d, r));
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  if (elementTypeOf(adaptor.getValue()) != elem)
    return fail(loc, "pad value must have the input's element type");
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return fail(loc, "pad mode '" + mode + "' is not supported");
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.push_back(unranked(elem));
    return success();
  }
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = x.getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return fail(loc, "pad needs " + Twine(2 * rank) + " pads");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = x.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      shape.push_back(kDyn);
      continue;
    }
    int64_t o = d + pads[i] + pads[i + rank];
    if (o < 0)
      return fail(loc, "pad crops dimension " + Twine(i) + " below zero");
    int64_t kept = padKeptSize(d, pads[i], pads[i + rank]);
    if (mode == "wrap" && o > 0 && kept <= 0)
      return fail(loc, "wrap pad of dimension " + Twine(i) +
                           " has nothing left to repeat after its crops");
    shape.push_back(o);
  }
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  auto idx = rankedOf(adaptor.getIndices());
  if (x && idx) {
    if (x.getRank() != idx.getRank())
      return fail(loc, "gather_elements input and indices differ in rank");
    if (failed(normalizeAxis(adaptor.getAxis(), x.getRank(), loc,
                             "gather_elements axis")))
      return failure();
  }
  if (!idx) {
    types.push_back(unranked(elem));
    return success();
  }
  types.push_back(ranked(idx.getShape(), elem));
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  auto x = rankedOf(adaptor.getInput());
  auto idx = rankedOf(adaptor.getIndices());
  if (!x || !idx || idx.getRank() == 0 || idx.isDynamicDim(idx.getRank() - 1)) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t b = adaptor.getBatchDims();
  int64_t last = idx.getDimSize(idx.getRank() - 1);
  if (b < 0 || b >= std::min(x.getRank(), idx.getRank()) ||
      b + last > x.getRank())
    return fail(loc, "gather_nd: invalid batch_dims or index tuple length");
  SmallVector<int64_t> shape(idx.getShape().drop_back());
  llvm::append_range(shape, x.getShape().drop_front(b + last));
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (auto x = rankedOf(adaptor.getInput()))
    if (x.getRank() < 2)
      return fail(loc, "trilu input must have rank >= 2");
  if (auto k = rankedOf(adaptor.getK()))
    if (k.hasStaticShape() && k.getNumElements() != 1)
      return fail(loc, "trilu k must have one element");
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getValues());
  auto idx = rankedOf(adaptor.getIndices());
  if (!idx) {
    types.push_back(unranked(elem));
    return success();
  }
  int64_t depth = adaptor.getDepth();
  if (depth <= 0)
    return fail(loc, "one_hot depth must be positive");
  auto axis = normalizeAxis(adaptor.getAxis(), idx.getRank() + 1, loc,
                            "one_hot axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(idx.getShape());
  shape.insert(shape.begin() + *axis, depth);
  types.push_back(ranked(shape, elem));
  return success();
}

LogicalResult BatchNormTrainingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto x = rankedOf(adaptor.getInput());
  if (x && x.getRank() < 2)
    return fail(loc, "batch_norm_training input must have rank >= 2");
  types.push_back(adaptor.getInput().getType());
  types.push_back(adaptor.getMean().getType());
  types.push_back(adaptor.getVariance().getType());
  return success();
}

LogicalResult MaxPoolWithIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                       adaptor.getStrides(), adaptor.getPads(),
                       adaptor.getDilations(), adaptor.getCeilMode(), types)))
    return failure();
  types.push_back(cast<ShapedType>(types[0]).clone(IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type elem = elementTypeOf(adaptor.getInput());
  Type i64 = IntegerType::get(ctx, 64);
  auto x = rankedOf(adaptor.getInput());
  if (!x) {
    types.append({unranked(elem), unranked(i64)});
    return success();
  }
  auto axis = normalizeAxis(adaptor.getAxis(), x.getRank(), loc, "top_k axis");
  if (failed(axis))
    return failure();
  int64_t k = adaptor.getK();
  if (k < 0 || (!x.isDynamicDim(*axis) && k > x.getDimSize(*axis)))
    return fail(loc, "top_k k = " + Twine(k) + " is out of range");
  SmallVector<int64_t> shape(x.getShape());
  shape[*axis] = k;
  types.append({ranked(shape, elem), ranked(shape, i64)});
  return success();
}

static LogicalResult checkReduction(std::optional<Location> loc, StringRef r) {
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return fail(loc, "scatter reduction '" + r + "' is not supported");
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  if (elementTypeOf(adaptor.getUpdates()) != elementTypeOf(adaptor.getInput()))
    return fail(loc, "scatter updates must have the input's element type");
  auto x = rankedOf(adaptor.getInput());
  auto i = rankedOf(adaptor.getIndices()), u = rankedOf(adaptor.getUpdates());
  if (x && i && u) {
    if (x.getRank() != i.getRank() || i.getShape() != u.getShape())
      return fail(loc, "scatter_elements indices and updates must have one "
                       "shape and the input's rank");
    if (failed(normalizeAxis(adaptor.getAxis(), x.getRank(), loc,
                             "scatter_elements axis")))
      return failure();
  }
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  if (elementTypeOf(adaptor.getUpdates()) != elementTypeOf(adaptor.getInput()))
    return fail(loc, "scatter updates must have the input's element type");
  auto x = rankedOf(adaptor.getInput());
  auto i = rankedOf(adaptor.getIndices()), u = rankedOf(adaptor.getUpdates());
  if (x && i && u) {
    // updates: indices.shape[:-1] + input.shape[len:], len = the tuples'
    // length (dims unknown until shapes are specialised match anything).
    int64_t q = i.getRank();
    if (q < 1)
      return fail(loc, "scatter_nd indices must have rank 1 or more");
    int64_t len = i.getDimSize(q - 1);
    if (!ShapedType::isDynamic(len)) {
      if (len < 1 || len > x.getRank())
        return fail(loc, "scatter_nd index tuples of length " + Twine(len) +
                             " for an input of rank " + Twine(x.getRank()));
      SmallVector<int64_t> want(i.getShape().drop_back());
      llvm::append_range(want, x.getShape().drop_front(len));
      bool ok = u.getRank() == static_cast<int64_t>(want.size());
      for (int64_t d = 0; ok && d < u.getRank(); ++d)
        ok = ShapedType::isDynamic(want[d]) || u.isDynamicDim(d) ||
             want[d] == u.getDimSize(d);
      if (!ok)
        return fail(loc, "scatter_nd updates must have shape indices[:-1] + "
                         "input[" +
                             Twine(len) + ":]");
    }
  }
  types.push_back(adaptor.getInput().getType());
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.cpp.inc"
