//===- AsyncOutline.cpp - parallel loops into pool launches ---------------===//
//
// Implements tfrt-async-outline (see Passes.td). The object emitter
// (compiler/emit/Emit.cpp) defines the `_launch` functions declared here.
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

bool isEntry(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, "tfrt.io"))
      return true;
  return false;
}

/// A value the body function receives as an argument: anything but the
/// results of pure ops (which are recomputed in the body). Memrefs must
/// cross the call as bare pointers: static shape, identity layout.
bool isPassable(Value v) {
  if (auto m = dyn_cast<MemRefType>(v.getType()))
    return m.hasStaticShape() && m.getLayout().isIdentity();
  return v.getType().isIntOrIndexOrFloat();
}

bool isRecomputable(Value v) {
  Operation *def = v.getDefiningOp();
  return def && isPure(def) && def->getNumRegions() == 0;
}

/// Collects the arguments of the body of `loop` and the pure producers to
/// clone into it (in dependency order). Fails when a needed value can be
/// neither passed nor recomputed.
LogicalResult collectCaptures(scf::ForallOp loop,
                              llvm::SetVector<Value> &captures,
                              llvm::SetVector<Operation *> &clones) {
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(loop.getRegion(), above);
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
  // Clone in program order so that producers precede users.
  SmallVector<Operation *> ordered(seen.begin(), seen.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  // All producers live in the entry block (top-level loops only).
  clones.insert(ordered.begin(), ordered.end());
  return success();
}

struct AsyncOutlinePass
    : public tfrt::impl::AsyncOutlineBase<AsyncOutlinePass> {
  using AsyncOutlineBase::AsyncOutlineBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && isEntry(func))
        entries.push_back(func);
    for (func::FuncOp func : entries)
      if (failed(outlineIn(module, func)))
        return signalPassFailure();
  }

  LogicalResult outlineIn(ModuleOp module, func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    unsigned poolIndex = func.getNumArguments();
    if (failed(func.insertArgument(
            poolIndex, ptrTy,
            DictionaryAttr::get(ctx, {NamedAttribute(
                                         StringAttr::get(ctx, "tfrt.pool"),
                                         UnitAttr::get(ctx))}),
            func.getLoc())))
      return func.emitError("cannot add the thread pool argument");
    Value pool = func.getArgument(poolIndex);

    Block &block = func.getBody().front();
    SmallVector<scf::ForallOp> loops;
    for (Operation &op : block)
      if (auto loop = dyn_cast<scf::ForallOp>(&op))
        if (loop.getNumResults() == 0 && loop.getRank() == 1)
          loops.push_back(loop);

    OpBuilder moduleBuilder(ctx);
    moduleBuilder.setInsertionPointAfter(func);
    unsigned k = 0;
    for (scf::ForallOp loop : loops) {
      std::optional<int64_t> lb =
          getConstantIntValue(loop.getMixedLowerBound()[0]);
      std::optional<int64_t> ub =
          getConstantIntValue(loop.getMixedUpperBound()[0]);
      std::optional<int64_t> step = getConstantIntValue(loop.getMixedStep()[0]);
      if (!lb || !ub || !step || *step <= 0)
        continue; // left to scf-forall-to-for
      int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      llvm::SetVector<Value> captures;
      llvm::SetVector<Operation *> clones;
      if (failed(collectCaptures(loop, captures, clones)))
        continue;

      std::string base = (func.getName() + "_par" + Twine(k++)).str();
      Location loc = loop.getLoc();
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
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      auto inner = scf::ForOp::create(b, loc, entry->getArgument(0),
                                      entry->getArgument(1), c1);
      {
        OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
        // iv = lb + j * step
        Value iv = inner.getInductionVar();
        Value scaled = arith::MulIOp::create(
            ib, loc, iv, arith::ConstantIndexOp::create(ib, loc, *step));
        Value orig = arith::AddIOp::create(
            ib, loc, scaled, arith::ConstantIndexOp::create(ib, loc, *lb));
        map.map(loop.getInductionVar(0), orig);
        for (Operation &op : loop.getBody()->without_terminator())
          ib.clone(op, map);
      }
      func::ReturnOp::create(b, loc);

      SmallVector<Type> launchArgs = {ptrTy, indexTy};
      for (Value c : captures)
        launchArgs.push_back(c.getType());
      auto launchFn = func::FuncOp::create(
          moduleBuilder, loc, base + "_launch",
          FunctionType::get(ctx, launchArgs, {}));
      launchFn.setPrivate();

      OpBuilder site(loop);
      SmallVector<Value> operands = {
          pool, arith::ConstantIndexOp::create(site, loc, trips)};
      operands.append(captures.begin(), captures.end());
      func::CallOp::create(site, loc, launchFn, operands);
      loop.erase();
      ++numOutlined;
    }
    return success();
  }
};
} // namespace
