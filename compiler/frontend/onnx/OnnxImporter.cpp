//===- OnnxImporter.cpp - ONNX protobuf models into the graph dialect -----===//
//
// Parses the ModelProto, runs ONNX's checker and shape inference (through
// OnnxChecker.cpp, the only place exceptions are allowed), converts tensors
// into DenseElementsAttrs and the graph into a GraphDesc for NodeImporter.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"

#include "compiler/frontend/common/NodeImporter.h"
#include "compiler/frontend/onnx/OnnxChecker.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;

namespace {

/// Converts a TensorProto into a dense attribute; `error` says why not.
FailureOr<DenseElementsAttr> convertTensor(MLIRContext *ctx,
                                           const onnx::TensorProto &t,
                                           std::string &error) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL ||
      t.external_data_size() > 0) {
    error = "external data is not supported";
    return failure();
  }
  Type elem = onnxElementType(ctx, t.data_type());
  if (!elem) {
    error = "element type " + onnxDataTypeName(t.data_type()) +
            " is not supported";
    return failure();
  }
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      error = "negative dimension " + std::to_string(d);
      return failure();
    }
    if (d && count > (int64_t(1) << 40) / d) {
      error = "too many elements";
      return failure();
    }
    count *= d;
    dims.push_back(d);
  }
  auto type = RankedTensorType::get(dims, elem);
  int64_t n = type.getNumElements();
  if (t.has_raw_data())
    return tensorFromRaw(type, ArrayRef<char>(t.raw_data().data(),
                                               t.raw_data().size()),
                         error);

  auto countError = [&](int64_t got, const char *field) {
    error = std::string(field) + " has " + std::to_string(got) +
            " values; the shape needs " + std::to_string(n);
    return failure();
  };
  switch (t.data_type()) {
  case kOnnxFloat: {
    if (t.float_data_size() != n)
      return countError(t.float_data_size(), "float_data");
    SmallVector<double> v(t.float_data().begin(), t.float_data().end());
    return tensorFromDoubles(type, v);
  }
  case kOnnxDouble: {
    if (t.double_data_size() != n)
      return countError(t.double_data_size(), "double_data");
    SmallVector<double> v(t.double_data().begin(), t.double_data().end());
    return tensorFromDoubles(type, v);
  }
  case kOnnxInt64: {
    if (t.int64_data_size() != n)
      return countError(t.int64_data_size(), "int64_data");
    SmallVector<int64_t> v(t.int64_data().begin(), t.int64_data().end());
    return tensorFromInts(type, v, false);
  }
  case kOnnxUint32:
  case kOnnxUint64: {
    if (t.uint64_data_size() != n)
      return countError(t.uint64_data_size(), "uint64_data");
    SmallVector<int64_t> v;
    for (uint64_t x : t.uint64_data())
      v.push_back((int64_t)x);
    return tensorFromInts(type, v, false);
  }
  default: {
    // int32_data holds INT32 values and the bit patterns of the narrower
    // types (INT8/16, UINT8/16, BOOL, FLOAT16, BFLOAT16).
    if (t.int32_data_size() != n)
      return countError(t.int32_data_size(), "int32_data");
    SmallVector<int64_t> v(t.int32_data().begin(), t.int32_data().end());
    if (elem.isUnsignedInteger())
      for (int64_t &x : v)
        x = (int64_t)(uint32_t)x;
    return tensorFromInts(type, v, /*floatBits=*/true);
  }
  }
}

NodeDesc convertNode(MLIRContext *ctx, const onnx::ModelProto &model,
                     int64_t opset, const onnx::NodeProto &np);

/// A subgraph attribute (If's branches, Loop's and Scan's body): its
/// inputs are names (the node binds them), its values may be sequences.
std::shared_ptr<GraphDesc> convertSubgraph(MLIRContext *ctx,
                                           const onnx::ModelProto &model,
                                           int64_t opset,
                                           const onnx::GraphProto &g,
                                           std::string &error) {
  auto desc = std::make_shared<GraphDesc>();
  for (const onnx::TensorProto &t : g.initializer()) {
    auto value = convertTensor(ctx, t, error);
    if (failed(value)) {
      error = "initializer '" + t.name() + "': " + error;
      return nullptr;
    }
    desc->initializers.emplace_back(t.name(), cast<ElementsAttr>(*value));
  }
  if (g.sparse_initializer_size()) {
    error = "sparse initializers are not supported";
    return nullptr;
  }
  for (const onnx::ValueInfoProto &vi : g.input()) {
    InputDesc in;
    in.name = vi.name();
    if (vi.type().has_tensor_type())
      in.elementType = onnxElementType(ctx, vi.type().tensor_type().elem_type());
    desc->inputs.push_back(std::move(in));
  }
  for (const onnx::ValueInfoProto &vi : g.output())
    desc->outputs.push_back(vi.name());
  for (const onnx::NodeProto &np : g.node())
    desc->nodes.push_back(convertNode(ctx, model, opset, np));
  return desc;
}

