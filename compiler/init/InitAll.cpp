//===- InitAll.cpp - register every dialect and pass ----------------------===//
//
// Registers the graph dialect, the upstream dialects and extensions the
// pipeline lowers through, and every pass (ours and upstream) for tfrt-opt.
//
//===----------------------------------------------------------------------===//

#include "compiler/init/InitAll.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "compiler/pipeline/CudaPipeline.h"
#include "compiler/pipeline/Pipeline.h"
#include "passes/Graph/Passes.h"
#include "passes/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void tfrt::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tfrt::graph::GraphDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // NVVM/GPU translations: the CUDA back end serialises kernels in-process.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void tfrt::registerAllPasses() {
  mlir::registerAllPasses();
  tfrt::graph::registerGraphPasses();
  tfrt::registerProjectPasses();
  tfrt::registerPipelines();
  tfrt::registerCudaPipeline();
}
