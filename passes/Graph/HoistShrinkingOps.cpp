//===- HoistShrinkingOps.cpp - shrink large tensors while they are hot ----===//
//
// Implements tfrt-hoist-shrinking-ops: a pure top-level op whose result is
// at most half the size of a large operand moves up to right after the last
// op defining one of its operands, together with the constants it reads
// that are defined later, so that it reads the operand from the cache right
// after it was written (a feature pyramid's lateral 1x1 convs read each
// backbone stage's output long after the backbone's next op did).
//
//===----------------------------------------------------------------------===//

#include "passes/Graph/Passes.h"
#include "passes/TensorBytes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tfrt::graph {
#define GEN_PASS_DEF_HOISTSHRINKINGOPS
#include "passes/Graph/Passes.h.inc"
} // namespace tfrt::graph

using namespace mlir;

namespace {
/// An op that can move anywhere before its users: no operands, no regions,
/// no memory effects (constants).
bool isFreeStanding(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         isMemoryEffectFree(op);
}

struct HoistShrinkingOpsPass
    : public tfrt::graph::impl::HoistShrinkingOpsBase<HoistShrinkingOpsPass> {
  using HoistShrinkingOpsBase::HoistShrinkingOpsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &block = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops)
      hoist(op, block);
  }

  void hoist(Operation *op, Block &block) {
    if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        op->hasTrait<OpTrait::IsTerminator>() || isFreeStanding(op) ||
        !isMemoryEffectFree(op))
      return;
    int64_t resultBytes = tfrt::staticTensorBytes(op->getResult(0).getType());
    if (resultBytes == 0)
      return;
    // The last op in the block that defines a computed operand.
    Operation *producer = nullptr;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &block || isFreeStanding(def))
        continue;
      if (!producer || producer->isBeforeInBlock(def))
        producer = def;
    }
    if (!producer || producer->getNextNode() == op)
      return;
    int64_t operandBytes = 0;
    for (Value v : op->getOperands())
      if (v.getDefiningOp() == producer)
        operandBytes =
            std::max(operandBytes, tfrt::staticTensorBytes(v.getType()));
    if (operandBytes < minBytes || 2 * resultBytes > operandBytes)
      return;
    // Nothing to gain when only constants lie between them.
    bool between = false;
    for (Operation *it = producer->getNextNode(); it != op && !between;
         it = it->getNextNode())
      between = !isFreeStanding(it);
    if (!between)
      return;
    // Constants it reads that are defined after the producer come along
    // (moving an op without operands earlier keeps every use after it),
    // each once however many operands it defines.
    llvm::SetVector<Operation *> constants;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == &block && isFreeStanding(def) &&
          producer->isBeforeInBlock(def))
        constants.insert(def);
    }
    Operation *insertAfter = producer;
    for (Operation *def : constants) {
      def->moveAfter(insertAfter);
      insertAfter = def;
    }
    op->moveAfter(insertAfter);
    ++numHoisted;
  }
};
} // namespace
