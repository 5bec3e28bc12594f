//===- Passes.h - graph-level passes ----------------------------*- C++ -*-===//
//
// Declarations of the graph-level passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_GRAPH_PASSES_H
#define TFRT_PASSES_GRAPH_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tfrt::graph {

#define GEN_PASS_DECL
#include "passes/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Graph/Passes.h.inc"

/// Parses "1x3x48x192" (also "" for a scalar) into dims.
llvm::LogicalResult parseDims(llvm::StringRef text,
                              llvm::SmallVectorImpl<int64_t> &dims);

/// Re-infers and folds every graph op of `func` in order, then updates the
/// function's result types. Used by the importers and SpecializeShapes.
llvm::LogicalResult inferAndFold(mlir::Operation *func);

/// Emits an error for every value of `func` whose type is not static and
/// fails if there was one.
llvm::LogicalResult verifyAllStatic(mlir::Operation *func);

} // namespace tfrt::graph

#endif // TFRT_PASSES_GRAPH_PASSES_H
