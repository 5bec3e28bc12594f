//===- NodeImporterImpl.h - NodeImporter internals --------------*- C++ -*-===//
//
// Private to compiler/frontend/common: the NodeImporter class and helpers
// shared by the files that implement its op handlers (NodeImporter.cpp for
// the core ops, one file per op family beside it). Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTERIMPL_H
#define TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTERIMPL_H

#include "compiler/frontend/common/NodeImporter.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <optional>
#include <string>

namespace tfrt::frontend::detail {

using namespace mlir;

inline constexpr int64_t kDyn = ShapedType::kDynamic;


/// The node being imported with its resolved operands.
struct NodeCtx {
  const NodeDesc &node;
  std::string displayName;
  Location loc;
  SmallVector<Value> ins; // per input slot; null = omitted
  /// The input slots a handler looked at (in(), allIns(), markRead()); a
  /// given input it never looked at is an error after the node's import, so
  /// that an input the importer does not implement is never silently
  /// ignored.
  mutable SmallVector<bool> inputRead;

  int64_t opset() const { return node.opsetVersion; }
  Value in(unsigned i) const {
    markRead(i);
    return i < ins.size() ? ins[i] : Value();
  }
  /// Every input slot (variadic ops).
  ArrayRef<Value> allIns() const {
    for (unsigned i = 0; i < node.inputs.size(); ++i)
      markRead(i);
    return ins;
  }
  /// Input `i` is handled without its value (a sequence, a subgraph's
  /// binding) or has no effect in the node's configuration (Resize's roi
  /// outside tf_crop_and_resize, ...).
  void markRead(unsigned i) const {
    if (i >= inputRead.size())
      inputRead.resize(i + 1, false);
    inputRead[i] = true;
  }
};

class NodeImporter;
using Handler = FailureOr<SmallVector<Value>> (NodeImporter::*)(NodeCtx &);

struct OpEntry {
  const char *opType;
  Handler handler;
  /// The operator set domain; "" is the default ONNX domain ("ai.onnx").
  const char *domain = "";
};

class NodeImporter {
public:
  NodeImporter(ModuleOp module, const ImportOptions &options)
      : module(module), options(options), ctx(module.getContext()),
        builder(ctx), fileLocation(fileLoc(ctx, options.fileName)) {}

  LogicalResult run(const GraphDesc &graph);

  static ArrayRef<OpEntry> opTable();

private:
  // Graph-level steps.
  bool resolveInputShapes(const GraphDesc &graph,
                          SmallVectorImpl<Type> &argTypes,
                          SmallVectorImpl<const InputDesc *> &args);
  void importNode(const NodeDesc &node, unsigned index);

  // Diagnostics.
  InFlightDiagnostic unsupported(NodeCtx &n) {
    return emitError(n.loc) << "unsupported op '" << n.node.opType
                            << "' (node '" << n.displayName << "')";
  }
  InFlightDiagnostic error(NodeCtx &n) { return emitError(n.loc); }
  bool outputUsed(NodeCtx &n, unsigned i) const {
    return i < n.node.outputs.size() && !n.node.outputs[i].empty() &&
           usedNames.contains(n.node.outputs[i]);
  }

  // Attributes.
  FailureOr<int64_t> intAttr(NodeCtx &n, StringRef name, int64_t dflt);
  FailureOr<std::optional<int64_t>> optIntAttr(NodeCtx &n, StringRef name);
  FailureOr<double> floatAttr(NodeCtx &n, StringRef name, double dflt);
  FailureOr<std::optional<double>> optFloatAttr(NodeCtx &n, StringRef name);
  FailureOr<std::optional<SmallVector<int64_t>>> intsAttr(NodeCtx &n,
                                                         StringRef name);
  FailureOr<std::optional<std::string>> stringAttr(NodeCtx &n,
                                                   StringRef name);
  /// A list of floats (integers are converted); empty when absent.
  FailureOr<SmallVector<double>> floatsAttr(NodeCtx &n, StringRef name);
  FailureOr<Value> requireInput(NodeCtx &n, unsigned i, StringRef what);
  LogicalResult checkNoAttr(NodeCtx &n, StringRef name);
  /// An error naming the first of `names` the node does not set.
  LogicalResult requireAttrs(NodeCtx &n, ArrayRef<StringRef> names);

