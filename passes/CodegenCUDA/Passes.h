//===- Passes.h - CUDA code generation passes -------------------*- C++ -*-===//
//
// Declarations of the CUDA code generation passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCUDA_PASSES_H
#define TFRT_PASSES_CODEGENCUDA_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tfrt {

#define GEN_PASS_DECL
#include "passes/CodegenCUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/CodegenCUDA/Passes.h.inc"

} // namespace tfrt

#endif // TFRT_PASSES_CODEGENCUDA_PASSES_H
