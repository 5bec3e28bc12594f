//===- OutputsInPlace.cpp - results computed in the caller's buffers ------===//
//
// Implements tfrt-outputs-in-place: the producer of each entry result starts
// from the caller's output buffer instead of a tensor.empty, so that one-shot
// bufferization writes the result there (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace tfrt {
#define GEN_PASS_DEF_OUTPUTSINPLACE
#include "passes/MemoryPlanning/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// The operand whose buffer `value` shares when its op bufferizes in place,
/// or null where that is not known here.
OpOperand *inPlaceSource(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return nullptr;
  Operation *op = result.getOwner();
  if (auto forall = dyn_cast<scf::ForallOp>(op))
    return forall.getTiedOpOperand(result);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return loop.getTiedLoopInit(result);
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    if (dps.hasPureTensorSemantics())
      return dps.getTiedOpOperand(result);
  return nullptr;
}

/// The tensor.empty whose use starts the in-place chain of `value` (the
/// use), or null.
OpOperand *emptyAtChainStart(Value value) {
  OpOperand *use = inPlaceSource(value);
  while (use && !use->get().getDefiningOp<tensor::EmptyOp>())
    use = inPlaceSource(use->get());
  return use;
}

struct OutputsInPlacePass
    : public tfrt::impl::OutputsInPlaceBase<OutputsInPlacePass> {
  /// Makes `value` available at `at` (in the same block): when it is
  /// defined later there by a tensor.empty, tensor.insert_slice or
  /// bufferization.to_tensor (pure ops that build a result's tensor), moves
  /// that op, and what it needs, up to `at`.
  bool hoist(Value value, Operation *at, DominanceInfo &dominance) {
    if (dominance.properlyDominates(value, at))
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != at->getBlock() ||
        !isa<tensor::EmptyOp, tensor::InsertSliceOp, bufferization::ToTensorOp>(
            def))
      return false;
    for (Value operand : def->getOperands())
      if (!hoist(operand, at, dominance))
        return false;
    def->moveBefore(at);
    return true;
  }

  /// Makes `use` (of a tensor.empty) use the tensor that `build` creates
  /// from `needed` instead, at the empty or else just before the op that
  /// uses it (see hoist). False when neither place works.
  bool replaceEmpty(OpOperand *use, ArrayRef<Value> needed,
                    function_ref<Value(OpBuilder &, Location)> build,
                    DominanceInfo &dominance) {
    Operation *empty = use->get().getDefiningOp();
    for (Operation *at : {empty, use->getOwner()}) {
      if (!llvm::all_of(needed,
                        [&](Value v) { return hoist(v, at, dominance); }))
        continue;
      OpBuilder b(at);
      use->set(build(b, empty->getLoc()));
      return true;
    }
    return false;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!tfrt::isEntryFunction(func))
      return;
    DominanceInfo dominance(func);
    // Consumers first: a result's tensor is the caller's buffer before the
    // slices of it that a concat's parts write are taken.
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<bufferization::MaterializeInDestinationOp, tensor::InsertSliceOp>(
              op))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops)) {
      if (auto m = dyn_cast<bufferization::MaterializeInDestinationOp>(op)) {
        Value out = m.getDest();
        if (!isa<MemRefType>(out.getType()) || !m.getRestrict() ||
            !m.getWritable())
          continue;
        OpOperand *use = emptyAtChainStart(m.getSource());
        if (!use || use->get().getType() != m.getSource().getType())
          continue;
        auto type = cast<RankedTensorType>(m.getSource().getType());
        if (replaceEmpty(
                use, {out},
                [&](OpBuilder &b, Location loc) -> Value {
                  return bufferization::ToTensorOp::create(b, loc, type, out,
                                                           /*restrict=*/true,
                                                           /*writable=*/true);
                },
                dominance))
          // The new to_tensor is now the one restricted view of the buffer.
          m.setRestrict(false);
        continue;
      }
      // A slice inserted into a larger tensor (a concat): its producer
      // writes that slice of the destination.
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
        OpOperand *use = emptyAtChainStart(insert.getSource());
        if (!use || use->get().getType() != insert.getSourceType())
          continue;
        SmallVector<Value> needed = {insert.getDest()};
        llvm::append_range(needed, insert.getOffsets());
        llvm::append_range(needed, insert.getSizes());
        llvm::append_range(needed, insert.getStrides());
        (void)replaceEmpty(
            use, needed,
            [&](OpBuilder &b, Location loc) -> Value {
              return tensor::ExtractSliceOp::create(
                  b, loc, insert.getSourceType(), insert.getDest(),
                  insert.getMixedOffsets(), insert.getMixedSizes(),
                  insert.getMixedStrides());
            },
            dominance);
      }
    }
  }
};
} // namespace