  // Op construction.
  FailureOr<Value> build(NodeCtx &n, StringRef opName, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs = {});
  Value constant(NodeCtx &n, DenseElementsAttr value);
  Value constI64(NodeCtx &n, ArrayRef<int64_t> values);
  NamedAttribute named(StringRef name, Attribute a) {
    return NamedAttribute(StringAttr::get(ctx, name), a);
  }
  Attribute i64(int64_t v) { return builder.getI64IntegerAttr(v); }
  Attribute f32(double v) { return builder.getF32FloatAttr((float)v); }
  Attribute boolean(bool v) { return builder.getBoolAttr(v); }
  Attribute i64s(ArrayRef<int64_t> v) { return builder.getDenseI64ArrayAttr(v); }
  static FailureOr<SmallVector<Value>> one(FailureOr<Value> v) {
    if (failed(v))
      return failure();
    return SmallVector<Value>{*v};
  }

  // Shared pieces of conv and pooling.
  struct WindowAttrs {
    SmallVector<int64_t> kernel, strides, pads, dilations;
  };
  LogicalResult windowAttrs(NodeCtx &n, Value input, WindowAttrs &w,
                            bool ceilMode);

  // Handlers.
  FailureOr<SmallVector<Value>> binary(NodeCtx &n);
  FailureOr<SmallVector<Value>> unary(NodeCtx &n);
  FailureOr<SmallVector<Value>> identity(NodeCtx &n);
  FailureOr<SmallVector<Value>> clip(NodeCtx &n);
  FailureOr<SmallVector<Value>> hardSigmoid(NodeCtx &n);
  FailureOr<SmallVector<Value>> matmul(NodeCtx &n);
  FailureOr<SmallVector<Value>> gemm(NodeCtx &n);
  FailureOr<SmallVector<Value>> conv(NodeCtx &n);
  FailureOr<SmallVector<Value>> batchNorm(NodeCtx &n);
  FailureOr<SmallVector<Value>> maxPool(NodeCtx &n);
  FailureOr<SmallVector<Value>> averagePool(NodeCtx &n);
  FailureOr<SmallVector<Value>> globalAveragePool(NodeCtx &n);
  FailureOr<SmallVector<Value>> softmax(NodeCtx &n);
  FailureOr<SmallVector<Value>> reshape(NodeCtx &n);
  FailureOr<SmallVector<Value>> flatten(NodeCtx &n);
  FailureOr<SmallVector<Value>> transpose(NodeCtx &n);
  FailureOr<SmallVector<Value>> concat(NodeCtx &n);
  FailureOr<SmallVector<Value>> slice(NodeCtx &n);
  FailureOr<SmallVector<Value>> squeeze(NodeCtx &n);
  FailureOr<SmallVector<Value>> unsqueeze(NodeCtx &n);
  FailureOr<SmallVector<Value>> shape(NodeCtx &n);
  FailureOr<SmallVector<Value>> castOp(NodeCtx &n);
  FailureOr<SmallVector<Value>> constantNode(NodeCtx &n);
  FailureOr<SmallVector<Value>> gather(NodeCtx &n);
  FailureOr<SmallVector<Value>> constantOfShape(NodeCtx &n);
  FailureOr<SmallVector<Value>> elementwise(NodeCtx &n);
  FailureOr<SmallVector<Value>> variadic(NodeCtx &n);
  FailureOr<SmallVector<Value>> modOp(NodeCtx &n);
  FailureOr<SmallVector<Value>> bitShift(NodeCtx &n);
  FailureOr<SmallVector<Value>> where(NodeCtx &n);
  FailureOr<SmallVector<Value>> isInf(NodeCtx &n);
  FailureOr<SmallVector<Value>> activation(NodeCtx &n);
  FailureOr<SmallVector<Value>> gelu(NodeCtx &n);
  FailureOr<SmallVector<Value>> groupNorm(NodeCtx &n);
  FailureOr<SmallVector<Value>> mish(NodeCtx &n);
  FailureOr<SmallVector<Value>> reduce(NodeCtx &n);
  FailureOr<SmallVector<Value>> argMinMax(NodeCtx &n);
  FailureOr<SmallVector<Value>> resize(NodeCtx &n);
  FailureOr<SmallVector<Value>> convTranspose(NodeCtx &n);
  FailureOr<SmallVector<Value>> expand(NodeCtx &n);
  FailureOr<SmallVector<Value>> tile(NodeCtx &n);
  FailureOr<SmallVector<Value>> pad(NodeCtx &n);
  FailureOr<SmallVector<Value>> split(NodeCtx &n);
  FailureOr<SmallVector<Value>> range(NodeCtx &n);
  FailureOr<SmallVector<Value>> cumSum(NodeCtx &n);
  FailureOr<SmallVector<Value>> gatherElements(NodeCtx &n);
  FailureOr<SmallVector<Value>> gatherND(NodeCtx &n);
  FailureOr<SmallVector<Value>> trilu(NodeCtx &n);
  FailureOr<SmallVector<Value>> oneHot(NodeCtx &n);
  FailureOr<SmallVector<Value>> depthToSpace(NodeCtx &n);
  FailureOr<SmallVector<Value>> spaceToDepth(NodeCtx &n);
  FailureOr<SmallVector<Value>> layerNorm(NodeCtx &n);
  FailureOr<SmallVector<Value>> instanceNorm(NodeCtx &n);
  FailureOr<SmallVector<Value>> meanVarianceNorm(NodeCtx &n);
  FailureOr<SmallVector<Value>> globalMaxPool(NodeCtx &n);
  FailureOr<SmallVector<Value>> lrn(NodeCtx &n);
  FailureOr<SmallVector<Value>> topK(NodeCtx &n);
  FailureOr<SmallVector<Value>> einsum(NodeCtx &n);
  FailureOr<SmallVector<Value>> scatterElements(NodeCtx &n);
  FailureOr<SmallVector<Value>> scatterND(NodeCtx &n);
  // MiscOps.cpp
  FailureOr<SmallVector<Value>> size(NodeCtx &n);
  FailureOr<SmallVector<Value>> castLike(NodeCtx &n);
  FailureOr<SmallVector<Value>> eyeLike(NodeCtx &n);
  FailureOr<SmallVector<Value>> compress(NodeCtx &n);
  FailureOr<SmallVector<Value>> dropout(NodeCtx &n);
  FailureOr<SmallVector<Value>> prelu(NodeCtx &n);
  FailureOr<Value> legacyBroadcast(NodeCtx &n, Value a, Value b);
  FailureOr<Value> cropAndResizeRuntimeRoi(NodeCtx &n, Value x, Value roi,
                                           ArrayRef<double> scales,
                                           ArrayRef<int64_t> outDims,
                                           StringRef mode,
                                           StringRef nearestMode,
                                           double extrapolation);
  // LpOps.cpp
  FailureOr<SmallVector<Value>> lpNormalization(NodeCtx &n);
  FailureOr<SmallVector<Value>> lpPool(NodeCtx &n);
  FailureOr<SmallVector<Value>> globalLpPool(NodeCtx &n);
  FailureOr<double> lpExponent(NodeCtx &n);
  // RecurrentOps.cpp
  FailureOr<SmallVector<Value>> recurrent(NodeCtx &n);
  // LossOps.cpp
  FailureOr<SmallVector<Value>> negativeLogLikelihoodLoss(NodeCtx &n);
  FailureOr<SmallVector<Value>> softmaxCrossEntropyLoss(NodeCtx &n);
  FailureOr<Value> nllLoss(NodeCtx &n, Value logProb, Value target,
                           Value weight);