AttrValue convertAttribute(MLIRContext *ctx, const onnx::ModelProto &model,
                           int64_t opset, const onnx::AttributeProto &a) {
  using A = onnx::AttributeProto;
  int type = a.type();
  if (type == A::UNDEFINED) {
    // Old models leave the type out: go by the field that is set.
    if (a.has_f()) type = A::FLOAT;
    else if (a.has_i()) type = A::INT;
    else if (a.has_s()) type = A::STRING;
    else if (a.has_t()) type = A::TENSOR;
    else if (a.has_g()) type = A::GRAPH;
    else if (a.floats_size()) type = A::FLOATS;
    else if (a.ints_size()) type = A::INTS;
    else if (a.strings_size()) type = A::STRINGS;
  }
  switch (type) {
  case A::FLOAT:
    return (double)a.f();
  case A::INT:
    return (int64_t)a.i();
  case A::STRING:
    return a.s();
  case A::FLOATS:
    return SmallVector<double>(a.floats().begin(), a.floats().end());
  case A::INTS:
    return SmallVector<int64_t>(a.ints().begin(), a.ints().end());
  case A::STRINGS:
    return std::vector<std::string>(a.strings().begin(), a.strings().end());
  case A::TENSOR: {
    std::string error;
    auto t = convertTensor(ctx, a.t(), error);
    if (failed(t))
      return UnsupportedAttr{"tensor attribute '" + a.name() + "': " + error};
    return cast<ElementsAttr>(*t);
  }
  case A::SPARSE_TENSOR:
    return UnsupportedAttr{"sparse tensor attribute '" + a.name() + "'"};
  case A::GRAPH: {
    std::string error;
    auto g = convertSubgraph(ctx, model, opset, a.g(), error);
    if (!g)
      return UnsupportedAttr{"subgraph attribute '" + a.name() + "': " +
                             error};
    return SubgraphAttr{std::move(g)};
  }
  case A::GRAPHS:
    return UnsupportedAttr{"subgraph list attribute '" + a.name() + "'"};
  default:
    return UnsupportedAttr{"attribute '" + a.name() + "' of kind " +
                           std::to_string(type)};
  }
}

NodeDesc convertNode(MLIRContext *ctx, const onnx::ModelProto &model,
                     int64_t opset, const onnx::NodeProto &np) {
  NodeDesc node;
  node.name = np.name();
  node.opType = np.op_type();
  node.domain = np.domain();
  node.opsetVersion = opset;
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    node.opsetVersion = 1;
    for (const auto &oi : model.opset_import())
      if (oi.domain() == node.domain)
        node.opsetVersion = oi.version();
  }
  node.inputs.assign(np.input().begin(), np.input().end());
  node.outputs.assign(np.output().begin(), np.output().end());
  for (const onnx::AttributeProto &a : np.attribute())
    node.attributes.emplace_back(a.name(),
                                 convertAttribute(ctx, model, opset, a));
  return node;
}

/// "sequence", "optional", ...: the kind of a graph input/output that is
/// not a tensor.
std::string kindOf(const onnx::TypeProto &t) {
  switch (t.value_case()) {
  case onnx::TypeProto::kSequenceType: return "sequence";
  case onnx::TypeProto::kOptionalType: return "optional";
  case onnx::TypeProto::kMapType: return "map";
  case onnx::TypeProto::kSparseTensorType: return "sparse tensor";
  default: return "unknown";
  }
}

