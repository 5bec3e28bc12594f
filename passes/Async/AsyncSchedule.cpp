//===- AsyncSchedule.cpp - interleave independent branches ----------------===//
//
// Implements tfrt-async-schedule (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"
#include "passes/Async/CostModel.h"
#include "passes/TensorBytes.h"

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
/// The largest number of tensor bytes alive at once when `ops` run in this
/// order: a result lives from its op to its last user (results used by the
/// terminator to the end).
int64_t peakLiveBytes(ArrayRef<Operation *> ops) {
  DenseMap<Operation *, int64_t> pos;
  for (auto [i, op] : llvm::enumerate(ops))
    pos[op] = i;
  int64_t n = ops.size();
  // +bytes at the defining position, -bytes after the last use.
  SmallVector<int64_t> delta(n + 1, 0);
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value r : op->getResults()) {
      int64_t bytes = tfrt::staticTensorBytes(r.getType());
      if (!bytes)
        continue;
      int64_t last = i;
      for (Operation *user : r.getUsers()) {
        // The top-level op containing the use; none (the terminator): the
        // value lives to the end.
        Operation *top = user;
        while (top && !pos.count(top))
          top = top->getParentOp();
        last = top ? std::max(last, pos[top]) : n;
      }
      delta[i] += bytes;
      delta[std::min<int64_t>(last + 1, n)] -= bytes;
    }
  int64_t live = 0, peak = 0;
  for (int64_t d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

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
    SmallVector<Operation *> before;
    for (auto &[l, op] : order)
      before.push_back(op);
    llvm::stable_sort(order, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    SmallVector<Operation *> after;
    for (auto &[l, op] : order)
      after.push_back(op);
    // Breadth-first orders keep more tensors alive: only take the new order
    // when the peak of live tensor bytes grows by at most a quarter (memory
    // planning works from this order).
    int64_t peakBefore = peakLiveBytes(before);
    if (peakLiveBytes(after) > peakBefore + peakBefore / 4)
      return;
    for (Operation *op : after)
      op->moveBefore(terminator);
  }
};
} // namespace
