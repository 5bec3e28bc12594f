//===- tfrt-opt.cpp - the MLIR opt driver with our dialects and passes ----===//
//
// mlir-opt with the graph dialect and every tfrt pass registered; the lit
// tests of every pass and verifier run through it.
//
//===----------------------------------------------------------------------===//

#include "compiler/init/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tfrt::registerAllDialects(registry);
  tfrt::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tfrt-compile optimizer driver\n", registry));
}
