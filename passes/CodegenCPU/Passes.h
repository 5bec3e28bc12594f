//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Declarations of the CPU code generation passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_PASSES_H
#define TFRT_PASSES_CODEGENCPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"

namespace tfrt {

#define GEN_PASS_DECL
#include "passes/CodegenCPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/CodegenCPU/Passes.h.inc"

} // namespace tfrt

#endif // TFRT_PASSES_CODEGENCPU_PASSES_H
