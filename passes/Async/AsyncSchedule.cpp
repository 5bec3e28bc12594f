//===- AsyncSchedule.cpp - interleave independent branches ----------------===//
//
// Implements tfrt-async-schedule (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"
#include "passes/Async/CostModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tfrt {
#define GEN_PASS_DEF_ASYNCSCHEDULE
#include "passes/Async/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
struct AsyncSchedulePass
    : public tfrt::impl::AsyncScheduleBase<AsyncSchedulePass> {
  using AsyncScheduleBase::AsyncScheduleBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    Operation *terminator = block.getTerminator();
    DenseMap<Operation *, int64_t> level;
    SmallVector<std::pair<int64_t, Operation *>> order;
    int64_t lastEffectLevel = -1;
    for (Operation &op : block.without_terminator()) {
      llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
      getUsedValuesDefinedAbove(op.getRegions(), used);
      int64_t l = 0;
      for (Value v : used)
        if (Operation *def = v.getDefiningOp())
          if (def->getBlock() == &block)
            l = std::max(l, level.lookup(def) + 1);
      // Ops with side effects keep their relative order.
      if (!isMemoryEffectFree(&op)) {
        l = std::max(l, lastEffectLevel + 1);
        lastEffectLevel = l;
      }
      level[&op] = l;
      order.push_back({l, &op});
    }
    // Only worth it when two expensive ops share a level.
    llvm::SmallDenseMap<int64_t, int> heavyPerLevel;
    bool pays = false;
    for (auto &[l, op] : order)
      if (isa<linalg::LinalgOp>(op) &&
          tfrt::async::estimateCost(op) >= minTaskCost &&
          ++heavyPerLevel[l] >= 2)
        pays = true;
    if (!pays)
      return;
    llvm::stable_sort(order, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    for (auto &[l, op] : order)
      op->moveBefore(terminator);
  }
};
} // namespace