  // QuantOps.cpp
  FailureOr<SmallVector<Value>> quantizeLinear(NodeCtx &n);
  FailureOr<SmallVector<Value>> dequantizeLinear(NodeCtx &n);
  FailureOr<SmallVector<Value>> dynamicQuantizeLinear(NodeCtx &n);
  FailureOr<SmallVector<Value>> matMulInteger(NodeCtx &n);
  FailureOr<SmallVector<Value>> convInteger(NodeCtx &n);
  FailureOr<SmallVector<Value>> qLinearMatMul(NodeCtx &n);
  FailureOr<SmallVector<Value>> qLinearConv(NodeCtx &n);
  // TrainingOps.cpp (domain ai.onnx.preview.training)
  FailureOr<SmallVector<Value>> adagrad(NodeCtx &n);
  FailureOr<SmallVector<Value>> adam(NodeCtx &n);
  FailureOr<SmallVector<Value>> momentum(NodeCtx &n);

  // ControlFlowOps.cpp: subgraphs imported inline (If, unrolled Loop/Scan).
  FailureOr<SmallVector<Value>> ifOp(NodeCtx &n);
  FailureOr<SmallVector<Value>> loop(NodeCtx &n);
  FailureOr<SmallVector<Value>> scan(NodeCtx &n);
  struct ScopeValue { // a tensor, or a sequence (isSeq) of tensors
    Value tensor;
    bool isSeq = false;
    SmallVector<Value> elems;
  };
  void collectUsedNames(const GraphDesc &graph);
  const GraphDesc *graphAttr(NodeCtx &n, StringRef name);
  LogicalResult importSubgraph(NodeCtx &n, StringRef attrName,
                               const GraphDesc &g, ArrayRef<ScopeValue> ins,
                               SmallVectorImpl<ScopeValue> &outs);
  FailureOr<ScopeValue> scopeInput(NodeCtx &n, unsigned i);
  FailureOr<SmallVector<Value>> setOutputs(NodeCtx &n,
                                           ArrayRef<ScopeValue> outs);
  FailureOr<SmallVector<Value>>
  scanUnrolled(NodeCtx &n, const GraphDesc &body, ArrayRef<ScopeValue> state,
               ArrayRef<Value> scanIns, ArrayRef<int64_t> inAxes,
               ArrayRef<int64_t> inDirs, ArrayRef<int64_t> outAxes,
               ArrayRef<int64_t> outDirs);
  FailureOr<Value> sliceAt(NodeCtx &n, Value x, int64_t axis, int64_t i);
  FailureOr<Value> stack(NodeCtx &n, ArrayRef<Value> elems, int64_t axis);
  // SequenceOps.cpp: sequences as compile-time lists of tensors.
  FailureOr<SmallVector<Value>> sequenceConstruct(NodeCtx &n);
  FailureOr<SmallVector<Value>> sequenceEmpty(NodeCtx &n);
  FailureOr<SmallVector<Value>> sequenceInsert(NodeCtx &n);
  FailureOr<SmallVector<Value>> sequenceAt(NodeCtx &n);
  FailureOr<SmallVector<Value>> sequenceErase(NodeCtx &n);
  FailureOr<SmallVector<Value>> sequenceLength(NodeCtx &n);
  FailureOr<SmallVector<Value>> splitToSequence(NodeCtx &n);
  FailureOr<SmallVector<Value>> concatFromSequence(NodeCtx &n);
  const SmallVector<Value> *seqInput(NodeCtx &n, unsigned i);
  FailureOr<int64_t> seqPosition(NodeCtx &n, unsigned i, int64_t size,
                                 int64_t dflt, bool allowEnd);

