//===- Frontend.h - model importers (ONNX, JSON) ----------------*- C++ -*-===//
//
// The entry point the driver uses to turn a model file into a module in the
// graph dialect: `func.func @main` whose arguments are the model's inputs
// (static shapes) and whose results are its outputs, each carrying its model
// name in a `graph.name` argument/result attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_FRONTEND_H
#define TFRT_COMPILER_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfrt {

enum class ModelFormat { Onnx, Json, Mlir };

struct ImportOptions {
  /// The model file; also the file name diagnostics and locations carry.
  std::string fileName;
  /// Shapes for the model's inputs (`--input-shape NAME=D0xD1x...`). They fix
  /// symbolic dimensions and must agree with the fixed ones.
  std::vector<std::pair<std::string, llvm::SmallVector<int64_t>>> inputShapes;
};

/// The name of the function the importers create.
inline constexpr llvm::StringLiteral kEntryFunctionName = "main";

/// `.onnx` -> Onnx, `.json` -> Json, `.mlir` -> Mlir; nullopt otherwise.
std::optional<ModelFormat> formatFromExtension(llvm::StringRef path);

/// Imports the model `opts.fileName` in `format`. Loads the graph and func
/// dialects into `ctx`. Diagnostics go to `ctx`'s handler; on failure at
/// least one error was emitted.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importModel(mlir::MLIRContext &ctx, ModelFormat format,
            const ImportOptions &opts);

/// The ONNX op types (default domain) the importers support, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace tfrt

#endif // TFRT_COMPILER_FRONTEND_FRONTEND_H
