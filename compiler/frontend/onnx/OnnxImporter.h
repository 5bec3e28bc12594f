//===- OnnxImporter.h - ONNX protobuf models --------------------*- C++ -*-===//

#ifndef TFRT_COMPILER_FRONTEND_ONNX_ONNXIMPORTER_H
#define TFRT_COMPILER_FRONTEND_ONNX_ONNXIMPORTER_H

#include "compiler/frontend/Frontend.h"

namespace tfrt::frontend {

/// Reads the ONNX model `options.fileName`, checks it with ONNX's checker and
/// imports it into the graph dialect.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxFile(mlir::MLIRContext *ctx, const ImportOptions &options);

} // namespace tfrt::frontend

#endif // TFRT_COMPILER_FRONTEND_ONNX_ONNXIMPORTER_H
