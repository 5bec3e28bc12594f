//===- AsyncOutline.cpp - parallel loops into pool launches ---------------===//
//
// Implements tfrt-async-outline (see Passes.td). The object emitter
// (compiler/emit/Emit.cpp) defines the `_launch` functions declared here.
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"
#include "passes/Async/Profile.h"
#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tfrt {
#define GEN_PASS_DEF_ASYNCOUTLINE
#include "passes/Async/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {

/// A value the body function receives as an argument: anything but the
/// results of pure ops (which are recomputed in the body). Memrefs must
/// cross the call as bare pointers: static shape, identity layout.
bool isPassable(Value v) {
  if (auto m = dyn_cast<MemRefType>(v.getType()))
    return m.hasStaticShape() && m.getLayout().isIdentity();
  return v.getType().isIntOrIndexOrFloat();
}

/// Values recomputed in the body rather than passed. Whole buffers (the
/// workspace views of the planned temporaries, constant globals) are passed
/// as separate pointers instead: the emitter marks every pointer argument
/// noalias, which lets LLVM vectorize the chunk loops without run-time alias
/// checks. That holds because the buffers an op (or a task group) touches
/// are live together, so memory planning gave them disjoint bytes.
bool isRecomputable(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !isPure(def) || def->getNumRegions() != 0)
    return false;
  if (isa<memref::ViewOp, memref::GetGlobalOp>(def) && isPassable(v))
    return false;
  return true;
}

/// Collects the arguments of the body that runs `ops` (values they use that
/// are defined outside them) and the pure producers to clone into it (in
/// program order). Fails when a needed value can be neither passed nor
/// recomputed.
LogicalResult collectCaptures(ArrayRef<Operation *> ops,
                              llvm::SetVector<Value> &captures,
                              llvm::SetVector<Operation *> &clones) {
  llvm::SetVector<Value> above;
  for (Operation *op : ops) {
    if (isa<scf::ForallOp>(op)) {
      getUsedValuesDefinedAbove(op->getRegions(), above);
      continue;
    }
    above.insert(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), above);
  }
  SmallVector<Value> worklist(above.begin(), above.end());
  llvm::SetVector<Operation *> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (isRecomputable(v)) {
      Operation *def = v.getDefiningOp();
      if (seen.insert(def))
        for (Value operand : def->getOperands())
          worklist.push_back(operand);
      continue;
    }
    if (!isPassable(v))
      return failure();
    captures.insert(v);
  }
  // A stable order: function arguments by position, then values by program
  // position.
  SmallVector<Value> sorted(captures.begin(), captures.end());
  llvm::stable_sort(sorted, [](Value a, Value b) {
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    if (argA || argB) {
      if (argA && argB)
        return argA.getArgNumber() < argB.getArgNumber();
      return bool(argA);
    }
    return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
  });
  captures.clear();
  captures.insert(sorted.begin(), sorted.end());
  // Clone in program order so that producers precede users (all producers
  // are top-level ops of the entry block).
  SmallVector<Operation *> ordered(seen.begin(), seen.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  clones.insert(ordered.begin(), ordered.end());
  return success();
}

/// One member of a launch: a parallel loop's iterations or a single op.
struct Member {
  Operation *op;
  int64_t trips = 1, lb = 0, step = 1;
};

