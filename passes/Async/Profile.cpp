//===- Profile.cpp - op types and FLOPs in locations ----------------------===//
//
// Implements tfrt-profile-tag-ops and tfrt-profile-count-flops (see
// Passes.td) and the reader that tfrt-async-outline uses for --profile.
// Facts travel in fused locations because every later rewrite (lowering,
// fusion, tiling, vectorisation, bufferization) keeps locations, while
// discardable attributes get lost on the way.
//
//===----------------------------------------------------------------------===//

#include "passes/Async/Profile.h"
#include "passes/Async/CostModel.h"
#include "passes/Async/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tfrt {
#define GEN_PASS_DEF_PROFILETAGOPS
#define GEN_PASS_DEF_PROFILECOUNTFLOPS
#include "passes/Async/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// The metadata dictionary of a fused location of ours, or null.
DictionaryAttr profileMetadata(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return nullptr;
  auto dict = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata());
  if (!dict || !(dict.contains(tfrt::async::kProfileOpKey) ||
                 dict.contains(tfrt::async::kProfileKernelKey)))
    return nullptr;
  return dict;
}

/// `loc` wrapped in a fused location carrying `metadata`.
Location withMetadata(Location loc, DictionaryAttr metadata) {
  return FusedLoc::get(loc.getContext(), {loc}, metadata);
}

/// Floating-point operations of one op of a linalg body.
int64_t flopsOf(Operation &op) {
  auto isFloat = [](Value v) {
    return isa<FloatType>(getElementTypeOrSelf(v.getType()));
  };
  if (isa<math::FmaOp>(op))
    return 2;
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, arith::NegFOp>(op))
    return 1;
  if (isa<arith::CmpFOp>(op))
    return 1;
  if (isa<math::MathDialect>(op.getDialect()) && op.getNumResults() == 1 &&
      isFloat(op.getResult(0)))
    return 1;
  return 0;
}

struct ProfileTagOpsPass
    : public tfrt::impl::ProfileTagOpsBase<ProfileTagOpsPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      Dialect *dialect = op->getDialect();
      if (!dialect || dialect->getNamespace() != "graph" ||
          op->getName().stripDialect() == "constant")
        return;
      if (profileMetadata(op->getLoc()))
        return;
      op->setLoc(tfrt::async::withProfileOp(op->getLoc(),
                                            op->getName().stripDialect()));
    });
  }
};

struct ProfileCountFlopsPass
    : public tfrt::impl::ProfileCountFlopsBase<ProfileCountFlopsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    int64_t id = 0;
    getOperation().walk([&](linalg::LinalgOp op) {
      auto meta = DictionaryAttr::get(
          ctx,
          {NamedAttribute(b.getStringAttr(tfrt::async::kProfileKernelKey),
                          b.getI64IntegerAttr(id++)),
           NamedAttribute(b.getStringAttr(tfrt::async::kProfileFlopsKey),
                          b.getI64IntegerAttr(tfrt::async::countFlops(op)))});
      op->setLoc(withMetadata(op->getLoc(), meta));
    });
  }
};
} // namespace

int64_t tfrt::async::countFlops(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 0;
  Block &body = op->getRegion(0).front();
  int64_t perIteration = 0;
  if (linalgOp.getNumReductionLoops() == 0) {
    for (Operation &inner : body.without_terminator())
      perIteration += flopsOf(inner);
  } else {
    // A reduction (convolution, matmul, pooling): the accumulation and the
    // ops that feed it directly (the multiply of a multiply-accumulate).
    // Elementwise producers that fusion moved into the body are recomputed
    // on every iteration of the reduction and are not useful work.
    llvm::SmallPtrSet<Operation *, 8> accumulating, feeding;
    SmallVector<Value> worklist;
    for (BlockArgument acc :
         body.getArguments().drop_front(linalgOp.getNumDpsInputs()))
      worklist.push_back(acc);
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers())
        if (user->getBlock() == &body && accumulating.insert(user).second)
          llvm::append_range(worklist, user->getResults());
    }
    for (Operation *acc : accumulating) {
      perIteration += flopsOf(*acc);
      for (Value operand : acc->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (def->getBlock() == &body && !accumulating.contains(def) &&
              feeding.insert(def).second)
            perIteration += flopsOf(*def);
    }
  }
  if (perIteration == 0)
    return 0;
  int64_t iterations = 1;
  for (int64_t r : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r))
      return 0;
    if (r > 0 && iterations > INT64_MAX / r)
      return INT64_MAX;
    iterations *= std::max<int64_t>(r, 0);
  }
  return iterations > INT64_MAX / perIteration ? INT64_MAX
                                               : iterations * perIteration;
}

