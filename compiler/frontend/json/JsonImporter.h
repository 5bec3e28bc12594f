//===- JsonImporter.h - tfrt-graph JSON models ------------------*- C++ -*-===//
//
// The format is documented in docs/json-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_JSON_JSONIMPORTER_H
#define TFRT_COMPILER_FRONTEND_JSON_JSONIMPORTER_H

#include "compiler/frontend/Frontend.h"

namespace tfrt::frontend {

/// Reads the JSON model `options.fileName` (and its weights file) and
/// imports it into the graph dialect.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importJsonFile(mlir::MLIRContext *ctx, const ImportOptions &options);

} // namespace tfrt::frontend

#endif // TFRT_COMPILER_FRONTEND_JSON_JSONIMPORTER_H
