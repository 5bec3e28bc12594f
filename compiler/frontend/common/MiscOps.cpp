//===- MiscOps.cpp - small ONNX ops onto the graph dialect ----------------===//
//
// Size, CastLike, EyeLike, Compress with a constant condition, Dropout (with
// its mask), PRelu with the per-channel slope of opsets 1 and 6, and the axis
// broadcasting of the arithmetic and comparison ops before opset 7. Shapes
// are static at import, so Size and EyeLike are constants, Compress is a
// gather of the kept indices, and the legacy broadcasts are reshapes of the
// second operand onto numpy broadcasting.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

/// Size: the number of elements of the input, an int64 scalar. A constant
/// when the shape is static, else the product of graph.shape.
FailureOr<SmallVector<Value>> NodeImporter::size(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  auto xt = rankedOf(*x);
  if (xt && xt.hasStaticShape())
    return SmallVector<Value>{constant(
        n, DenseElementsAttr::get(
               RankedTensorType::get({}, builder.getIntegerType(64)),
               ArrayRef<int64_t>{xt.getNumElements()}))};
  if (!xt) {
    unsupported(n) << ": the input's rank is unknown";
    return failure();
  }
  auto s = build(n, "graph.shape", {*x});
  if (failed(s))
    return failure();
  return one(reduceOp(n, "graph.reduce_prod", *s, {0}, false));
}

/// CastLike: Cast to the element type of the second input.
FailureOr<SmallVector<Value>> NodeImporter::castLike(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto like = requireInput(n, 1, "target_type");
  if (failed(x) || failed(like))
    return failure();
  return one(build(n, "graph.cast", {*x},
                   {named("to", TypeAttr::get(elementTypeOf(*like)))}));
}

/// Compress: the slices along `axis` (of the flattened input without one)
/// whose condition is true, as a gather of their indices. The condition
/// fixes the result's shape, so it must be a constant; it may be shorter
/// than the dimension (the rest is dropped), not longer.
FailureOr<SmallVector<Value>> NodeImporter::compress(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto cond = requireInput(n, 1, "condition");
  auto axis = optIntAttr(n, "axis");
  if (failed(x) || failed(cond) || failed(axis))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape()) {
    unsupported(n) << ": the input's shape is not static";
    return failure();
  }
  auto ct = rankedOf(*cond);
  if (!ct || ct.getRank() != 1) {
    error(n) << "input 1 ('condition') must be a 1-D tensor";
    return failure();
  }
  SmallVector<int64_t> keep;
  if (failed(graph::getConstantInts(*cond, keep))) {
    unsupported(n) << ": input 1 ('condition') is not a constant, and the "
                      "output's shape depends on its values";
    return failure();
  }
  Value data = *x;
  int64_t dim = 0;
  if (*axis) {
    int64_t rank = xt.getRank();
    int64_t a = **axis;
    if (a < -rank || a >= rank) {
      error(n) << "attribute 'axis' = " << a << " is outside [" << -rank << ", "
               << rank << ")";
      return failure();
    }
    dim = a < 0 ? a + rank : a;
  } else {
    auto flat = reshapeTo(n, data, {xt.getNumElements()});
    if (failed(flat))
      return failure();
    data = *flat;
  }
  int64_t size = cast<RankedTensorType>(data.getType()).getDimSize(dim);
  if (static_cast<int64_t>(keep.size()) > size) {
    error(n) << "input 1 ('condition') has " << keep.size()
             << " elements, more than the " << size << " slices along the axis";
    return failure();
  }
  SmallVector<int64_t> indices;
  for (auto [i, c] : llvm::enumerate(keep))
    if (c != 0)
      indices.push_back(static_cast<int64_t>(i));
  return one(build(n, "graph.gather", {data, constI64(n, indices)},
                   {named("axis", i64(dim))}));
}

