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
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
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

/// The entry's run context argument (`!llvm.ptr {tfrt.run}`: runtime-lib's
/// `tfrt_run_context *`, which the emitter passes as the compute function's
/// last argument), appended when `func` has none yet; a null Value after an
/// error on `func` when it cannot be added. Used by tfrt-async-outline (the
/// pool launches) and tfrt-lower-checks (the error reports).
inline mlir::Value runContextArgument(mlir::func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, "tfrt.run"))
      return func.getArgument(i);
  mlir::MLIRContext *ctx = func.getContext();
  unsigned i = func.getNumArguments();
  if (mlir::failed(func.insertArgument(
          i, mlir::LLVM::LLVMPointerType::get(ctx),
          mlir::DictionaryAttr::get(
              ctx, {mlir::NamedAttribute(mlir::StringAttr::get(ctx, "tfrt.run"),
                                         mlir::UnitAttr::get(ctx))}),
          func.getLoc()))) {
    func.emitError("cannot add the run context argument");
    return mlir::Value();
  }
  return func.getArgument(i);
}

} // namespace tfrt

#endif // TFRT_PASSES_MEMORYPLANNING_PASSES_H
