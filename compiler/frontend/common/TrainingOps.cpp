//===- TrainingOps.cpp - ai.onnx.preview.training optimizers --------------===//
//
// The optimizer ops of the ai.onnx.preview.training domain (Adagrad, Adam,
// Momentum) as elementwise graph ops. Each node updates one or more tensors:
// its inputs are R (learning rate), T (update count, int64) and then, per
// kind of state, one tensor per optimized tensor (X1..Xn, G1..Gn, ...); its
// outputs are the new states in the same grouped order. T is a runtime
// value, so the `T > 0` cases of the formulas are graph.where selections.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

using namespace mlir;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

namespace {

/// The inputs of an optimizer node: R, T and `kinds` groups of `count`
/// tensors each (X, G, then the optimizer's state).
struct OptimizerInputs {
  Value r, t;
  int64_t count = 0;
  SmallVector<SmallVector<Value>> groups; // [kind][tensor]
};

} // namespace

/// Splits the variadic inputs of an optimizer node into `kinds` groups and
/// checks that the outputs are the `outKinds` groups of new values.
static FailureOr<OptimizerInputs>
optimizerInputs(NodeCtx &n, unsigned kinds, unsigned outKinds,
                function_ref<InFlightDiagnostic()> error) {
  OptimizerInputs in;
  size_t numIns = n.node.inputs.size();
  if (numIns < 2 + kinds || (numIns - 2) % kinds != 0) {
    error() << "expects R, T and " << kinds
            << " equally long lists of tensors as inputs; got " << numIns
            << " inputs";
    return failure();
  }
  in.count = (numIns - 2) / kinds;
  if ((int64_t)n.node.outputs.size() != in.count * outKinds) {
    error() << "updates " << in.count << " tensor(s), so it has "
            << in.count * outKinds << " outputs; got " << n.node.outputs.size();
    return failure();
  }
  for (unsigned i = 0; i < numIns; ++i)
    if (!n.in(i)) {
      error() << "input " << i << " is missing";
      return failure();
    }
  in.r = n.in(0);
  in.t = n.in(1);
  for (unsigned k = 0; k < kinds; ++k) {
    in.groups.emplace_back();
    for (int64_t i = 0; i < in.count; ++i)
      in.groups.back().push_back(n.in(2 + k * in.count + i));
  }
  for (int64_t i = 0; i < in.count; ++i) {
    Value x = in.groups[0][i];
    Type elem = elementTypeOf(x);
    if (!isa<FloatType>(elem)) {
      error() << "optimized tensor " << i << " has element type " << elem
              << "; a float type is required";
      return failure();
    }
    for (unsigned k = 1; k < kinds; ++k)
      if (in.groups[k][i].getType() != x.getType()) {
        error() << "tensor " << i << " of input group " << k << " has type "
                << in.groups[k][i].getType() << "; expected " << x.getType()
                << " (the type of X" << i + 1 << ")";
        return failure();
      }
  }
  if (!isa<FloatType>(elementTypeOf(in.r)) ||
      !elementTypeOf(in.t).isInteger(64)) {
    error() << "R must be a float tensor and T an int64 tensor";
    return failure();
  }
  return in;
}

FailureOr<SmallVector<Value>> NodeImporter::adagrad(NodeCtx &n) {
  auto decay = floatAttr(n, "decay_factor", 0.0);
  auto eps = floatAttr(n, "epsilon", 1e-6);
  auto norm = floatAttr(n, "norm_coefficient", 0.0);
  if (failed(decay) || failed(eps) || failed(norm))
    return failure();
  auto in = optimizerInputs(n, 3, 2, [&] { return error(n); });
  if (failed(in))
    return failure();
  OpChain c(builder, n.loc);
  SmallVector<Value> xs, hs;
  for (int64_t i = 0; i < in->count; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], h = in->groups[2][i];
    Type elem = elementTypeOf(x);
    auto k = [&](double v) { return c.scalar(elem, v); };
    // r = R / (1 + T * decay_factor)
    Value r = c.div(c.cast(in->r, elem),
                    c.add(k(1.0), c.mul(c.cast(in->t, elem), k(*decay))));
    // G_regularized = norm_coefficient * X + G
    Value gr = *norm == 0.0 ? g : c.add(c.mul(k(*norm), x), g);
    // H_new = H + G_regularized^2
    Value hNew = c.add(h, c.mul(gr, gr));
    // X_new = X - r * G_regularized / (sqrt(H_new) + epsilon)
    Value hAdaptive = c.add(c.unary("graph.sqrt", hNew), k(*eps));
    xs.push_back(c.sub(x, c.div(c.mul(r, gr), hAdaptive)));
    hs.push_back(hNew);
  }
  if (c.failed())
    return failure();
  xs.append(hs);
  return xs;
}

