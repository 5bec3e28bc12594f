//===- Bands.h - helpers of the passes that run ops over bands of rows ----===//
//
// Shared by tfrt-fuse-conv-bands and tfrt-fuse-conv-transpose-pairs, which
// rewrite a chain of ops on NCHW tensors as an scf.forall of chunks of rows,
// each a loop over bands of a few rows holding the original ops on slices.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_BANDS_H
#define TFRT_PASSES_CODEGENCPU_BANDS_H

#include "passes/CodegenCPU/ChannelInit.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

namespace tfrt::bands {

/// The largest of 1..`most` that divides `n`.
inline int64_t largestDivisor(int64_t n, int64_t most) {
  for (int64_t k = std::min(n, most); k > 1; --k)
    if (n % k == 0)
      return k;
  return 1;
}

/// Rows [row, row + n) of all channels of the rank-4 NCHW tensor `src`.
inline mlir::Value rowSlice(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value src, mlir::OpFoldResult row,
                            int64_t n) {
  auto ty = llvm::cast<mlir::RankedTensorType>(src.getType());
  auto idx = [&](int64_t v) { return b.getIndexAttr(v); };
  llvm::SmallVector<mlir::OpFoldResult> offsets = {idx(0), idx(0), row, idx(0)};
  llvm::SmallVector<mlir::OpFoldResult> sizes = {idx(1), idx(ty.getDimSize(1)),
                                                 idx(n), idx(ty.getDimSize(3))};
  llvm::SmallVector<mlir::OpFoldResult> ones(4, idx(1));
  return mlir::tensor::ExtractSliceOp::create(b, loc, src, offsets, sizes,
                                              ones);
}

/// Whether `g` is an elementwise op that can run on a band of `v`'s rows:
/// the only user of `v`, an all-parallel generic writing one result of v's
/// type through the identity into an init it does not read, without
/// linalg.index (a slice would shift its indices), reading `v` through the
/// identity and every other input at no position past the channel or, with
/// `fullInputs`, through the identity (a tensor of v's shape, sliced to the
/// band).
inline bool bandableElementwise(mlir::linalg::GenericOp g, mlir::Value v,
                                bool fullInputs) {
  if (!g || !v.hasOneUse() || *v.user_begin() != g.getOperation() ||
      !g.hasPureTensorSemantics() ||
      g.getNumParallelLoops() != g.getNumLoops() || g.getNumDpsInits() != 1 ||
      g->getResult(0).getType() != v.getType() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)) ||
      llvm::any_of(g.getBody()->getOperations(), [](mlir::Operation &o) {
        return llvm::isa<mlir::linalg::IndexOp>(o);
      }))
    return false;
  bool readsV = false;
  for (mlir::OpOperand *in : g.getDpsInputOperands()) {
    mlir::AffineMap m = g.getMatchingIndexingMap(in);
    if (in->get() == v) {
      if (!m.isIdentity())
        return false;
      readsV = true;
    } else if (!(fullInputs && m.isIdentity() &&
                 in->get().getType() == v.getType()) &&
               !codegen::readsChannelsOnly(m)) {
      return false;
    }
  }
  return readsV;
}

/// Erases the ops of `dead` (null entries ignored) that have no use left,
/// users before their operands, until nothing changes; with `pureOperands`,
/// the side-effect-free producers of their operands join the list as they
/// lose their last user (the tensor.empty of an init, an expand_shape).
inline void eraseUnused(mlir::RewriterBase &rewriter,
                        llvm::SmallVector<mlir::Operation *> dead,
                        bool pureOperands) {
  llvm::SmallPtrSet<mlir::Operation *, 16> erased;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < dead.size(); ++i) {
      mlir::Operation *op = dead[i];
      if (!op || erased.contains(op) || !op->use_empty())
        continue;
      erased.insert(op);
      if (pureOperands)
        for (mlir::Value v : op->getOperands())
          if (mlir::Operation *def = v.getDefiningOp();
              def && mlir::isPure(def) && !llvm::is_contained(dead, def))
            dead.push_back(def);
      rewriter.eraseOp(op);
      changed = true;
    }
  }
}

} // namespace tfrt::bands

#endif // TFRT_PASSES_CODEGENCPU_BANDS_H
