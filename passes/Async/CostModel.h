//===- CostModel.h - cost estimates of the async lowering -------*- C++ -*-===//
//
// The one cost model of the async passes: an estimate, in scalar
// operations, of the work of a linalg op (loop iterations times the ops of
// its body, transcendental functions weighted by their polynomial's length)
// and of loops around such ops, and the bytes a linalg op moves
// (tfrt-async-tile-loops charges them too, see Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_ASYNC_COSTMODEL_H
#define TFRT_PASSES_ASYNC_COSTMODEL_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace tfrt::async {

/// The largest cost estimate; estimates saturate there.
constexpr int64_t kMaxCost = INT64_MAX >> 8;

/// Work of one iteration of a linalg op's body (at least 1): 1 per op, 16
/// per transcendental math op (exp, log, tanh, erf, ...: polynomial
/// approximations of 10-20 operations each).
int64_t bodyCost(mlir::Operation *linalgOp);

/// Work of `op`: for a linalg op with static loop ranges, iterations times
/// bodyCost; for scf.for / scf.forall with static bounds, trips times the
/// cost of their bodies; otherwise the sum over nested ops (1 for an op
/// without regions). Saturates at kMaxCost. Linalg ops with dynamic ranges
/// count their static ranges only.
int64_t estimateCost(mlir::Operation *op);

/// Bytes a linalg op with static operand shapes moves: each input's size
/// (read), each init's size (written, and counted again when the body reads
/// it). 0 for other ops. Memory-bound loops (fills, copies, elementwise
/// chains, resizes, transposes) do little arithmetic per byte, so their
/// operation count alone understates their time.
int64_t bytesMoved(mlir::Operation *linalgOp);

} // namespace tfrt::async

#endif // TFRT_PASSES_ASYNC_COSTMODEL_H
