//===- NodeImporter.cpp - ONNX op semantics onto the graph dialect --------===//
//
// Builds `func.func @main` from a GraphDesc. Every op is created through
// graph::createInferred, so result types are inferred as the graph is built
// and shape subgraphs (Shape -> Gather -> Concat -> Reshape, ...) fold into
// constants right away. Older opset forms are rewritten into the dialect's
// canonical (opset-17) form here.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;


const AttrValue *NodeDesc::findAttr(StringRef attrName) const {
  for (const auto &[n, v] : attributes)
    if (n == attrName) {
      readAttributes.insert(n);
      return &v;
    }
  return nullptr;
}

Location tfrt::frontend::fileLoc(MLIRContext *ctx, StringRef fileName) {
  return FileLineColLoc::get(ctx, fileName, 0, 0);
}

//===----------------------------------------------------------------------===//
// Element types and tensors
//===----------------------------------------------------------------------===//

Type tfrt::frontend::onnxElementType(MLIRContext *ctx, int dataType) {
  Builder b(ctx);
  switch (dataType) {
  case kOnnxFloat: return b.getF32Type();
  case kOnnxDouble: return b.getF64Type();
  case kOnnxFloat16: return b.getF16Type();
  case kOnnxBfloat16: return b.getBF16Type();
  case kOnnxInt8: return b.getIntegerType(8);
  case kOnnxInt16: return b.getIntegerType(16);
  case kOnnxInt32: return b.getIntegerType(32);
  case kOnnxInt64: return b.getIntegerType(64);
  case kOnnxUint8: return b.getIntegerType(8, /*isSigned=*/false);
  case kOnnxUint16: return b.getIntegerType(16, false);
  case kOnnxUint32: return b.getIntegerType(32, false);
  case kOnnxUint64: return b.getIntegerType(64, false);
  case kOnnxBool: return b.getI1Type();
  default: return nullptr;
  }
}

std::string tfrt::frontend::onnxDataTypeName(int dataType) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",  "UINT8",  "INT8",      "UINT16",     "INT16",
      "INT32",     "INT64",  "STRING", "BOOL",      "FLOAT16",    "DOUBLE",
      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  if (dataType >= 0 && dataType < (int)std::size(names))
    return names[dataType];
  return "<data type " + std::to_string(dataType) + ">";
}

static const std::pair<const char *, int> kDtypeNames[] = {
    {"float32", kOnnxFloat}, {"float64", kOnnxDouble},
    {"float16", kOnnxFloat16}, {"bfloat16", kOnnxBfloat16},
    {"int8", kOnnxInt8},     {"int16", kOnnxInt16},
    {"int32", kOnnxInt32},   {"int64", kOnnxInt64},
    {"uint8", kOnnxUint8},   {"uint16", kOnnxUint16},
    {"uint32", kOnnxUint32}, {"uint64", kOnnxUint64},
    {"bool", kOnnxBool}};

Type tfrt::frontend::dtypeElementType(MLIRContext *ctx, StringRef dtype) {
  for (auto [name, code] : kDtypeNames)
    if (dtype == name)
      return onnxElementType(ctx, code);
  // Also the aliases people write by hand.
  if (dtype == "float")
    return onnxElementType(ctx, kOnnxFloat);
  if (dtype == "double")
    return onnxElementType(ctx, kOnnxDouble);
  return nullptr;
}

StringRef tfrt::frontend::dtypeNames() {
  return "float32, float64, float16, bfloat16, int8, int16, int32, int64, "
         "uint8, uint16, uint32, uint64, bool";
}

FailureOr<DenseElementsAttr>
tfrt::frontend::tensorFromRaw(RankedTensorType type, ArrayRef<char> raw,
                              std::string &error) {
  Type elem = type.getElementType();
  int64_t n = type.getNumElements();
  if (elem.isInteger(1)) {
    if ((int64_t)raw.size() != n) {
      error = "expected " + std::to_string(n) + " bytes of bool data, got " +
              std::to_string(raw.size());
      return failure();
    }
    SmallVector<bool> values;
    for (char c : raw)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  if (!elem.isIntOrFloat()) {
    error = "unsupported element type";
    return failure();
  }
  int64_t bytes = (elem.getIntOrFloatBitWidth() + 7) / 8;
  if ((int64_t)raw.size() != n * bytes) {
    error = "expected " + std::to_string(n * bytes) + " bytes (" +
            std::to_string(n) + " elements of " + std::to_string(bytes) +
            " bytes), got " + std::to_string(raw.size());
    return failure();
  }
  if (n == 0)
    return tensorFromInts(type, {}, /*floatBits=*/true);
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

DenseElementsAttr tfrt::frontend::tensorFromInts(RankedTensorType type,
                                                 ArrayRef<int64_t> values,
                                                 bool floatBits) {
  Type elem = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> fs;
    for (int64_t v : values) {
      if (floatBits) {
        fs.push_back(APFloat(ft.getFloatSemantics(),
                             APInt(ft.getWidth(), (uint64_t)v, false,
                                   /*implicitTrunc=*/true)));
      } else {
        APFloat f((double)v);
        bool loses;
        f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &loses);
        fs.push_back(f);
      }
    }
    return DenseElementsAttr::get(type, fs);
  }
  unsigned width = elem.getIntOrFloatBitWidth();
  SmallVector<APInt> is;
  for (int64_t v : values) {
    if (width == 1)
      v = v != 0;
    is.push_back(APInt(width, (uint64_t)v, /*isSigned=*/true,
                       /*implicitTrunc=*/true));
  }
  return DenseElementsAttr::get(type, is);
}

DenseElementsAttr tfrt::frontend::tensorFromDoubles(RankedTensorType type,
                                                    ArrayRef<double> values) {
  Type elem = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> fs;
    for (double v : values) {
      APFloat f(v);
      bool loses;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &loses);
      fs.push_back(f);
    }
    return DenseElementsAttr::get(type, fs);
  }
  SmallVector<int64_t> ints;
  for (double v : values)
    ints.push_back(elem.isUnsignedInteger() && v >= 9.2e18
                       ? (int64_t)(uint64_t)v
                       : (int64_t)v);
  return tensorFromInts(type, ints, false);
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//


ArrayRef<OpEntry> NodeImporter::opTable() {
  static const OpEntry table[] = {
      {"Abs", &NodeImporter::unary},
      {"Acos", &NodeImporter::unary},
      {"Acosh", &NodeImporter::unary},
      {"Add", &NodeImporter::binary},
      {"AffineGrid", &NodeImporter::affineGrid},
      {"And", &NodeImporter::elementwise},
      {"ArgMax", &NodeImporter::argMinMax},
      {"ArgMin", &NodeImporter::argMinMax},
      {"Asin", &NodeImporter::unary},
      {"Asinh", &NodeImporter::unary},
      {"Atan", &NodeImporter::unary},
      {"Atanh", &NodeImporter::unary},
      {"AveragePool", &NodeImporter::averagePool},
      {"BatchNormalization", &NodeImporter::batchNorm},
      {"BitShift", &NodeImporter::bitShift},
      {"BitwiseAnd", &NodeImporter::elementwise},
      {"BitwiseNot", &NodeImporter::unary},
      {"BitwiseOr", &NodeImporter::elementwise},
      {"BitwiseXor", &NodeImporter::elementwise},
      {"BlackmanWindow", &NodeImporter::windowFunction},
      {"Cast", &NodeImporter::castOp},
      {"CastLike", &NodeImporter::castLike},
      {"Ceil", &NodeImporter::unary},
      {"Celu", &NodeImporter::activation},
      {"CenterCropPad", &NodeImporter::centerCropPad},
      {"Clip", &NodeImporter::clip},
      {"Col2Im", &NodeImporter::col2Im},
      {"Compress", &NodeImporter::compress},
      {"Concat", &NodeImporter::concat},
      {"ConcatFromSequence", &NodeImporter::concatFromSequence},
      {"Constant", &NodeImporter::constantNode},
      {"ConstantOfShape", &NodeImporter::constantOfShape},
      {"Conv", &NodeImporter::conv},
      {"ConvInteger", &NodeImporter::convInteger},
      {"ConvTranspose", &NodeImporter::convTranspose},
      {"Cos", &NodeImporter::unary},
      {"Cosh", &NodeImporter::unary},
      {"CumSum", &NodeImporter::cumSum},
      {"DFT", &NodeImporter::dft},
      {"DeformConv", &NodeImporter::deformConv},
      {"DepthToSpace", &NodeImporter::depthToSpace},
      {"DequantizeLinear", &NodeImporter::dequantizeLinear},
      {"Det", &NodeImporter::det},
      {"Div", &NodeImporter::binary},
      {"Dropout", &NodeImporter::dropout},
      {"DynamicQuantizeLinear", &NodeImporter::dynamicQuantizeLinear},
      {"Einsum", &NodeImporter::einsum},
      {"Elu", &NodeImporter::activation},
      {"Equal", &NodeImporter::elementwise},
      {"Erf", &NodeImporter::unary},
      {"Exp", &NodeImporter::unary},
      {"Expand", &NodeImporter::expand},
      {"EyeLike", &NodeImporter::eyeLike},
      {"Flatten", &NodeImporter::flatten},
      {"Floor", &NodeImporter::unary},
      {"Gelu", &NodeImporter::gelu},
      {"Gather", &NodeImporter::gather},
      {"GatherElements", &NodeImporter::gatherElements},
      {"GatherND", &NodeImporter::gatherND},
      {"Gemm", &NodeImporter::gemm},
      {"GlobalAveragePool", &NodeImporter::globalAveragePool},
      {"GlobalLpPool", &NodeImporter::globalLpPool},
      {"GlobalMaxPool", &NodeImporter::globalMaxPool},
      {"Greater", &NodeImporter::elementwise},
      {"GreaterOrEqual", &NodeImporter::elementwise},
      {"GroupNormalization", &NodeImporter::groupNorm},
      {"GRU", &NodeImporter::recurrent},
      {"GridSample", &NodeImporter::gridSample},
      {"HammingWindow", &NodeImporter::windowFunction},
      {"HannWindow", &NodeImporter::windowFunction},
      {"HardSigmoid", &NodeImporter::hardSigmoid},
      {"HardSwish", &NodeImporter::unary},
      {"Hardmax", &NodeImporter::softmax},
      {"Identity", &NodeImporter::identity},
      {"If", &NodeImporter::ifOp},
      {"InstanceNormalization", &NodeImporter::instanceNorm},
      {"IsInf", &NodeImporter::isInf},
      {"IsNaN", &NodeImporter::unary},
      {"LRN", &NodeImporter::lrn},
      {"LSTM", &NodeImporter::recurrent},
      {"LayerNormalization", &NodeImporter::layerNorm},
      {"LeakyRelu", &NodeImporter::activation},
      {"Less", &NodeImporter::elementwise},
      {"LessOrEqual", &NodeImporter::elementwise},
      {"Log", &NodeImporter::unary},
      {"LogSoftmax", &NodeImporter::softmax},
      {"Loop", &NodeImporter::loop},
      {"LpNormalization", &NodeImporter::lpNormalization},
      {"LpPool", &NodeImporter::lpPool},
      {"MatMul", &NodeImporter::matmul},
      {"MatMulInteger", &NodeImporter::matMulInteger},
      {"Max", &NodeImporter::variadic},
      {"MaxPool", &NodeImporter::maxPool},
      {"MaxRoiPool", &NodeImporter::maxRoiPool},
      {"MaxUnpool", &NodeImporter::maxUnpool},
      {"Mean", &NodeImporter::variadic},
      {"MeanVarianceNormalization", &NodeImporter::meanVarianceNorm},
      {"MelWeightMatrix", &NodeImporter::melWeightMatrix},
      {"Mish", &NodeImporter::mish},
      {"Min", &NodeImporter::variadic},
      {"Mod", &NodeImporter::modOp},
      {"Mul", &NodeImporter::binary},
      {"Neg", &NodeImporter::unary},
      {"NegativeLogLikelihoodLoss", &NodeImporter::negativeLogLikelihoodLoss},
      {"Not", &NodeImporter::unary},
      {"OneHot", &NodeImporter::oneHot},
      {"Or", &NodeImporter::elementwise},
      {"PRelu", &NodeImporter::prelu},
      {"Pad", &NodeImporter::pad},
      {"Pow", &NodeImporter::binary},
      {"QLinearConv", &NodeImporter::qLinearConv},
      {"QLinearMatMul", &NodeImporter::qLinearMatMul},
      {"QuantizeLinear", &NodeImporter::quantizeLinear},
      {"Range", &NodeImporter::range},
      {"RNN", &NodeImporter::recurrent},
      {"Reciprocal", &NodeImporter::unary},
      {"ReduceL1", &NodeImporter::reduce},
      {"ReduceL2", &NodeImporter::reduce},
      {"ReduceLogSum", &NodeImporter::reduce},
      {"ReduceLogSumExp", &NodeImporter::reduce},
      {"ReduceMax", &NodeImporter::reduce},
      {"ReduceMean", &NodeImporter::reduce},
      {"ReduceMin", &NodeImporter::reduce},
      {"ReduceProd", &NodeImporter::reduce},
      {"ReduceSum", &NodeImporter::reduce},
      {"ReduceSumSquare", &NodeImporter::reduce},
      {"Relu", &NodeImporter::unary},
      {"Reshape", &NodeImporter::reshape},
      {"Resize", &NodeImporter::resize},
      {"ReverseSequence", &NodeImporter::reverseSequence},
      {"RoiAlign", &NodeImporter::roiAlign},
      {"Round", &NodeImporter::unary},
      {"STFT", &NodeImporter::stft},
      {"Scan", &NodeImporter::scan},
      {"Scatter", &NodeImporter::scatterElements},
      {"ScatterElements", &NodeImporter::scatterElements},
      {"ScatterND", &NodeImporter::scatterND},
      {"Selu", &NodeImporter::activation},
      {"SequenceAt", &NodeImporter::sequenceAt},
      {"SequenceConstruct", &NodeImporter::sequenceConstruct},
      {"SequenceEmpty", &NodeImporter::sequenceEmpty},
      {"SequenceErase", &NodeImporter::sequenceErase},
      {"SequenceInsert", &NodeImporter::sequenceInsert},
      {"SequenceLength", &NodeImporter::sequenceLength},
      {"Shape", &NodeImporter::shape},
      {"Shrink", &NodeImporter::activation},
      {"Sigmoid", &NodeImporter::unary},
      {"Sign", &NodeImporter::unary},
      {"Sin", &NodeImporter::unary},
      {"Sinh", &NodeImporter::unary},
      {"Size", &NodeImporter::size},
      {"Slice", &NodeImporter::slice},
      {"Softmax", &NodeImporter::softmax},
      {"SoftmaxCrossEntropyLoss", &NodeImporter::softmaxCrossEntropyLoss},
      {"Softplus", &NodeImporter::unary},
      {"Softsign", &NodeImporter::unary},
      {"SpaceToDepth", &NodeImporter::spaceToDepth},
      {"Split", &NodeImporter::split},
      {"SplitToSequence", &NodeImporter::splitToSequence},
      {"Sqrt", &NodeImporter::unary},
      {"Squeeze", &NodeImporter::squeeze},
      {"Sub", &NodeImporter::binary},
      {"Sum", &NodeImporter::variadic},
      {"Tan", &NodeImporter::unary},
      {"Tanh", &NodeImporter::unary},
      {"TfIdfVectorizer", &NodeImporter::tfIdfVectorizer},
      {"ThresholdedRelu", &NodeImporter::activation},
      {"Tile", &NodeImporter::tile},
      {"Transpose", &NodeImporter::transpose},
      {"TopK", &NodeImporter::topK},
      {"Trilu", &NodeImporter::trilu},
      {"Unsqueeze", &NodeImporter::unsqueeze},
      {"Upsample", &NodeImporter::resize},
      {"Where", &NodeImporter::where},
      {"Xor", &NodeImporter::elementwise},
      // Other domains.
      {"Adagrad", &NodeImporter::adagrad, "ai.onnx.preview.training"},
      {"Adam", &NodeImporter::adam, "ai.onnx.preview.training"},
      {"Momentum", &NodeImporter::momentum, "ai.onnx.preview.training"},
  };
  return table;
}

