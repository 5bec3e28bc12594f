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
#include "passes/StaticForall.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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
  // An allocation in the body of a top-level scf.forall gets one slot of
  // `slotBytes` per iteration (`bytes` covers all of them).
  scf::ForallOp forall;
  int64_t slotBytes = 0;
  int64_t begin = 0, end = 0; // live range in top-level op positions
  int64_t offset = -1;
};

int64_t elementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

/// The slot of the current iteration of `forall` (row-major over its
/// induction variables), built at the builder's insertion point.
Value iterationSlot(OpBuilder &b, Location loc, scf::ForallOp forall) {
  Value slot = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [iv, lb, ub, step] :
       llvm::zip(forall.getInductionVars(), forall.getMixedLowerBound(),
                 forall.getMixedUpperBound(), forall.getMixedStep())) {
    int64_t l = *getConstantIntValue(lb), u = *getConstantIntValue(ub),
            s = *getConstantIntValue(step);
    Value i = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, iv,
                              arith::ConstantIndexOp::create(b, loc, l)),
        arith::ConstantIndexOp::create(b, loc, s));
    slot = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, slot,
            arith::ConstantIndexOp::create(b, loc, llvm::divideCeil(u - l, s))),
        i);
  }
  return slot;
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
      Buffer buf;
      buf.alloc = alloc;
      buf.bytes = std::max<int64_t>(
          1, type.getNumElements() * elementBytes(type.getElementType()));
      if (alloc->getBlock() != &block) {
        // Scratch of one parallel chunk (e.g. tfrt-vectorize-conv's
        // flattened rows): one slot per iteration, all live over the loop.
        auto forall = dyn_cast<scf::ForallOp>(alloc->getParentOp());
        std::optional<int64_t> trips;
        if (forall && forall->getBlock() == &block)
          trips = tfrt::staticTripCount(forall);
        if (!trips) {
          alloc.emitError("allocation inside a nested region cannot be "
                          "planned statically");
          failedAny = true;
          return;
        }
        buf.forall = forall;
        buf.slotBytes = llvm::alignTo(buf.bytes, alignment);
        buf.bytes = std::max<int64_t>(1, buf.slotBytes * *trips);
      }
      buf.begin = buf.end = positionIn(alloc, block, pos);
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
      Location loc = b.alloc.getLoc();
      Value offset = arith::ConstantIndexOp::create(builder, loc, b.offset);
      if (b.forall)
        offset = arith::AddIOp::create(
            builder, loc, offset,
            arith::MulIOp::create(
                builder, loc, iterationSlot(builder, loc, b.forall),
                arith::ConstantIndexOp::create(builder, loc, b.slotBytes)));
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

/// `v` with its views taken off: expand_shape and collapse_shape (which
/// keep the address and the order of the elements) and, with `slices`,
/// subviews and casts too; never memref.view (every planned temporary is a
/// view of the one workspace).
Value stripViews(Value v, bool slices) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto sv = dyn_cast<memref::SubViewOp>(def); sv && slices)
      v = sv.getSource();
    else if (auto c = dyn_cast<memref::CastOp>(def); c && slices)
      v = c.getSource();
    else
      break;
  }
  return v;
}

/// The buffer a memref value views.
Value viewedBuffer(Value v) { return stripViews(v, /*slices=*/true); }

/// The value a top-level op fills all of `buffer` with: a linalg.fill of
/// it, or a linalg.map without inputs yielding a value defined outside.
Value fillValueOf(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    if (fill.getOutputs().size() == 1 && fill.getOutputs()[0] == buffer &&
        fill.getInputs().size() == 1)
      return fill.getInputs()[0];
  if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty() || map.getInit() != buffer)
      return {};
    auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
    if (yield.getNumOperands() != 1)
      return {};
    Value v = yield.getOperand(0);
    if (v.getParentRegion()->isProperAncestor(&map.getMapper()))
      return v;
  }
  return {};
}

/// The last top-level op of `block` before `before` that uses `buffer` or
/// a view of it (views themselves do not count), or null.
Operation *lastUserBefore(Value buffer, Operation *before, Block &block) {
  Operation *last = nullptr;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<ViewLikeOpInterface, memref::CastOp>(user) &&
          user->getBlock() == &block) {
        for (Value r : user->getResults())
          worklist.push_back(r);
        continue;
      }
      Operation *top = block.findAncestorOpInBlock(*user);
      if (!top || top == before || !top->isBeforeInBlock(before))
        continue;
      if (!last || last->isBeforeInBlock(top))
        last = top;
    }
  }
  return last;
}

