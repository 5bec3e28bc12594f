//===- MatmulMatch.h - the matmuls the CPU kernel passes handle -----------===//
//
// Shared by tfrt-split-matmul-columns, tfrt-vectorize-matmul and
// tfrt-vectorize-conv.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_MATMULMATCH_H
#define TFRT_PASSES_CODEGENCPU_MATMULMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

namespace tfrt {

/// K up to which tfrt-vectorize-matmul keeps K whole in its register tiles
/// and may seed them from a per-row init (RowInit).
constexpr int64_t kSeedMaxK = 512;

/// Where the rows of a matmul's init start when the init is a per-row value
/// that nothing else reads: a linalg.fill (`scalar`) or the broadcast of a
/// rank-1 tensor along the rows (`bias`, element row + `offset`), seen
/// directly, through the collapse of a [1, C, H, W] tensor into [C, H*W]
/// (a 1x1 conv), and/or through the shared output of the enclosing
/// scf.forall. `producerInit` is the operand that the producer's own
/// destination replaces once the matmul no longer reads its init.
struct RowInit {
  mlir::Value scalar, bias;
  mlir::OpFoldResult offset;
  mlir::OpOperand *producerInit = nullptr;
};
std::optional<RowInit> matchRowInit(mlir::linalg::MatmulOp op);

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

/// The indexing maps and iterator types of the `vector.contract` of one
/// register tile, acc[m, n] += lhs[m, k] * rhs[k, n] (loops m, n, k).
struct MatmulContraction {
  mlir::ArrayAttr maps, iterators;
};

inline MatmulContraction matmulContraction(mlir::Builder &b) {
  mlir::MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return mlir::getAffineDimExpr(i, ctx); };
  auto iter = [&](mlir::vector::IteratorType t) -> mlir::Attribute {
    return mlir::vector::IteratorTypeAttr::get(ctx, t);
  };
  return {
      b.getAffineMapArrayAttr({mlir::AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                               mlir::AffineMap::get(3, 0, {d(2), d(1)}, ctx),
                               mlir::AffineMap::get(3, 0, {d(0), d(1)}, ctx)}),
      b.getArrayAttr({iter(mlir::vector::IteratorType::parallel),
                      iter(mlir::vector::IteratorType::parallel),
                      iter(mlir::vector::IteratorType::reduction)})};
}

} // namespace tfrt

#endif // TFRT_PASSES_CODEGENCPU_MATMULMATCH_H
