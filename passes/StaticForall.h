//===- StaticForall.h - scf.forall loops with constant bounds ------------===//
//
// Shared by the passes that size something per iteration of a parallel
// loop (tfrt-vectorize-matmul's packing, tfrt-plan-workspace's per-chunk
// scratch slots) and those that emit parallel chunks of rows
// (tfrt-winograd-conv, tfrt-vectorize-softmax).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_STATICFORALL_H
#define TFRT_PASSES_STATICFORALL_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
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

/// The most chunks, up to `maxChunks`, that split `count` items evenly with
/// at least `minPerChunk` items each (1: no split).
inline int64_t evenChunks(int64_t count, int64_t maxChunks,
                          int64_t minPerChunk = 1) {
  for (int64_t k = std::min(maxChunks, count); k > 1; --k)
    if (count % k == 0 && count / k >= minPerChunk)
      return k;
  return 1;
}

/// A one-dimensional scf.forall over `chunks` iterations (0 to chunks,
/// step 1) sharing `dest`, with the builder `b` set at the start of its
/// body (kernels that split their output into equal chunks of rows).
inline mlir::scf::ForallOp createChunkForall(mlir::RewriterBase &rewriter,
                                             mlir::OpBuilder &b,
                                             mlir::Location loc, int64_t chunks,
                                             mlir::Value dest) {
  auto forall = mlir::scf::ForallOp::create(
      rewriter, loc,
      llvm::ArrayRef<mlir::OpFoldResult>{rewriter.getIndexAttr(0)},
      llvm::ArrayRef<mlir::OpFoldResult>{rewriter.getIndexAttr(chunks)},
      llvm::ArrayRef<mlir::OpFoldResult>{rewriter.getIndexAttr(1)},
      mlir::ValueRange{dest}, std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  return forall;
}

} // namespace tfrt

#endif // TFRT_PASSES_STATICFORALL_H
