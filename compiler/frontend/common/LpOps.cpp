//===- LpOps.cpp - ONNX Lp-norm ops onto the graph dialect ----------------===//
//
// LpNormalization, LpPool and GlobalLpPool, decomposed into existing graph
// ops:
//
//  - LpNormalization divides by reduce_l1 / reduce_l2 along the axis (a
//    slice of zero norm gives zeros, as ONNX Runtime does, not NaN);
//  - GlobalLpPool is reduce_l1 / reduce_l2 over the spatial dimensions (other
//    exponents: pow(sum |x|^p, 1/p));
//  - LpPool sums |x|^p over each window with a depthwise convolution by a
//    constant kernel of ones (the padding contributes zeros, as the spec's
//    sum does; ceil_mode becomes extra end padding), then takes the p-th
//    root.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

/// The exponent `p`: an integer from opset 2, a float in opset 1 (LpPool,
/// GlobalLpPool); 2 when absent. Must be positive.
FailureOr<double> NodeImporter::lpExponent(NodeCtx &n) {
  double p = 2.0;
  const AttrValue *a = n.node.findAttr("p");
  if (a) {
    if (auto *i = std::get_if<int64_t>(a))
      p = (double)*i;
    else if (auto *f = std::get_if<double>(a); f && n.opset() < 2)
      p = *f;
    else {
      error(n) << "attribute 'p' must be an integer";
      return failure();
    }
  }
  if (!(p > 0.0) || !std::isfinite(p)) {
    InFlightDiagnostic d = error(n) << "attribute 'p' must be positive, not ";
    if (std::isfinite(p) && p == std::floor(p))
      d << (int64_t)p;
    else
      d << p;
    return failure();
  }
  return p;
}

/// |x|^p elementwise (x * x for p = 2).
static Value powAbs(OpChain &g, Value x, Type elem, double p) {
  if (p == 2.0)
    return g.mul(x, x);
  Value a = g.unary("graph.abs", x);
  return p == 1.0 ? a : g.op("graph.pow", {a, g.scalar(elem, p)});
}

/// s^(1/p) elementwise.
static Value root(OpChain &g, Value s, Type elem, double p) {
  if (p == 1.0)
    return s;
  if (p == 2.0)
    return g.unary("graph.sqrt", s);
  return g.op("graph.pow", {s, g.scalar(elem, 1.0 / p)});
}

FailureOr<SmallVector<Value>> NodeImporter::lpNormalization(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto axis = intAttr(n, "axis", -1);
  auto p = intAttr(n, "p", 2);
  if (failed(x) || failed(axis) || failed(p))
    return failure();
  if (*p != 1 && *p != 2) {
    error(n) << "attribute 'p' must be 1 or 2, not " << *p;
    return failure();
  }
  auto xt = rankedOf(*x);
  if (!xt || !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a float input of known rank";
    return failure();
  }
  int64_t rank = xt.getRank();
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) {
    error(n) << "axis " << *axis << " is out of range for rank " << rank;
    return failure();
  }
  Type elem = xt.getElementType();
  OpChain g(builder, n.loc);
  Value norm = g.reduce(*p == 1 ? "graph.reduce_l1" : "graph.reduce_l2", *x,
                        {a}, /*keepdims=*/true);
  Value zero = g.scalar(elem, 0.0);
  Value y = g.where(g.cmp("graph.equal", norm, zero), zero, g.div(*x, norm));
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::globalLpPool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto p = lpExponent(n);
  if (failed(x) || failed(p))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() < 3 || !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a float input [N, C, spatial...]";
    return failure();
  }
  Type elem = xt.getElementType();
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < xt.getRank(); ++i)
    axes.push_back(i);
  OpChain g(builder, n.loc);
  Value y;
  if (*p == 1.0 || *p == 2.0)
    y = g.reduce(*p == 1.0 ? "graph.reduce_l1" : "graph.reduce_l2", *x, axes,
                 /*keepdims=*/true);
  else
    y = root(g,
             g.reduce("graph.reduce_sum", powAbs(g, *x, elem, *p), axes,
                      /*keepdims=*/true),
             elem, *p);
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::lpPool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto kernel = intsAttr(n, "kernel_shape");
  auto p = lpExponent(n);
  auto ceil = intAttr(n, "ceil_mode", 0);
  if (failed(x) || failed(kernel) || failed(p) || failed(ceil))
    return failure();
  if (!*kernel || (*kernel)->empty()) {
    error(n) << "missing attribute 'kernel_shape'";
    return failure();
  }
  auto xt = rankedOf(*x);
  size_t rank = (*kernel)->size();
  if (!xt || !xt.hasStaticShape() || xt.getRank() != (int64_t)rank + 2 ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [N, C, spatial...] with one "
                "spatial dimension per kernel dimension ("
             << rank << ")";
    return failure();
  }
  if (rank > 3) {
    unsupported(n) << ": " << rank << "-D pooling (1-D to 3-D are supported)";
    return failure();
  }
  WindowAttrs w;
  w.kernel = **kernel;
  if (failed(windowAttrs(n, *x, w, *ceil != 0)))
    return failure();
  // ceil_mode: pad the end so that the convolution's (floor) output size is
  // the pooling's; the extra positions are zeros, which a sum ignores.
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = xt.getDimSize(i + 2);
    int64_t out =
        graph::windowOutputSize(in, w.kernel[i], w.strides[i], w.dilations[i],
                                w.pads[i], w.pads[i + rank], *ceil != 0);
    int64_t effective = (w.kernel[i] - 1) * w.dilations[i] + 1;
    if (out > 0)
      w.pads[i + rank] =
          std::max(w.pads[i + rank],
                   (out - 1) * w.strides[i] + effective - in - w.pads[i]);
  }
  Type elem = xt.getElementType();
  int64_t channels = xt.getDimSize(1);
  SmallVector<int64_t> wShape{channels, 1};
  wShape.append(w.kernel.begin(), w.kernel.end());
  int64_t count = channels;
  for (int64_t k : w.kernel)
    count *= k;
  OpChain g(builder, n.loc);
  Value ones = g.constant(elem, wShape, SmallVector<double>(count, 1.0));
  Value sums =
      g.op("graph.conv", {powAbs(g, *x, elem, *p), ones},
           {g.attr("strides", builder.getDenseI64ArrayAttr(w.strides)),
            g.attr("pads", builder.getDenseI64ArrayAttr(w.pads)),
            g.attr("dilations", builder.getDenseI64ArrayAttr(w.dilations)),
            g.attr("group", builder.getI64IntegerAttr(channels))});
  Value y = root(g, sums, elem, *p);
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}
