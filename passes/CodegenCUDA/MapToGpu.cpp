//===- MapToGpu.cpp - parallel loops onto GPU threads ---------------------===//
//
// Implements tfrt-cuda-parallel-dims-first (iterator order of generics) and
// tfrt-cuda-map-to-gpu (top-level scf.parallel -> linearised gpu.launch).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCUDA/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tfrt {
#define GEN_PASS_DEF_PARALLELDIMSFIRST
#define GEN_PASS_DEF_MAPTOGPU
#define GEN_PASS_DEF_MERGEKERNELMODULES
#include "passes/CodegenCUDA/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
//===----------------------------------------------------------------------===//
// tfrt-cuda-parallel-dims-first
//===----------------------------------------------------------------------===//

/// The permutation putting parallel dims first (in the order they index the
/// first output), reductions last; empty when the order is already right.
SmallVector<unsigned> parallelFirstPermutation(linalg::GenericOp op) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<unsigned> perm;
  llvm::SmallDenseSet<unsigned> placed;
  if (op.getNumDpsInits() > 0) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (AffineExpr e : out.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        if (iters[d.getPosition()] == utils::IteratorType::parallel &&
            placed.insert(d.getPosition()).second)
          perm.push_back(d.getPosition());
  }
  for (unsigned i = 0; i < numLoops; ++i)
    if (iters[i] == utils::IteratorType::parallel && placed.insert(i).second)
      perm.push_back(i);
  for (unsigned i = 0; i < numLoops; ++i)
    if (placed.insert(i).second)
      perm.push_back(i);
  bool identity = true;
  for (unsigned i = 0; i < numLoops; ++i)
    identity = identity && perm[i] == i;
  if (identity)
    perm.clear();
  return perm;
}

struct ParallelDimsFirstPass
    : public tfrt::impl::ParallelDimsFirstBase<ParallelDimsFirstPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      SmallVector<unsigned> perm = parallelFirstPermutation(op);
      if (perm.empty())
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, perm))) {
        op.emitError("cannot permute the iterators of this op");
        return signalPassFailure();
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// tfrt-cuda-map-to-gpu
//===----------------------------------------------------------------------===//

/// Ops that may stay on the host: they compute addresses or constants and
/// never touch buffer contents.
bool isHostOp(Operation *op) {
  if (isa<func::ReturnOp, gpu::LaunchOp, memref::GetGlobalOp>(op))
    return true;
  if (isa<ViewLikeOpInterface>(op) && isMemoryEffectFree(op))
    return true;
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  return false;
}

/// Replaces nested scf.parallel loops in `root` by sequential scf.for nests.
LogicalResult serializeNestedParallel(Operation *root) {
  SmallVector<scf::ParallelOp> loops;
  root->walk([&](scf::ParallelOp p) { loops.push_back(p); });
  // Walk order is post-order: inner loops first, fine for in-place rewrites.
  for (scf::ParallelOp p : loops) {
    if (p.getNumResults() != 0)
      return p.emitError("parallel loops with reductions are not supported on "
                         "the GPU target");
    OpBuilder b(p);
    SmallVector<Value> ivs;
    Block *bodyBlock = nullptr;
    for (auto [lb, ub, st] :
         llvm::zip(p.getLowerBound(), p.getUpperBound(), p.getStep())) {
      auto f = scf::ForOp::create(b, p.getLoc(), lb, ub, st);
      ivs.push_back(f.getInductionVar());
      b.setInsertionPointToStart(f.getBody());
      bodyBlock = f.getBody();
    }
    IRMapping map;
    for (auto [old, iv] : llvm::zip(p.getInductionVars(), ivs))
      map.map(old, iv);
    if (!bodyBlock) // zero-dimensional: run the body once
      b.setInsertionPoint(p);
    for (Operation &op : p.getBody()->without_terminator())
      b.clone(op, map);
    p.erase();
  }
  return success();
}

/// Clones the host ops (views, constants) that `launch` uses into its body,
/// transitively, so that the outlined kernel receives only the function's
/// buffers (static, identity layout: passed as bare pointers) and no strided
/// views.
void sinkHostOps(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    for (Value v : captured) {
      Operation *def = v.getDefiningOp();
      if (!def || !isHostOp(def) || isa<gpu::LaunchOp>(def) ||
          def->getNumRegions() != 0)
        continue;
      OpBuilder b(&body.front(), body.front().begin());
      Operation *clone = b.clone(*def);
      for (auto [from, to] :
           llvm::zip(def->getResults(), clone->getResults()))
        replaceAllUsesInRegionWith(from, to, body);
      changed = true;
    }
  }
}

struct MapToGpuPass : public tfrt::impl::MapToGpuBase<MapToGpuPass> {
  using MapToGpuBase::MapToGpuBase;

