//===- StaticForall.h - scf.forall loops with constant bounds ------------===//
//
// Shared by the passes that size something per iteration of a parallel
// loop (tfrt-vectorize-matmul's packing, tfrt-plan-workspace's per-chunk
// scratch slots).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_STATICFORALL_H
#define TFRT_PASSES_STATICFORALL_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace tfrt {

/// The number of iterations of `loop` (all its dimensions), or nullopt when
/// a bound or step is not a constant (or a step is not positive).
inline std::optional<int64_t> staticTripCount(mlir::scf::ForallOp loop) {
  int64_t trips = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    std::optional<int64_t> l = mlir::getConstantIntValue(lb),
                           u = mlir::getConstantIntValue(ub),
                           s = mlir::getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    trips *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
  }
  return trips;
}

} // namespace tfrt

#endif // TFRT_PASSES_STATICFORALL_H
