//===- InitAll.h - register every dialect and pass --------------*- C++ -*-===//
//
// One place that registers the project's dialects and passes together with
// the upstream ones the pipeline uses. Tools call these instead of
// registering piecemeal.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_INIT_INITALL_H
#define TFRT_COMPILER_INIT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tfrt {

/// Adds our dialects, the upstream dialects and their extensions/interface
/// models to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers our passes and pipelines and the upstream passes with the global
/// pass registry (for tfrt-opt's command line).
void registerAllPasses();

} // namespace tfrt

#endif // TFRT_COMPILER_INIT_INITALL_H
