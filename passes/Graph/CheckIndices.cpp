//===- CheckIndices.cpp - run-time checks of gather/scatter indices -------===//
//
// Implements tfrt-check-indices (see Passes.td): constant indices are
// checked now, the others get a reduction over them and a cf.assert that
// tfrt-lower-checks turns into a report to the runtime.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"

namespace tfrt::graph {
#define GEN_PASS_DEF_CHECKINDICES
#include "passes/Graph/Passes.h.inc"
} // namespace tfrt::graph

using namespace mlir;
using namespace tfrt::graph;

namespace {
/// What the indices of one op address: the data dimensions `bounds`, one
/// per index (`perComponent` false: every element indexes bounds[0]) or
/// one per position along the indices' last dimension (GatherND,
/// ScatterND).
struct IndexedOp {
  Operation *op;
  Value indices;
  SmallVector<int64_t> bounds;
  bool perComponent = false;
  StringRef onnxType;
};

std::optional<IndexedOp> describe(Operation *op) {
  auto dims = [](Value v) -> ArrayRef<int64_t> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape() ? t.getShape() : ArrayRef<int64_t>();
  };
  auto axisBound = [&](Value data, int64_t axis) -> SmallVector<int64_t> {
    ArrayRef<int64_t> d = dims(data);
    int64_t rank = static_cast<int64_t>(d.size());
    if (axis < 0)
      axis += rank;
    if (d.empty() || axis < 0 || axis >= rank)
      return {};
    return {d[axis]};
  };
  IndexedOp r{op, Value(), {}, false, ""};
  if (auto g = dyn_cast<GatherOp>(op)) {
    r = {op, g.getIndices(), axisBound(g.getInput(), g.getAxis()), false,
         "Gather"};
  } else if (auto g = dyn_cast<GatherElementsOp>(op)) {
    r = {op, g.getIndices(), axisBound(g.getInput(), g.getAxis()), false,
         "GatherElements"};
  } else if (auto s = dyn_cast<ScatterElementsOp>(op)) {
    r = {op, s.getIndices(), axisBound(s.getInput(), s.getAxis()), false,
         "ScatterElements"};
  } else if (isa<GatherNDOp, ScatterNDOp>(op)) {
    Value data = op->getOperand(0), indices = op->getOperand(1);
    int64_t batch = 0;
    if (auto g = dyn_cast<GatherNDOp>(op))
      batch = g.getBatchDims();
    ArrayRef<int64_t> d = dims(data), id = dims(indices);
    if (d.empty() || id.empty())
      return std::nullopt;
    int64_t len = id.back();
    if (batch < 0 || batch + len > static_cast<int64_t>(d.size()))
      return std::nullopt;
    r = {op, indices, SmallVector<int64_t>(d.slice(batch, len)), true,
         isa<GatherNDOp>(op) ? "GatherND" : "ScatterND"};
  } else {
    return std::nullopt;
  }
  auto it = dyn_cast<RankedTensorType>(r.indices.getType());
  if (r.bounds.empty() || !it || !it.hasStaticShape() ||
      !it.getElementType().isSignlessInteger() || it.getNumElements() == 0)
    return std::nullopt;
  return r;
}

/// "node 'N' (Gather)" from the op's first NameLoc (the importers' node
/// name), or "Gather" alone.
std::string nodeLabel(const IndexedOp &d) {
  std::string node;
  d.op->getLoc()->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l); n && node.empty())
      node = n.getName().str();
    return WalkResult::advance();
  });
  std::string type = d.onnxType.str();
  return node.empty() ? type : "node '" + node + "' (" + type + ")";
}

std::string rangeText(const IndexedOp &d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (!d.perComponent) {
    os << "outside [" << -d.bounds[0] << ", " << d.bounds[0] << ")";
    return s;
  }
  os << "outside the data dimensions [";
  llvm::interleaveComma(d.bounds, os);
  os << "] (component k must lie in [-d_k, d_k))";
  return s;
}

/// When a value matters, as a disjunction of conjunctions of branch
/// conditions (a condition value and whether it is negated); an empty
/// conjunction is "always", no conjunction at all "never".
using Conjunction = SmallVector<std::pair<Value, bool>, 2>;
using Guard = SmallVector<Conjunction, 2>;

