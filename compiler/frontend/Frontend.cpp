//===- Frontend.cpp - dispatch to the model importers ---------------------===//

#include "compiler/frontend/Frontend.h"

#include "compiler/frontend/common/NodeImporter.h"
#include "compiler/frontend/json/JsonImporter.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::optional<tfrt::ModelFormat>
tfrt::formatFromExtension(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext.equals_insensitive(".onnx"))
    return ModelFormat::Onnx;
  if (ext.equals_insensitive(".json"))
    return ModelFormat::Json;
  if (ext.equals_insensitive(".mlir"))
    return ModelFormat::Mlir;
  return std::nullopt;
}

/// Applies --input-shape to the entry function of an MLIR module: sets the
/// argument types and re-infers and folds.
static LogicalResult applyInputShapes(ModuleOp module,
                                      const tfrt::ImportOptions &opts) {
  auto func = module.lookupSymbol<func::FuncOp>(tfrt::kEntryFunctionName);
  if (!func) {
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && f.isPublic()) {
        func = f;
        break;
      }
  }
  Location loc = tfrt::frontend::fileLoc(module.getContext(), opts.fileName);
  if (!func)
    return emitError(loc) << "no entry function in the module";
  if (opts.inputShapes.empty())
    return success();
  auto argName = [&](unsigned i) {
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "graph.name"))
      return n.str();
    return "arg" + std::to_string(i);
  };
  bool ok = true;
  for (const auto &[name, dims] : opts.inputShapes) {
    bool found = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (argName(i) != name)
        continue;
      found = true;
      BlockArgument arg = func.getArgument(i);
      auto t = dyn_cast<TensorType>(arg.getType());
      if (!t) {
        ok = false;
        emitError(loc) << "input '" << name << "' is not a tensor";
        break;
      }
      if (auto r = dyn_cast<RankedTensorType>(t)) {
        bool match = r.getRank() == (int64_t)dims.size();
        for (unsigned d = 0; match && d < dims.size(); ++d)
          match = r.isDynamicDim(d) || r.getDimSize(d) == dims[d];
        if (!match) {
          ok = false;
          emitError(loc) << "--input-shape for '" << name
                         << "' does not match its type " << r;
          break;
        }
      }
      arg.setType(RankedTensorType::get(dims, t.getElementType()));
    }
    if (!found) {
      ok = false;
      std::string list;
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        list += (i ? ", " : "") + argName(i);
      emitError(loc) << "unknown input '" << name
                     << "' in --input-shape; the model's inputs are: " << list;
    }
  }
  if (!ok)
    return failure();
  func.setType(FunctionType::get(module.getContext(),
                                 func.getBody().getArgumentTypes(),
                                 func.getResultTypes()));
  return tfrt::graph::inferAndFold(func);
}

FailureOr<OwningOpRef<ModuleOp>>
tfrt::importModel(MLIRContext &ctx, ModelFormat format,
                  const ImportOptions &opts) {
  ctx.loadDialect<tfrt::graph::GraphDialect, func::FuncDialect>();
  switch (format) {
  case ModelFormat::Onnx:
    return frontend::importOnnxFile(&ctx, opts);
  case ModelFormat::Json:
    return frontend::importJsonFile(&ctx, opts);
  case ModelFormat::Mlir: {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(opts.fileName, &ctx);
    if (!module)
      return failure();
    if (failed(applyInputShapes(*module, opts)))
      return failure();
    return module;
  }
  }
  return failure();
}
