//===- CostModel.cpp - cost estimates of the async lowering ---------------===//

#include "passes/Async/CostModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {
int64_t mulSat(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0)
    return 0;
  return a > tfrt::async::kMaxCost / b ? tfrt::async::kMaxCost : a * b;
}

int64_t addSat(int64_t a, int64_t b) {
  return a > tfrt::async::kMaxCost - b ? tfrt::async::kMaxCost : a + b;
}

int64_t trips(OpFoldResult lb, OpFoldResult ub, OpFoldResult step) {
  std::optional<int64_t> l = getConstantIntValue(lb);
  std::optional<int64_t> u = getConstantIntValue(ub);
  std::optional<int64_t> s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return 1;
  return std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
}
} // namespace

int64_t tfrt::async::bodyCost(Operation *op) {
  if (op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 1;
  int64_t cost = 0;
  for (Operation &inner : op->getRegion(0).front().without_terminator())
    cost += isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                math::Log2Op, math::Log1pOp, math::TanhOp, math::ErfOp,
                math::PowFOp, math::SinOp, math::CosOp, math::AtanOp,
                math::Atan2Op, math::RsqrtOp, math::SqrtOp>(inner)
                ? 16
                : 1;
  return std::max<int64_t>(cost, 1);
}

int64_t tfrt::async::estimateCost(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    int64_t n = 1;
    for (int64_t r : linalgOp.getStaticLoopRanges())
      if (!ShapedType::isDynamic(r))
        n = mulSat(n, std::max<int64_t>(r, 0));
    return mulSat(n, bodyCost(op));
  }
  int64_t n = 1;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    n = trips(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  else if (auto loop = dyn_cast<scf::ForallOp>(op))
    for (auto [l, u, s] :
         llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                   loop.getMixedStep()))
      n = mulSat(n, trips(l, u, s));
  if (op->getNumRegions() == 0)
    return 1;
  int64_t inner = 0;
  for (Region &r : op->getRegions())
    for (Operation &child : r.getOps())
      inner = addSat(inner, estimateCost(&child));
  return mulSat(n, std::max<int64_t>(inner, 1));
}

int64_t tfrt::async::bytesMoved(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0;
  auto bytesOf = [](Value v) -> int64_t {
    auto t = dyn_cast<ShapedType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
      return 0;
    return mulSat(
        std::max<int64_t>(t.getNumElements(), 1),
        std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8));
  };
  int64_t bytes = 0;
  for (OpOperand *in : linalgOp.getDpsInputOperands())
    bytes = addSat(bytes, bytesOf(in->get()));
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    int64_t b = bytesOf(init.get());
    bytes = addSat(
        bytes, linalgOp.payloadUsesValueFromOperand(&init) ? mulSat(b, 2) : b);
  }
  return bytes;
}