std::vector<std::string> tfrt::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const OpEntry &e : NodeImporter::opTable())
    ops.push_back(*e.domain ? std::string(e.domain) + "::" + e.opType
                            : std::string(e.opType));
  std::sort(ops.begin(), ops.end());
  return ops;
}

//===----------------------------------------------------------------------===//
// Graph level
//===----------------------------------------------------------------------===//



bool NodeImporter::resolveInputShapes(const GraphDesc &graph,
                                      SmallVectorImpl<Type> &argTypes,
                                      SmallVectorImpl<const InputDesc *> &args) {
  llvm::StringSet<> initNames;
  for (const auto &init : graph.initializers)
    initNames.insert(init.first);
  for (const InputDesc &in : graph.inputs)
    if (!initNames.contains(in.name))
      args.push_back(&in);

  bool ok = true;
  SmallVector<SmallVector<int64_t>> dims;
  SmallVector<bool> ranked;
  SmallVector<bool> reported(args.size(), false);
  for (const InputDesc *in : args) {
    dims.push_back(in->dims);
    ranked.push_back(in->ranked);
  }
  for (const auto &entry : options.inputShapes) {
    const std::string &name = entry.first;
    const SmallVector<int64_t> &shape = entry.second;
    auto it = llvm::find_if(args, [&](const InputDesc *in) {
      return in->name == name;
    });
    if (it == args.end()) {
      std::string list;
      for (const InputDesc *in : args)
        list += (list.empty() ? "" : ", ") + in->name;
      emitError(fileLocation)
          << "unknown input '" << name
          << "' in --input-shape; the model's inputs are: "
          << (list.empty() ? std::string("(none)") : list);
      ok = false;
      continue;
    }
    unsigned idx = it - args.begin();
    if (!ranked[idx]) {
      dims[idx].assign(shape.begin(), shape.end());
      ranked[idx] = true;
      continue;
    }
    if (dims[idx].size() != shape.size()) {
      emitError(fileLocation)
          << "--input-shape " << name << "=" << dimsString(shape)
          << ": the model's input '" << name << "' has rank "
          << dims[idx].size() << " (" << shapeString(dims[idx])
          << "), not " << shape.size();
      ok = false;
      reported[idx] = true;
      continue;
    }
    bool mismatch = false;
    for (auto [i, d] : llvm::enumerate(dims[idx])) {
      if (d != kDyn && d != shape[i]) {
        emitError(fileLocation)
            << "--input-shape " << name << "=" << dimsString(shape)
            << ": dimension " << i << " of input '" << name
            << "' is fixed to " << d << " by the model (shape "
            << shapeString(dims[idx]) << ")";
        ok = false;
        mismatch = true;
        break;
      }
    }
    if (mismatch) {
      reported[idx] = true;
      continue;
    }
    dims[idx].assign(shape.begin(), shape.end());
  }

  for (auto [idx, in] : llvm::enumerate(args)) {
    if (!ranked[idx]) {
      if (!reported[idx])
        emitError(fileLocation)
          << "input '" << in->name
          << "' has no shape in the model; fix it with --input-shape "
          << in->name << "=...";
      ok = false;
      argTypes.push_back(UnrankedTensorType::get(in->elementType));
      continue;
    }
    std::string symbolic;
    unsigned count = 0;
    for (auto [i, d] : llvm::enumerate(dims[idx])) {
      if (d != kDyn)
        continue;
      std::string sym = i < in->dimNames.size() && !in->dimNames[i].empty()
                            ? in->dimNames[i]
                            : std::string("?");
      symbolic += (count++ ? ", " : "") + std::to_string(i) + " ('" + sym +
                  "')";
    }
    if (count && !reported[idx]) {
      emitError(fileLocation)
          << "input '" << in->name << "' has symbolic dimension"
          << (count > 1 ? "s " : " ") << symbolic
          << "; fix it with --input-shape " << in->name << "=...";
      ok = false;
    }
    argTypes.push_back(RankedTensorType::get(dims[idx], in->elementType));
  }
  return ok;
}

LogicalResult NodeImporter::run(const GraphDesc &graph) {
  collectUsedNames(graph); // with the subgraphs'

  SmallVector<Type> argTypes;
  SmallVector<const InputDesc *> args;
  if (!resolveInputShapes(graph, argTypes, args))
    hadError = inputsFailed = true;

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, fileLocation, kEntryFunctionName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, in] : llvm::enumerate(args)) {
    func.setArgAttr(i, "graph.name", builder.getStringAttr(in->name));
    values[in->name] = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);

  for (const auto &[name, value] : graph.initializers) {
    Location loc = NameLoc::get(builder.getStringAttr(name), fileLocation);
    values[name] =
        graph::ConstantOp::create(builder, loc, value.getType(), value);
  }

  // Nodes in dependency order (ONNX requires it; hand-written JSON need
  // not). A stable depth-first order; cycles are left for importNode to
  // report as undefined inputs.
  llvm::StringMap<unsigned> producer;
  for (auto [i, node] : llvm::enumerate(graph.nodes))
    for (const std::string &out : node.outputs)
      if (!out.empty())
        producer.try_emplace(out, i);
  SmallVector<unsigned> order;
  SmallVector<char> state(graph.nodes.size(), 0); // 1 visiting, 2 done
  std::function<void(unsigned)> visit = [&](unsigned i) {
    if (state[i])
      return;
    state[i] = 1;
    for (const std::string &in : graph.nodes[i].inputs) {
      auto it = in.empty() ? producer.end() : producer.find(in);
      if (it != producer.end() && it->second != i && !state[it->second])
        visit(it->second);
    }
    state[i] = 2;
    order.push_back(i);
  };
  for (unsigned i = 0; i < graph.nodes.size(); ++i)
    visit(i);
  for (unsigned i : order)
    importNode(graph.nodes[i], i);

  SmallVector<Value> results;
  for (const std::string &out : graph.outputs) {
    if (unknown.contains(out))
      continue;
    auto it = values.find(out);
    if (it == values.end() && sequences.count(out)) {
      emitError(fileLocation)
          << "graph output '" << out
          << "' is a sequence: sequence-typed graph outputs are not "
             "supported (the compiled model passes tensors only)";
      hadError = true;
      continue;
    }
    if (it == values.end()) {
      emitError(fileLocation) << "graph output '" << out
                              << "' is not produced by any node, "
                                 "initializer or input";
      hadError = true;
      continue;
    }
    results.push_back(it->second);
  }
  if (hadError)
    return failure();

  func::ReturnOp::create(builder, fileLocation, results);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.outputs))
    func.setResultAttr(i, "graph.name", builder.getStringAttr(out));
  if (failed(graph::inferAndFold(func)))
    return failure();
  return mlir::verify(module);
}

void NodeImporter::importNode(const NodeDesc &node, unsigned index) {
  std::string display =
      node.name.empty() ? node.opType + "_" + std::to_string(index) : node.name;
  Location loc = NameLoc::get(builder.getStringAttr(display), fileLocation);
  NodeCtx n{node, display, loc, {}, {}};

  auto markUnknown = [&] {
    for (const std::string &out : node.outputs)
      if (!out.empty()) {
        unknown.insert(out);
        values.erase(out);
        sequences.erase(out);
      }
  };

  bool dependsOnUnknown = false, undefined = false;
  for (const std::string &in : node.inputs) {
    if (in.empty()) {
      n.ins.push_back(Value());
      continue;
    }
    if (unknown.contains(in)) {
      dependsOnUnknown = true;
      continue;
    }
    auto it = values.find(in);
    if (it == values.end() && sequences.count(in)) {
      n.ins.push_back(Value()); // a sequence: see seqInput()
      continue;
    }
    if (it == values.end()) {
      emitError(loc) << "node '" << display << "' (" << node.opType
                     << "): input '" << in
                     << "' is not defined by an earlier node, an "
                        "initializer or a graph input";
      undefined = true;
      continue;
    }
    n.ins.push_back(it->second);
  }
  if (undefined)
    hadError = true;
  if (dependsOnUnknown || undefined) {
    markUnknown();
    return;
  }

  StringRef domain = node.domain == "ai.onnx" ? "" : StringRef(node.domain);
  const OpEntry *entry = nullptr;
  bool knownDomain = domain.empty();
  for (const OpEntry &e : opTable()) {
    if (domain != e.domain)
      continue;
    knownDomain = true;
    if (node.opType == e.opType)
      entry = &e;
  }
  if (!entry) {
    if (knownDomain)
      unsupported(n);
    else
      unsupported(n) << ": domain '" << node.domain << "' is not supported";
    hadError = true;
    markUnknown();
    return;
  }

  // Collect the node's diagnostics (ours and the dialect's shape inference)
  // so that each one names the node and op type.
  struct Captured {
    DiagnosticSeverity severity;
    std::string message;
  };
  SmallVector<Captured> captured;
  FailureOr<SmallVector<Value>> results = failure();
  for (const std::string &out : node.outputs)
    sequences.erase(out); // a handler that makes a sequence sets it
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      captured.push_back({diag.getSeverity(), diag.str()});
      return success();
    });
    results = (this->*(entry->handler))(n);
  }
  std::string prefix =
      "node '" + display + "' (" + node.opType + "): ";
  for (const Captured &c : captured) {
    bool isUnsupported = StringRef(c.message).starts_with("unsupported op '");
    // With bad input shapes, shape problems are most likely consequences:
    // report only what is unsupported.
    if (inputsFailed && !isUnsupported)
      continue;
    std::string msg = isUnsupported ? c.message : prefix + c.message;
    switch (c.severity) {
    case DiagnosticSeverity::Error: emitError(loc) << msg; break;
    case DiagnosticSeverity::Warning: emitWarning(loc) << msg; break;
    default: emitRemark(loc) << msg; break;
    }
  }
  bool reportedError = llvm::any_of(captured, [](const Captured &c) {
    return c.severity == DiagnosticSeverity::Error;
  });
  if (failed(results)) {
    if (!reportedError && !inputsFailed)
      emitError(loc) << prefix << "import failed";
    hadError = true;
    markUnknown();
    return;
  }
  // An attribute the importer never looked at would be ignored: the op
  // would compute something else than the model asks for.
  // `consumed_inputs` (opsets 1-6) was a memory-reuse hint without
  // semantics.
  bool ignored = false;
  for (const auto &attr : node.attributes)
    if (!node.readAttributes.contains(attr.first) &&
        attr.first != "consumed_inputs") {
      emitError(loc) << "unsupported op '" << node.opType << "' (node '"
                     << display << "'): attribute '" << attr.first
                     << "' is not supported";
      ignored = true;
    }
  // Likewise an input: its value would not reach the result.
  for (auto [i, in] : llvm::enumerate(node.inputs))
    if (!in.empty() && (i >= n.inputRead.size() || !n.inputRead[i])) {
      emitError(loc) << "unsupported op '" << node.opType << "' (node '"
                     << display << "'): input " << i << " ('" << in
                     << "') is not supported";
      ignored = true;
    }
  if (ignored) {
    hadError = true;
    markUnknown();
    return;
  }
  for (auto [i, out] : llvm::enumerate(node.outputs)) {
    if (out.empty())
      continue;
    if (i < results->size() && (*results)[i]) {
      values[out] = (*results)[i];
      unknown.erase(out);
      continue;
    }
    if (sequences.count(out)) {
      values.erase(out);
      unknown.erase(out);
      continue;
    }
    unknown.insert(out);
    values.erase(out);
    if (usedNames.contains(out)) {
      unsupported(n) << ": output " << i << " ('" << out
                     << "') is not supported";
      hadError = true;
    }
  }
}

//===----------------------------------------------------------------------===//
// Attribute access
//===----------------------------------------------------------------------===//

FailureOr<std::optional<int64_t>> NodeImporter::optIntAttr(NodeCtx &n,
                                                          StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a)
    return std::optional<int64_t>();
  if (auto *v = std::get_if<int64_t>(a))
    return std::optional<int64_t>(*v);
  error(n) << "attribute '" << name << "' must be an integer";
  return failure();
}

FailureOr<int64_t> NodeImporter::intAttr(NodeCtx &n, StringRef name,
                                         int64_t dflt) {
  auto v = optIntAttr(n, name);
  if (failed(v))
    return failure();
  return v->value_or(dflt);
}

FailureOr<std::optional<double>> NodeImporter::optFloatAttr(NodeCtx &n,
                                                           StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a)
    return std::optional<double>();
  if (auto *v = std::get_if<double>(a))
    return std::optional<double>(*v);
  if (auto *v = std::get_if<int64_t>(a))
    return std::optional<double>((double)*v);
  error(n) << "attribute '" << name << "' must be a float";
  return failure();
}

