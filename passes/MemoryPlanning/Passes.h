//===- Passes.h - buffer ABI and memory planning ----------------*- C++ -*-===//
//
// Declarations of the buffer-ABI and memory-planning passes (generated from
// Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_MEMORYPLANNING_PASSES_H
#define TFRT_PASSES_MEMORYPLANNING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tfrt {

#define GEN_PASS_DECL
#include "passes/MemoryPlanning/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/MemoryPlanning/Passes.h.inc"

/// Whether `func` is the model's entry after tfrt-entry-abi: some argument
/// carries `tfrt.io`. The passes that work on the entry only use this.
inline bool isEntryFunction(mlir::func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, "tfrt.io"))
      return true;
  return false;
}

} // namespace tfrt

#endif // TFRT_PASSES_MEMORYPLANNING_PASSES_H