  // SignalOps.cpp
  FailureOr<SmallVector<Value>> windowFunction(NodeCtx &n);
  FailureOr<SmallVector<Value>> dft(NodeCtx &n);
  FailureOr<SmallVector<Value>> stft(NodeCtx &n);
  FailureOr<SmallVector<Value>> melWeightMatrix(NodeCtx &n);
  FailureOr<SmallVector<Value>> reverseSequence(NodeCtx &n);
  // TextOps.cpp
  FailureOr<SmallVector<Value>> tfIdfVectorizer(NodeCtx &n);
  // ImageOps.cpp
  FailureOr<SmallVector<Value>> gridSample(NodeCtx &n);
  FailureOr<SmallVector<Value>> roiAlign(NodeCtx &n);
  FailureOr<SmallVector<Value>> maxUnpool(NodeCtx &n);
  FailureOr<SmallVector<Value>> det(NodeCtx &n);
  FailureOr<SmallVector<Value>> centerCropPad(NodeCtx &n);
  FailureOr<SmallVector<Value>> affineGrid(NodeCtx &n);
  FailureOr<SmallVector<Value>> col2Im(NodeCtx &n);
  FailureOr<SmallVector<Value>> maxRoiPool(NodeCtx &n);
  FailureOr<SmallVector<Value>> deformConv(NodeCtx &n);
  FailureOr<Value> antialiasResize(NodeCtx &n, Value x, ArrayRef<double> scales,
                                   ArrayRef<int64_t> outDims, StringRef mode,
                                   StringRef ct, double cubicA,
                                   bool excludeOutside);

