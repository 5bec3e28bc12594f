//===- OnnxChecker.cpp - exception boundary around libonnx ----------------===//
//
// Compiled with -fexceptions (see CMakeLists.txt): nothing thrown by libonnx
// leaves this file.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxChecker.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

std::string tfrt::frontend::runOnnxChecker(const onnx::ModelProto &model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    std::string msg = e.what();
    return msg.empty() ? std::string("check failed") : msg;
  } catch (...) {
    return "check failed";
  }
  return "";
}

std::string
tfrt::frontend::runOnnxShapeInference(onnx::ModelProto &model) {
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    std::string msg = e.what();
    return msg.empty() ? std::string("shape inference failed") : msg;
  } catch (...) {
    return "shape inference failed";
  }
  return "";
}

int64_t tfrt::frontend::newestKnownOnnxOpset() {
  const auto &map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find(onnx::ONNX_DOMAIN);
  return it == map.end() ? 17 : it->second.second;
}