  /// One thread per iteration of `p`, linearised with the last dim fastest.
  LogicalResult mapLoop(scf::ParallelOp p) {
    if (p.getNumResults() != 0)
      return p.emitError("parallel loops with reductions are not supported on "
                         "the GPU target");
    Location loc = p.getLoc();
    OpBuilder b(p);
    // Trip counts; static in practice (shapes are static).
    SmallVector<int64_t> extents;
    int64_t total = 1;
    for (auto [lb, ub, st] :
         llvm::zip(p.getLowerBound(), p.getUpperBound(), p.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(st);
      if (!l || !u || !s || *s <= 0)
        return p.emitError("the GPU target needs constant loop bounds");
      int64_t e = *u > *l ? (*u - *l + *s - 1) / *s : 0;
      extents.push_back(e);
      total *= e;
      if (total > (int64_t(1) << 31) - 1)
        return p.emitError("iteration space too large for one GPU launch");
    }
    if (total == 0) {
      p.erase();
      return success();
    }
    int64_t threads = std::min<int64_t>(blockSize, llvm::alignTo(total, 32));
    int64_t blocks = llvm::divideCeil(total, threads);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value one = cst(1);
    auto launch = gpu::LaunchOp::create(b, loc, cst(blocks), one, one,
                                        cst(threads), one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    Type i32 = b.getI32Type();
    auto c32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i32, v);
    };
    Value bid = arith::IndexCastUIOp::create(b, loc, i32,
                                             launch.getBlockIds().x);
    Value tid = arith::IndexCastUIOp::create(b, loc, i32,
                                             launch.getThreadIds().x);
    Value linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, c32(threads)), tid);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          linear, c32(total));
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> ivs(extents.size());
    Value rest = linear;
    for (int64_t d = int64_t(extents.size()) - 1; d >= 0; --d) {
      Value idx = rest;
      if (d > 0) {
        idx = arith::RemUIOp::create(b, loc, rest, c32(extents[d]));
        rest = arith::DivUIOp::create(b, loc, rest, c32(extents[d]));
      }
      Value i = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), idx);
      int64_t lb = *getConstantIntValue(p.getLowerBound()[d]);
      int64_t st = *getConstantIntValue(p.getStep()[d]);
      if (st != 1)
        i = arith::MulIOp::create(b, loc, i,
                                  arith::ConstantIndexOp::create(b, loc, st));
      if (lb != 0)
        i = arith::AddIOp::create(b, loc, i,
                                  arith::ConstantIndexOp::create(b, loc, lb));
      ivs[d] = i;
    }
    IRMapping map;
    for (auto [old, iv] : llvm::zip(p.getInductionVars(), ivs))
      map.map(old, iv);
    for (Operation &op : p.getBody()->without_terminator())
      b.clone(op, map);
    p.erase();
    sinkHostOps(launch);
    return serializeNestedParallel(launch);
  }

  /// Moves the ops [first, last] into a single-thread launch.
  LogicalResult wrapSingleThread(ArrayRef<Operation *> run) {
    llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
    for (Operation *op : run)
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers()) {
          Operation *top = user;
          while (top && !inRun.count(top) && top->getParentOp() &&
                 !isa<func::FuncOp>(top->getParentOp()))
            top = top->getParentOp();
          if (!inRun.count(top))
            return op->emitError("a value computed from device memory is "
                                 "used on the host; not supported on the GPU "
                                 "target");
        }
    // Placed at the last op of the run: host ops in between (constants and
    // views, which touch no memory) then dominate the launch.
    OpBuilder b(run.back());
    Location loc = run.front()->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    auto term = gpu::TerminatorOp::create(b, loc);
    for (Operation *op : run)
      op->moveBefore(term);
    sinkHostOps(launch);
    return serializeNestedParallel(launch);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (blockSize <= 0 || blockSize > 1024 || blockSize % 32) {
      func.emitError("block-size must be a multiple of 32 in [32, 1024]");
      return signalPassFailure();
    }
    for (Block &block : func.getBody()) {
      SmallVector<Operation *> run;
      auto flush = [&]() -> LogicalResult {
        if (run.empty())
          return success();
        LogicalResult r = wrapSingleThread(run);
        run.clear();
        return r;
      };
      llvm::SmallPtrSet<Operation *, 16> inRun;
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (auto p = dyn_cast<scf::ParallelOp>(op)) {
          inRun.clear();
          if (failed(flush()) || failed(mapLoop(p)))
            return signalPassFailure();
          continue;
        }
        // Pure ops stay on the host unless they consume a value of the
        // current device run.
        bool pure = isMemoryEffectFree(&op) && op.getNumRegions() == 0;
        bool usesRun = llvm::any_of(op.getOperands(), [&](Value v) {
          return v.getDefiningOp() && inRun.count(v.getDefiningOp());
        });
        if (isHostOp(&op) || (pure && !usesRun))
          continue;
        run.push_back(&op);
        inRun.insert(&op);
      }
      if (failed(flush()))
        return signalPassFailure();
    }
  }
};
struct MergeKernelModulesPass
    : public tfrt::impl::MergeKernelModulesBase<MergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gpuModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() < 2)
      return;
    gpu::GPUModuleOp target = gpuModules.front();
    // New kernel name per (module, kernel).
    llvm::StringMap<StringAttr> newNames;
    MLIRContext *ctx = &getContext();
    for (gpu::GPUModuleOp gm : gpuModules) {
      for (Operation &op : llvm::make_early_inc_range(gm.getBody()->getOperations())) {
        auto fn = dyn_cast<gpu::GPUFuncOp>(op);
        if (!fn) {
          if (gm != target) {
            gm.emitError("cannot merge a kernel module holding more than "
                         "kernels");
            return signalPassFailure();
          }
          continue;
        }
        std::string key = (gm.getSymName() + "::" + fn.getName()).str();
        StringAttr name = StringAttr::get(ctx, gm.getSymName());
        if (gm == target && fn.getName() == gm.getSymName())
          continue;
        newNames[key] = name;
        SymbolTable::setSymbolName(fn, name);
        if (gm != target)
          fn->moveBefore(target.getBody(), target.getBody()->end());
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      std::string key = (launch.getKernelModuleName().getValue() +
                         "::" + launch.getKernelName().getValue())
                            .str();
      auto it = newNames.find(key);
      if (it == newNames.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          target.getSymNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp gm : gpuModules)
      if (gm != target)
        gm.erase();
  }
};
} // namespace