  // Helpers of the decompositions.
  FailureOr<Value> reduceOp(NodeCtx &n, StringRef op, Value x,
                            ArrayRef<int64_t> axes, bool keepdims);
  /// x - mean(x) over `axes` and the mean (kept as size-1 dims).
  FailureOr<std::pair<Value, Value>> centered(NodeCtx &n, Value x,
                                              ArrayRef<int64_t> axes);
  FailureOr<Value> deviation(NodeCtx &n, Value d, ArrayRef<int64_t> axes,
                             double eps);
  FailureOr<Value> standardized(NodeCtx &n, Value d, ArrayRef<int64_t> axes,
                                double eps);
  FailureOr<Value> scaleShift(NodeCtx &n, Value v, Value scale, Value bias,
                              ArrayRef<int64_t> shape);
  FailureOr<Value> scalarLike(NodeCtx &n, Value like, double v);
  FailureOr<Value> reshapeTo(NodeCtx &n, Value x, ArrayRef<int64_t> shape);

  ModuleOp module;
  const ImportOptions &options;
  MLIRContext *ctx;
  OpBuilder builder;
  Location fileLocation;
  llvm::StringMap<Value> values;
  llvm::StringMap<SmallVector<Value>> sequences; // sequence-typed names
  llvm::StringSet<> unknown;
  llvm::StringSet<> usedNames;
  bool hadError = false;
  bool inputsFailed = false;
};


//===----------------------------------------------------------------------===//
// Helpers shared by the handler files
//===----------------------------------------------------------------------===//

inline Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

inline RankedTensorType rankedOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// A scalar tensor of `elem` holding `v`, or the type's lowest (`v` = -inf)
/// / highest (`v` = +inf) value for integer types.
inline DenseElementsAttr scalarOf(Type elem, double v) {
  auto type = RankedTensorType::get({}, elem);
  if (isa<FloatType>(elem))
    return tensorFromDoubles(type, {v});
  auto it = cast<IntegerType>(elem);
  unsigned w = it.getWidth();
  APInt value;
  if (std::isinf(v)) {
    bool high = v > 0;
    value = it.isUnsigned() || w == 1
                ? (high ? APInt::getMaxValue(w) : APInt::getMinValue(w))
                : (high ? APInt::getSignedMaxValue(w)
                        : APInt::getSignedMinValue(w));
  } else {
    value = APInt(w, (uint64_t)(int64_t)v, true, true);
  }
  return DenseElementsAttr::get(type, ArrayRef<APInt>(value));
}

/// Reads a constant float (or integer) tensor into doubles.
inline LogicalResult getConstantDoubles(Value v, SmallVectorImpl<double> &out) {
  if (!v)
    return failure();
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return failure();
  out.clear();
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &f : attr.getValues<APFloat>())
      out.push_back(f.convertToDouble());
    return success();
  }
  SmallVector<int64_t> ints;
  if (failed(graph::getConstantInts(v, ints)))
    return failure();
  out.assign(ints.begin(), ints.end());
  return success();
}

inline bool isEmptyTensorValue(Value v) {
  auto t = v ? rankedOf(v) : RankedTensorType();
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

inline std::string shapeString(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i)
      s += ",";
    s += d == kDyn ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

inline std::string dimsString(ArrayRef<int64_t> dims) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i)
      s += "x";
    s += std::to_string(d);
  }
  return s;
}

} // namespace tfrt::frontend::detail

#endif // TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTERIMPL_H
