//===- JsonImporter.cpp - tfrt-graph JSON models into the graph dialect ---===//
//
// Reads the hand-writable JSON graph format (docs/json-format.md) into a
// GraphDesc for the shared NodeImporter. The project builds without C++
// exceptions, where nlohmann::json aborts instead of throwing: the document
// is parsed through the SAX interface (parse errors are recorded, not
// thrown) and read only through non-throwing accessors (find, is_*,
// get_ptr).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/json/JsonImporter.h"

#include "compiler/frontend/common/NodeImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using json = nlohmann::json;

namespace {

/// Builds the DOM like nlohmann's own parser but records the first parse
/// error (byte offset and message) instead of throwing.
class SaxBuilder {
public:
  explicit SaxBuilder(json &root) : dom(root, /*allow_exceptions=*/false) {}

  bool null() { return dom.null(); }
  bool boolean(bool v) { return dom.boolean(v); }
  bool number_integer(json::number_integer_t v) {
    return dom.number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return dom.number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const json::string_t &s) {
    return dom.number_float(v, s);
  }
  bool string(json::string_t &v) { return dom.string(v); }
  bool binary(json::binary_t &v) { return dom.binary(v); }
  bool start_object(std::size_t n) { return dom.start_object(n); }
  bool key(json::string_t &k) { return dom.key(k); }
  bool end_object() { return dom.end_object(); }
  bool start_array(std::size_t n) { return dom.start_array(n); }
  bool end_array() { return dom.end_array(); }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string &,
                   const Exception &ex) {
    failed = true;
    errorByte = position;
    errorMessage = ex.what();
    return false;
  }

  bool failed = false;
  std::size_t errorByte = 0;
  std::string errorMessage;

private:
  nlohmann::detail::json_sax_dom_parser<json> dom;
};

std::string shapeString(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? "," : "") + std::to_string(d);
  return s + "]";
}

const char *kindName(const json &j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a float";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "a list";
  if (j.is_object()) return "an object";
  return "a value";
}

std::optional<int64_t> asInt(const json &j) {
  if (auto *u = j.get_ptr<const json::number_unsigned_t *>())
    return *u > (uint64_t)std::numeric_limits<int64_t>::max()
               ? std::nullopt
               : std::optional<int64_t>((int64_t)*u);
  if (auto *i = j.get_ptr<const json::number_integer_t *>())
    return (int64_t)*i;
  return std::nullopt;
}