FailureOr<double> NodeImporter::floatAttr(NodeCtx &n, StringRef name,
                                          double dflt) {
  auto v = optFloatAttr(n, name);
  if (failed(v))
    return failure();
  return v->value_or(dflt);
}

FailureOr<std::optional<SmallVector<int64_t>>>
NodeImporter::intsAttr(NodeCtx &n, StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a)
    return std::optional<SmallVector<int64_t>>();
  if (auto *v = std::get_if<SmallVector<int64_t>>(a))
    return std::optional<SmallVector<int64_t>>(*v);
  // An empty JSON list has no element type to tell.
  if (auto *v = std::get_if<SmallVector<double>>(a); v && v->empty())
    return std::optional<SmallVector<int64_t>>(SmallVector<int64_t>());
  error(n) << "attribute '" << name << "' must be a list of integers";
  return failure();
}

FailureOr<SmallVector<double>> NodeImporter::floatsAttr(NodeCtx &n,
                                                        StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a)
    return SmallVector<double>();
  if (auto *v = std::get_if<SmallVector<double>>(a))
    return *v;
  if (auto *v = std::get_if<SmallVector<int64_t>>(a))
    return SmallVector<double>(v->begin(), v->end());
  error(n) << "attribute '" << name << "' must be a list of floats";
  return failure();
}

FailureOr<std::optional<std::string>>
NodeImporter::stringAttr(NodeCtx &n, StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a)
    return std::optional<std::string>();
  if (auto *v = std::get_if<std::string>(a))
    return std::optional<std::string>(*v);
  error(n) << "attribute '" << name << "' must be a string";
  return failure();
}

FailureOr<Value> NodeImporter::requireInput(NodeCtx &n, unsigned i,
                                            StringRef what) {
  if (Value v = n.in(i))
    return v;
  error(n) << "missing input " << i << " (" << what << ")";
  return failure();
}

LogicalResult NodeImporter::requireAttrs(NodeCtx &n,
                                         ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    if (!n.node.findAttr(name)) {
      error(n) << "missing attribute '" << name << "'";
      return failure();
    }
  }
  return success();
}

LogicalResult NodeImporter::checkNoAttr(NodeCtx &n, StringRef name) {
  if (!n.node.findAttr(name))
    return success();
  unsupported(n) << ": attribute '" << name << "' is not supported";
  return failure();
}

//===----------------------------------------------------------------------===//
// Op construction
//===----------------------------------------------------------------------===//

FailureOr<Value> NodeImporter::build(NodeCtx &n, StringRef opName,
                                     ValueRange operands,
                                     ArrayRef<NamedAttribute> attrs) {
  auto r = graph::createInferred(builder, n.loc, opName, operands, attrs);
  if (failed(r))
    return failure();
  return (*r)[0];
}

Value NodeImporter::constant(NodeCtx &n, DenseElementsAttr value) {
  return graph::ConstantOp::create(builder, n.loc, value.getType(),
                                   cast<ElementsAttr>(value));
}

Value NodeImporter::constI64(NodeCtx &n, ArrayRef<int64_t> vals) {
  auto type = RankedTensorType::get({(int64_t)vals.size()},
                                    builder.getIntegerType(64));
  return constant(n, DenseElementsAttr::get(type, vals));
}



//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::binary(NodeCtx &n) {
  auto lhs = requireInput(n, 0, "A");
  auto rhs = requireInput(n, 1, "B");
  if (failed(lhs) || failed(rhs))
    return failure();
  rhs = legacyBroadcast(n, *lhs, *rhs);
  if (failed(rhs))
    return failure();
  StringRef op = llvm::StringSwitch<StringRef>(n.node.opType)
                     .Case("Add", "graph.add")
                     .Case("Sub", "graph.sub")
                     .Case("Mul", "graph.mul")
                     .Case("Div", "graph.div")
                     .Case("Pow", "graph.pow");
  return one(build(n, op, {*lhs, *rhs}));
}

FailureOr<SmallVector<Value>> NodeImporter::unary(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  StringRef op = llvm::StringSwitch<StringRef>(n.node.opType)
                     .Case("Relu", "graph.relu")
                     .Case("Sigmoid", "graph.sigmoid")
                     .Case("Tanh", "graph.tanh")
                     .Case("Exp", "graph.exp")
                     .Case("Log", "graph.log")
                     .Case("Sqrt", "graph.sqrt")
                     .Case("Neg", "graph.neg")
                     .Case("Abs", "graph.abs")
                     .Case("HardSwish", "graph.hard_swish")
                     .Case("Floor", "graph.floor")
                     .Case("Ceil", "graph.ceil")
                     .Case("Round", "graph.round")
                     .Case("Sign", "graph.sign")
                     .Case("Reciprocal", "graph.reciprocal")
                     .Case("Erf", "graph.erf")
                     .Case("Sin", "graph.sin")
                     .Case("Cos", "graph.cos")
                     .Case("Tan", "graph.tan")
                     .Case("Asin", "graph.asin")
                     .Case("Acos", "graph.acos")
                     .Case("Atan", "graph.atan")
                     .Case("Sinh", "graph.sinh")
                     .Case("Cosh", "graph.cosh")
                     .Case("Asinh", "graph.asinh")
                     .Case("Acosh", "graph.acosh")
                     .Case("Atanh", "graph.atanh")
                     .Case("Softplus", "graph.softplus")
                     .Case("Softsign", "graph.softsign")
                     .Cases({"Not", "BitwiseNot"}, "graph.not")
                     .Case("IsNaN", "graph.is_nan");
  return one(build(n, op, {*x}));
}

FailureOr<SmallVector<Value>> NodeImporter::identity(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  if (failed(x))
    return failure();
  return SmallVector<Value>{*x};
}


FailureOr<SmallVector<Value>> NodeImporter::clip(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  if (failed(x))
    return failure();
  Type elem = elementTypeOf(*x);
  if (!elem.isIntOrFloat()) {
    unsupported(n) << ": element type " << elem;
    return failure();
  }
  const double inf = std::numeric_limits<double>::infinity();
  Value lo, hi;
  if (n.opset() < 11) {
    auto mn = floatAttr(n, "min", -inf);
    auto mx = floatAttr(n, "max", inf);
    if (failed(mn) || failed(mx))
      return failure();
    lo = constant(n, scalarOf(elem, *mn));
    hi = constant(n, scalarOf(elem, *mx));
  } else {
    lo = n.in(1) ? n.in(1) : constant(n, scalarOf(elem, -inf));
    hi = n.in(2) ? n.in(2) : constant(n, scalarOf(elem, inf));
  }
  return one(build(n, "graph.clip", {*x, lo, hi}));
}

FailureOr<SmallVector<Value>> NodeImporter::hardSigmoid(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto alpha = floatAttr(n, "alpha", 0.2);
  auto beta = floatAttr(n, "beta", 0.5);
  if (failed(x) || failed(alpha) || failed(beta))
    return failure();
  return one(build(n, "graph.hard_sigmoid", {*x},
                   {named("alpha", f32(*alpha)), named("beta", f32(*beta))}));
}

FailureOr<SmallVector<Value>> NodeImporter::matmul(NodeCtx &n) {
  auto a = requireInput(n, 0, "A");
  auto b = requireInput(n, 1, "B");
  if (failed(a) || failed(b))
    return failure();
  return one(build(n, "graph.matmul", {*a, *b}));
}

FailureOr<SmallVector<Value>> NodeImporter::gemm(NodeCtx &n) {
  auto a = requireInput(n, 0, "A");
  auto b = requireInput(n, 1, "B");
  auto alpha = floatAttr(n, "alpha", 1.0);
  auto beta = floatAttr(n, "beta", 1.0);
  auto ta = intAttr(n, "transA", 0);
  auto tb = intAttr(n, "transB", 0);
  // Before opset 7, `broadcast` = 1 allows a C that broadcasts to the
  // output; C is broadcast either way (a C that must not be is valid too).
  auto broadcast = intAttr(n, "broadcast", 0);
  if (failed(a) || failed(b) || failed(alpha) || failed(beta) || failed(ta) ||
      failed(tb) || failed(broadcast))
    return failure();
  SmallVector<Value> operands{*a, *b};
  if (Value c = n.in(2))
    operands.push_back(c);
  return one(build(n, "graph.gemm", operands,
                   {named("alpha", f32(*alpha)), named("beta", f32(*beta)),
                    named("trans_a", boolean(*ta != 0)),
                    named("trans_b", boolean(*tb != 0))}));
}

LogicalResult NodeImporter::windowAttrs(NodeCtx &n, Value input,
                                        WindowAttrs &w, bool ceilMode) {
  size_t rank = w.kernel.size();
  auto strides = intsAttr(n, "strides");
  auto dilations = intsAttr(n, "dilations");
  auto pads = intsAttr(n, "pads");
  auto autoPad = stringAttr(n, "auto_pad");
  if (failed(strides) || failed(dilations) || failed(pads) || failed(autoPad))
    return failure();
  auto checkLen = [&](const std::optional<SmallVector<int64_t>> &v,
                      StringRef name, size_t len) {
    if (v && v->size() != len) {
      error(n) << "attribute '" << name << "' has " << v->size()
               << " values; expected " << len;
      return false;
    }
    return true;
  };
  if (!checkLen(*strides, "strides", rank) ||
      !checkLen(*dilations, "dilations", rank) ||
      !checkLen(*pads, "pads", 2 * rank))
    return failure();
  w.strides = strides->value_or(SmallVector<int64_t>(rank, 1));
  w.dilations = dilations->value_or(SmallVector<int64_t>(rank, 1));
  w.pads = pads->value_or(SmallVector<int64_t>(2 * rank, 0));

  std::string mode = autoPad->value_or("NOTSET");
  if (mode == "NOTSET")
    return success();
  if (mode == "VALID") {
    w.pads.assign(2 * rank, 0);
    return success();
  }
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER") {
    unsupported(n) << ": auto_pad '" << mode << "'";
    return failure();
  }
  auto type = rankedOf(input);
  if (!type || type.getRank() != (int64_t)rank + 2 ||
      llvm::any_of(type.getShape().drop_front(2),
                   [](int64_t d) { return d == kDyn; })) {
    error(n) << "auto_pad " << mode
             << " needs an input with static spatial dimensions";
    return failure();
  }
  (void)ceilMode;
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = type.getDimSize(i + 2);
    int64_t s = w.strides[i];
    int64_t out = (in + s - 1) / s;
    int64_t window = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * s + window - in);
    int64_t small = total / 2, large = total - total / 2;
    w.pads[i] = mode == "SAME_UPPER" ? small : large;
    w.pads[i + rank] = mode == "SAME_UPPER" ? large : small;
  }
  return success();
}

FailureOr<SmallVector<Value>> NodeImporter::conv(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto wt = requireInput(n, 1, "W");
  if (failed(x) || failed(wt))
    return failure();
  auto kernel = intsAttr(n, "kernel_shape");
  auto group = intAttr(n, "group", 1);
  if (failed(kernel) || failed(group))
    return failure();
  WindowAttrs w;
  auto wType = rankedOf(*wt);
  if (*kernel) {
    w.kernel = **kernel;
  } else if (wType && wType.getRank() >= 3 &&
             llvm::none_of(wType.getShape().drop_front(2),
                           [](int64_t d) { return d == kDyn; })) {
    w.kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
  } else {
    error(n) << "no 'kernel_shape' and the weight's shape is not known";
    return failure();
  }
  if (w.kernel.empty() || w.kernel.size() > 3) {
    unsupported(n) << ": " << w.kernel.size()
                   << "-D convolution (1-D to 3-D are supported)";
    return failure();
  }
  if (failed(windowAttrs(n, *x, w, false)))
    return failure();
  SmallVector<Value> operands{*x, *wt};
  if (Value b = n.in(2))
    operands.push_back(b);
  return one(build(n, "graph.conv", operands,
                   {named("strides", i64s(w.strides)),
                    named("pads", i64s(w.pads)),
                    named("dilations", i64s(w.dilations)),
                    named("group", i64(*group))}));
}

