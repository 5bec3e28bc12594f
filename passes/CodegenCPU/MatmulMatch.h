//===- MatmulMatch.h - the matmuls the CPU kernel passes handle -----------===//
//
// Shared by tfrt-split-matmul-columns and tfrt-vectorize-matmul.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_MATMULMATCH_H
#define TFRT_PASSES_CODEGENCPU_MATMULMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tfrt {

/// Whether `op` works on tensors whose operands all have a static shape and
/// f32 elements (its maps are not looked at).
inline bool isStaticF32Matmul(mlir::linalg::MatmulOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  for (mlir::Value v :
       {op.getInputs()[0], op.getInputs()[1], op.getOutputs()[0]}) {
    auto t = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return false;
  }
  return true;
}

} // namespace tfrt

#endif // TFRT_PASSES_CODEGENCPU_MATMULMATCH_H
