//===- Passes.h - async lowering passes -------------------------*- C++ -*-===//
//
// Declarations of the async lowering passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_ASYNC_PASSES_H
#define TFRT_PASSES_ASYNC_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace tfrt {

#define GEN_PASS_DECL
#include "passes/Async/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Async/Passes.h.inc"

} // namespace tfrt

#endif // TFRT_PASSES_ASYNC_PASSES_H