FailureOr<SmallVector<Value>> NodeImporter::batchNorm(NodeCtx &n) {
  auto training = intAttr(n, "training_mode", 0);
  auto spatial = intAttr(n, "spatial", 1);
  auto eps = floatAttr(n, "epsilon", 1e-5);
  auto momentum = floatAttr(n, "momentum", 0.9);
  // Before opset 7: `is_test` = 0 is training (batch statistics).
  auto isTest = intAttr(n, "is_test", 1);
  if (failed(training) || failed(spatial) || failed(eps) || failed(momentum) ||
      failed(isTest))
    return failure();
  if (!*isTest) {
    unsupported(n) << ": is_test = 0 (training with batch statistics)";
    return failure();
  }
  for (unsigned i = *training ? 3 : 1; i < n.node.outputs.size(); ++i)
    if (outputUsed(n, i)) {
      unsupported(n) << ": output " << i << " ('" << n.node.outputs[i]
                     << "') is used; only Y"
                     << (*training ? ", running_mean and running_var are"
                                   : " (inference) is")
                     << " supported";
      return failure();
    }
  if (!*spatial) {
    unsupported(n) << ": spatial = 0";
    return failure();
  }
  SmallVector<Value> operands;
  static const char *const names[] = {"X", "scale", "B", "mean", "var"};
  for (unsigned i = 0; i < 5; ++i) {
    auto v = requireInput(n, i, names[i]);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  if (*training) {
    auto r = graph::createInferred(
        builder, n.loc, "graph.batch_norm_training", operands,
        {named("epsilon", f32(*eps)), named("momentum", f32(*momentum))});
    if (failed(r))
      return failure();
    return *r;
  }
  return one(build(n, "graph.batch_norm", operands,
                   {named("epsilon", f32(*eps))}));
}

FailureOr<SmallVector<Value>> NodeImporter::maxPool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto kernel = intsAttr(n, "kernel_shape");
  auto ceil = intAttr(n, "ceil_mode", 0);
  auto order = intAttr(n, "storage_order", 0);
  if (failed(x) || failed(kernel) || failed(ceil) || failed(order))
    return failure();
  if (!*kernel || (*kernel)->empty()) {
    error(n) << "missing attribute 'kernel_shape'";
    return failure();
  }
  WindowAttrs w;
  w.kernel = **kernel;
  if (failed(windowAttrs(n, *x, w, *ceil != 0)))
    return failure();
  if (outputUsed(n, 1)) {
    auto r = graph::createInferred(
        builder, n.loc, "graph.max_pool_with_indices", {*x},
        {named("kernel_shape", i64s(w.kernel)),
         named("strides", i64s(w.strides)), named("pads", i64s(w.pads)),
         named("dilations", i64s(w.dilations)),
         named("ceil_mode", boolean(*ceil != 0)),
         named("storage_order", i64(*order))});
    if (failed(r))
      return failure();
    return *r;
  }
  return one(build(n, "graph.max_pool", {*x},
                   {named("kernel_shape", i64s(w.kernel)),
                    named("strides", i64s(w.strides)),
                    named("pads", i64s(w.pads)),
                    named("dilations", i64s(w.dilations)),
                    named("ceil_mode", boolean(*ceil != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::averagePool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto kernel = intsAttr(n, "kernel_shape");
  auto ceil = intAttr(n, "ceil_mode", 0);
  auto countPad = intAttr(n, "count_include_pad", 0);
  if (failed(x) || failed(kernel) || failed(ceil) || failed(countPad))
    return failure();
  if (!*kernel || (*kernel)->empty()) {
    error(n) << "missing attribute 'kernel_shape'";
    return failure();
  }
  WindowAttrs w;
  w.kernel = **kernel;
  if (failed(windowAttrs(n, *x, w, *ceil != 0)))
    return failure();
  return one(build(n, "graph.average_pool", {*x},
                   {named("kernel_shape", i64s(w.kernel)),
                    named("strides", i64s(w.strides)),
                    named("pads", i64s(w.pads)),
                    named("dilations", i64s(w.dilations)),
                    named("ceil_mode", boolean(*ceil != 0)),
                    named("count_include_pad", boolean(*countPad != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::globalAveragePool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  return one(build(n, "graph.global_average_pool", {*x}));
}

FailureOr<SmallVector<Value>> NodeImporter::softmax(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  if (failed(x))
    return failure();
  StringRef opName = n.node.opType == "LogSoftmax" ? "graph.log_softmax"
                     : n.node.opType == "Hardmax"  ? "graph.hardmax"
                                                   : "graph.softmax";
  if (n.opset() >= 13) {
    auto axis = intAttr(n, "axis", -1);
    if (failed(axis))
      return failure();
    return one(build(n, opName, {*x}, {named("axis", i64(*axis))}));
  }
  // Opset < 13: the input is coerced to 2-D at `axis` ([prod(d < axis),
  // prod(d >= axis)]), normalized along the second dimension and reshaped
  // back.
  auto axis = intAttr(n, "axis", 1);
  if (failed(axis))
    return failure();
  auto type = rankedOf(*x);
  if (!type) {
    error(n) << "opset-" << n.opset()
             << " softmax needs an input of known rank";
    return failure();
  }
  int64_t rank = type.getRank();
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a > rank || (rank > 0 && a == rank)) {
    error(n) << "axis " << *axis << " is out of range for rank " << rank;
    return failure();
  }
  if (rank == 0 || a == rank - 1)
    return one(build(n, opName, {*x}, {named("axis", i64(-1))}));
  auto flat = build(n, "graph.flatten", {*x}, {named("axis", i64(a))});
  if (failed(flat))
    return failure();
  auto sm = build(n, opName, {*flat}, {named("axis", i64(1))});
  if (failed(sm))
    return failure();
  auto shape = build(n, "graph.shape", {*x});
  if (failed(shape))
    return failure();
  return one(build(n, "graph.reshape", {*sm, *shape},
                   {named("allowzero", boolean(false))}));
}

FailureOr<SmallVector<Value>> NodeImporter::reshape(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  Value shape;
  if (n.opset() < 5) {
    auto s = intsAttr(n, "shape");
    if (failed(s))
      return failure();
    if (!*s) {
      error(n) << "missing attribute 'shape'";
      return failure();
    }
    shape = constI64(n, **s);
  } else {
    auto s = requireInput(n, 1, "shape");
    if (failed(s))
      return failure();
    shape = *s;
  }
  auto allowzero = intAttr(n, "allowzero", 0);
  if (failed(allowzero))
    return failure();
  return one(build(n, "graph.reshape", {*x, shape},
                   {named("allowzero", boolean(*allowzero != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::flatten(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto axis = intAttr(n, "axis", 1);
  if (failed(x) || failed(axis))
    return failure();
  return one(build(n, "graph.flatten", {*x}, {named("axis", i64(*axis))}));
}

FailureOr<SmallVector<Value>> NodeImporter::transpose(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto perm = intsAttr(n, "perm");
  if (failed(x) || failed(perm))
    return failure();
  SmallVector<int64_t> p;
  if (*perm) {
    p = **perm;
  } else {
    auto type = rankedOf(*x);
    if (!type) {
      error(n) << "no 'perm' and the input's rank is not known";
      return failure();
    }
    for (int64_t i = type.getRank() - 1; i >= 0; --i)
      p.push_back(i);
  }
  return one(build(n, "graph.transpose", {*x}, {named("perm", i64s(p))}));
}

FailureOr<SmallVector<Value>> NodeImporter::concat(NodeCtx &n) {
  auto axis = optIntAttr(n, "axis");
  if (failed(axis))
    return failure();
  if (!*axis && n.opset() >= 4) {
    error(n) << "missing attribute 'axis'";
    return failure();
  }
  SmallVector<Value> operands;
  for (Value v : n.allIns())
    if (v)
      operands.push_back(v);
  if (operands.empty()) {
    error(n) << "needs at least one input";
    return failure();
  }
  return one(build(n, "graph.concat", operands,
                   {named("axis", i64(axis->value_or(1)))}));
}

FailureOr<SmallVector<Value>> NodeImporter::slice(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  Value starts, ends, axes, steps;
  int64_t count = -1;
  if (n.opset() < 10) {
    auto s = intsAttr(n, "starts");
    auto e = intsAttr(n, "ends");
    auto a = intsAttr(n, "axes");
    if (failed(s) || failed(e) || failed(a))
      return failure();
    if (!*s || !*e) {
      error(n) << "missing attribute '" << (*s ? "ends" : "starts") << "'";
      return failure();
    }
    if ((*s)->size() != (*e)->size() || (*a && (*a)->size() != (*s)->size())) {
      error(n) << "attributes 'starts', 'ends' and 'axes' must have the "
                  "same length";
      return failure();
    }
    starts = constI64(n, **s);
    ends = constI64(n, **e);
    if (*a)
      axes = constI64(n, **a);
    count = (*s)->size();
  } else {
    auto s = requireInput(n, 1, "starts");
    auto e = requireInput(n, 2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    axes = n.in(3);
    steps = n.in(4);
  }
  if (count < 0) {
    auto t = rankedOf(starts);
    if (!t || t.getRank() != 1 || t.isDynamicDim(0)) {
      if (!axes || !steps) {
        error(n) << "the length of 'starts' is not known, so default "
                    "'axes'/'steps' cannot be made";
        return failure();
      }
    } else {
      count = t.getDimSize(0);
    }
  }
  if (!axes) {
    SmallVector<int64_t> a;
    for (int64_t i = 0; i < count; ++i)
      a.push_back(i);
    axes = constI64(n, a);
  }
  if (!steps)
    steps = constI64(n, SmallVector<int64_t>(count, 1));
  return one(build(n, "graph.slice", {*x, starts, ends, axes, steps}));
}

FailureOr<SmallVector<Value>> NodeImporter::squeeze(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  SmallVector<Value> operands{*x};
  if (n.opset() < 13) {
    auto axes = intsAttr(n, "axes");
    if (failed(axes))
      return failure();
    if (*axes)
      operands.push_back(constI64(n, **axes));
  } else if (Value a = n.in(1)) {
    operands.push_back(a);
  }
  return one(build(n, "graph.squeeze", operands));
}

FailureOr<SmallVector<Value>> NodeImporter::unsqueeze(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  Value axes;
  if (n.opset() < 13) {
    auto a = intsAttr(n, "axes");
    if (failed(a))
      return failure();
    if (!*a) {
      error(n) << "missing attribute 'axes'";
      return failure();
    }
    axes = constI64(n, **a);
  } else {
    auto a = requireInput(n, 1, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  return one(build(n, "graph.unsqueeze", {*x, axes}));
}

FailureOr<SmallVector<Value>> NodeImporter::shape(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto start = optIntAttr(n, "start");
  auto end = optIntAttr(n, "end");
  if (failed(x) || failed(start) || failed(end))
    return failure();
  SmallVector<NamedAttribute> attrs;
  if (*start && **start != 0)
    attrs.push_back(named("start", i64(**start)));
  if (*end)
    attrs.push_back(named("end", i64(**end)));
  return one(build(n, "graph.shape", {*x}, attrs));
}

static std::optional<int> onnxTypeCodeFromName(StringRef name) {
  for (int code = 0; code <= kOnnxBfloat16; ++code)
    if (name.equals_insensitive(onnxDataTypeName(code)))
      return code;
  for (auto [dtype, code] : kDtypeNames)
    if (name == dtype)
      return code;
  return std::nullopt;
}

FailureOr<SmallVector<Value>> NodeImporter::castOp(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  if (failed(x))
    return failure();
  const AttrValue *to = n.node.findAttr("to");
  if (!to) {
    error(n) << "missing attribute 'to'";
    return failure();
  }
  std::optional<int> code;
  if (auto *v = std::get_if<int64_t>(to))
    code = (int)*v;
  else if (auto *s = std::get_if<std::string>(to))
    code = onnxTypeCodeFromName(*s);
  if (!code) {
    error(n) << "attribute 'to' must be an ONNX data type";
    return failure();
  }
  Type elem = onnxElementType(ctx, *code);
  if (!elem) {
    unsupported(n) << ": cast to " << onnxDataTypeName(*code);
    return failure();
  }
  return one(build(n, "graph.cast", {*x}, {named("to", TypeAttr::get(elem))}));
}

FailureOr<SmallVector<Value>> NodeImporter::constantNode(NodeCtx &n) {
  if (n.node.attributes.size() != 1) {
    error(n) << "needs exactly one of the attributes value, value_float, "
                "value_floats, value_int, value_ints";
    return failure();
  }
  const auto &[name, attr] = n.node.attributes.front();
  n.node.readAttributes.insert(name);
  auto f32Type = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  };
  auto i64Type = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getIntegerType(64));
  };
  if (name == "value") {
    if (auto *t = std::get_if<ElementsAttr>(&attr)) {
      return SmallVector<Value>{graph::ConstantOp::create(
          builder, n.loc, t->getType(), *t)};
    }
    if (auto *u = std::get_if<UnsupportedAttr>(&attr)) {
      unsupported(n) << ": " << u->what;
      return failure();
    }
  } else if (name == "value_float") {
    if (auto v = optFloatAttr(n, name); succeeded(v))
      return SmallVector<Value>{
          constant(n, tensorFromDoubles(f32Type({}), {**v}))};
    return failure();
  } else if (name == "value_floats") {
    const AttrValue *a = &attr;
    SmallVector<double> fs;
    if (auto *v = std::get_if<SmallVector<double>>(a))
      fs = *v;
    else if (auto *v = std::get_if<SmallVector<int64_t>>(a))
      fs.assign(v->begin(), v->end());
    else {
      error(n) << "attribute 'value_floats' must be a list of floats";
      return failure();
    }
    return SmallVector<Value>{
        constant(n, tensorFromDoubles(f32Type({(int64_t)fs.size()}), fs))};
  } else if (name == "value_int") {
    if (auto v = optIntAttr(n, name); succeeded(v))
      return SmallVector<Value>{constant(
          n, DenseElementsAttr::get(i64Type({}), ArrayRef<int64_t>(**v)))};
    return failure();
  } else if (name == "value_ints") {
    auto v = intsAttr(n, name);
    if (failed(v))
      return failure();
    return SmallVector<Value>{constI64(n, **v)};
  } else if (name == "sparse_value" || name == "value_string" ||
             name == "value_strings") {
    unsupported(n) << ": attribute '" << name << "' is not supported";
    return failure();
  }
  error(n) << "attribute '" << name
           << "' is not one of value, value_float, value_floats, value_int, "
              "value_ints, or has the wrong kind";
  return failure();
}

FailureOr<SmallVector<Value>> NodeImporter::gather(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto idx = requireInput(n, 1, "indices");
  auto axis = intAttr(n, "axis", 0);
  if (failed(x) || failed(idx) || failed(axis))
    return failure();
  return one(
      build(n, "graph.gather", {*x, *idx}, {named("axis", i64(*axis))}));
}

FailureOr<SmallVector<Value>> NodeImporter::constantOfShape(NodeCtx &n) {
  auto s = requireInput(n, 0, "input");
  if (failed(s))
    return failure();
  SmallVector<int64_t> shape;
  if (failed(graph::getConstantInts(*s, shape))) {
    unsupported(n) << ": the shape is not a constant after shape folding";
    return failure();
  }
  for (int64_t d : shape)
    if (d < 0) {
      error(n) << "negative dimension " << d;
      return failure();
    }
  DenseElementsAttr value;
  if (const AttrValue *a = n.node.findAttr("value")) {
    auto *t = std::get_if<ElementsAttr>(a);
    auto dense = t ? dyn_cast<DenseElementsAttr>(*t) : DenseElementsAttr();
    if (!dense || dense.getNumElements() != 1) {
      error(n) << "attribute 'value' must be a one-element tensor";
      return failure();
    }
    value = dense;
  } else {
    value = tensorFromDoubles(RankedTensorType::get({1}, builder.getF32Type()),
                              {0.0});
  }
  auto type = RankedTensorType::get(shape, value.getElementType());
  if (value.getElementType().isInteger(1))
    return SmallVector<Value>{constant(
        n, DenseElementsAttr::get(type, *value.value_begin<bool>()))};
  if (isa<FloatType>(value.getElementType()))
    return SmallVector<Value>{constant(
        n, DenseElementsAttr::get(type, *value.value_begin<APFloat>()))};
  return SmallVector<Value>{constant(
      n, DenseElementsAttr::get(type, *value.value_begin<APInt>()))};
}

//===----------------------------------------------------------------------===//
// Elementwise ops beyond the arithmetic ones
//===----------------------------------------------------------------------===//



FailureOr<SmallVector<Value>> NodeImporter::elementwise(NodeCtx &n) {
  auto lhs = requireInput(n, 0, "A");
  auto rhs = requireInput(n, 1, "B");
  if (failed(lhs) || failed(rhs))
    return failure();
  rhs = legacyBroadcast(n, *lhs, *rhs);
  if (failed(rhs))
    return failure();
  StringRef op = llvm::StringSwitch<StringRef>(n.node.opType)
                     .Cases({"And", "BitwiseAnd"}, "graph.and")
                     .Cases({"Or", "BitwiseOr"}, "graph.or")
                     .Cases({"Xor", "BitwiseXor"}, "graph.xor")
                     .Case("Equal", "graph.equal")
                     .Case("Less", "graph.less")
                     .Case("LessOrEqual", "graph.less_or_equal")
                     .Case("Greater", "graph.greater")
                     .Case("GreaterOrEqual", "graph.greater_or_equal");
  return one(build(n, op, {*lhs, *rhs}));
}

FailureOr<Value> NodeImporter::scalarLike(NodeCtx &n, Value like, double v) {
  return constant(n, scalarOf(elementTypeOf(like), v));
}

FailureOr<SmallVector<Value>> NodeImporter::variadic(NodeCtx &n) {
  SmallVector<Value> operands;
  for (Value v : n.allIns())
    if (v)
      operands.push_back(v);
  if (operands.empty()) {
    error(n) << "needs at least one input";
    return failure();
  }
  StringRef type = n.node.opType;
  StringRef op = type == "Max"   ? "graph.max"
                 : type == "Min" ? "graph.min"
                                 : "graph.add";
  Value acc = operands.front();
  for (Value v : ArrayRef<Value>(operands).drop_front()) {
    auto r = build(n, op, {acc, v});
    if (failed(r))
      return failure();
    acc = *r;
  }
  if (type == "Mean" && operands.size() > 1) {
    Value count = constant(n, scalarOf(elementTypeOf(acc),
                                       (double)operands.size()));
    return one(build(n, "graph.div", {acc, count}));
  }
  return SmallVector<Value>{acc};
}

FailureOr<SmallVector<Value>> NodeImporter::modOp(NodeCtx &n) {
  auto lhs = requireInput(n, 0, "A");
  auto rhs = requireInput(n, 1, "B");
  auto fmod = intAttr(n, "fmod", 0);
  if (failed(lhs) || failed(rhs) || failed(fmod))
    return failure();
  return one(build(n, "graph.mod", {*lhs, *rhs},
                   {named("fmod", boolean(*fmod != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::bitShift(NodeCtx &n) {
  auto lhs = requireInput(n, 0, "X");
  auto rhs = requireInput(n, 1, "Y");
  auto dir = stringAttr(n, "direction");
  if (failed(lhs) || failed(rhs) || failed(dir))
    return failure();
  if (!*dir || (**dir != "LEFT" && **dir != "RIGHT")) {
    error(n) << "attribute 'direction' must be LEFT or RIGHT";
    return failure();
  }
  return one(build(n, "graph.bit_shift", {*lhs, *rhs},
                   {named("left", boolean(**dir == "LEFT"))}));
}

FailureOr<SmallVector<Value>> NodeImporter::where(NodeCtx &n) {
  auto c = requireInput(n, 0, "condition");
  auto x = requireInput(n, 1, "X");
  auto y = requireInput(n, 2, "Y");
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return one(build(n, "graph.where", {*c, *x, *y}));
}

FailureOr<SmallVector<Value>> NodeImporter::isInf(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto neg = intAttr(n, "detect_negative", 1);
  auto pos = intAttr(n, "detect_positive", 1);
  if (failed(x) || failed(neg) || failed(pos))
    return failure();
  return one(build(n, "graph.is_inf", {*x},
                   {named("detect_negative", boolean(*neg != 0)),
                    named("detect_positive", boolean(*pos != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::activation(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  StringRef type = n.node.opType;
  double alpha = 0, beta = 0;
  StringRef op;
  auto get = [&](StringRef name, double dflt, double &out) {
    auto v = floatAttr(n, name, dflt);
    if (failed(v))
      return false;
    out = *v;
    return true;
  };
  bool ok = true;
  if (type == "LeakyRelu") {
    op = "graph.leaky_relu";
    ok = get("alpha", 0.01, alpha);
  } else if (type == "Elu") {
    op = "graph.elu";
    ok = get("alpha", 1.0, alpha);
  } else if (type == "Selu") {
    op = "graph.selu";
    ok = get("alpha", 1.67326319217681884765625, alpha) &&
         get("gamma", 1.05070102214813232421875, beta);
  } else if (type == "Celu") {
    op = "graph.celu";
    ok = get("alpha", 1.0, alpha);
  } else if (type == "ThresholdedRelu") {
    op = "graph.thresholded_relu";
    ok = get("alpha", 1.0, alpha);
  } else {
    op = "graph.shrink";
    ok = get("lambd", 0.5, alpha) && get("bias", 0.0, beta);
  }
  if (!ok)
    return failure();
  return one(build(n, op, {*x},
                   {named("alpha", f32(alpha)), named("beta", f32(beta))}));
}

/// Gelu (opset 20): x * Phi(x), Phi the standard normal CDF, composed of
/// graph ops: 0.5 x (1 + erf(x / sqrt(2))), or with approximate = "tanh"
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the formulas of the
/// ONNX specification.
FailureOr<SmallVector<Value>> NodeImporter::gelu(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto approx = stringAttr(n, "approximate");
  if (failed(x) || failed(approx))
    return failure();
  std::string mode = approx->value_or("none");
  if (mode != "none" && mode != "tanh") {
    error(n) << "attribute 'approximate' must be \"none\" or \"tanh\", not \""
             << mode << "\"";
    return failure();
  }
  // Each step is a graph op on the previous ones; the first failure (an
  // error already reported) ends the chain.
  bool ok = true;
  auto op = [&](StringRef name, ValueRange operands) -> Value {
    if (!ok)
      return Value();
    FailureOr<Value> r = build(n, name, operands);
    ok = succeeded(r);
    return ok ? *r : Value();
  };
  auto scalar = [&](double v) -> Value {
    if (!ok)
      return Value();
    FailureOr<Value> r = scalarLike(n, *x, v);
    ok = succeeded(r);
    return ok ? *r : Value();
  };
  Value t;
  if (mode == "none") {
    Value z = op("graph.mul", {*x, scalar(M_SQRT1_2)});
    t = op("graph.erf", {z});
  } else {
    Value x3 = op("graph.mul", {op("graph.mul", {*x, *x}), *x});
    Value inner =
        op("graph.add", {*x, op("graph.mul", {x3, scalar(0.044715)})});
    t = op("graph.tanh",
           {op("graph.mul", {inner, scalar(std::sqrt(2.0 / M_PI))})});
  }
  Value y = op("graph.mul", {op("graph.mul", {*x, scalar(0.5)}),
                             op("graph.add", {t, scalar(1.0)})});
  if (!ok)
    return failure();
  return SmallVector<Value>{y};
}

/// Mish (opset 18): x * tanh(softplus(x)).
FailureOr<SmallVector<Value>> NodeImporter::mish(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  auto sp = build(n, "graph.softplus", {*x});
  if (failed(sp))
    return failure();
  auto t = build(n, "graph.tanh", {*sp});
  if (failed(t))
    return failure();
  return one(build(n, "graph.mul", {*x, *t}));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

FailureOr<Value> NodeImporter::reduceOp(NodeCtx &n, StringRef op, Value x,
                                        ArrayRef<int64_t> axes,
                                        bool keepdims) {
  return build(n, op, {x},
               {named("axes", i64s(axes)), named("keepdims", boolean(keepdims))});
}

/// x - mean(x) over `axes` for the normalizations, and the mean (kept as
/// size-1 dims), computed against p, the first element of each slice: with
/// e = x - p (exact for values near p) and q = mean(e), x - mean(x) is e - q
/// and the mean p + q. Neither the sum of the values nor the mean rounded
/// to their magnitude enters the differences: inputs of mean 1e4 and spread
/// 0.01 were normalized 0.15 off with the plain formula (ONNX Runtime:
/// 0.05 off), and are now as exact as float32 allows.
FailureOr<std::pair<Value, Value>>
NodeImporter::centered(NodeCtx &n, Value x, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> zeros(axes.size(), 0), ones(axes.size(), 1);
  auto pivot =
      build(n, "graph.slice",
            {x, constI64(n, zeros), constI64(n, ones),
             constI64(n, SmallVector<int64_t>(axes)), constI64(n, ones)});
  if (failed(pivot))
    return failure();
  auto e = build(n, "graph.sub", {x, *pivot});
  if (failed(e))
    return failure();
  auto q = reduceOp(n, "graph.reduce_mean", *e, axes, true);
  if (failed(q))
    return failure();
  auto d = build(n, "graph.sub", {*e, *q});
  auto mean = build(n, "graph.add", {*pivot, *q});
  if (failed(d) || failed(mean))
    return failure();
  return std::make_pair(*d, *mean);
}

/// sqrt(mean(d^2 over `axes`) + eps), the deviation of the centered d (kept
/// as size-1 dims), for the normalizations (no addition for eps = 0).
FailureOr<Value> NodeImporter::deviation(NodeCtx &n, Value d,
                                         ArrayRef<int64_t> axes, double eps) {
  auto sq = build(n, "graph.mul", {d, d});
  if (failed(sq))
    return failure();
  auto var = reduceOp(n, "graph.reduce_mean", *sq, axes, true);
  if (failed(var))
    return failure();
  if (eps != 0.0) {
    var = build(n, "graph.add",
                {*var, constant(n, scalarOf(elementTypeOf(d), eps))});
    if (failed(var))
      return failure();
  }
  return build(n, "graph.sqrt", {*var});
}

/// d / deviation(d): the centered d normalized over `axes`.
FailureOr<Value> NodeImporter::standardized(NodeCtx &n, Value d,
                                            ArrayRef<int64_t> axes,
                                            double eps) {
  auto sd = deviation(n, d, axes, eps);
  if (failed(sd))
    return failure();
  return build(n, "graph.div", {d, *sd});
}

/// v * scale + bias, scale and bias reshaped to `shape` (per channel or
/// group, broadcast over the rest).
FailureOr<Value> NodeImporter::scaleShift(NodeCtx &n, Value v, Value scale,
                                          Value bias, ArrayRef<int64_t> shape) {
  auto s = reshapeTo(n, scale, shape);
  auto b = reshapeTo(n, bias, shape);
  if (failed(s) || failed(b))
    return failure();
  auto y = build(n, "graph.mul", {v, *s});
  if (failed(y))
    return failure();
  return build(n, "graph.add", {*y, *b});
}

FailureOr<SmallVector<Value>> NodeImporter::reduce(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto keepdims = intAttr(n, "keepdims", 1);
  auto noop = intAttr(n, "noop_with_empty_axes", 0);
  if (failed(x) || failed(keepdims) || failed(noop))
    return failure();
  StringRef type = n.node.opType;
  bool axesInput = n.opset() >= (type == "ReduceSum" ? 13 : 18);
  SmallVector<int64_t> axes;
  if (axesInput) {
    if (Value a = n.in(1)) {
      if (failed(graph::getConstantInts(a, axes))) {
        unsupported(n) << ": 'axes' is not a constant";
        return failure();
      }
    }
  } else {
    auto a = intsAttr(n, "axes");
    if (failed(a))
      return failure();
    if (*a)
      axes = **a;
  }
  auto xt = rankedOf(*x);
  if (axes.empty()) {
    if (*noop)
      return SmallVector<Value>{*x};
    if (!xt) {
      error(n) << "reducing all axes needs an input of known rank";
      return failure();
    }
    for (int64_t i = 0; i < xt.getRank(); ++i)
      axes.push_back(i);
  } else if (xt) {
    for (int64_t &a : axes)
      if (a < 0)
        a += xt.getRank();
  }
  std::string op = std::string("graph.reduce_") +
                   llvm::StringSwitch<const char *>(type)
                       .Case("ReduceSum", "sum")
                       .Case("ReduceMean", "mean")
                       .Case("ReduceMax", "max")
                       .Case("ReduceMin", "min")
                       .Case("ReduceProd", "prod")
                       .Case("ReduceL1", "l1")
                       .Case("ReduceL2", "l2")
                       .Case("ReduceLogSum", "log_sum")
                       .Case("ReduceLogSumExp", "log_sum_exp")
                       .Case("ReduceSumSquare", "sum_square")
                       .Default("sum");
  return one(reduceOp(n, op, *x, axes, *keepdims != 0));
}

FailureOr<SmallVector<Value>> NodeImporter::argMinMax(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto axis = intAttr(n, "axis", 0);
  auto keepdims = intAttr(n, "keepdims", 1);
  auto last = intAttr(n, "select_last_index", 0);
  if (failed(x) || failed(axis) || failed(keepdims) || failed(last))
    return failure();
  return one(build(n, n.node.opType == "ArgMax" ? "graph.arg_max"
                                                 : "graph.arg_min",
                   {*x},
                   {named("axis", i64(*axis)),
                    named("keepdims", boolean(*keepdims != 0)),
                    named("select_last_index", boolean(*last != 0))}));
}

//===----------------------------------------------------------------------===//
// Resize, ConvTranspose
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::resize(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape()) {
    error(n) << "resize needs an input of static shape";
    return failure();
  }
  int64_t rank = xt.getRank();
  bool upsample = n.node.opType == "Upsample";
  bool old = upsample || n.opset() < 11;
  auto mode = stringAttr(n, "mode");
  auto ctMode = stringAttr(n, "coordinate_transformation_mode");
  auto nearestMode = stringAttr(n, "nearest_mode");
  auto cubicA = floatAttr(n, "cubic_coeff_a", -0.75);
  auto exclude = intAttr(n, "exclude_outside", 0);
  auto extrap = floatAttr(n, "extrapolation_value", 0.0);
  if (failed(mode) || failed(ctMode) || failed(nearestMode) || failed(cubicA) ||
      failed(exclude) || failed(extrap))
    return failure();
  std::string m = mode->value_or("nearest");
  if (m == "bilinear" || m == "trilinear")
    m = "linear";
  std::string ct = old ? "asymmetric" : ctMode->value_or("half_pixel");
  std::string nm = old ? "floor" : nearestMode->value_or("round_prefer_floor");

  SmallVector<double> scales, roi;
  std::optional<SmallVector<int64_t>> sizes;
  Value scalesV, sizesV, roiV;
  if (upsample && n.opset() < 9) {
    const AttrValue *a = n.node.findAttr("scales");
    auto *v = a ? std::get_if<SmallVector<double>>(a) : nullptr;
    if (!v) {
      error(n) << "missing attribute 'scales'";
      return failure();
    }
    scales.assign(v->begin(), v->end());
  } else if (old) {
    scalesV = n.in(1);
  } else {
    roiV = n.in(1);
    scalesV = n.in(2);
    sizesV = n.in(3);
  }
  if (scalesV && !isEmptyTensorValue(scalesV) &&
      failed(getConstantDoubles(scalesV, scales))) {
    unsupported(n) << ": 'scales' is not a constant";
    return failure();
  }
  // Opset 18: `axes` lists the dimensions that scales, sizes and roi give
  // values for (the others keep their size), `keep_aspect_ratio_policy`
  // turns sizes into one scale for all listed axes, and `antialias` filters
  // linear and cubic downscaling.
  SmallVector<int64_t> axes;
  std::string policy = "stretch";
  bool filtered = false;
  if (!old && n.opset() >= 18) {
    auto axesAttr = intsAttr(n, "axes");
    auto policyAttr = stringAttr(n, "keep_aspect_ratio_policy");
    auto antialias = intAttr(n, "antialias", 0);
    if (failed(axesAttr) || failed(policyAttr) || failed(antialias))
      return failure();
    policy = policyAttr->value_or("stretch");
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller") {
      error(n) << "attribute 'keep_aspect_ratio_policy' must be \"stretch\", "
                  "\"not_larger\" or \"not_smaller\", not \""
               << policy << "\"";
      return failure();
    }
    filtered = *antialias != 0 && m != "nearest";
    if (*axesAttr) {
      SmallVector<bool> seen(rank, false);
      for (int64_t a : **axesAttr) {
        int64_t ax = a < 0 ? a + rank : a;
        if (ax < 0 || ax >= rank || seen[ax]) {
          error(n) << "axis " << a << " of attribute 'axes' is "
                   << (ax < 0 || ax >= rank ? "out of range" : "repeated")
                   << " for an input of rank " << rank;
          return failure();
        }
        seen[ax] = true;
        axes.push_back(ax);
      }
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  int64_t listed = axes.size();
  if (!scales.empty()) {
    if ((int64_t)scales.size() != listed) {
      error(n) << "needs one scale per dimension (or 'sizes'), got "
               << scales.size() << " for " << listed << " axes";
      return failure();
    }
    SmallVector<double> full(rank, 1.0);
    for (int64_t i = 0; i < listed; ++i)
      full[axes[i]] = scales[i];
    scales = std::move(full);
  }
  if (sizesV && !isEmptyTensorValue(sizesV)) {
    SmallVector<int64_t> sz;
    if (failed(graph::getConstantInts(sizesV, sz))) {
      unsupported(n) << ": 'sizes' is not a constant";
      return failure();
    }
    if ((int64_t)sz.size() != listed) {
      error(n) << "'sizes' has " << sz.size() << " values for " << listed
               << " axes";
      return failure();
    }
    SmallVector<int64_t> full(xt.getShape());
    scales.assign(rank, 1.0);
    if (policy == "stretch") {
      for (int64_t i = 0; i < listed; ++i) {
        full[axes[i]] = sz[i];
        scales[axes[i]] = (double)sz[i] / (double)xt.getDimSize(axes[i]);
      }
    } else {
      // One scale for all listed axes: the smallest (not_larger) or largest
      // (not_smaller) of sizes / input sizes; each size is then that scale
      // times the input size, rounded.
      double scale = policy == "not_larger" ? INFINITY : 0.0;
      for (int64_t i = 0; i < listed; ++i) {
        double r = (double)sz[i] / (double)xt.getDimSize(axes[i]);
        scale =
            policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
      }
      for (int64_t ax : axes) {
        full[ax] = (int64_t)std::nearbyint(scale * xt.getDimSize(ax));
        scales[ax] = scale;
      }
    }
    sizes = full;
  }
  if ((int64_t)scales.size() != rank) {
    error(n) << "needs one scale per dimension (or 'sizes'), got "
             << scales.size() << " for rank " << rank;
    return failure();
  }
  // The antialiasing filter changes only downscaling: then every resized
  // axis is a matmul by its interpolation matrix.
  if (filtered && llvm::any_of(scales, [](double s) { return s < 1.0; })) {
    if (ct == "tf_crop_and_resize") {
      unsupported(n) << ": antialias=1 with tf_crop_and_resize";
      return failure();
    }
    SmallVector<int64_t> outDims;
    for (int64_t i = 0; i < rank; ++i)
      outDims.push_back(
          sizes ? (*sizes)[i]
                : (int64_t)std::floor(scales[i] * xt.getDimSize(i)));
    return one(
        antialiasResize(n, *x, scales, outDims, m, ct, *cubicA, *exclude != 0));
  }
  if (ct == "tf_crop_and_resize") {
    if (!roiV || isEmptyTensorValue(roiV)) {
      error(n) << "tf_crop_and_resize needs an 'roi'";
      return failure();
    }
    if (listed != rank) {
      unsupported(n) << ": tf_crop_and_resize with attribute 'axes'";
      return failure();
    }
    if (failed(getConstantDoubles(roiV, roi))) {
      SmallVector<int64_t> outDims;
      for (int64_t i = 0; i < rank; ++i)
        outDims.push_back(sizes ? (*sizes)[i]
                                : (int64_t)std::floor(scales[i] *
                                                      xt.getDimSize(i)));
      return one(cropAndResizeRuntimeRoi(n, *x, roiV, scales, outDims, m, nm,
                                         *extrap));
    }
  }
  SmallVector<NamedAttribute> attrs{
      named("scales", builder.getDenseF64ArrayAttr(scales)),
      named("roi", builder.getDenseF64ArrayAttr(roi)),
      named("mode", builder.getStringAttr(m)),
      named("coordinate_transformation_mode", builder.getStringAttr(ct)),
      named("nearest_mode", builder.getStringAttr(nm)),
      named("cubic_coeff_a", f32(*cubicA)),
      named("exclude_outside", boolean(*exclude != 0)),
      named("extrapolation_value", f32(*extrap))};
  if (sizes)
    attrs.push_back(named("sizes", i64s(*sizes)));
  return one(build(n, "graph.resize", {*x}, attrs));
}

FailureOr<SmallVector<Value>> NodeImporter::convTranspose(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto wt = requireInput(n, 1, "W");
  if (failed(x) || failed(wt))
    return failure();
  auto kernel = intsAttr(n, "kernel_shape");
  auto group = intAttr(n, "group", 1);
  auto strides = intsAttr(n, "strides");
  auto dilations = intsAttr(n, "dilations");
  auto pads = intsAttr(n, "pads");
  auto outPad = intsAttr(n, "output_padding");
  auto outShape = intsAttr(n, "output_shape");
  auto autoPad = stringAttr(n, "auto_pad");
  if (failed(kernel) || failed(group) || failed(strides) || failed(dilations) ||
      failed(pads) || failed(outPad) || failed(outShape) || failed(autoPad))
    return failure();
  auto xType = rankedOf(*x), wType = rankedOf(*wt);
  if (!xType || !wType || !xType.hasStaticShape() || !wType.hasStaticShape()) {
    error(n) << "conv_transpose needs input and weight of static shape";
    return failure();
  }
  size_t sp = xType.getRank() - 2;
  SmallVector<int64_t> k(wType.getShape().drop_front(2));
  if (*kernel)
    k = **kernel;
  auto check = [&](const std::optional<SmallVector<int64_t>> &v,
                   StringRef name, size_t len) {
    if (v && v->size() != len) {
      error(n) << "attribute '" << name << "' has " << v->size()
               << " values; expected " << len;
      return false;
    }
    return true;
  };
  if (k.size() != sp || !check(*strides, "strides", sp) ||
      !check(*dilations, "dilations", sp) || !check(*pads, "pads", 2 * sp) ||
      !check(*outPad, "output_padding", sp))
    return failure();
  SmallVector<int64_t> s = strides->value_or(SmallVector<int64_t>(sp, 1));
  SmallVector<int64_t> d = dilations->value_or(SmallVector<int64_t>(sp, 1));
  SmallVector<int64_t> p = pads->value_or(SmallVector<int64_t>(2 * sp, 0));
  SmallVector<int64_t> op = outPad->value_or(SmallVector<int64_t>(sp, 0));
  std::string mode = autoPad->value_or("NOTSET");
  std::optional<SmallVector<int64_t>> target;
  if (*outShape) {
    SmallVector<int64_t> os = **outShape;
    if (os.size() == sp + 2)
      os.erase(os.begin(), os.begin() + 2);
    if (os.size() != sp) {
      error(n) << "attribute 'output_shape' has " << os.size()
               << " values; expected " << sp;
      return failure();
    }
    target = os;
  } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    SmallVector<int64_t> os;
    for (size_t i = 0; i < sp; ++i)
      os.push_back(xType.getDimSize(2 + i) * s[i]);
    target = os;
  } else if (mode == "VALID") {
    p.assign(2 * sp, 0);
  } else if (mode != "NOTSET") {
    unsupported(n) << ": auto_pad '" << mode << "'";
    return failure();
  }
  if (target) {
    for (size_t i = 0; i < sp; ++i) {
      int64_t full = s[i] * (xType.getDimSize(2 + i) - 1) + op[i] +
                     (k[i] - 1) * d[i] + 1;
      int64_t total = full - (*target)[i];
      if (total < 0) {
        op[i] -= total;
        total = 0;
      }
      if (mode == "SAME_UPPER") {
        p[i] = total / 2;
        p[i + sp] = total - total / 2;
      } else {
        p[i] = total - total / 2;
        p[i + sp] = total / 2;
      }
    }
  }
  SmallVector<Value> operands{*x, *wt};
  if (Value b = n.in(2))
    operands.push_back(b);
  return one(build(n, "graph.conv_transpose", operands,
                   {named("strides", i64s(s)), named("pads", i64s(p)),
                    named("dilations", i64s(d)),
                    named("output_padding", i64s(op)),
                    named("group", i64(*group))}));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::expand(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto s = requireInput(n, 1, "shape");
  if (failed(x) || failed(s))
    return failure();
  return one(build(n, "graph.expand", {*x, *s}));
}

FailureOr<SmallVector<Value>> NodeImporter::tile(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto r = requireInput(n, 1, "repeats");
  if (failed(x) || failed(r))
    return failure();
  return one(build(n, "graph.tile", {*x, *r}));
}

FailureOr<SmallVector<Value>> NodeImporter::pad(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto mode = stringAttr(n, "mode");
  if (failed(x) || failed(mode))
    return failure();
  Type elem = elementTypeOf(*x);
  SmallVector<int64_t> pads;
  Value value;
  if (n.opset() < 11) {
    auto p = intsAttr(n, n.opset() < 2 ? "paddings" : "pads");
    auto v = floatAttr(n, "value", 0.0);
    if (failed(p) || failed(v))
      return failure();
    if (!*p) {
      error(n) << "missing attribute 'pads'";
      return failure();
    }
    pads = **p;
    value = constant(n, scalarOf(elem, *v));
  } else {
    auto p = requireInput(n, 1, "pads");
    if (failed(p))
      return failure();
    if (failed(graph::getConstantInts(*p, pads))) {
      unsupported(n) << ": 'pads' is not a constant";
      return failure();
    }
    if (Value v = n.in(2); v && !isEmptyTensorValue(v)) {
      value = v;
      auto vt = rankedOf(v);
      if (vt && vt.getRank() != 0) {
        auto r = reshapeTo(n, v, {});
        if (failed(r))
          return failure();
        value = *r;
      }
    } else {
      value = constant(n, scalarOf(elem, 0.0));
    }
    if (Value a = n.in(3); a && !isEmptyTensorValue(a)) {
      // Opset 18: the pads of the listed axes only ([begins..., ends...]);
      // the other axes get none.
      SmallVector<int64_t> axes;
      auto xt = rankedOf(*x);
      if (failed(graph::getConstantInts(a, axes))) {
        unsupported(n) << ": 'axes' is not a constant";
        return failure();
      }
      if (!xt) {
        error(n) << "padding listed axes needs an input of known rank";
        return failure();
      }
      int64_t rank = xt.getRank(), count = axes.size();
      if (static_cast<int64_t>(pads.size()) != 2 * count) {
        error(n) << "'pads' has " << pads.size() << " values for " << count
                 << " axes (needs " << 2 * count << ")";
        return failure();
      }
      SmallVector<int64_t> full(2 * rank, 0);
      SmallVector<bool> seen(rank, false);
      for (int64_t i = 0; i < count; ++i) {
        int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (ax < 0 || ax >= rank || seen[ax]) {
          error(n) << "axis " << axes[i] << " of 'axes' is "
                   << (ax < 0 || ax >= rank ? "out of range" : "repeated")
                   << " for an input of rank " << rank;
          return failure();
        }
        seen[ax] = true;
        full[ax] = pads[i];
        full[rank + ax] = pads[count + i];
      }
      pads = std::move(full);
    }
  }
  std::string modeName = mode->value_or("constant");
  if (modeName == "wrap" && n.opset() < 19) {
    error(n) << "mode 'wrap' needs opset 19 (the model's is " << n.opset()
             << ")";
    return failure();
  }
  // A wrap pad wider than what it repeats has no agreed meaning: the ONNX
  // reference (numpy) and ONNX Runtime give different results, neither of
  // them periodic.
  if (auto xt = rankedOf(*x);
      modeName == "wrap" && xt && (int64_t)pads.size() == 2 * xt.getRank()) {
    int64_t rank = xt.getRank();
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = xt.getDimSize(i);
      if (ShapedType::isDynamic(d))
        continue;
      int64_t kept = graph::padKeptSize(d, pads[i], pads[i + rank]);
      if (std::max(pads[i], pads[i + rank]) > kept) {
        unsupported(n) << ": mode 'wrap' with a pad wider than dimension " << i
                       << " (" << kept << " after crops)";
        return failure();
      }
    }
  }
  return one(build(n, "graph.pad", {*x, value},
                   {named("pads", i64s(pads)),
                    named("mode", builder.getStringAttr(modeName))}));
}

FailureOr<Value> NodeImporter::reshapeTo(NodeCtx &n, Value x,
                                         ArrayRef<int64_t> shape) {
  return build(n, "graph.reshape", {x, constI64(n, shape)},
               {named("allowzero", boolean(true))});
}

FailureOr<SmallVector<Value>> NodeImporter::split(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto axisAttr = intAttr(n, "axis", 0);
  if (failed(x) || failed(axisAttr))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt) {
    error(n) << "split needs an input of known rank";
    return failure();
  }
  int64_t axis = *axisAttr < 0 ? *axisAttr + xt.getRank() : *axisAttr;
  if (axis < 0 || axis >= xt.getRank() || xt.isDynamicDim(axis)) {
    error(n) << "split axis " << *axisAttr << " is invalid or dynamic";
    return failure();
  }
  int64_t dim = xt.getDimSize(axis);
  SmallVector<int64_t> parts;
  if (n.opset() < 13) {
    auto sp = intsAttr(n, "split");
    if (failed(sp))
      return failure();
    if (*sp)
      parts = **sp;
    else if (Value s = n.in(1)) {
      if (failed(graph::getConstantInts(s, parts))) {
        unsupported(n) << ": 'split' is not a constant";
        return failure();
      }
    }
  } else if (Value s = n.in(1); s && !isEmptyTensorValue(s)) {
    if (failed(graph::getConstantInts(s, parts))) {
      unsupported(n) << ": 'split' is not a constant";
      return failure();
    }
  }
  int64_t count = n.node.outputs.size();
  if (parts.empty() && n.opset() >= 18) {
    // Opset 18: `num_outputs` parts of ceil(dim / num_outputs), the last one
    // smaller when the dimension does not divide.
    auto numOutputs = optIntAttr(n, "num_outputs");
    if (failed(numOutputs))
      return failure();
    if (*numOutputs && **numOutputs != count) {
      error(n) << "attribute 'num_outputs' is " << **numOutputs
               << " but the node has " << count << " outputs";
      return failure();
    }
    int64_t chunk = count > 0 ? (dim + count - 1) / count : 0;
    if (count == 0 || dim - chunk * (count - 1) <= 0) {
      error(n) << "cannot split dimension of size " << dim << " into " << count
               << " parts of " << chunk << " (the last one smaller)";
      return failure();
    }
    parts.assign(count, chunk);
    parts.back() = dim - chunk * (count - 1);
  }
  if (parts.empty()) {
    if (count == 0 || dim % count != 0) {
      error(n) << "cannot split dimension of size " << dim << " into "
               << count << " equal parts";
      return failure();
    }
    parts.assign(count, dim / count);
  }
  int64_t total = 0;
  for (int64_t p : parts)
    total += p;
  if (total != dim || (int64_t)parts.size() != count) {
    error(n) << "split sizes do not add up to " << dim << " or do not match "
             << count << " outputs";
    return failure();
  }
  SmallVector<Value> results;
  int64_t start = 0;
  for (int64_t p : parts) {
    auto r = build(n, "graph.slice",
                   {*x, constI64(n, {start}), constI64(n, {start + p}),
                    constI64(n, {axis}), constI64(n, {1})});
    if (failed(r))
      return failure();
    results.push_back(*r);
    start += p;
  }
  return results;
}

FailureOr<SmallVector<Value>> NodeImporter::range(NodeCtx &n) {
  auto start = requireInput(n, 0, "start");
  auto limit = requireInput(n, 1, "limit");
  auto delta = requireInput(n, 2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  SmallVector<double> s, l, d;
  if (failed(getConstantDoubles(*start, s)) ||
      failed(getConstantDoubles(*limit, l)) ||
      failed(getConstantDoubles(*delta, d)) || s.size() != 1 ||
      l.size() != 1 || d.size() != 1) {
    unsupported(n) << ": operands that are not scalar constants";
    return failure();
  }
  if (d[0] == 0) {
    error(n) << "delta must not be 0";
    return failure();
  }
  Type elem = elementTypeOf(*start);
  int64_t count =
      std::max<int64_t>(0, (int64_t)std::ceil((l[0] - s[0]) / d[0]));
  auto type = RankedTensorType::get({count}, elem);
  if (isa<FloatType>(elem)) {
    // Accumulate in the element type like the reference (start + i * delta).
    SmallVector<double> vals;
    for (int64_t i = 0; i < count; ++i)
      vals.push_back(s[0] + i * d[0]);
    return SmallVector<Value>{constant(n, tensorFromDoubles(type, vals))};
  }
  SmallVector<int64_t> vals;
  for (int64_t i = 0; i < count; ++i)
    vals.push_back((int64_t)s[0] + i * (int64_t)d[0]);
  return SmallVector<Value>{constant(n, tensorFromInts(type, vals, false))};
}

FailureOr<SmallVector<Value>> NodeImporter::cumSum(NodeCtx &n) {
  auto x = requireInput(n, 0, "x");
  auto a = requireInput(n, 1, "axis");
  auto exclusive = intAttr(n, "exclusive", 0);
  auto reverse = intAttr(n, "reverse", 0);
  if (failed(x) || failed(a) || failed(exclusive) || failed(reverse))
    return failure();
  SmallVector<int64_t> axis;
  auto xt = rankedOf(*x);
  if (xt && xt.getRank() == 1) {
    axis = {0}; // The only axis there is, whatever the input says.
  } else if (failed(graph::getConstantInts(*a, axis)) || axis.size() != 1) {
    unsupported(n) << ": 'axis' must be a constant scalar (it selects the "
                      "scanned dimension), not a value computed at run time";
    return failure();
  }
  return one(build(n, "graph.cumsum", {*x},
                   {named("axis", i64(axis[0])),
                    named("exclusive", boolean(*exclusive != 0)),
                    named("reverse", boolean(*reverse != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::gatherElements(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto idx = requireInput(n, 1, "indices");
  auto axis = intAttr(n, "axis", 0);
  if (failed(x) || failed(idx) || failed(axis))
    return failure();
  return one(build(n, "graph.gather_elements", {*x, *idx},
                   {named("axis", i64(*axis))}));
}

FailureOr<SmallVector<Value>> NodeImporter::gatherND(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto idx = requireInput(n, 1, "indices");
  auto b = intAttr(n, "batch_dims", 0);
  if (failed(x) || failed(idx) || failed(b))
    return failure();
  return one(build(n, "graph.gather_nd", {*x, *idx},
                   {named("batch_dims", i64(*b))}));
}

FailureOr<SmallVector<Value>> NodeImporter::trilu(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto upper = intAttr(n, "upper", 1);
  if (failed(x) || failed(upper))
    return failure();
  Value k = n.in(1);
  if (!k)
    k = constant(n, DenseElementsAttr::get(
                        RankedTensorType::get({}, builder.getIntegerType(64)),
                        ArrayRef<int64_t>{0}));
  return one(build(n, "graph.trilu", {*x, k},
                   {named("upper", boolean(*upper != 0))}));
}

FailureOr<SmallVector<Value>> NodeImporter::oneHot(NodeCtx &n) {
  auto idx = requireInput(n, 0, "indices");
  auto depth = requireInput(n, 1, "depth");
  auto values = requireInput(n, 2, "values");
  auto axis = intAttr(n, "axis", -1);
  if (failed(idx) || failed(depth) || failed(values) || failed(axis))
    return failure();
  SmallVector<double> dv;
  if (failed(getConstantDoubles(*depth, dv)) || dv.size() != 1) {
    unsupported(n) << ": 'depth' is not a constant scalar";
    return failure();
  }
  return one(build(n, "graph.one_hot", {*idx, *values},
                   {named("depth", i64((int64_t)dv[0])),
                    named("axis", i64(*axis))}));
}

FailureOr<SmallVector<Value>> NodeImporter::depthToSpace(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto bs = intAttr(n, "blocksize", 0);
  auto mode = stringAttr(n, "mode");
  if (failed(x) || failed(bs) || failed(mode))
    return failure();
  auto xt = rankedOf(*x);
  int64_t b = *bs;
  if (!xt || xt.getRank() != 4 || !xt.hasStaticShape() || b <= 0 ||
      xt.getDimSize(1) % (b * b) != 0) {
    error(n) << "needs a static 4-D input whose channels divide by "
                "blocksize^2";
    return failure();
  }
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3), c = C / (b * b);
  bool crd = mode->value_or("DCR") == "CRD";
  auto r = reshapeTo(n, *x,
                     crd ? SmallVector<int64_t>{N, c, b, b, H, W}
                         : SmallVector<int64_t>{N, b, b, c, H, W});
  if (failed(r))
    return failure();
  auto t = build(n, "graph.transpose", {*r},
                 {named("perm", i64s(crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                         : SmallVector<int64_t>{0, 3, 4, 1, 5, 2}))});
  if (failed(t))
    return failure();
  return one(reshapeTo(n, *t, {N, c, H * b, W * b}));
}

FailureOr<SmallVector<Value>> NodeImporter::spaceToDepth(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto bs = intAttr(n, "blocksize", 0);
  if (failed(x) || failed(bs))
    return failure();
  auto xt = rankedOf(*x);
  int64_t b = *bs;
  if (!xt || xt.getRank() != 4 || !xt.hasStaticShape() || b <= 0 ||
      xt.getDimSize(2) % b != 0 || xt.getDimSize(3) % b != 0) {
    error(n) << "needs a static 4-D input whose spatial sizes divide by "
                "blocksize";
    return failure();
  }
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3);
  auto r = reshapeTo(n, *x, {N, C, H / b, b, W / b, b});
  if (failed(r))
    return failure();
  auto t = build(n, "graph.transpose", {*r},
                 {named("perm", i64s({0, 3, 5, 1, 2, 4}))});
  if (failed(t))
    return failure();
  return one(reshapeTo(n, *t, {N, C * b * b, H / b, W / b}));
}

FailureOr<SmallVector<Value>> NodeImporter::layerNorm(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto scale = requireInput(n, 1, "Scale");
  auto axisAttr = intAttr(n, "axis", -1);
  auto eps = floatAttr(n, "epsilon", 1e-5);
  if (failed(x) || failed(scale) || failed(axisAttr) || failed(eps))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt) {
    error(n) << "needs an input of known rank";
    return failure();
  }
  int64_t rank = xt.getRank();
  int64_t axis = *axisAttr < 0 ? *axisAttr + rank : *axisAttr;
  if (axis < 0 || axis >= rank) {
    error(n) << "axis " << *axisAttr << " is out of range";
    return failure();
  }
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  auto c = centered(n, *x, axes);
  if (failed(c))
    return failure();
  Value d = c->first, mean = c->second;
  auto sd = deviation(n, d, axes, *eps);
  if (failed(sd))
    return failure();
  auto inv = build(n, "graph.reciprocal", {*sd});
  if (failed(inv))
    return failure();
  auto norm = build(n, "graph.mul", {d, *inv});
  if (failed(norm))
    return failure();
  auto y = build(n, "graph.mul", {*norm, *scale});
  if (failed(y))
    return failure();
  if (Value b = n.in(2)) {
    y = build(n, "graph.add", {*y, b});
    if (failed(y))
      return failure();
  }
  return SmallVector<Value>{*y, mean, *inv};
}

FailureOr<SmallVector<Value>> NodeImporter::instanceNorm(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto scale = requireInput(n, 1, "scale");
  auto bias = requireInput(n, 2, "B");
  auto eps = floatAttr(n, "epsilon", 1e-5);
  if (failed(x) || failed(scale) || failed(bias) || failed(eps))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 3 || xt.isDynamicDim(1)) {
    error(n) << "needs an input of rank >= 3 with known channels";
    return failure();
  }
  int64_t rank = xt.getRank();
  SmallVector<int64_t> axes, pshape{xt.getDimSize(1)};
  for (int64_t i = 2; i < rank; ++i) {
    axes.push_back(i);
    pshape.push_back(1);
  }
  auto c = centered(n, *x, axes);
  if (failed(c))
    return failure();
  auto norm = standardized(n, c->first, axes, *eps);
  if (failed(norm))
    return failure();
  return one(scaleShift(n, *norm, *scale, *bias, pshape));
}

/// GroupNormalization: the channels in `num_groups` groups, each normalized
/// over its channels and the spatial dims together (x reshaped to [N, G,
/// C / G * spatial], centered as the other normalizations), then scaled and
/// shifted: per group in opset 18 (scale and bias of [G]), per channel from
/// opset 21 ([C]).
FailureOr<SmallVector<Value>> NodeImporter::groupNorm(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto scale = requireInput(n, 1, "scale");
  auto bias = requireInput(n, 2, "bias");
  auto groups = optIntAttr(n, "num_groups");
  auto eps = floatAttr(n, "epsilon", 1e-5);
  if (failed(x) || failed(scale) || failed(bias) || failed(groups) ||
      failed(eps))
    return failure();
  if (!*groups) {
    error(n) << "missing attribute 'num_groups'";
    return failure();
  }
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 2 || !xt.hasStaticShape()) {
    error(n) << "needs an input of rank >= 2 with a static shape";
    return failure();
  }
  int64_t g = **groups, rank = xt.getRank(), batch = xt.getDimSize(0),
          c = xt.getDimSize(1), spatial = 1;
  for (int64_t i = 2; i < rank; ++i)
    spatial *= xt.getDimSize(i);
  if (g <= 0 || c % g != 0) {
    error(n) << "attribute 'num_groups' (" << g
             << ") must divide the channels (" << c << ")";
    return failure();
  }
  bool perChannel = n.opset() >= 21;
  int64_t affine = perChannel ? c : g;
  for (auto [name, v] :
       {std::pair("scale", *scale), std::pair("bias", *bias)}) {
    auto t = rankedOf(v);
    if (!t || !t.hasStaticShape() || t.getNumElements() != affine) {
      error(n) << "input '" << name << "' must have " << affine
               << " elements (one per " << (perChannel ? "channel" : "group")
               << " in opset " << n.opset() << ")";
      return failure();
    }
  }
  auto xr = reshapeTo(n, *x, {batch, g, c / g * spatial});
  if (failed(xr))
    return failure();
  auto cen = centered(n, *xr, {2});
  if (failed(cen))
    return failure();
  auto norm = standardized(n, cen->first, {2}, *eps);
  if (failed(norm))
    return failure();
  SmallVector<int64_t> pshape{affine};
  if (perChannel) {
    norm = reshapeTo(n, *norm, xt.getShape());
    pshape.append(rank - 2, 1);
  } else {
    pshape.push_back(1);
  }
  if (failed(norm))
    return failure();
  auto y = scaleShift(n, *norm, *scale, *bias, pshape);
  if (failed(y))
    return failure();
  if (!perChannel)
    return one(reshapeTo(n, *y, xt.getShape()));
  return SmallVector<Value>{*y};
}

FailureOr<SmallVector<Value>> NodeImporter::meanVarianceNorm(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto axesAttr = intsAttr(n, "axes");
  if (failed(x) || failed(axesAttr))
    return failure();
  SmallVector<int64_t> axes =
      axesAttr->value_or(SmallVector<int64_t>{0, 2, 3});
  auto xt = rankedOf(*x);
  if (xt)
    for (int64_t &a : axes)
      if (a < 0)
        a += xt.getRank();
  // ONNX's function body takes the variance as E[x^2] - E[x]^2, which in
  // float32 cancels (and goes negative, a NaN deviation) when the mean is
  // large against the spread; E[(x - E[x])^2] is the same quantity.
  auto c = centered(n, *x, axes);
  if (failed(c))
    return failure();
  Value d = c->first;
  auto sd = deviation(n, d, axes, 0.0);
  if (failed(sd))
    return failure();
  auto den = build(n, "graph.add", {*sd, constant(n, scalarOf(elementTypeOf(*x), 1e-9))});
  if (failed(den))
    return failure();
  return one(build(n, "graph.div", {d, *den}));
}

FailureOr<SmallVector<Value>> NodeImporter::globalMaxPool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 3) {
    error(n) << "needs an input of rank >= 3";
    return failure();
  }
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < xt.getRank(); ++i)
    axes.push_back(i);
  return one(reduceOp(n, "graph.reduce_max", *x, axes, true));
}

FailureOr<SmallVector<Value>> NodeImporter::lrn(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto alpha = floatAttr(n, "alpha", 1e-4);
  auto beta = floatAttr(n, "beta", 0.75);
  auto bias = floatAttr(n, "bias", 1.0);
  auto size = intAttr(n, "size", 0);
  if (failed(x) || failed(alpha) || failed(beta) || failed(bias) ||
      failed(size))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 3 || !xt.hasStaticShape() || *size <= 0) {
    error(n) << "needs a static input of rank >= 3 and a positive size";
    return failure();
  }
  // The channel window sum as an average pool over [N, 1, C, rest] with
  // padding counted (sum / size).
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1);
  int64_t rest = xt.getNumElements() / std::max<int64_t>(1, N * C);
  auto sq = build(n, "graph.mul", {*x, *x});
  if (failed(sq))
    return failure();
  auto r = reshapeTo(n, *sq, {N, 1, C, rest});
  if (failed(r))
    return failure();
  int64_t lo = (*size - 1) / 2, hi = *size - 1 - lo;
  auto avg = build(n, "graph.average_pool", {*r},
                   {named("kernel_shape", i64s({*size, 1})),
                    named("strides", i64s({1, 1})),
                    named("pads", i64s({lo, 0, hi, 0})),
                    named("dilations", i64s({1, 1})),
                    named("ceil_mode", boolean(false)),
                    named("count_include_pad", boolean(true))});
  if (failed(avg))
    return failure();
  auto back = reshapeTo(n, *avg, xt.getShape());
  if (failed(back))
    return failure();
  Type elem = elementTypeOf(*x);
  auto scaled = build(n, "graph.mul", {*back, constant(n, scalarOf(elem, *alpha))});
  if (failed(scaled))
    return failure();
  auto based = build(n, "graph.add", {*scaled, constant(n, scalarOf(elem, *bias))});
  if (failed(based))
    return failure();
  auto powed = build(n, "graph.pow", {*based, constant(n, scalarOf(elem, *beta))});
  if (failed(powed))
    return failure();
  return one(build(n, "graph.div", {*x, *powed}));
}

FailureOr<SmallVector<Value>> NodeImporter::topK(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto axis = intAttr(n, "axis", -1);
  auto largest = intAttr(n, "largest", 1);
  // `sorted` = 0 leaves the order open: the sorted order is one answer.
  auto sorted = intAttr(n, "sorted", 1);
  if (failed(x) || failed(axis) || failed(largest) || failed(sorted))
    return failure();
  int64_t k;
  if (n.opset() < 10) {
    auto kv = intAttr(n, "k", -1);
    if (failed(kv))
      return failure();
    k = *kv;
  } else {
    auto kIn = requireInput(n, 1, "K");
    if (failed(kIn))
      return failure();
    SmallVector<int64_t> v;
    if (failed(graph::getConstantInts(*kIn, v)) || v.size() != 1) {
      unsupported(n) << ": 'K' is not a constant";
      return failure();
    }
    k = v[0];
  }
  auto r = graph::createInferred(builder, n.loc, "graph.top_k", {*x},
                                 {named("k", i64(k)), named("axis", i64(*axis)),
                                  named("largest", boolean(*largest != 0))});
  if (failed(r))
    return failure();
  return *r;
}

FailureOr<SmallVector<Value>> NodeImporter::scatterElements(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto idx = requireInput(n, 1, "indices");
  auto upd = requireInput(n, 2, "updates");
  auto axis = intAttr(n, "axis", 0);
  auto red = stringAttr(n, "reduction");
  if (failed(x) || failed(idx) || failed(upd) || failed(axis) || failed(red))
    return failure();
  return one(build(n, "graph.scatter_elements", {*x, *idx, *upd},
                   {named("axis", i64(*axis)),
                    named("reduction",
                          builder.getStringAttr(red->value_or("none")))}));
}

FailureOr<SmallVector<Value>> NodeImporter::scatterND(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  auto idx = requireInput(n, 1, "indices");
  auto upd = requireInput(n, 2, "updates");
  auto red = stringAttr(n, "reduction");
  if (failed(x) || failed(idx) || failed(upd) || failed(red))
    return failure();
  return one(build(n, "graph.scatter_nd", {*x, *idx, *upd},
                   {named("reduction",
                          builder.getStringAttr(red->value_or("none")))}));
}

/// Einsum on one or two operands. An ellipsis stands for dimensions named by
/// characters the equation does not use (right-aligned across operands); a
/// letter repeated within one operand takes the diagonal (a multiply by an
/// identity mask, then a sum). Then letters only one side needs are summed
/// first, then a batched matmul over [batch, free, contracted] layouts
/// (transposes and reshapes around it), then the output order.
FailureOr<SmallVector<Value>> NodeImporter::einsum(NodeCtx &n) {
  auto eq = stringAttr(n, "equation");
  if (failed(eq))
    return failure();
  if (!*eq) {
    error(n) << "missing attribute 'equation'";
    return failure();
  }
  std::string e;
  for (char c : **eq)
    if (c != ' ')
      e += c;
  size_t arrow = e.find("->");
  std::string lhs = e.substr(0, arrow);
  SmallVector<std::string> terms;
  for (StringRef t : llvm::split(StringRef(lhs), ','))
    terms.push_back(t.str());
  SmallVector<Value> ins;
  for (Value v : n.allIns())
    if (v)
      ins.push_back(v);
  auto unsupportedEq = [&](StringRef why) {
    unsupported(n) << ": equation '" << **eq << "' (" << why << ")";
    return failure();
  };
  if (terms.size() != ins.size() || terms.empty() || terms.size() > 2)
    return unsupportedEq("one or two operands are supported");
  for (Value v : ins)
    if (!rankedOf(v) || !rankedOf(v).hasStaticShape())
      return unsupportedEq("operand shape is not static");
  std::string out;
  bool explicitOut = arrow != std::string::npos;
  if (explicitOut)
    out = e.substr(arrow + 2);
  // Ellipses: name their dimensions by characters the equation lacks.
  std::string ell;
  if (e.find('.') != std::string::npos) {
    // Whether the dots of `t` form one ellipsis.
    auto wellFormed = [](const std::string &t) {
      return llvm::count(t, '.') == 3 && t.find("...") != std::string::npos;
    };
    SmallVector<int64_t> counts;
    int64_t most = 0;
    for (auto [t, v] : llvm::zip(terms, ins)) {
      int64_t k = 0;
      if (t.find('.') != std::string::npos) {
        if (!wellFormed(t))
          return unsupportedEq("malformed ellipsis");
        k = rankedOf(v).getRank() - (int64_t)(t.size() - 3);
        if (k < 0)
          return unsupportedEq("operand rank does not match");
      }
      counts.push_back(k);
      most = std::max(most, k);
    }
    for (char c = 'A'; (int64_t)ell.size() < most && c <= 'z'; ++c)
      if (std::isalpha((unsigned char)c) && e.find(c) == std::string::npos)
        ell += c;
    if ((int64_t)ell.size() < most)
      return unsupportedEq("too many ellipsis dimensions");
    for (auto [t, k] : llvm::zip(terms, counts))
      if (size_t p = t.find("..."); p != std::string::npos)
        t.replace(p, 3, ell.substr(most - k));
    if (explicitOut && out.find('.') != std::string::npos) {
      if (!wellFormed(out))
        return unsupportedEq("malformed ellipsis");
      out.replace(out.find("..."), 3, ell);
    }
  }
  if (!explicitOut) {
    // Implicit output: the ellipsis, then the letters used once, sorted.
    std::map<char, int> count;
    for (const std::string &t : terms)
      for (char c : t)
        ++count[c];
    out = ell;
    for (auto [c, k] : count)
      if (k == 1 && ell.find(c) == std::string::npos)
        out += c;
  }
  for (auto [t, v] : llvm::zip(terms, ins))
    if ((int64_t)t.size() != rankedOf(v).getRank())
      return unsupportedEq("operand rank does not match");
  // A letter repeated within one operand: its diagonal.
  for (auto [t, v] : llvm::zip(terms, ins)) {
    for (;;) {
      size_t p = 0, q = std::string::npos;
      for (; p < t.size() && q == std::string::npos; ++p)
        q = t.find(t[p], p + 1);
      if (q == std::string::npos)
        break;
      --p;
      auto vt = rankedOf(v);
      int64_t d = vt.getDimSize(p);
      if (vt.getDimSize(q) != d)
        return unsupportedEq("a repeated letter with different sizes");
      SmallVector<int64_t> maskShape(vt.getRank(), 1);
      maskShape[p] = maskShape[q] = d;
      SmallVector<double> eye(d * d, 0.0);
      for (int64_t i = 0; i < d; ++i)
        eye[i * d + i] = 1.0;
      Value mask = constant(
          n, tensorFromDoubles(
                 RankedTensorType::get(maskShape, vt.getElementType()), eye));
      auto masked = build(n, "graph.mul", {v, mask});
      if (failed(masked))
        return failure();
      auto r = reduceOp(n, "graph.reduce_sum", *masked, {(int64_t)q}, false);
      if (failed(r))
        return failure();
      v = *r;
      t.erase(q, 1);
    }
  }
  std::map<char, int64_t> size;
  for (auto [t, v] : llvm::zip(terms, ins))
    for (auto [i, c] : llvm::enumerate(t)) {
      int64_t d = rankedOf(v).getDimSize(i);
      if (size.count(c) && size[c] != d)
        return unsupportedEq("a letter with different sizes (broadcasting)");
      size[c] = d;
    }
  for (char c : out)
    if (!size.count(c))
      return unsupportedEq("an output letter no operand has");
  // Sums away the letters of `t` that `keep` does not contain.
  auto sumAway = [&](Value v, std::string &t,
                     const std::string &keep) -> FailureOr<Value> {
    SmallVector<int64_t> axes;
    std::string rest;
    for (auto [i, c] : llvm::enumerate(t)) {
      if (keep.find(c) == std::string::npos)
        axes.push_back(i);
      else
        rest += c;
    }
    if (axes.empty())
      return v;
    t = rest;
    return reduceOp(n, "graph.reduce_sum", v, axes, false);
  };
  // Transposes `v` (letters `t`) into the letter order `order`.
  auto permute = [&](Value v, const std::string &t,
                     const std::string &order) -> FailureOr<Value> {
    SmallVector<int64_t> perm;
    bool id = true;
    for (auto [i, c] : llvm::enumerate(order)) {
      perm.push_back(t.find(c));
      id &= perm.back() == (int64_t)i;
    }
    if (id)
      return v;
    return build(n, "graph.transpose", {v}, {named("perm", i64s(perm))});
  };
  auto prod = [&](const std::string &letters) {
    int64_t p = 1;
    for (char c : letters)
      p *= size[c];
    return p;
  };
  if (ins.size() == 1) {
    std::string t = terms[0];
    auto r = sumAway(ins[0], t, out);
    if (failed(r))
      return failure();
    return one(permute(*r, t, out));
  }
  std::string a = terms[0], b = terms[1];
  auto ra = sumAway(ins[0], a, out + b);
  auto rb = sumAway(ins[1], b, out + a);
  if (failed(ra) || failed(rb))
    return failure();
  std::string batch, contract, freeA, freeB;
  for (char c : a) {
    bool inB = b.find(c) != std::string::npos,
         inOut = out.find(c) != std::string::npos;
    if (inB && inOut)
      batch += c;
    else if (inB)
      contract += c;
    else
      freeA += c;
  }
  for (char c : b)
    if (a.find(c) == std::string::npos)
      freeB += c;
  auto pa = permute(*ra, a, batch + freeA + contract);
  auto pb = permute(*rb, b, batch + contract + freeB);
  if (failed(pa) || failed(pb))
    return failure();
  int64_t nb = prod(batch), m = prod(freeA), k = prod(contract),
          nn = prod(freeB);
  auto a3 = reshapeTo(n, *pa, {nb, m, k});
  auto b3 = reshapeTo(n, *pb, {nb, k, nn});
  if (failed(a3) || failed(b3))
    return failure();
  auto mm = build(n, "graph.matmul", {*a3, *b3});
  if (failed(mm))
    return failure();
  std::string have = batch + freeA + freeB;
  SmallVector<int64_t> shape;
  for (char c : have)
    shape.push_back(size[c]);
  auto r = reshapeTo(n, *mm, shape);
  if (failed(r))
    return failure();
  return one(permute(*r, have, out));
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

LogicalResult tfrt::frontend::importGraph(ModuleOp module,
                                          const GraphDesc &graph,
                                          const ImportOptions &options) {
  NodeImporter importer(module, options);
  return importer.run(graph);
}