struct LowerCopiesPass : public tfrt::impl::LowerCopiesBase<LowerCopiesPass> {
  using LowerCopiesBase::LowerCopiesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (minBytes > 0 && (chunkBytes < 1 || maxChunks < 1)) {
      func.emitError("tfrt-lower-copies: chunk-bytes and max-chunks must be "
                     "positive");
      return signalPassFailure();
    }
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp c) { copies.push_back(c); });
    IRRewriter rewriter(&getContext());
    bool entry = !func.isExternal() && tfrt::isEntryFunction(func);
    for (memref::CopyOp c : copies) {
      // A buffer copied onto itself (what bufferizing an in-place
      // tensor.insert_slice leaves, e.g. each border slab of a padded
      // input, or a chunk of a 1x1 conv written through the collapse of
      // its output slice and inserted back through the expand) does
      // nothing: no loop, no launch. Both sides have the same shape, so
      // reshapes of one buffer address the same elements in the same order.
      if (stripViews(c.getSource(), /*slices=*/false) ==
          stripViews(c.getTarget(), /*slices=*/false)) {
        rewriter.eraseOp(c);
        continue;
      }
      if (minBytes > 0 && entry && c->getBlock() == &func.getBody().front() &&
          succeeded(chunk(rewriter, c)))
        continue;
      rewriter.setInsertionPoint(c);
      linalg::CopyOp::create(rewriter, c.getLoc(), c.getSource(),
                             c.getTarget());
      rewriter.eraseOp(c);
    }
  }

  /// Rewrites `copy` into an scf.forall of chunks (with the fill it absorbs,
  /// see Passes.td); fails, changing nothing, when it does not apply.
  LogicalResult chunk(IRRewriter &rewriter, memref::CopyOp copy) {
    auto srcTy = dyn_cast<MemRefType>(copy.getSource().getType());
    auto dstTy = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!srcTy || !dstTy || !srcTy.hasStaticShape() ||
        !dstTy.hasStaticShape() || !dstTy.getElementType().isIntOrFloat() ||
        dstTy.getRank() == 0)
      return failure();
    int64_t rank = dstTy.getRank();
    int64_t elemBytes =
        llvm::divideCeil(dstTy.getElementType().getIntOrFloatBitWidth(), 8);
    ArrayRef<int64_t> shape = dstTy.getShape();
    int64_t bytes = 2 * dstTy.getNumElements() * elemBytes;

    // The fill to absorb: the copy writes a unit-stride box of a whole
    // buffer that a fill wrote last.
    Operation *fill = nullptr;
    Value fillValue, buffer;
    SmallVector<int64_t> boxOffsets(rank, 0);
    auto box = copy.getTarget().getDefiningOp<memref::SubViewOp>();
    if (fuseFills && box && box.getSourceType().getRank() == rank &&
        box.getSourceType().hasStaticShape() &&
        box.getSourceType().getLayout().isIdentity() &&
        llvm::all_of(box.getStaticStrides(),
                     [](int64_t s) { return s == 1; }) &&
        !ShapedType::isDynamicShape(box.getStaticOffsets()) &&
        llvm::equal(box.getStaticSizes(), shape) &&
        viewedBuffer(copy.getSource()) != box.getSource()) {
      buffer = box.getSource();
      Operation *last = lastUserBefore(buffer, copy, *copy->getBlock());
      if (last && (fillValue = fillValueOf(last, buffer)))
        fill = last;
    }
    ArrayRef<int64_t> full = shape;
    if (fill) {
      full = box.getSourceType().getShape();
      boxOffsets.assign(box.getStaticOffsets().begin(),
                        box.getStaticOffsets().end());
      bytes += (box.getSourceType().getNumElements() - dstTy.getNumElements()) *
               elemBytes;
    }
    if (bytes < minBytes)
      return failure();

    // Split along the dim (one the box covers whole) that gives the most
    // chunks up to the wanted number, the outermost on ties; with one chunk
    // nothing is split (dim -1).
    int64_t wanted = std::clamp<int64_t>(bytes / chunkBytes, 1, maxChunks);
    int64_t dim = -1, numChunks = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (boxOffsets[d] != 0 || shape[d] != full[d])
        continue;
      for (int64_t n = std::min(wanted, shape[d]); n > numChunks; --n)
        if (shape[d] % n == 0) {
          dim = d;
          numChunks = n;
          break;
        }
    }
    int64_t tile = dim >= 0 ? shape[dim] / numChunks : 0;

    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    auto forall = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(numChunks)},
        ValueRange{}, std::nullopt);
    rewriter.setInsertionPoint(forall.getBody()->getTerminator());
    Value offset;
    if (dim >= 0)
      offset = arith::MulIOp::create(
          rewriter, loc, forall.getInductionVar(0),
          arith::ConstantIndexOp::create(rewriter, loc, tile));
    // A slice of `v` (full or box extents `lo`, `size`), restricted to the
    // chunk along `dim`.
    auto slice = [&](Value v, ArrayRef<int64_t> lo, ArrayRef<int64_t> size) {
      SmallVector<OpFoldResult> offs, sizes,
          strides(rank, rewriter.getIndexAttr(1));
      for (int64_t d = 0; d < rank; ++d) {
        if (d == dim) {
          offs.push_back(offset);
          sizes.push_back(rewriter.getIndexAttr(tile));
        } else {
          offs.push_back(rewriter.getIndexAttr(lo[d]));
          sizes.push_back(rewriter.getIndexAttr(size[d]));
        }
      }
      return memref::SubViewOp::create(rewriter, loc, v, offs, sizes, strides)
          .getResult();
    };
    if (fill) {
      // Everything of the buffer outside the box: for each dim d where the
      // box is not whole, the parts below and above it along d, box extents
      // along the dims before d, whole extents along the dims after it.
      SmallVector<int64_t> lo(rank, 0), size(full.begin(), full.end());
      for (int64_t d = 0; d < rank; ++d) {
        int64_t below = boxOffsets[d], above = full[d] - below - shape[d];
        if (below > 0) {
          lo[d] = 0;
          size[d] = below;
          linalg::FillOp::create(rewriter, loc, fillValue,
                                 slice(buffer, lo, size));
        }
        if (above > 0) {
          lo[d] = below + shape[d];
          size[d] = above;
          linalg::FillOp::create(rewriter, loc, fillValue,
                                 slice(buffer, lo, size));
        }
        lo[d] = below;
        size[d] = shape[d];
      }
    }
    SmallVector<int64_t> zeros(rank, 0);
    linalg::CopyOp::create(rewriter, loc, slice(copy.getSource(), zeros, shape),
                           slice(copy.getTarget(), zeros, shape));
    rewriter.eraseOp(copy);
    if (fill) {
      rewriter.eraseOp(fill);
      ++numFused;
    }
    ++numChunked;
    return success();
  }
};
} // namespace