/// EyeLike: ones on the k-th diagonal of a 2-D tensor shaped like the input,
/// of type `dtype` (default: the input's). Only the input's shape matters,
/// so the result is a constant.
FailureOr<SmallVector<Value>> NodeImporter::eyeLike(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto k = intAttr(n, "k", 0);
  auto dtype = optIntAttr(n, "dtype");
  if (failed(x) || failed(k) || failed(dtype))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || xt.getRank() != 2 || !xt.hasStaticShape()) {
    error(n) << "needs a 2-D input of static shape";
    return failure();
  }
  Type elem = xt.getElementType();
  if (*dtype) {
    elem = onnxElementType(ctx, (int)**dtype);
    if (!elem) {
      unsupported(n) << ": attribute 'dtype' = "
                     << onnxDataTypeName((int)**dtype);
      return failure();
    }
  }
  int64_t rows = xt.getDimSize(0), cols = xt.getDimSize(1);
  SmallVector<double> values(rows * cols, 0.0);
  for (int64_t i = 0; i < rows; ++i)
    if (int64_t j = i + *k; j >= 0 && j < cols)
      values[i * cols + j] = 1.0;
  return SmallVector<Value>{
      constant(n, tensorFromDoubles(RankedTensorType::get({rows, cols}, elem),
                                    values))};
}

/// Dropout. Without training (no training_mode, or a constant false) and in
/// training with a constant ratio of 0 it is the identity and its mask is all
/// true; training with a ratio above 0 is random and cannot be compiled to a
/// deterministic result.
FailureOr<SmallVector<Value>> NodeImporter::dropout(NodeCtx &n) {
  auto x = requireInput(n, 0, "data");
  if (failed(x))
    return failure();
  if (Value mode = n.in(2)) {
    SmallVector<int64_t> m;
    bool modeKnown =
        succeeded(graph::getConstantInts(mode, m)) && m.size() == 1;
    if (!modeKnown || m[0]) {
      // Training (or maybe training): deterministic only with ratio 0.
      SmallVector<double> r;
      bool ratioKnown = n.in(1) && succeeded(getConstantDoubles(n.in(1), r)) &&
                        r.size() == 1;
      if (!n.in(1) || (ratioKnown && r[0] != 0.0)) {
        unsupported(n) << ": random: training-mode Dropout with ratio > 0"
                       << (modeKnown ? ""
                                     : " ('training_mode' is computed at "
                                       "run time)");
        return failure();
      }
      if (!ratioKnown) {
        unsupported(n) << ": random: training-mode Dropout with a 'ratio' "
                          "computed at run time (random unless it is 0)"
                       << (modeKnown ? ""
                                     : "; 'training_mode' is computed at "
                                       "run time too");
        return failure();
      }
    }
  }
  // The ratio (an input from opset 12) has no effect in inference.
  n.markRead(1);
  // Before opset 7 `is_test` = 0 asks for training; before opset 12 the
  // ratio is an attribute (irrelevant in inference); `seed` only seeds the
  // training mask.
  auto isTest = intAttr(n, "is_test", 1);
  auto ratioAttr = floatAttr(n, "ratio", 0.5);
  if (failed(isTest) || failed(ratioAttr) || failed(intAttr(n, "seed", 0)))
    return failure();
  if (!*isTest && *ratioAttr != 0.0) {
    unsupported(n) << ": random: Dropout with is_test = 0 and ratio > 0";
    return failure();
  }
  SmallVector<Value> results{*x};
  if (outputUsed(n, 1)) {
    auto xt = rankedOf(*x);
    if (!xt || !xt.hasStaticShape()) {
      unsupported(n) << ": the mask output needs an input of static shape";
      return failure();
    }
    // The mask is bool from opset 10, of the input's type before.
    Type maskElem =
        n.opset() >= 10 ? builder.getI1Type() : xt.getElementType();
    auto maskType = RankedTensorType::get(xt.getShape(), maskElem);
    DenseElementsAttr ones =
        maskElem.isInteger(1)
            ? DenseElementsAttr::get(maskType, true)
            : DenseElementsAttr::get(
                  maskType, scalarOf(maskElem, 1.0).getSplatValue<Attribute>());
    results.push_back(constant(n, ones));
  }
  return results;
}