FailureOr<SmallVector<Value>> NodeImporter::adam(NodeCtx &n) {
  auto alpha = floatAttr(n, "alpha", 0.9);
  auto beta = floatAttr(n, "beta", 0.999);
  auto eps = floatAttr(n, "epsilon", 1e-6);
  auto norm = floatAttr(n, "norm_coefficient", 0.0);
  auto normPost = floatAttr(n, "norm_coefficient_post", 0.0);
  if (failed(alpha) || failed(beta) || failed(eps) || failed(norm) ||
      failed(normPost))
    return failure();
  auto in = optimizerInputs(n, 4, 3, [&] { return error(n); });
  if (failed(in))
    return failure();
  OpChain c(builder, n.loc);
  Value positive =
      c.cmp("graph.greater", in->t, c.scalar(elementTypeOf(in->t), 0));
  SmallVector<Value> xs, vs, hs;
  for (int64_t i = 0; i < in->count; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i],
          h = in->groups[3][i];
    Type elem = elementTypeOf(x);
    auto k = [&](double val) { return c.scalar(elem, val); };
    Value r = c.cast(in->r, elem), t = c.cast(in->t, elem);
    // G_regularized = norm_coefficient * X + G
    Value gr = *norm == 0.0 ? g : c.add(c.mul(k(*norm), x), g);
    // V_new = alpha * V + (1 - alpha) * G_regularized
    Value vNew = c.add(c.mul(k(*alpha), v), c.mul(k(1.0 - *alpha), gr));
    // H_new = beta * H + (1 - beta) * G_regularized^2
    Value hNew =
        c.add(c.mul(k(*beta), h), c.mul(k(1.0 - *beta), c.mul(gr, gr)));
    Value hSqrt = c.add(c.unary("graph.sqrt", hNew), k(*eps));
    // The bias-corrected rate R * sqrt(1 - beta^T) / (1 - alpha^T) when
    // T > 0, else R.
    Value betaT = c.op("graph.pow", {k(*beta), t});
    Value alphaT = c.op("graph.pow", {k(*alpha), t});
    Value corrected =
        c.div(c.mul(r, c.unary("graph.sqrt", c.sub(k(1.0), betaT))),
              c.sub(k(1.0), alphaT));
    Value rate = c.where(positive, corrected, r);
    // X_new = (1 - norm_coefficient_post) * (X - rate * V_new / H_sqrt)
    Value xNew = c.sub(x, c.mul(rate, c.div(vNew, hSqrt)));
    if (*normPost != 0.0)
      xNew = c.mul(k(1.0 - *normPost), xNew);
    xs.push_back(xNew);
    vs.push_back(vNew);
    hs.push_back(hNew);
  }
  if (c.failed())
    return failure();
  xs.append(vs);
  xs.append(hs);
  return xs;
}

FailureOr<SmallVector<Value>> NodeImporter::momentum(NodeCtx &n) {
  auto alpha = optFloatAttr(n, "alpha");
  auto beta = optFloatAttr(n, "beta");
  auto norm = optFloatAttr(n, "norm_coefficient");
  auto mode = stringAttr(n, "mode");
  if (failed(alpha) || failed(beta) || failed(norm) || failed(mode))
    return failure();
  if (failed(requireAttrs(n, {"alpha", "beta", "norm_coefficient", "mode"})))
    return failure();
  bool nesterov = **mode == "nesterov";
  if (!nesterov && **mode != "standard") {
    error(n) << "attribute 'mode' is '" << **mode
             << "'; expected 'standard' or 'nesterov'";
    return failure();
  }
  auto in = optimizerInputs(n, 3, 2, [&] { return error(n); });
  if (failed(in))
    return failure();
  OpChain c(builder, n.loc);
  Value positive =
      c.cmp("graph.greater", in->t, c.scalar(elementTypeOf(in->t), 0));
  SmallVector<Value> xs, vs;
  for (int64_t i = 0; i < in->count; ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i];
    Type elem = elementTypeOf(x);
    auto k = [&](double val) { return c.scalar(elem, val); };
    // G_regularized = norm_coefficient * X + G
    Value gr = **norm == 0.0 ? g : c.add(c.mul(k(**norm), x), g);
    // V_new = alpha * V + beta' * G_regularized; beta' is 1 on the first
    // update (T == 0), beta after it.
    Value betaAdj = c.where(positive, k(**beta), k(1.0));
    Value vNew = c.add(c.mul(k(**alpha), v), c.mul(betaAdj, gr));
    // Standard: X - R * V_new; Nesterov: X - R * (G_reg + alpha * V_new).
    Value dir = nesterov ? c.add(gr, c.mul(k(**alpha), vNew)) : vNew;
    xs.push_back(c.sub(x, c.mul(c.cast(in->r, elem), dir)));
    vs.push_back(vNew);
  }
  if (c.failed())
    return failure();
  xs.append(vs);
  return xs;
}