/// The member form of `op`; nullopt for a parallel loop whose bounds are
/// not static (left to scf-forall-to-for).
std::optional<Member> memberOf(Operation *op) {
  Member m{op};
  auto loop = dyn_cast<scf::ForallOp>(op);
  if (!loop)
    return m;
  if (loop.getRank() != 1 || loop.getNumResults() != 0)
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(loop.getMixedLowerBound()[0]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getMixedUpperBound()[0]);
  std::optional<int64_t> step = getConstantIntValue(loop.getMixedStep()[0]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  m.lb = *lb;
  m.step = *step;
  m.trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
  return m;
}

struct AsyncOutlinePass
    : public tfrt::impl::AsyncOutlineBase<AsyncOutlinePass> {
  using AsyncOutlineBase::AsyncOutlineBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    launchFacts.clear();
    launchIterations.clear();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && tfrt::isEntryFunction(func))
        entries.push_back(func);
    for (func::FuncOp func : entries)
      if (failed(outlineIn(module, func)))
        return signalPassFailure();
    if (profile)
      describeProfile(module, entries);
    // The grouping has served its purpose (clones in bodies carry it too).
    module.walk([](Operation *op) { op->removeAttr("tfrt.task_group"); });
  }

  LogicalResult outlineIn(ModuleOp module, func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    Value pool = tfrt::runContextArgument(func);
    if (!pool)
      return failure();

    // Launch groups: the members of one tfrt.task_group (see
    // tfrt-async-group-tasks), and every other top-level parallel loop.
    Block &block = func.getBody().front();
    SmallVector<SmallVector<Operation *>> groups;
    DenseMap<int64_t, unsigned> groupIndex;
    for (Operation &op : block) {
      if (auto id = op.getAttrOfType<IntegerAttr>("tfrt.task_group")) {
        auto [it, inserted] =
            groupIndex.try_emplace(id.getInt(), groups.size());
        if (inserted)
          groups.emplace_back();
        groups[it->second].push_back(&op);
      } else if (isa<scf::ForallOp>(op)) {
        groups.push_back({&op});
      }
    }

    OpBuilder moduleBuilder(ctx);
    moduleBuilder.setInsertionPointAfter(func);
    unsigned k = 0;
    for (ArrayRef<Operation *> group : groups) {
      SmallVector<Member> members;
      for (Operation *op : group)
        if (std::optional<Member> m = memberOf(op))
          members.push_back(*m);
      if (members.size() != group.size())
        continue; // stays inline; scf-forall-to-for lowers the loops
      llvm::SetVector<Value> captures;
      llvm::SetVector<Operation *> clones;
      if (failed(collectCaptures(group, captures, clones)))
        continue;

      std::string base = (func.getName() + "_par" + Twine(k++)).str();
      Location loc = group.back()->getLoc();
      auto indexTy = IndexType::get(ctx);
      SmallVector<Type> bodyArgs = {indexTy, indexTy};
      for (Value c : captures)
        bodyArgs.push_back(c.getType());
      auto bodyFn = func::FuncOp::create(moduleBuilder, loc, base + "_body",
                                         FunctionType::get(ctx, bodyArgs, {}));
      bodyFn.setPrivate();
      Block *entry = bodyFn.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockBegin(entry);
      IRMapping map;
      for (auto [i, c] : llvm::enumerate(captures))
        map.map(c, entry->getArgument(i + 2));
      for (Operation *op : clones)
        b.clone(*op, map);
      Value begin = entry->getArgument(0), end = entry->getArgument(1);
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      // Member u owns launch iterations [first, first + trips): run the part
      // of [begin, end) that falls there.
      int64_t first = 0;
      for (const Member &m : members) {
        Value lo = arith::MaxSIOp::create(
            b, loc, begin, arith::ConstantIndexOp::create(b, loc, first));
        Value hi = arith::MinSIOp::create(
            b, loc, end,
            arith::ConstantIndexOp::create(b, loc, first + m.trips));
        auto inner = scf::ForOp::create(b, loc, lo, hi, c1);
        OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
        if (auto loop = dyn_cast<scf::ForallOp>(m.op)) {
          // iv = lb + (j - first) * step
          Value local = arith::SubIOp::create(
              ib, loc, inner.getInductionVar(),
              arith::ConstantIndexOp::create(ib, loc, first));
          Value scaled = arith::MulIOp::create(
              ib, loc, local, arith::ConstantIndexOp::create(ib, loc, m.step));
          Value iv = arith::AddIOp::create(
              ib, loc, scaled, arith::ConstantIndexOp::create(ib, loc, m.lb));
          map.map(loop.getInductionVar(0), iv);
          for (Operation &op : loop.getBody()->without_terminator())
            ib.clone(op, map);
        } else {
          ib.clone(*m.op, map);
        }
        first += m.trips;
      }
      func::ReturnOp::create(b, loc);

      SmallVector<Type> launchArgs = {ptrTy, indexTy};
      for (Value c : captures)
        launchArgs.push_back(c.getType());
      auto launchFn = func::FuncOp::create(
          moduleBuilder, loc, base + "_launch",
          FunctionType::get(ctx, launchArgs, {}));
      launchFn.setPrivate();

      if (profile) {
        tfrt::async::ProfileFacts &facts = launchFacts[launchFn.getSymName()];
        for (Operation *op : group)
          tfrt::async::collectProfileFacts(op, facts);
        launchIterations[launchFn.getSymName()] = first;
      }

      OpBuilder site(group.back());
      SmallVector<Value> operands = {
          pool, arith::ConstantIndexOp::create(site, loc, first)};
      operands.append(captures.begin(), captures.end());
      func::CallOp::create(site, loc, launchFn, operands);
      for (Operation *op : group)
        op->erase();
      ++numOutlined;
    }
    return success();
  }

  /// Whether an op left inline is a kernel of its own in a profile: loops,
  /// linalg ops, copies and other writes (not views, constants,
  /// allocations or calls).
  static bool isInlineKernel(Operation &op) {
    if (isa<func::ReturnOp, func::CallOp>(op))
      return false;
    if (op.getNumRegions() > 0 || isa<linalg::LinalgOp, memref::CopyOp>(op))
      return true;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    return !effects || effects.hasEffect<MemoryEffects::Write>();
  }

  /// The profile of a profiling build: every launch and every inline
  /// kernel of the entries, in program order, is an entry; a call of
  /// `tfrt_profile_mark(run, entry)` after each inline kernel times it (the
  /// launches are timed by the emitted launch functions). The module's
  /// `tfrt.profile` attribute describes the entries and, last, the rest of
  /// the inline code. A kernel's FLOPs (tfrt-profile-count-flops) are split
  /// between the entries that carry it by their floating-point work.
  void describeProfile(ModuleOp module, ArrayRef<func::FuncOp> entries) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    func::FuncOp mark;
    struct Entry {
      StringAttr launch; // null: an inline kernel
      tfrt::async::ProfileFacts facts;
    };
    SmallVector<Entry> table;
    for (func::FuncOp func : entries) {
      Value run = func.getArgument(func.getNumArguments() - 1);
      for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
        auto call = dyn_cast<func::CallOp>(op);
        auto it = call ? launchFacts.find(call.getCallee()) : launchFacts.end();
        if (it != launchFacts.end()) {
          table.push_back({call.getCalleeAttr().getAttr(), it->second});
          continue;
        }
        if (!isInlineKernel(op))
          continue;
        Entry &entry = table.emplace_back();
        tfrt::async::collectProfileFacts(&op, entry.facts);
        if (!mark) {
          OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
          mark = func::FuncOp::create(mb, module.getLoc(), "tfrt_profile_mark",
                                      FunctionType::get(ctx, {ptrTy, i64}, {}));
          mark.setPrivate();
        }
        OpBuilder after(ctx);
        after.setInsertionPointAfter(&op);
        Value index = arith::ConstantIntOp::create(after, op.getLoc(), i64,
                                                   table.size() - 1);
        func::CallOp::create(after, op.getLoc(), mark, ValueRange{run, index});
      }
    }
    // A kernel's FLOPs are split between the entries that carry its
    // location in proportion to their floating-point work (a conv's
    // contraction and its tail tiles in separate loops each get their
    // share; its output initialisation or a copy none). When none of them
    // does float work, the first entry gets them.
    struct Share {
      int64_t flops = 0;
      SmallVector<std::pair<size_t, int64_t>> work; // entry, float work
    };
    llvm::MapVector<int64_t, Share> shares;
    for (auto [i, e] : llvm::enumerate(table))
      for (auto [id, w] : e.facts.weights) {
        Share &share = shares[id];
        if (share.work.empty())
          share.flops = e.facts.kernels.lookup(id);
        share.work.push_back({i, w});
      }
    SmallVector<int64_t> flops(table.size(), 0);
    auto add = [&](size_t entry, int64_t f) {
      int64_t &sum = flops[entry];
      sum = f > INT64_MAX - sum ? INT64_MAX : sum + f;
    };
    for (auto &[id, share] : shares) {
      double total = 0;
      size_t most = share.work.front().first;
      int64_t mostWork = -1;
      for (auto [entry, w] : share.work) {
        total += double(w);
        if (w > mostWork) {
          most = entry;
          mostWork = w;
        }
      }
      if (total <= 0) {
        add(share.work.front().first, share.flops);
        continue;
      }
      // Rounded shares; what rounding leaves goes to the entry with the
      // most work, so that the shares add up to the kernel's FLOPs.
      int64_t given = 0;
      for (auto [entry, w] : share.work) {
        if (entry == most || w <= 0)
          continue;
        auto f = static_cast<int64_t>(double(share.flops) * double(w) / total);
        add(entry, f);
        given += f;
      }
      add(most, share.flops - given);
    }
    auto strings = [&](const llvm::SetVector<StringAttr> &set) {
      return b.getArrayAttr(SmallVector<Attribute>(set.begin(), set.end()));
    };
    SmallVector<Attribute> described;
    int64_t numLaunches = 0;
    for (auto [i, e] : llvm::enumerate(table)) {
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("kind",
                         b.getStringAttr(e.launch ? "launch" : "kernel")),
          b.getNamedAttr("nodes", strings(e.facts.nodes)),
          b.getNamedAttr("ops", strings(e.facts.ops)),
          b.getNamedAttr("flops", b.getI64IntegerAttr(flops[i]))};
      if (e.launch) {
        ++numLaunches;
        fields.push_back(b.getNamedAttr("launch", e.launch));
        fields.push_back(b.getNamedAttr(
            "iterations",
            b.getI64IntegerAttr(launchIterations.lookup(e.launch.getValue()))));
      }
      described.push_back(b.getDictionaryAttr(fields));
    }
    described.push_back(
        b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr("inline")),
                             b.getNamedAttr("nodes", b.getArrayAttr({})),
                             b.getNamedAttr("ops", b.getArrayAttr({})),
                             b.getNamedAttr("flops", b.getI64IntegerAttr(0))}));
    module->setAttr(
        "tfrt.profile",
        b.getDictionaryAttr(
            {b.getNamedAttr("launches", b.getI64IntegerAttr(numLaunches)),
             b.getNamedAttr("entries", b.getArrayAttr(described))}));
  }

  /// --profile: what each launch (by launch function name) runs.
  llvm::StringMap<tfrt::async::ProfileFacts> launchFacts;
  llvm::StringMap<int64_t> launchIterations;
};
} // namespace
