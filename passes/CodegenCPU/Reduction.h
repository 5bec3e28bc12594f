//===- Reduction.h - the combiner of a reduction generic --------*- C++ -*-===//
//
// Shared by tfrt-vectorize-reductions (sums, maxima and minima over
// trailing dims) and tfrt-vectorize-softmax (its row maximum and sum).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_REDUCTION_H
#define TFRT_PASSES_CODEGENCPU_REDUCTION_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

namespace tfrt::codegen {

/// The combining kind of `op`'s body when it is `yield(f(in, out))` (either
/// order) for f one of addf, maximumf, minimumf, maxnumf, minnumf.
inline std::optional<mlir::vector::CombiningKind>
reductionCombiner(mlir::linalg::GenericOp op) {
  using mlir::vector::CombiningKind;
  mlir::Block &body = op.getRegion().front();
  if (body.getNumArguments() != 2 ||
      !llvm::hasSingleElement(body.without_terminator()))
    return std::nullopt;
  mlir::Operation &f = body.front();
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1 || f.getNumOperands() != 2 ||
      f.getNumResults() != 1 || yield.getOperand(0) != f.getResult(0))
    return std::nullopt;
  mlir::Value a = body.getArgument(0), o = body.getArgument(1);
  if (!((f.getOperand(0) == a && f.getOperand(1) == o) ||
        (f.getOperand(0) == o && f.getOperand(1) == a)))
    return std::nullopt;
  return llvm::TypeSwitch<mlir::Operation *, std::optional<CombiningKind>>(&f)
      .Case([](mlir::arith::AddFOp) { return CombiningKind::ADD; })
      .Case([](mlir::arith::MaximumFOp) { return CombiningKind::MAXIMUMF; })
      .Case([](mlir::arith::MinimumFOp) { return CombiningKind::MINIMUMF; })
      .Case([](mlir::arith::MaxNumFOp) { return CombiningKind::MAXNUMF; })
      .Case([](mlir::arith::MinNumFOp) { return CombiningKind::MINNUMF; })
      .Default([](mlir::Operation *) { return std::nullopt; });
}

} // namespace tfrt::codegen

#endif // TFRT_PASSES_CODEGENCPU_REDUCTION_H
