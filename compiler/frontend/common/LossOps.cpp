//===- LossOps.cpp - ONNX loss ops onto the graph dialect -----------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12 and 13),
// decomposed into existing graph ops: the class axis is indexed with
// gather_elements on the unsqueezed targets, per-class weights with gather,
// and ignore_index is a where mask (an ignored target is replaced by 0 before
// any gathering so that it never indexes out of range).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

FailureOr<Value> NodeImporter::nllLoss(NodeCtx &n, Value logProb, Value target,
                                       Value weight) {
  auto reductionAttr = stringAttr(n, "reduction");
  auto ignoreIndex = optIntAttr(n, "ignore_index");
  if (failed(reductionAttr) || failed(ignoreIndex))
    return failure();
  std::string reduction = reductionAttr->value_or("mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    error(n) << "attribute 'reduction' must be 'none', 'sum' or 'mean', not '"
             << reduction << "'";
    return failure();
  }

  auto xt = rankedOf(logProb);
  auto tt = rankedOf(target);
  if (!xt || !tt || xt.getRank() < 2 || tt.getRank() != xt.getRank() - 1) {
    error(n) << "needs an input [N, C, d1..dk] of known rank >= 2 and a "
                "target [N, d1..dk] of one rank less";
    return failure();
  }
  for (int64_t i = 0; i < tt.getRank(); ++i) {
    int64_t xd = xt.getDimSize(i == 0 ? 0 : i + 1), td = tt.getDimSize(i);
    if (xd != kDyn && td != kDyn && xd != td) {
      error(n) << "target shape " << shapeString(tt.getShape())
               << " does not match input shape " << shapeString(xt.getShape())
               << " without its class dimension";
      return failure();
    }
  }
  Type targetElem = tt.getElementType();
  if (!isa<IntegerType>(targetElem)) {
    error(n) << "target must be an integer tensor";
    return failure();
  }
  if (weight) {
    auto wt = rankedOf(weight);
    int64_t c = xt.getDimSize(1);
    if (!wt || wt.getRank() != 1 ||
        (c != kDyn && !wt.isDynamicDim(0) && wt.getDimSize(0) != c)) {
      error(n) << "weight must be a 1-D tensor [C] matching the input's "
                  "class dimension";
      return failure();
    }
  }
  Type elem = xt.getElementType();

  // Ignored positions: the mask, and targets with them replaced by 0.
  Value mask, safeTarget = target;
  if (*ignoreIndex) {
    int64_t ignored = **ignoreIndex;
    APInt ii(cast<IntegerType>(targetElem).getWidth(), (uint64_t)ignored,
             /*isSigned=*/true, /*implicitTrunc=*/true);
    Value iiValue = constant(
        n, DenseElementsAttr::get(RankedTensorType::get({}, targetElem),
                                  ArrayRef<APInt>(ii)));
    auto eq = build(n, "graph.equal", {target, iiValue});
    if (failed(eq))
      return failure();
    mask = *eq;
    auto safe = build(n, "graph.where",
                      {mask, constant(n, scalarOf(targetElem, 0)), target});
    if (failed(safe))
      return failure();
    safeTarget = *safe;
  }

  // -logProb[n, target[n, d...], d...].
  auto idx = build(n, "graph.unsqueeze", {safeTarget, constI64(n, {1})});
  if (failed(idx))
    return failure();
  auto picked = build(n, "graph.gather_elements", {logProb, *idx},
                      {named("axis", i64(1))});
  if (failed(picked))
    return failure();
  auto squeezed = build(n, "graph.squeeze", {*picked, constI64(n, {1})});
  if (failed(squeezed))
    return failure();
  auto loss = build(n, "graph.neg", {*squeezed});
  if (failed(loss))
    return failure();

  Value zero = constant(n, scalarOf(elem, 0));
  if (mask) {
    loss = build(n, "graph.where", {mask, zero, *loss});
    if (failed(loss))
      return failure();
  }

  // The weight applied at each position (null when every weight is 1).
  Value applied;
  if (weight) {
    auto w =
        build(n, "graph.gather", {weight, safeTarget}, {named("axis", i64(0))});
    if (failed(w))
      return failure();
    applied = *w;
    if (mask) {
      auto mw = build(n, "graph.where", {mask, zero, applied});
      if (failed(mw))
        return failure();
      applied = *mw;
    }
    loss = build(n, "graph.mul", {*loss, applied});
    if (failed(loss))
      return failure();
  } else if (mask) {
    auto mw =
        build(n, "graph.where", {mask, zero, constant(n, scalarOf(elem, 1))});
    if (failed(mw))
      return failure();
    applied = *mw;
  }

  if (reduction == "none")
    return *loss;
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < tt.getRank(); ++i)
    all.push_back(i);
  if (reduction == "mean" && !applied)
    return reduceOp(n, "graph.reduce_mean", *loss, all, false);
  auto sum = reduceOp(n, "graph.reduce_sum", *loss, all, false);
  if (failed(sum) || reduction == "sum")
    return sum;
  // Mean over the applied weights: ignored positions count for nothing.
  auto denom = reduceOp(n, "graph.reduce_sum", applied, all, false);
  if (failed(denom))
    return failure();
  return build(n, "graph.div", {*sum, *denom});
}

FailureOr<SmallVector<Value>>
NodeImporter::negativeLogLikelihoodLoss(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto target = requireInput(n, 1, "target");
  if (failed(x) || failed(target))
    return failure();
  return one(nllLoss(n, *x, *target, n.in(2)));
}

FailureOr<SmallVector<Value>>
NodeImporter::softmaxCrossEntropyLoss(NodeCtx &n) {
  auto x = requireInput(n, 0, "scores");
  auto target = requireInput(n, 1, "labels");
  if (failed(x) || failed(target))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 2) {
    error(n) << "needs scores [N, C, d1..dk] of known rank >= 2";
    return failure();
  }
  auto logProb = build(n, "graph.log_softmax", {*x}, {named("axis", i64(1))});
  if (failed(logProb))
    return failure();
  auto loss = nllLoss(n, *logProb, *target, n.in(2));
  if (failed(loss))
    return failure();
  return SmallVector<Value>{*loss, *logProb};
}