/// Whether the guard always holds (one of its conjunctions is empty).
bool always(const Guard &g) {
  return llvm::any_of(g, [](const Conjunction &c) { return c.empty(); });
}

/// Guards with more conjunctions than this are not built (the op is left
/// unchecked, as before guards existed).
constexpr size_t kMaxGuardTerms = 8;

/// The 0-d i1 condition of a `graph.where` that selects an If's results (the
/// importer's select on a run-time condition), or null.
Value ifCondition(WhereOp where) {
  auto t = dyn_cast<RankedTensorType>(where->getOperand(0).getType());
  if (!t || t.getRank() != 0 || !t.getElementType().isInteger(1))
    return Value();
  return where->getOperand(0);
}

/// When the results of the speculative op `op` matter: for each use,
/// through the importer's selects (`graph.where` on a 0-d condition: the
/// then operand under the condition, the else operand under its negation)
/// and through other speculative ops (nested Ifs). A use by any other op
/// is unconditional. std::nullopt where that cannot be told (too many
/// terms or too deep a nest).
std::optional<Guard> guardOf(Operation *op,
                             DenseMap<Operation *, std::optional<Guard>> &memo,
                             unsigned depth = 0) {
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  if (depth > 64)
    return std::nullopt;
  // Adds a conjunction unless the guard holds it already (two uses under
  // the same condition).
  auto addTerm = [](Guard &g, const Conjunction &c) {
    if (!llvm::is_contained(g, c))
      g.push_back(c);
  };
  std::optional<Guard> result = Guard();
  for (Value v : op->getResults()) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      bool speculative = user->hasAttr("graph.speculative");
      auto where = dyn_cast<WhereOp>(user);
      Value cond = where ? ifCondition(where) : Value();
      if (!speculative && !(cond && use.getOperandNumber() != 0)) {
        // Used whatever the branch: always.
        result = Guard{Conjunction()};
        memo[op] = result;
        return result;
      }
      std::optional<Guard> outer = Guard{Conjunction()};
      if (speculative) {
        outer = guardOf(user, memo, depth + 1);
        if (!outer)
          return memo[op] = std::nullopt;
      }
      if (!cond || use.getOperandNumber() == 0) {
        // A speculative op other than a select, or the condition of a
        // nested select: it matters when its user does.
        for (const Conjunction &c : *outer)
          addTerm(*result, c);
      } else {
        bool negated = use.getOperandNumber() == 2;
        for (Conjunction c : *outer) {
          c.push_back({cond, negated});
          addTerm(*result, c);
        }
      }
      if (result->size() > kMaxGuardTerms)
        return memo[op] = std::nullopt;
    }
  }
  memo[op] = result;
  return result;
}