/// Before opset 7, PRelu's slope is one value or one per channel (axis 1);
/// from opset 7 it broadcasts like numpy. A per-channel slope [C] becomes
/// [C, 1, ..., 1].
FailureOr<SmallVector<Value>> NodeImporter::prelu(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto slope = requireInput(n, 1, "slope");
  if (failed(x) || failed(slope))
    return failure();
  Value s = *slope;
  auto xt = rankedOf(*x), st = rankedOf(s);
  if (n.opset() < 7 && xt && st && st.hasStaticShape() &&
      st.getRank() == 1 && st.getNumElements() != 1 && xt.getRank() > 2 &&
      xt.getDimSize(1) == st.getDimSize(0)) {
    SmallVector<int64_t> shape(xt.getRank() - 1, 1);
    shape[0] = st.getDimSize(0);
    auto r = reshapeTo(n, s, shape);
    if (failed(r))
      return failure();
    s = *r;
  }
  return one(build(n, "graph.prelu", {*x, s}));
}

/// Before opset 7, binary ops broadcast only B onto A and only with
/// broadcast = 1: B's dimensions match A's from `axis` on (default: A's
/// trailing ones). Appending 1s to B's shape turns this into numpy
/// broadcasting.
FailureOr<Value> NodeImporter::legacyBroadcast(NodeCtx &n, Value a, Value b) {
  if (n.opset() >= 7)
    return b;
  auto bcast = intAttr(n, "broadcast", 0);
  auto axis = optIntAttr(n, "axis");
  if (failed(bcast) || failed(axis))
    return failure();
  if (!*bcast || !*axis)
    return b;
  auto at = rankedOf(a), bt = rankedOf(b);
  if (!at || !bt || !bt.hasStaticShape()) {
    unsupported(n) << ": broadcasting with attribute 'axis' needs operands "
                      "of known rank and a B of static shape";
    return failure();
  }
  int64_t ra = at.getRank(), rb = bt.getRank(), ax = **axis;
  if (ax < 0)
    ax += ra;
  if (ax < 0 || ax + rb > ra) {
    error(n) << "attribute 'axis' = " << **axis << " does not place B "
             << shapeString(bt.getShape()) << " within A "
             << shapeString(at.getShape());
    return failure();
  }
  if (ax + rb == ra)
    return b;
  SmallVector<int64_t> shape(bt.getShape());
  shape.append(ra - ax - rb, 1);
  return reshapeTo(n, b, shape);
}