std::optional<double> asNumber(const json &j) {
  if (auto *f = j.get_ptr<const json::number_float_t *>())
    return (double)*f;
  if (auto *u = j.get_ptr<const json::number_unsigned_t *>())
    return (double)*u;
  if (auto *i = j.get_ptr<const json::number_integer_t *>())
    return (double)*i;
  // Non-finite values, which JSON numbers cannot spell.
  if (auto *s = j.get_ptr<const json::string_t *>()) {
    if (*s == "nan" || *s == "NaN")
      return std::numeric_limits<double>::quiet_NaN();
    if (*s == "inf" || *s == "+inf" || *s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (*s == "-inf" || *s == "-Infinity")
      return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

const json *field(const json &obj, const char *key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const std::string *asString(const json *j) {
  return j ? j->get_ptr<const json::string_t *>() : nullptr;
}

class JsonReader {
public:
  JsonReader(MLIRContext *ctx, const ImportOptions &options)
      : ctx(ctx), options(options), loc(fileLoc(ctx, options.fileName)) {}

  FailureOr<OwningOpRef<ModuleOp>> read();

private:
  InFlightDiagnostic err() {
    ok = false;
    return emitError(loc);
  }
  void checkFields(const json &obj, ArrayRef<const char *> known,
                   const std::string &where);
  FailureOr<RankedTensorType> tensorType(const json &obj,
                                         const std::string &where);
  FailureOr<DenseElementsAttr> tensor(const json &obj,
                                      const std::string &where);
  LogicalResult loadWeights();
  std::optional<AttrValue> attribute(const json &value,
                                     const std::string &where);
  void readInputs(const json &root, GraphDesc &desc);
  void readOutputs(const json &root, GraphDesc &desc);
  void readInitializers(const json &root, GraphDesc &desc);
  void readNodes(const json &root, int64_t opset, GraphDesc &desc);

  MLIRContext *ctx;
  const ImportOptions &options;
  Location loc;
  bool ok = true;
  std::string weightsFile; // as written in the model
  std::unique_ptr<llvm::MemoryBuffer> weights;
  bool weightsTried = false;
};

} // namespace

void JsonReader::checkFields(const json &obj, ArrayRef<const char *> known,
                             const std::string &where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool found = llvm::any_of(known, [&](const char *k) {
      return it.key() == k;
    });
    if (!found && it.key() != "doc" && it.key() != "comment" &&
        it.key() != "doc_string")
      emitWarning(loc) << where << ": unknown field '" << it.key()
                       << "' (ignored)";
  }
}

LogicalResult JsonReader::loadWeights() {
  if (weights)
    return success();
  if (weightsTried)
    return failure();
  weightsTried = true;
  llvm::SmallString<256> path;
  if (llvm::sys::path::is_absolute(weightsFile)) {
    path = weightsFile;
  } else {
    path = llvm::sys::path::parent_path(options.fileName);
    llvm::sys::path::append(path, weightsFile);
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    err() << "cannot read weights_file '" << weightsFile << "' ("
          << path << "): " << buffer.getError().message();
    return failure();
  }
  weights = std::move(*buffer);
  return success();
}

FailureOr<RankedTensorType> JsonReader::tensorType(const json &obj,
                                                   const std::string &where) {
  const std::string *dtype = asString(field(obj, "dtype"));
  if (!dtype) {
    err() << where << ": field 'dtype' must be a string (one of "
          << dtypeNames() << ")";
    return failure();
  }
  Type elem = dtypeElementType(ctx, *dtype);
  if (!elem) {
    err() << where << ": unknown dtype '" << *dtype << "' (expected one of "
          << dtypeNames() << ")";
    return failure();
  }
  const json *shape = field(obj, "shape");
  if (!shape || !shape->is_array()) {
    err() << where << ": field 'shape' must be a list of integers";
    return failure();
  }
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (const json &d : *shape) {
    std::optional<int64_t> v = asInt(d);
    if (!v || *v < 0) {
      err() << where << ": field 'shape' must be a list of non-negative "
            << "integers";
      return failure();
    }
    dims.push_back(*v);
    if (*v && count > (int64_t(1) << 40) / *v) {
      err() << where << ": shape " << shapeString(dims)
            << " has too many elements";
      return failure();
    }
    count *= *v;
  }
  return RankedTensorType::get(dims, elem);
}

FailureOr<DenseElementsAttr> JsonReader::tensor(const json &obj,
                                                const std::string &where) {
  auto type = tensorType(obj, where);
  if (failed(type))
    return failure();
  Type elem = type->getElementType();
  int64_t n = type->getNumElements();
  const json *data = field(obj, "data");
  const json *offset = field(obj, "file_offset");
  if ((data != nullptr) == (offset != nullptr)) {
    err() << where << ": needs exactly one of 'data' and 'file_offset'";
    return failure();
  }
  if (offset) {
    std::optional<int64_t> off = asInt(*offset);
    if (!off || *off < 0) {
      err() << where << ": field 'file_offset' must be a non-negative integer";
      return failure();
    }
    if (weightsFile.empty()) {
      err() << where << ": 'file_offset' needs a top-level 'weights_file'";
      return failure();
    }
    if (failed(loadWeights()))
      return failure();
    int64_t bytes = n * (elem.isInteger(1)
                             ? 1
                             : (elem.getIntOrFloatBitWidth() + 7) / 8);
    int64_t size = weights->getBufferSize();
    if (*off > size || bytes > size - *off) {
      err() << where << ": bytes [" << *off << ", " << *off + bytes
            << ") are outside weights_file '" << weightsFile << "' ("
            << size << " bytes)";
      return failure();
    }
    std::string error;
    auto t = tensorFromRaw(
        *type, ArrayRef<char>(weights->getBufferStart() + *off, bytes), error);
    if (failed(t))
      err() << where << ": " << error;
    return t;
  }
  // A scalar may be given as a bare number.
  json wrapped;
  if (!data->is_array()) {
    wrapped = json::array();
    wrapped.push_back(*data);
    data = &wrapped;
  }
  if ((int64_t)data->size() != n) {
    err() << where << ": 'data' has " << data->size()
          << " values; shape " << shapeString(type->getShape()) << " needs "
          << n;
    return failure();
  }
  if (isa<FloatType>(elem)) {
    SmallVector<double> values;
    for (const json &v : *data) {
      std::optional<double> d = asNumber(v);
      if (!d) {
        err() << where << ": 'data' must hold numbers (found "
              << kindName(v) << ")";
        return failure();
      }
      values.push_back(*d);
    }
    return tensorFromDoubles(*type, values);
  }
  SmallVector<int64_t> values;
  for (const json &v : *data) {
    std::optional<int64_t> i;
    if (auto *b = v.get_ptr<const json::boolean_t *>())
      i = *b ? 1 : 0;
    else if (auto *u = v.get_ptr<const json::number_unsigned_t *>())
      i = (int64_t)*u; // uint64 values above INT64_MAX keep their bits
    else
      i = asInt(v);
    if (!i) {
      err() << where << ": 'data' of dtype "
            << *asString(field(obj, "dtype"))
            << " must hold integers (found " << kindName(v) << ")";
      return failure();
    }
    values.push_back(*i);
  }
  return tensorFromInts(*type, values, false);
}

std::optional<AttrValue> JsonReader::attribute(const json &value,
                                               const std::string &where) {
  if (auto i = asInt(value))
    return AttrValue(*i);
  if (auto *b = value.get_ptr<const json::boolean_t *>())
    return AttrValue((int64_t)(*b ? 1 : 0));
  if (value.is_number())
    return AttrValue(*asNumber(value));
  if (auto *s = value.get_ptr<const json::string_t *>())
    return AttrValue(*s);
  if (value.is_object() && field(value, "nodes")) {
    err() << where << ": subgraph attributes (If, Loop, Scan bodies) are not "
                      "supported in the JSON format; use an ONNX model";
    return std::nullopt;
  }
  if (value.is_object()) {
    auto t = tensor(value, where);
    if (failed(t))
      return std::nullopt;
    return AttrValue(cast<ElementsAttr>(*t));
  }
  if (value.is_array()) {
    bool allInts = true, allNumbers = true, allStrings = true;
    for (const json &v : value) {
      allInts &= asInt(v).has_value();
      allNumbers &= v.is_number();
      allStrings &= v.is_string();
    }
    if (allInts) {
      SmallVector<int64_t> ints;
      for (const json &v : value)
        ints.push_back(*asInt(v));
      return AttrValue(ints);
    }
    if (allNumbers) {
      SmallVector<double> fs;
      for (const json &v : value)
        fs.push_back(*asNumber(v));
      return AttrValue(fs);
    }
    if (allStrings) {
      std::vector<std::string> ss;
      for (const json &v : value)
        ss.push_back(*v.get_ptr<const json::string_t *>());
      return AttrValue(ss);
    }
    err() << where << " must be a list of numbers or a list of strings";
    return std::nullopt;
  }
  err() << where << " must be a number, string, list or tensor object (found "
        << kindName(value) << ")";
  return std::nullopt;
}

void JsonReader::readInputs(const json &root, GraphDesc &desc) {
  const json *inputs = field(root, "inputs");
  if (!inputs) {
    return;
  }
  if (!inputs->is_array()) {
    err() << "field 'inputs' must be a list of objects";
    return;
  }
  for (auto [i, in] : llvm::enumerate(*inputs)) {
    std::string where = "inputs[" + std::to_string(i) + "]";
    if (!in.is_object()) {
      err() << where << " must be an object with 'name', 'dtype', 'shape'";
      continue;
    }
    const std::string *name = asString(field(in, "name"));
    if (!name || name->empty()) {
      err() << where << ": field 'name' must be a non-empty string";
      continue;
    }
    where = "input '" + *name + "'";
    checkFields(in, {"name", "dtype", "shape"}, where);
    InputDesc d;
    d.name = *name;
    const std::string *dtype = asString(field(in, "dtype"));
    d.elementType = dtype ? dtypeElementType(ctx, *dtype) : Type();
    if (!d.elementType) {
      err() << where << ": field 'dtype' must be one of " << dtypeNames();
      continue;
    }
    const json *shape = field(in, "shape");
    if (!shape || shape->is_null()) {
      d.ranked = false;
    } else if (!shape->is_array()) {
      err() << where << ": field 'shape' must be a list of integers and "
            << "strings (symbolic dimensions)";
      continue;
    } else {
      bool good = true;
      for (const json &dim : *shape) {
        if (auto v = asInt(dim); v && *v >= 0) {
          d.dims.push_back(*v);
          d.dimNames.push_back("");
        } else if (auto *s = dim.get_ptr<const json::string_t *>()) {
          d.dims.push_back(ShapedType::kDynamic);
          d.dimNames.push_back(s->empty() ? "?" : *s);
        } else if (dim.is_null()) {
          d.dims.push_back(ShapedType::kDynamic);
          d.dimNames.push_back("?");
        } else {
          good = false;
        }
      }
      if (!good) {
        err() << where << ": field 'shape' must be a list of non-negative "
              << "integers and strings (symbolic dimensions)";
        continue;
      }
    }
    desc.inputs.push_back(std::move(d));
  }
}

void JsonReader::readOutputs(const json &root, GraphDesc &desc) {
  const json *outputs = field(root, "outputs");
  if (!outputs || !outputs->is_array() || outputs->empty()) {
    err() << "field 'outputs' must be a non-empty list of names";
    return;
  }
  for (auto [i, out] : llvm::enumerate(*outputs)) {
    const std::string *name = out.is_object() ? asString(field(out, "name"))
                                              : asString(&out);
    if (!name || name->empty()) {
      err() << "outputs[" << i << "] must be a name or an object with "
            << "'name'";
      continue;
    }
    desc.outputs.push_back(*name);
  }
}

void JsonReader::readInitializers(const json &root, GraphDesc &desc) {
  const json *inits = field(root, "initializers");
  if (!inits)
    return;
  if (!inits->is_array()) {
    err() << "field 'initializers' must be a list of objects";
    return;
  }
  for (auto [i, init] : llvm::enumerate(*inits)) {
    std::string where = "initializers[" + std::to_string(i) + "]";
    if (!init.is_object()) {
      err() << where << " must be an object";
      continue;
    }
    const std::string *name = asString(field(init, "name"));
    if (!name || name->empty()) {
      err() << where << ": field 'name' must be a non-empty string";
      continue;
    }
    where = "initializer '" + *name + "'";
    checkFields(init, {"name", "dtype", "shape", "data", "file_offset"},
                where);
    auto t = tensor(init, where);
    if (succeeded(t))
      desc.initializers.emplace_back(*name, cast<ElementsAttr>(*t));
  }
}

void JsonReader::readNodes(const json &root, int64_t opset, GraphDesc &desc) {
  const json *nodes = field(root, "nodes");
  if (!nodes || !nodes->is_array()) {
    err() << "field 'nodes' must be a list of objects";
    return;
  }
  for (auto [i, nodeJson] : llvm::enumerate(*nodes)) {
    const json &n = nodeJson;
    std::string where = "nodes[" + std::to_string(i) + "]";
    if (!n.is_object()) {
      err() << where << " must be an object";
      continue;
    }
    NodeDesc node;
    node.opsetVersion = opset;
    if (const json *name = field(n, "name")) {
      const std::string *s = asString(name);
      if (!s) {
        err() << where << ": field 'name' must be a string";
        continue;
      }
      node.name = *s;
    }
    if (!node.name.empty())
      where = "node '" + node.name + "'";
    checkFields(n,
                {"name", "op", "domain", "inputs", "outputs", "attributes"},
                where);
    const std::string *op = asString(field(n, "op"));
    if (!op || op->empty()) {
      err() << where << ": field 'op' must be a non-empty string";
      continue;
    }
    node.opType = *op;
    if (const json *domain = field(n, "domain")) {
      const std::string *s = asString(domain);
      if (!s) {
        err() << where << ": field 'domain' must be a string";
        continue;
      }
      node.domain = *s;
    }
    bool good = true;
    auto names = [&](const char *key, std::vector<std::string> &out,
                     bool required) {
      const json *list = field(n, key);
      if (!list) {
        if (required) {
          err() << where << ": missing field '" << key << "'";
          good = false;
        }
        return;
      }
      if (!list->is_array()) {
        err() << where << ": field '" << key << "' must be a list of names";
        good = false;
        return;
      }
      for (const json &v : *list) {
        if (v.is_null()) {
          out.push_back("");
        } else if (const std::string *s = asString(&v)) {
          out.push_back(*s);
        } else {
          err() << where << ": field '" << key
                << "' must be a list of names (strings; \"\" or null for "
                << "an omitted optional one)";
          good = false;
          return;
        }
      }
    };
    names("inputs", node.inputs, false);
    names("outputs", node.outputs, true);
    if (const json *attrs = field(n, "attributes")) {
      if (!attrs->is_object()) {
        err() << where << ": field 'attributes' must be an object";
        good = false;
      } else {
        for (auto it = attrs->begin(); it != attrs->end(); ++it) {
          auto v = attribute(it.value(),
                             where + ": attribute '" + it.key() + "'");
          if (!v) {
            good = false;
            continue;
          }
          node.attributes.emplace_back(it.key(), std::move(*v));
        }
      }
    }
    if (good)
      desc.nodes.push_back(std::move(node));
  }
}

FailureOr<OwningOpRef<ModuleOp>> JsonReader::read() {
  auto buffer = llvm::MemoryBuffer::getFile(options.fileName, /*IsText=*/true);
  if (!buffer)
    return emitError(loc) << "cannot read the model: "
                          << buffer.getError().message(),
           failure();
  StringRef text = (*buffer)->getBuffer();

  json root;
  SaxBuilder sax(root);
  json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                  /*strict=*/true, /*ignore_comments=*/true);
  if (sax.failed) {
    // Point at the line and column of the error.
    size_t byte = std::min<size_t>(sax.errorByte, text.size());
    size_t lineStart = text.rfind('\n', byte ? byte - 1 : 0);
    lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
    unsigned line = 1 + text.take_front(lineStart).count('\n');
    // nlohmann counts the bytes read, the offending one included.
    unsigned col = std::max<size_t>(1, byte - lineStart);
    StringRef msg = sax.errorMessage;
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line
    // L, column C: " prefix: the location says it.
    if (msg.starts_with("[json.exception")) {
      if (size_t p = msg.find("] "); p != StringRef::npos)
        msg = msg.drop_front(p + 2);
      if (msg.starts_with("parse error"))
        if (size_t p = msg.find(": "); p != StringRef::npos)
          msg = msg.drop_front(p + 2);
    }
    return emitError(FileLineColLoc::get(ctx, options.fileName, line, col))
               << "invalid JSON at byte " << sax.errorByte << ": " << msg,
           failure();
  }
  if (!root.is_object())
    return emitError(loc) << "the model must be a JSON object", failure();

  checkFields(root,
              {"format", "version", "name", "opset", "inputs", "outputs",
               "initializers", "weights_file", "nodes"},
              "model");
  const std::string *format = asString(field(root, "format"));
  if (!format || *format != "tfrt-graph")
    return emitError(loc) << "field 'format' must be \"tfrt-graph\"",
           failure();
  if (const json *version = field(root, "version")) {
    std::optional<int64_t> v = asInt(*version);
    if (!v || *v != 1)
      return emitError(loc) << "unsupported format version (this compiler "
                               "reads version 1)",
             failure();
  }
  int64_t opset = 17;
  if (const json *o = field(root, "opset")) {
    std::optional<int64_t> v = asInt(*o);
    if (!v || *v < 1 || *v > 21)
      return emitError(loc) << "field 'opset' must be an integer from 1 to 21",
             failure();
    opset = *v;
  }
  if (const json *w = field(root, "weights_file")) {
    const std::string *s = asString(w);
    if (!s || s->empty())
      return emitError(loc) << "field 'weights_file' must be a path (relative "
                               "to the model file)",
             failure();
    weightsFile = *s;
  }

  GraphDesc desc;
  readInputs(root, desc);
  readOutputs(root, desc);
  readInitializers(root, desc);
  readNodes(root, opset, desc);
  if (!ok)
    return failure();

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  if (const std::string *name = asString(field(root, "name")))
    (*module)->setAttr("graph.model_name", StringAttr::get(ctx, *name));
  if (failed(importGraph(*module, desc, options)))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
tfrt::frontend::importJsonFile(MLIRContext *ctx, const ImportOptions &options) {
  JsonReader reader(ctx, options);
  return reader.read();
}