struct CheckIndicesPass
    : public tfrt::graph::impl::CheckIndicesBase<CheckIndicesPass> {
  void runOnOperation() override {
    SmallVector<std::pair<IndexedOp, Guard>> ops;
    DenseMap<Operation *, std::optional<Guard>> memo;
    getOperation().walk([&](Operation *op) {
      std::optional<IndexedOp> d = describe(op);
      if (!d)
        return;
      // The ops of an If's branches under a run-time condition run whether
      // or not their branch is taken (the importer selects the results):
      // their indices are checked only under the conditions that select
      // them (constants too: at run time).
      if (!op->hasAttr("graph.speculative")) {
        ops.push_back({*d, Guard{Conjunction()}});
        return;
      }
      std::optional<Guard> g = guardOf(op, memo);
      if (g && !g->empty())
        ops.push_back({*d, *g});
    });
    DominanceInfo dom(getOperation());
    for (auto &[d, guard] : ops) {
      if (auto c = d.indices.getDefiningOp<ConstantOp>()) {
        // Constant indices out of range are an error of the model, unless
        // the op only matters under some branch conditions: then it is an
        // error of the runs that take that branch.
        if (always(guard)) {
          if (failed(checkConstant(d, c)))
            return signalPassFailure();
          continue;
        }
        if (succeeded(checkConstant(d, c, /*report=*/false)))
          continue;
      }
      if (addRuntimeCheck(d, guard, dom))
        ++numChecks;
    }
  }

  /// Constant indices out of range are an error of the model.
  /// With `report` false, only whether all are in range (no diagnostic).
  LogicalResult checkConstant(const IndexedOp &d, ConstantOp c,
                              bool report = true) {
    auto attr = dyn_cast<DenseIntElementsAttr>(c.getValue());
    if (!attr)
      return success();
    int64_t len = d.perComponent ? static_cast<int64_t>(d.bounds.size()) : 1;
    int64_t i = 0;
    for (const APInt &v : attr.getValues<APInt>()) {
      int64_t bound = d.bounds[d.perComponent ? i % len : 0];
      int64_t x = v.getSExtValue();
      if ((x < -bound || x >= bound) && !report)
        return failure();
      if (x < -bound || x >= bound)
        return d.op->emitError()
               << nodeLabel(d) << ": constant index " << x << " (element " << i
               << " of the indices) is " << rangeText(d);
      ++i;
    }
    return success();
  }

  /// ok = AND over the indices of (-bound <= x < bound), then cf.assert
  /// (of ok or not the guard, when the op runs speculatively). False when
  /// the guard's conditions are not all available where the check would go.
  bool addRuntimeCheck(const IndexedOp &d, const Guard &guard,
                       DominanceInfo &dom) {
    // Before the op, or after the last condition the guard reads when that
    // is defined later in the same block.
    OpBuilder b(d.op);
    Operation *last = nullptr;
    for (const Conjunction &c : guard)
      for (auto [cond, negated] : c) {
        if (dom.properlyDominates(cond, d.op))
          continue;
        Operation *def = cond.getDefiningOp();
        if (!def || def->getBlock() != d.op->getBlock())
          return false;
        if (!last || last->isBeforeInBlock(def))
          last = def;
      }
    if (last)
      b.setInsertionPointAfter(last);
    Location loc = d.op->getLoc();
    auto it = cast<RankedTensorType>(d.indices.getType());
    Type elem = it.getElementType();
    int64_t rank = it.getRank();
    Type i1 = b.getI1Type();
    Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i1);
    Value init = linalg::FillOp::create(b, loc, yes, empty).getResult(0);
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::reduction);
    AffineMap all = b.getMultiDimIdentityMap(rank);
    AffineMap none = AffineMap::get(rank, 0, {}, b.getContext());
    auto check = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{d.indices},
        ValueRange{init}, ArrayRef<AffineMap>{all, none}, iters,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          auto cst = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(nb, l, nb.getIntegerAttr(elem, v));
          };
          Value bound;
          if (!d.perComponent || d.bounds.size() == 1) {
            bound = cst(d.bounds[0]);
          } else {
            // The bound of the component: select on the last loop index.
            Value k = linalg::IndexOp::create(nb, l, rank - 1);
            bound = cst(d.bounds.back());
            for (int64_t j = static_cast<int64_t>(d.bounds.size()) - 2; j >= 0;
                 --j) {
              Value isJ = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq, k,
                  arith::ConstantIndexOp::create(nb, l, j));
              bound =
                  arith::SelectOp::create(nb, l, isJ, cst(d.bounds[j]), bound);
            }
          }
          Value x = a[0];
          Value lowOk = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::sge, x,
              arith::SubIOp::create(nb, l, cst(0), bound));
          Value highOk =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, x, bound);
          Value ok = arith::AndIOp::create(
              nb, l, a[1], arith::AndIOp::create(nb, l, lowOk, highOk));
          linalg::YieldOp::create(nb, l, ok);
        });
    Value ok =
        tensor::ExtractOp::create(b, loc, check.getResult(0), ValueRange{});
    if (!always(guard)) {
      // ok or not (OR over the conjunctions of the branch conditions).
      Value any;
      for (const Conjunction &c : guard) {
        Value all;
        for (auto [cond, negated] : c) {
          Value v = tensor::ExtractOp::create(b, loc, cond, ValueRange{});
          if (negated)
            v = arith::XOrIOp::create(b, loc, v, yes);
          all = all ? arith::AndIOp::create(b, loc, all, v) : v;
        }
        if (!all)
          all = yes;
        any = any ? arith::OrIOp::create(b, loc, any, all) : all;
      }
      ok = arith::OrIOp::create(b, loc, ok,
                                arith::XOrIOp::create(b, loc, any, yes));
    }
    cf::AssertOp::create(
        b, loc, ok,
        nodeLabel(d) +
            (d.perComponent ? ": an index tuple is " : ": an index is ") +
            rangeText(d));
    return true;
  }
};
} // namespace
