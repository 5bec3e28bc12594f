//===- SpecializeShapes.cpp - fix input shapes, infer and fold ------------===//
//
// Implements tfrt-specialize-shapes and the infer-and-fold walk shared with
// the importers: input shapes come from the user, every graph op's result
// types are re-inferred in program order, and ops whose operands are constant
// fold, so shape-computing subgraphs collapse into constants.
//
//===----------------------------------------------------------------------===//

#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/FoldUtils.h"
#include "llvm/ADT/StringExtras.h"

namespace tfrt::graph {
#define GEN_PASS_DEF_SPECIALIZESHAPES
#include "passes/Graph/Passes.h.inc"
} // namespace tfrt::graph

using namespace mlir;
using namespace tfrt::graph;

namespace {
std::string typeShape(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  if (!r)
    return "[*]";
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(r.getShape())) {
    if (i)
      s += ",";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

bool isStatic(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return !isa<TensorType>(t) || (r && r.hasStaticShape());
}

/// The model-level name of argument `i` (its `graph.name`, else "argN").
std::string argName(func::FuncOp func, unsigned i) {
  if (auto name = func.getArgAttrOfType<StringAttr>(i, "graph.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

} // namespace

LogicalResult tfrt::graph::parseDims(StringRef text,
                                     SmallVectorImpl<int64_t> &dims) {
  dims.clear();
  text = text.trim();
  if (text.empty())
    return success();
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0)
      return failure();
    dims.push_back(d);
  }
  return success();
}

LogicalResult tfrt::graph::inferAndFold(Operation *funcOp) {
  auto func = dyn_cast<func::FuncOp>(funcOp);
  if (!func || func.isExternal())
    return success();
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<GraphDialect>(op->getDialect()))
      ops.push_back(op);
  });
  OpBuilder builder(func.getContext());
  for (Operation *op : ops) {
    if (failed(refineResultTypes(op)))
      return failure();
    (void)foldInPlace(op, builder);
  }
  // Drop graph ops that folding left without users.
  SmallVector<Operation *> all;
  func.walk([&](Operation *op) { all.push_back(op); });
  for (Operation *op : llvm::reverse(all))
    if (isa<GraphDialect>(op->getDialect()) && isOpTriviallyDead(op))
      op->erase();
  // Keep the function type in sync with what it now returns.
  SmallVector<Type> results;
  func.walk([&](func::ReturnOp ret) {
    results.assign(ret.getOperandTypes().begin(), ret.getOperandTypes().end());
  });
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().getArgumentTypes(), results));
  return success();
}

LogicalResult tfrt::graph::verifyAllStatic(Operation *funcOp) {
  auto func = dyn_cast<func::FuncOp>(funcOp);
  if (!func || func.isExternal())
    return success();
  bool ok = true;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    if (isStatic(arg.getType()))
      continue;
    std::string name = argName(func, i);
    emitError(func.getLoc())
        << "input '" << name << "' has unknown dimensions "
        << typeShape(arg.getType()) << "; fix them with --input-shape "
        << name << "=D0xD1x...";
    ok = false;
  }
  if (!ok)
    return failure();
  // Report the first op whose result stays unknown: later ones follow from it.
  WalkResult r = func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (!isStatic(v.getType())) {
        op->emitError("could not infer a static shape for the result of '")
            << op->getName() << "' (got " << typeShape(v.getType()) << ")";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

namespace {
struct SpecializeShapesPass
    : public tfrt::graph::impl::SpecializeShapesBase<SpecializeShapesPass> {
  using SpecializeShapesBase::SpecializeShapesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entryFunc;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal())
        continue;
      if (!entry.empty() ? f.getSymName() == entry : f.isPublic()) {
        if (entryFunc && entry.empty()) {
          module.emitError("more than one public function; name the entry "
                           "with entry=");
          return signalPassFailure();
        }
        entryFunc = f;
      }
    }
    if (!inputShapes.empty() && !entryFunc) {
      module.emitError("no entry function to specialise");
      return signalPassFailure();
    }
    if (entryFunc && failed(applyShapes(entryFunc)))
      return signalPassFailure();
    for (auto f : module.getOps<func::FuncOp>()) {
      if (failed(inferAndFold(f)))
        return signalPassFailure();
      if (requireStatic && failed(verifyAllStatic(f)))
        return signalPassFailure();
    }
  }

  LogicalResult applyShapes(func::FuncOp func) {
    for (const std::string &spec : inputShapes) {
      auto [name, dimsText] = StringRef(spec).split('=');
      SmallVector<int64_t> dims;
      if (!StringRef(spec).contains('=') || name.empty() ||
          failed(parseDims(dimsText, dims)))
        return func.emitError("malformed input shape '")
               << spec << "': expected NAME=D0xD1x... (e.g. x=1x3x224x224)";
      std::optional<unsigned> index;
      std::string known;
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        std::string n = argName(func, i);
        known += (i ? ", " : "") + n;
        if (n == name)
          index = i;
      }
      if (!index)
        return func.emitError("unknown input '")
               << name << "' in input shape; the model's inputs are: " << known;
      BlockArgument arg = func.getArgument(*index);
      auto old = cast<TensorType>(arg.getType());
      if (auto r = dyn_cast<RankedTensorType>(old)) {
        bool ok = r.getRank() == static_cast<int64_t>(dims.size());
        for (size_t d = 0; ok && d < dims.size(); ++d)
          ok = r.isDynamicDim(d) || r.getDimSize(d) == dims[d];
        if (!ok)
          return func.emitError("input '")
                 << name << "': shape " << dimsText
                 << " does not match the model's " << typeShape(r);
      }
      arg.setType(RankedTensorType::get(dims, old.getElementType()));
    }
    func.setType(FunctionType::get(func.getContext(),
                                   func.getBody().getArgumentTypes(),
                                   func.getResultTypes()));
    return success();
  }
};
} // namespace
