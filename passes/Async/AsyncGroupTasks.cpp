//===- AsyncGroupTasks.cpp - neighbouring independent ops as tasks --------===//
//
// Implements tfrt-async-group-tasks (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"
#include "passes/MemoryPlanning/Passes.h"
#include "passes/Async/CostModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace tfrt {
#define GEN_PASS_DEF_ASYNCGROUPTASKS
#include "passes/Async/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// The buffer `v` is a view of: an allocation, a function argument or a
/// global.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    break;
  }
  return v;
}

/// The buffers an op reads and writes (roots), or `unknown`.
struct Access {
  llvm::SmallDenseSet<Value, 8> reads, writes;
  bool unknown = false;

  bool conflictsWith(const Access &o) const {
    if (unknown || o.unknown)
      return true;
    for (Value w : writes)
      if (o.reads.contains(w) || o.writes.contains(w))
        return true;
    for (Value w : o.writes)
      if (reads.contains(w))
        return true;
    return false;
  }
  void merge(const Access &o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
    unknown |= o.unknown;
  }
};

Access accessOf(Operation *top) {
  Access a;
  top->walk([&](Operation *op) {
    // Ops that state their effects (linalg ops do, besides their body's);
    // otherwise the walk covers the nested ops of recursive-effect ops.
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        a.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &e : effects) {
      Value v = e.getValue();
      if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
        continue;
      if (!v || !isa<BaseMemRefType>(v.getType())) {
        a.unknown = true;
        continue;
      }
      Value root = rootOf(v);
      if (isa<MemoryEffects::Write>(e.getEffect()))
        a.writes.insert(root);
      else
        a.reads.insert(root);
    }
  });
  return a;
}

struct AsyncGroupTasksPass
    : public tfrt::impl::AsyncGroupTasksBase<AsyncGroupTasksPass> {
  using AsyncGroupTasksBase::AsyncGroupTasksBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !tfrt::isEntryFunction(func))
      return;
    Block &block = func.getBody().front();
    MLIRContext *ctx = &getContext();
    int64_t nextId = 0;
    SmallVector<Operation *> members;
    Access group;
    // Ops whose effects are known, with their cost, for the kernel pass.
    SmallVector<std::pair<Operation *, int64_t>> known;
    auto close = [&] {
      bool single = members.size() == 1;
      if (!members.empty() &&
          (!single || isa<scf::ForallOp>(members.front()))) {
        for (Operation *m : members)
          m->setAttr("tfrt.task_group",
                     IntegerAttr::get(IntegerType::get(ctx, 64), nextId));
        ++nextId;
        if (!single) {
          ++numGroups;
          numGrouped += members.size();
        }
      }
      members.clear();
      group = Access();
    };
    for (Operation &op : block.without_terminator()) {
      if (isMemoryEffectFree(&op) || isa<memref::AllocOp, memref::DeallocOp>(op))
        continue;
      Access a = accessOf(&op);
      bool conflict = a.conflictsWith(group);
      int64_t cost = a.unknown ? 0 : tfrt::async::estimateCost(&op);
      if (!a.unknown)
        known.push_back({&op, cost});
      bool heavy = op.getNumResults() == 0 && !a.unknown &&
                   (isa<scf::ForallOp>(op) || cost >= minTaskCost);
      if (conflict)
        close();
      if (heavy && maxMembers > 0 &&
          static_cast<int64_t>(members.size()) >= maxMembers)
        close();
      if (heavy) {
        members.push_back(&op);
        group.merge(a);
      }
      // A cheap independent op stays in place (before the group's launch).
    }
    close();
    if (kernelMinCost <= 0)
      return;
    // Every other kernel worth it runs as a launch of its own: its body
    // function gets each buffer as a separate noalias pointer.
    for (auto [op, cost] : known) {
      if (op->hasAttr("tfrt.task_group") || op->getNumResults() != 0 ||
          isa<memref::CopyOp>(op) || op->getNumRegions() == 0 ||
          cost < kernelMinCost)
        continue;
      op->setAttr("tfrt.task_group",
                  IntegerAttr::get(IntegerType::get(ctx, 64), nextId++));
      ++numKernels;
    }
  }
};
} // namespace
