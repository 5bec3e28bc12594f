//===- OnnxChecker.h - ONNX's checker and shape inference -------*- C++ -*-===//
//
// ONNX's checker and shape inference report problems by throwing; the
// project builds without exceptions, so OnnxChecker.cpp alone is compiled
// with -fexceptions and turns them into strings.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_ONNX_ONNXCHECKER_H
#define TFRT_COMPILER_FRONTEND_ONNX_ONNXCHECKER_H

#include <cstdint>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace tfrt::frontend {

/// Runs onnx::checker::check_model; returns "" or the checker's message.
std::string runOnnxChecker(const onnx::ModelProto &model);

/// Runs ONNX shape inference on `model` in place; returns "" or the message.
std::string runOnnxShapeInference(onnx::ModelProto &model);

/// The newest default-domain opset this libonnx knows.
int64_t newestKnownOnnxOpset();

} // namespace tfrt::frontend

#endif // TFRT_COMPILER_FRONTEND_ONNX_ONNXCHECKER_H
