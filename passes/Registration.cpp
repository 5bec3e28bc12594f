//===- Registration.cpp - register the passes of every area ---------------===//
//
// Registers the conversion and memory-planning passes for tfrt-opt.
//
//===----------------------------------------------------------------------===//

#include "passes/Registration.h"

#include "passes/Async/Passes.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCUDA/Passes.h"
#include "passes/Conversion/Passes.h"
#include "passes/MemoryPlanning/Passes.h"

void tfrt::registerProjectPasses() {
  tfrt::registerConversionPasses();
  tfrt::registerMemoryPlanningPasses();
  tfrt::registerCodegenCPUPasses();
  tfrt::registerCodegenCUDAPasses();
  tfrt::registerAsyncPasses();
}
