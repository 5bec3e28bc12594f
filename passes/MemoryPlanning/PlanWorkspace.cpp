//===- PlanWorkspace.cpp - static workspace planning ----------------------===//
//
// Implements tfrt-plan-workspace and tfrt-lower-copies. Every static
// allocation of an entry function becomes a view into one workspace argument.
// Offsets come from live ranges over the function's top-level ops (including
// every alias created through view-like ops): buffers live at the same time
// get disjoint byte ranges, buffers with disjoint lifetimes may reuse bytes.
// Placement is greedy, largest buffer first, lowest fitting offset.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace tfrt {
#define GEN_PASS_DEF_PLANWORKSPACE
#define GEN_PASS_DEF_LOWERCOPIES
#include "passes/MemoryPlanning/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  int64_t begin = 0, end = 0; // live range in top-level op positions
  int64_t offset = -1;
};

int64_t elementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

/// The position of the ancestor of `op` that lives directly in `block`.
int64_t positionIn(Operation *op, Block &block,
                   const DenseMap<Operation *, int64_t> &pos) {
  while (op && op->getBlock() != &block)
    op = op->getParentOp();
  auto it = pos.find(op);
  return it == pos.end() ? -1 : it->second;
}

struct PlanWorkspacePass
    : public tfrt::impl::PlanWorkspaceBase<PlanWorkspacePass> {
  using PlanWorkspaceBase::PlanWorkspaceBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !tfrt::isEntryFunction(func))
      return;
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      func.emitError("workspace alignment must be a power of two");
      return signalPassFailure();
    }
    Block &block = func.getBody().front();
    // Positions in time. The ops from the first to the last member of a
    // task group (tfrt-async-group-tasks) may run concurrently: they share
    // one position, so their buffers never share bytes.
    DenseMap<Operation *, int64_t> pos;
    DenseMap<int64_t, Operation *> lastMember;
    for (Operation &op : block)
      if (auto g = op.getAttrOfType<IntegerAttr>("tfrt.task_group"))
        lastMember[g.getInt()] = &op;
    int64_t i = 0;
    Operation *groupEnd = nullptr;
    for (Operation &op : block) {
      if (!groupEnd)
        if (auto g = op.getAttrOfType<IntegerAttr>("tfrt.task_group"))
          groupEnd = lastMember[g.getInt()];
      pos[&op] = i;
      if (groupEnd == &op)
        groupEnd = nullptr;
      if (!groupEnd)
        ++i;
    }

    SmallVector<Buffer> buffers;
    bool failedAny = false;
    func.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat()) {
        alloc.emitError("cannot place allocation of type ")
            << type << " in the static workspace";
        failedAny = true;
        return;
      }
      if (alloc->getBlock() != &block) {
        alloc.emitError("allocation inside a nested region cannot be "
                        "planned statically");
        failedAny = true;
        return;
      }
      Buffer buf;
      buf.alloc = alloc;
      buf.bytes = std::max<int64_t>(
          1, type.getNumElements() * elementBytes(type.getElementType()));
      buf.begin = buf.end = pos[alloc];
      // Extend the live range over every use of every alias.
      SmallVector<Value> worklist = {alloc.getResult()};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          buf.end = std::max(buf.end, positionIn(user, block, pos));
          if (auto view = dyn_cast<ViewLikeOpInterface>(user))
            if (view.getViewSource() == v)
              for (Value r : user->getResults())
                worklist.push_back(r);
          if (isa<memref::CastOp>(user))
            worklist.push_back(user->getResult(0));
        }
      }
      buffers.push_back(buf);
    });
    if (failedAny)
      return signalPassFailure();

    // Largest first; place each at the lowest offset that does not collide
    // with an already placed buffer whose live range overlaps.
    SmallVector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    llvm::stable_sort(order, [](Buffer *a, Buffer *b) {
      return a->bytes > b->bytes;
    });
    int64_t total = 0;
    SmallVector<Buffer *> placed;
    for (Buffer *b : order) {
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (Buffer *p : placed)
        if (p->begin <= b->end && b->begin <= p->end)
          busy.push_back({p->offset, p->offset + p->bytes});
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + b->bytes <= lo)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(hi, alignment));
      }
      b->offset = offset;
      total = std::max(total, offset + b->bytes);
      placed.push_back(b);
    }
    total = static_cast<int64_t>(llvm::alignTo(total, alignment));

    // Add the workspace argument and rewrite allocations into views.
    MLIRContext *ctx = func.getContext();
    OpBuilder builder(ctx);
    auto wsType = MemRefType::get({total}, builder.getI8Type());
    unsigned wsIndex = func.getNumArguments();
    if (failed(func.insertArgument(wsIndex, wsType,
                                   builder.getDictionaryAttr(
                                       {builder.getNamedAttr(
                                           "tfrt.io",
                                           builder.getStringAttr("workspace"))}),
                                   func.getLoc())))
      return signalPassFailure();
    Value ws = func.getArgument(wsIndex);
    for (Buffer &b : buffers) {
      builder.setInsertionPoint(b.alloc);
      Value offset =
          arith::ConstantIndexOp::create(builder, b.alloc.getLoc(), b.offset);
      Value view = memref::ViewOp::create(builder, b.alloc.getLoc(),
                                          b.alloc.getType(), ws, offset,
                                          ValueRange{});
      SmallVector<Operation *> deallocs;
      for (Operation *user : b.alloc->getUsers())
        if (isa<memref::DeallocOp>(user))
          deallocs.push_back(user);
      for (Operation *d : deallocs)
        d->erase();
      b.alloc.replaceAllUsesWith(view);
      b.alloc.erase();
    }
    func->setAttr("tfrt.workspace_size", builder.getI64IntegerAttr(total));
    func->setAttr("tfrt.workspace_alignment",
                  builder.getI64IntegerAttr(alignment));
  }
};

struct LowerCopiesPass : public tfrt::impl::LowerCopiesBase<LowerCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp c) { copies.push_back(c); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp c : copies) {
      rewriter.setInsertionPoint(c);
      linalg::CopyOp::create(rewriter, c.getLoc(), c.getSource(),
                             c.getTarget());
      rewriter.eraseOp(c);
    }
  }
};
} // namespace
