//===- Profile.h - what a launch runs, for profiling builds -----*- C++ -*-===//
//
// Shared by tfrt-profile-tag-ops, tfrt-profile-count-flops (which write the
// facts into locations) and tfrt-async-outline's `profile` option (which
// reads them back for every launch and every stretch of inline code).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_ASYNC_PROFILE_H
#define TFRT_PASSES_ASYNC_PROFILE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <cstdint>

namespace tfrt::async {

/// Metadata keys in fused locations.
constexpr llvm::StringLiteral kProfileOpKey = "tfrt.op";
constexpr llvm::StringLiteral kProfileKernelKey = "tfrt.kernel";
constexpr llvm::StringLiteral kProfileFlopsKey = "tfrt.flops";

/// `loc` tagged with the op type `type` (what tfrt-profile-tag-ops records
/// for a graph op; tfrt-winograd-conv adds "winograd" to its kernel's).
inline mlir::Location withProfileOp(mlir::Location loc, llvm::StringRef type) {
  mlir::MLIRContext *ctx = loc.getContext();
  auto meta = mlir::DictionaryAttr::get(
      ctx, {mlir::NamedAttribute(mlir::StringAttr::get(ctx, kProfileOpKey),
                                 mlir::StringAttr::get(ctx, type))});
  return mlir::FusedLoc::get(ctx, {loc}, meta);
}

/// What a set of ops runs, read from their locations.
struct ProfileFacts {
  /// Node names (NameLoc), in the order first seen.
  llvm::SetVector<mlir::StringAttr> nodes;
  /// Op types recorded by tfrt-profile-tag-ops.
  llvm::SetVector<mlir::StringAttr> ops;
  /// Kernel id -> FLOPs, recorded by tfrt-profile-count-flops.
  llvm::MapVector<int64_t, int64_t> kernels;
  /// Kernel id -> floating-point work of the ops here that carry it
  /// (executions times the float operations of each: a linalg op's
  /// countFlops, a vector.contract's multiply-adds, float arith over the
  /// lanes of a vector), to split a kernel's FLOPs between the launches and
  /// inline kernels that carry its location (the contraction and the tail
  /// tiles of a conv get their shares, an output initialisation or a copy
  /// none).
  llvm::MapVector<int64_t, int64_t> weights;
};

/// Adds the facts in the locations of `op` and every op nested in it.
void collectProfileFacts(mlir::Operation *op, ProfileFacts &facts);

/// Floating-point operations of a linalg op (0 for other ops or dynamic
/// loop ranges): loop iterations times the float arith and math ops of its
/// body, math.fma counting 2.
int64_t countFlops(mlir::Operation *linalgOp);

} // namespace tfrt::async

#endif // TFRT_PASSES_ASYNC_PROFILE_H