/// Resize in tf_crop_and_resize mode with an `roi` computed at run time
/// (nearest or linear): per dimension, the source positions
/// (r0 + t * (r1 - r0)) * (in - 1) with t = x / (out_width - 1) come from the
/// roi at run time, the taps are gathers at the clamped floor/rounded
/// positions, and positions outside [0, in - 1] in any dimension take the
/// extrapolation value.
FailureOr<Value> NodeImporter::cropAndResizeRuntimeRoi(
    NodeCtx &n, Value x, Value roi, ArrayRef<double> scales,
    ArrayRef<int64_t> outDims, StringRef mode, StringRef nearestMode,
    double extrapolation) {
  auto xt = rankedOf(x);
  auto rt = rankedOf(roi);
  int64_t rank = xt.getRank();
  if (mode != "nearest" && mode != "linear") {
    unsupported(n) << ": tf_crop_and_resize with an 'roi' computed at run "
                      "time supports modes nearest and linear, not "
                   << mode;
    return failure();
  }
  if (!rt || !rt.hasStaticShape() || rt.getRank() != 1 ||
      rt.getNumElements() != 2 * rank || !isa<FloatType>(rt.getElementType())) {
    error(n) << "'roi' must be a float tensor of 2 * rank = " << 2 * rank
             << " values";
    return failure();
  }
  Type f64 = builder.getF64Type(), indexType = builder.getIntegerType(64);
  Type elem = xt.getElementType();
  auto roiD = build(n, "graph.cast", {roi}, {named("to", TypeAttr::get(f64))});
  if (failed(roiD))
    return failure();
  auto f64Scalar = [&](double v) { return constant(n, scalarOf(f64, v)); };
  auto roiAt = [&](int64_t i) {
    return build(n, "graph.gather",
                 {*roiD, constant(n, DenseElementsAttr::get(
                                         RankedTensorType::get({}, indexType),
                                         ArrayRef<int64_t>{i}))},
                 {named("axis", i64(0))});
  };
  Value cur = x, outside;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xt.getDimSize(d), out = outDims[d];
    if (in == 1 && out == 1)
      continue; // Position 0 whatever the roi: never outside.
    double width = scales[d] * in;
    SmallVector<double> ts;
    for (int64_t i = 0; i < out; ++i)
      ts.push_back(width == 1 ? 0.5 : i / (width - 1));
    auto r0 = roiAt(d), r1 = roiAt(d + rank);
    if (failed(r0) || failed(r1))
      return failure();
    // pos = (r0 + t * (r1 - r0)) * (in - 1)
    auto diff = build(n, "graph.sub", {*r1, *r0});
    if (failed(diff))
      return failure();
    auto scaled = build(
        n, "graph.mul",
        {constant(n, tensorFromDoubles(RankedTensorType::get({out}, f64), ts)),
         *diff});
    if (failed(scaled))
      return failure();
    auto shifted = build(n, "graph.add", {*scaled, *r0});
    if (failed(shifted))
      return failure();
    auto pos = build(n, "graph.mul", {*shifted, f64Scalar(in - 1)});
    if (failed(pos))
      return failure();
    // The dimension's [out, 1, ..., 1] broadcast shape.
    SmallVector<int64_t> bshape(rank - d, 1);
    bshape[0] = out;
    auto below = build(n, "graph.less", {*pos, f64Scalar(0)});
    auto above = build(n, "graph.greater", {*pos, f64Scalar(in - 1)});
    if (failed(below) || failed(above))
      return failure();
    auto off = build(n, "graph.or", {*below, *above});
    if (failed(off))
      return failure();
    auto offB = reshapeTo(n, *off, bshape);
    if (failed(offB))
      return failure();
    if (outside) {
      auto both = build(n, "graph.or", {outside, *offB});
      if (failed(both))
        return failure();
      outside = *both;
    } else {
      outside = *offB;
    }
    // The taps: source indices clamped into [0, in - 1].
    auto index = [&](Value p) -> FailureOr<Value> {
      auto c = build(n, "graph.clip", {p, f64Scalar(0), f64Scalar(in - 1)});
      if (failed(c))
        return failure();
      return build(n, "graph.cast", {*c},
                   {named("to", TypeAttr::get(indexType))});
    };
    auto gatherAt = [&](Value idx) {
      return build(n, "graph.gather", {cur, idx}, {named("axis", i64(d))});
    };
    if (mode == "nearest") {
      FailureOr<Value> r = failure();
      if (nearestMode == "floor")
        r = build(n, "graph.floor", {*pos});
      else if (nearestMode == "ceil")
        r = build(n, "graph.ceil", {*pos});
      else if (nearestMode == "round_prefer_ceil") {
        auto p = build(n, "graph.add", {*pos, f64Scalar(0.5)});
        if (failed(p))
          return failure();
        r = build(n, "graph.floor", {*p});
      } else {
        auto p = build(n, "graph.sub", {*pos, f64Scalar(0.5)});
        if (failed(p))
          return failure();
        r = build(n, "graph.ceil", {*p});
      }
      if (failed(r))
        return failure();
      auto idx = index(*r);
      if (failed(idx))
        return failure();
      auto g = gatherAt(*idx);
      if (failed(g))
        return failure();
      cur = *g;
      continue;
    }
    auto lo = build(n, "graph.floor", {*pos});
    if (failed(lo))
      return failure();
    auto hi = build(n, "graph.add", {*lo, f64Scalar(1)});
    auto w = build(n, "graph.sub", {*pos, *lo});
    if (failed(hi) || failed(w))
      return failure();
    auto i0 = index(*lo), i1 = index(*hi);
    if (failed(i0) || failed(i1))
      return failure();
    auto g0 = gatherAt(*i0), g1 = gatherAt(*i1);
    auto wE = build(n, "graph.cast", {*w}, {named("to", TypeAttr::get(elem))});
    if (failed(g0) || failed(g1) || failed(wE))
      return failure();
    auto wB = reshapeTo(n, *wE, bshape);
    auto step = build(n, "graph.sub", {*g1, *g0});
    if (failed(wB) || failed(step))
      return failure();
    auto part = build(n, "graph.mul", {*step, *wB});
    if (failed(part))
      return failure();
    auto sum = build(n, "graph.add", {*g0, *part});
    if (failed(sum))
      return failure();
    cur = *sum;
  }
  if (!outside)
    return cur;
  return build(n, "graph.where",
               {outside, constant(n, scalarOf(elem, extrapolation)), cur});
}