namespace {
int64_t saturatingMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0)
    return 0;
  return a > tfrt::async::kMaxCost / b ? tfrt::async::kMaxCost : a * b;
}

/// Static trip count of an scf.for / scf.forall (1 when unknown).
int64_t tripsOf(Operation *op) {
  auto trips = [](OpFoldResult lb, OpFoldResult ub, OpFoldResult step) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> st = getConstantIntValue(step);
    if (!l || !u || !st || *st <= 0)
      return int64_t(1);
    return std::max<int64_t>(0, (*u - *l + *st - 1) / *st);
  };
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return trips(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  int64_t n = 1;
  if (auto loop = dyn_cast<scf::ForallOp>(op))
    for (auto [l, u, st] :
         llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                   loop.getMixedStep()))
      n = saturatingMul(n, trips(l, u, st));
  return n;
}

/// Floating-point operations of one execution of a non-linalg op: a
/// vector.contract's multiply-adds over its iteration space, FMAs, float
/// arith and math ops over their lanes (0 for loads, stores, broadcasts and
/// everything else).
int64_t floatWorkOf(Operation *op) {
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    SmallVector<int64_t> bounds;
    contract.getIterationBounds(bounds);
    int64_t n = 2;
    for (int64_t d : bounds)
      n = saturatingMul(n, d);
    return n;
  }
  if (op->getNumResults() != 1)
    return 0;
  int64_t lanes = 1;
  if (auto vec = dyn_cast<VectorType>(op->getResult(0).getType())) {
    if (vec.isScalable())
      return 0;
    lanes = vec.getNumElements();
  }
  // flopsOf counts one lane (and knows which ops are float ones).
  int64_t perLane = isa<vector::FMAOp>(op) ? 2 : flopsOf(*op);
  return saturatingMul(perLane, lanes);
}

/// Adds the facts of the location of `op`, which runs `times` times; its
/// floating-point work counts unless it is in a linalg op's body (which
/// countFlops of that op covers).
void addLocationFacts(Operation *op, int64_t times, bool inLinalgBody,
                      tfrt::async::ProfileFacts &facts) {
  int64_t work = 0;
  if (!inLinalgBody)
    work = isa<linalg::LinalgOp>(op)
               ? saturatingMul(times, tfrt::async::countFlops(op))
               : saturatingMul(times, floatWorkOf(op));
  op->getLoc()->walk([&](Location loc) {
    if (auto name = dyn_cast<NameLoc>(loc)) {
      facts.nodes.insert(name.getName());
    } else if (DictionaryAttr meta = profileMetadata(loc)) {
      if (auto type = meta.getAs<StringAttr>(tfrt::async::kProfileOpKey))
        facts.ops.insert(type);
      auto kernel = meta.getAs<IntegerAttr>(tfrt::async::kProfileKernelKey);
      auto flops = meta.getAs<IntegerAttr>(tfrt::async::kProfileFlopsKey);
      if (kernel && flops) {
        facts.kernels.insert({kernel.getInt(), flops.getInt()});
        int64_t &w = facts.weights[kernel.getInt()];
        w = std::min(tfrt::async::kMaxCost, w + work);
      }
    }
    return WalkResult::advance();
  });
}

/// Pre-order: an op's own location (a fused kernel's consumer) before the
/// locations of its body (the producers fusion moved into it).
void collectFacts(Operation *op, int64_t times, bool inLinalgBody,
                  tfrt::async::ProfileFacts &facts) {
  addLocationFacts(op, times, inLinalgBody, facts);
  inLinalgBody |= isa<linalg::LinalgOp>(op);
  if (isa<scf::ForOp, scf::ForallOp>(op))
    times = saturatingMul(times, tripsOf(op));
  else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    times = saturatingMul(times,
                          std::max<int64_t>(1, tfrt::async::estimateCost(op) /
                                                   tfrt::async::bodyCost(op)));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &inner : block)
        collectFacts(&inner, times, inLinalgBody, facts);
}
} // namespace

void tfrt::async::collectProfileFacts(Operation *root, ProfileFacts &facts) {
  collectFacts(root, 1, false, facts);
}
