//===- NodeImporter.h - format-neutral model import -------------*- C++ -*-===//
//
// The frontends (ONNX protobuf, JSON) parse their files into the
// format-neutral description below; NodeImporter maps it (ONNX op semantics,
// opsets 1-17 where supported) onto the graph dialect. Keeping one importer
// means both formats accept the same ops with the same attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTER_H
#define TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTER_H

#include "compiler/frontend/Frontend.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tfrt::frontend {

/// An attribute whose kind the importers cannot represent (sparse tensors,
/// subgraphs, ...). Using it is an error naming `what`.
struct UnsupportedAttr {
  std::string what;
};

struct GraphDesc;

/// A subgraph attribute (If's branches, Loop's and Scan's body). The
/// subgraph sees the names of the enclosing graphs.
struct SubgraphAttr {
  std::shared_ptr<const GraphDesc> graph;
};

/// A node attribute: int, float, string, ints, floats, strings, tensor,
/// subgraph.
using AttrValue =
    std::variant<int64_t, double, std::string, llvm::SmallVector<int64_t>,
                 llvm::SmallVector<double>, std::vector<std::string>,
                 mlir::ElementsAttr, UnsupportedAttr, SubgraphAttr>;

/// One model operator.
struct NodeDesc {
  std::string name;   // may be empty
  std::string opType; // e.g. "Conv"
  std::string domain; // "" or "ai.onnx" for the default domain
  int64_t opsetVersion = 17;
  std::vector<std::string> inputs;  // "" = omitted optional input
  std::vector<std::string> outputs; // "" = omitted optional output
  std::vector<std::pair<std::string, AttrValue>> attributes;
  /// The attributes an importer looked up (findAttr); one it never asked
  /// for is an error after the node's import, so that an attribute the
  /// importer does not implement is never silently ignored.
  mutable llvm::StringSet<> readAttributes;

  const AttrValue *findAttr(llvm::StringRef attrName) const;
};

/// A graph input. Dimensions are ShapedType::kDynamic where symbolic.
struct InputDesc {
  std::string name;
  mlir::Type elementType; // null when the type is unsupported (reported)
  bool ranked = true;
  llvm::SmallVector<int64_t> dims;
  std::vector<std::string> dimNames; // per dim: the symbol ("" if fixed)
};

/// A whole model, or a subgraph of a node attribute. A subgraph's inputs
/// are bound by the node that runs it (their types are only informative);
/// the names of the enclosing graphs are visible inside it.
struct GraphDesc {
  std::vector<InputDesc> inputs;
  std::vector<std::string> outputs;
  std::vector<std::pair<std::string, mlir::ElementsAttr>> initializers;
  std::vector<NodeDesc> nodes;
};

/// Imports `graph` into `module` as `func.func @main`. Emits every problem it
/// finds (unsupported ops are all reported, not just the first) and fails if
/// there was any. The graph and func dialects must be loaded.
mlir::LogicalResult importGraph(mlir::ModuleOp module, const GraphDesc &graph,
                                const ImportOptions &options);

/// The location of something in `fileName` without a line: `file:0:0`.
mlir::Location fileLoc(mlir::MLIRContext *ctx, llvm::StringRef fileName);

//===----------------------------------------------------------------------===//
// Element types and tensor construction
//===----------------------------------------------------------------------===//

/// ONNX TensorProto.DataType codes.
enum OnnxDataType : int {
  kOnnxUndefined = 0, kOnnxFloat = 1, kOnnxUint8 = 2, kOnnxInt8 = 3,
  kOnnxUint16 = 4, kOnnxInt16 = 5, kOnnxInt32 = 6, kOnnxInt64 = 7,
  kOnnxString = 8, kOnnxBool = 9, kOnnxFloat16 = 10, kOnnxDouble = 11,
  kOnnxUint32 = 12, kOnnxUint64 = 13, kOnnxComplex64 = 14,
  kOnnxComplex128 = 15, kOnnxBfloat16 = 16
};

/// The MLIR element type of an ONNX data type; null if unsupported.
mlir::Type onnxElementType(mlir::MLIRContext *ctx, int dataType);
/// "FLOAT", "STRING", ... ("<code N>" when unknown).
std::string onnxDataTypeName(int dataType);
/// The element type of a JSON dtype name ("float32", "int64", "bool", ...);
/// null if unknown.
mlir::Type dtypeElementType(mlir::MLIRContext *ctx, llvm::StringRef dtype);
/// The names dtypeElementType accepts, comma separated.
llvm::StringRef dtypeNames();

/// A dense tensor from little-endian raw bytes. Fails (no diagnostic) when
/// the byte count does not match; `error` says why.
mlir::FailureOr<mlir::DenseElementsAttr>
tensorFromRaw(mlir::RankedTensorType type, llvm::ArrayRef<char> raw,
              std::string &error);
/// A dense tensor from integers: values of integer types, bit patterns of
/// float types when `floatBits`, otherwise converted to float.
mlir::DenseElementsAttr tensorFromInts(mlir::RankedTensorType type,
                                       llvm::ArrayRef<int64_t> values,
                                       bool floatBits);
/// A dense tensor of a float type from doubles (integer types: converted).
mlir::DenseElementsAttr tensorFromDoubles(mlir::RankedTensorType type,
                                          llvm::ArrayRef<double> values);

} // namespace tfrt::frontend

#endif // TFRT_COMPILER_FRONTEND_COMMON_NODEIMPORTER_H