/// libonnx's messages span lines ("...\n\n==> Context: ..."): one line.
std::string oneLine(const std::string &msg) {
  std::string out;
  bool space = false;
  for (char c : msg) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
tfrt::frontend::importOnnxFile(MLIRContext *ctx, const ImportOptions &options) {
  Location loc = fileLoc(ctx, options.fileName);
  auto buffer = llvm::MemoryBuffer::getFile(options.fileName, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the model: "
                          << buffer.getError().message(),
           failure();
  onnx::ModelProto model;
  if ((*buffer)->getBufferSize() > (size_t)INT32_MAX ||
      !model.ParseFromArray((*buffer)->getBufferStart(),
                            (int)(*buffer)->getBufferSize()))
    return emitError(loc) << "not a valid ONNX model (the protobuf cannot be "
                             "parsed)",
           failure();

  int64_t opset = -1;
  for (const auto &oi : model.opset_import())
    if (oi.domain().empty() || oi.domain() == "ai.onnx")
      opset = oi.version();
  if (opset < 0) {
    // IR version < 3 has no opset imports: the first opset. A model of
    // other domains only (e.g. ai.onnx.preview.training) needs none.
    bool usesDefault = llvm::any_of(
        model.graph().node(), [](const onnx::NodeProto &np) {
          return np.domain().empty() || np.domain() == "ai.onnx";
        });
    if (model.opset_import_size() == 0 || !usesDefault)
      opset = 1;
    else
      return emitError(loc) << "the model imports no opset of the default "
                               "ONNX domain",
             failure();
  }

  // External data is not supported; say so before the checker looks for
  // the files (relative to the working directory, not the model).
  bool external = false;
  for (const onnx::TensorProto &t : model.graph().initializer())
    if (t.data_location() == onnx::TensorProto::EXTERNAL ||
        t.external_data_size() > 0) {
      emitError(loc) << "initializer '" << t.name()
                     << "': external data is not supported";
      external = true;
    }
  if (external)
    return failure();

  int64_t newest = newestKnownOnnxOpset();
  if (opset > newest) {
    emitWarning(loc) << "the model uses opset " << opset
                     << ", newer than the ONNX checker knows (" << newest
                     << "); skipping the checker";
  } else if (model.ir_version() > onnx::IR_VERSION) {
    emitWarning(loc) << "the model has IR version " << model.ir_version()
                     << ", newer than the ONNX checker knows ("
                     << (int)onnx::IR_VERSION << "); skipping the checker";
  } else {
    // This libonnx's checker insists on a shape in every graph input/output
    // type, which ONNX makes optional (unknown rank): give the ones without
    // an empty shape while checking, then take it away again.
    SmallVector<onnx::TypeProto_Tensor *> noShape;
    onnx::GraphProto *g = model.mutable_graph();
    for (auto *list : {g->mutable_input(), g->mutable_output(),
                       g->mutable_value_info()})
      for (onnx::ValueInfoProto &vi : *list)
        if (vi.type().has_tensor_type() &&
            !vi.type().tensor_type().has_shape()) {
          noShape.push_back(vi.mutable_type()->mutable_tensor_type());
          noShape.back()->mutable_shape();
        }
    std::string msg = oneLine(runOnnxChecker(model));
    for (onnx::TypeProto_Tensor *t : noShape)
      t->clear_shape();
    if (!msg.empty())
      return emitError(loc) << "ONNX checker: " << msg, failure();
    msg = oneLine(runOnnxShapeInference(model));
    if (!msg.empty())
      emitWarning(loc) << "ONNX shape inference: " << msg;
  }

  const onnx::GraphProto &graph = model.graph();
  GraphDesc desc;
  bool ok = true;
  llvm::StringSet<> initNames;
  for (const onnx::TensorProto &t : graph.initializer()) {
    std::string error;
    auto value = convertTensor(ctx, t, error);
    if (failed(value)) {
      emitError(loc) << "initializer '" << t.name() << "': " << error;
      ok = false;
      continue;
    }
    initNames.insert(t.name());
    desc.initializers.emplace_back(t.name(), cast<ElementsAttr>(*value));
  }
  if (graph.sparse_initializer_size()) {
    emitError(loc) << "sparse initializers are not supported";
    ok = false;
  }

  for (const onnx::ValueInfoProto &vi : graph.input()) {
    if (initNames.contains(vi.name()))
      continue;
    if (!vi.type().has_tensor_type()) {
      emitError(loc) << "input '" << vi.name() << "' has " << kindOf(vi.type())
                     << " type: " << kindOf(vi.type())
                     << "-typed graph inputs are not supported (the "
                        "compiled model passes tensors only)";
      ok = false;
      continue;
    }
    const auto &tt = vi.type().tensor_type();
    InputDesc in;
    in.name = vi.name();
    in.elementType = onnxElementType(ctx, tt.elem_type());
    if (!in.elementType) {
      emitError(loc) << "input '" << vi.name() << "' has element type "
                     << onnxDataTypeName(tt.elem_type())
                     << ", which is not supported";
      ok = false;
      continue;
    }
    in.ranked = tt.has_shape();
    for (const auto &d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() >= 0) {
        in.dims.push_back(d.dim_value());
        in.dimNames.push_back("");
      } else {
        in.dims.push_back(ShapedType::kDynamic);
        in.dimNames.push_back(d.has_dim_param() ? d.dim_param() : "?");
      }
    }
    desc.inputs.push_back(std::move(in));
  }
  for (const onnx::ValueInfoProto &vi : graph.output()) {
    if (vi.type().value_case() != onnx::TypeProto::VALUE_NOT_SET &&
        !vi.type().has_tensor_type()) {
      emitError(loc) << "output '" << vi.name() << "' has "
                     << kindOf(vi.type()) << " type: " << kindOf(vi.type())
                     << "-typed graph outputs are not supported (the "
                        "compiled model passes tensors only)";
      ok = false;
    }
    desc.outputs.push_back(vi.name());
  }

  for (const onnx::NodeProto &np : graph.node())
    desc.nodes.push_back(convertNode(ctx, model, opset, np));
  if (!ok)
    return failure();

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  if (!graph.name().empty())
    (*module)->setAttr("graph.model_name",
                       StringAttr::get(ctx, graph.name()));
  if (failed(importGraph(*module, desc, options)))
    return failure();
  return module;
}
