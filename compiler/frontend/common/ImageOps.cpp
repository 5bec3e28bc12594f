//===- ImageOps.cpp - ONNX geometry ops onto the graph dialect ------------===//
//
// GridSample (opset 16), RoiAlign (opsets 10 and 16), MaxRoiPool,
// MaxUnpool, Det, CenterCropPad and Col2Im (opset 18), DeformConv (opset 19)
// and AffineGrid (opset 20), decomposed into existing graph ops:
//
//  - GridSample and RoiAlign compute the source coordinates of every tap
//    elementwise, read the taps with gather_nd on run-time (n, y, x) index
//    tuples from the input transposed to NHWC, and sum (or take the maximum
//    of) the weighted taps;
//  - MaxUnpool is a scatter_nd of the values into a zero tensor at the flat
//    indices (zero-padded at the end up to output_shape when it is given);
//  - Det is an unrolled Gaussian elimination with partial pivoting (row
//    swaps as gather_elements on arg_max indices), O(M) graph ops of
//    O(batch * M^2) work each;
//  - CenterCropPad is a slice and a zero pad;
//  - AffineGrid multiplies constant normalized coordinates by each batch's
//    theta (a batched matmul);
//  - Col2Im is a grouped transposed convolution by one-hot kernels;
//  - MaxRoiPool takes masked maxima of the gathered images, bins as masks
//    computed from the RoIs at run time;
//  - DeformConv reads its bilinear taps with gather_nd like GridSample and
//    multiplies them by the weights as a batched matmul.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

namespace {

/// Reads the taps of an NHWC image at per-position (n, y, x) float
/// coordinates of shape [positions..., 1]; positions outside the image read
/// 0. With `group`, the image is [N, H, W, G, C'] and each position reads
/// the channels of its group (n, y, x, g).
struct TapReader {
  OpChain &g;
  Value image; // [N, H, W, C] or [N, H, W, G, C']
  Value batch; // i64 [positions..., 1]: the n of each position
  int64_t h, w;
  Value group = {}; // i64 [positions..., 1]: the g of each position

  /// weight * image[n, y, x(, g), :] -> [positions..., C]
  Value read(Value y, Value x, Value weight) {
    Type elem = elementTypeOf(weight);
    Type i64t = IntegerType::get(g.context(), 64);
    Value zero = g.scalar(elem, 0.0);
    auto inside = [&](Value c, int64_t size) {
      return g.logicalAnd(
          g.cmp("graph.greater_or_equal", c, zero),
          g.cmp("graph.less_or_equal", c, g.scalar(elem, (double)(size - 1))));
    };
    auto index = [&](Value c, int64_t size) {
      return g.cast(
          g.op("graph.clip", {c, zero, g.scalar(elem, (double)(size - 1))}),
          i64t);
    };
    Value valid = g.logicalAnd(inside(y, h), inside(x, w));
    SmallVector<Value> parts{batch, index(y, h), index(x, w)};
    if (group)
      parts.push_back(group);
    int64_t last = cast<ShapedType>(batch.getType()).getRank() - 1;
    Value idx = g.concat(parts, last);
    Value v = g.op("graph.gather_nd", {image, idx},
                   {g.attr("batch_dims", IntegerAttr::get(i64t, 0))});
    return g.mul(v, g.where(valid, weight, zero));
  }
};

} // namespace

FailureOr<SmallVector<Value>> NodeImporter::gridSample(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto grid = requireInput(n, 1, "grid");
  auto modeAttr = stringAttr(n, "mode");
  auto padAttr = stringAttr(n, "padding_mode");
  auto alignAttr = intAttr(n, "align_corners", 0);
  if (failed(x) || failed(grid) || failed(modeAttr) || failed(padAttr) ||
      failed(alignAttr))
    return failure();
  std::string mode = modeAttr->value_or("bilinear");
  std::string padding = padAttr->value_or("zeros");
  bool linear = mode == "bilinear" || mode == "linear";
  bool cubic = mode == "bicubic" || mode == "cubic";
  if (!linear && !cubic && mode != "nearest") {
    error(n) << "attribute 'mode' must be 'bilinear', 'nearest' or "
                "'bicubic', not '"
             << mode << "'";
    return failure();
  }
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    error(n) << "attribute 'padding_mode' must be 'zeros', 'border' or "
                "'reflection', not '"
             << padding << "'";
    return failure();
  }
  bool align = *alignAttr != 0;
  auto xt = rankedOf(*x);
  auto gt = rankedOf(*grid);
  if (!xt || !gt || !xt.hasStaticShape() || !gt.hasStaticShape() ||
      xt.getRank() != 4 || gt.getRank() != 4 || gt.getDimSize(3) != 2 ||
      gt.getDimSize(0) != xt.getDimSize(0) ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [N, C, H, W] and a grid "
                "[N, H_out, W_out, 2]";
    return failure();
  }
  int64_t N = xt.getDimSize(0), H = xt.getDimSize(2), W = xt.getDimSize(3),
          Ho = gt.getDimSize(1), Wo = gt.getDimSize(2);
  Type elem = xt.getElementType();

  OpChain g(builder, n.loc);
  auto c = [&](double v) { return g.scalar(elem, v); };
  Value gridV = g.cast(*grid, elem);
  // Pixel coordinates [N, Ho, Wo, 1] from the normalized ones.
  auto unnormalize = [&](Value v, int64_t size) {
    Value p1 = g.add(v, c(1.0));
    if (align)
      return g.mul(p1, c((double)(size - 1) / 2.0));
    return g.div(g.sub(g.mul(p1, c((double)size)), c(1.0)), c(2.0));
  };
  Value gx = unnormalize(g.slice(gridV, 3, 0, 1), W);
  Value gy = unnormalize(g.slice(gridV, 3, 1, 2), H);

  // Padding of a coordinate: border clips to the image, reflection
  // reflects about the borders (the pixel edges without align_corners),
  // then clips.
  auto clipTo = [&](Value v, int64_t size) {
    return g.op("graph.clip", {v, c(0.0), c((double)(size - 1))});
  };
  auto reflect = [&](Value v, int64_t size) -> Value {
    double lo = align ? 0.0 : -0.5;
    double span = align ? (double)(size - 1) : (double)size;
    if (span <= 0)
      return g.mul(v, c(0.0));
    Value d = g.unary("graph.abs", g.sub(v, c(lo)));
    Value flips = g.unary("graph.floor", g.div(d, c(span)));
    Value extra = g.sub(d, g.mul(flips, c(span)));
    Value half = g.mul(flips, c(0.5));
    Value even = g.cmp("graph.equal", g.unary("graph.floor", half), half);
    Value r =
        g.where(even, g.add(extra, c(lo)), g.add(g.sub(c(span), extra), c(lo)));
    return clipTo(r, size);
  };
  auto pad = [&](Value v, int64_t size) -> Value {
    if (padding == "border")
      return clipTo(v, size);
    if (padding == "reflection")
      return reflect(v, size);
    return v;
  };

  TapReader taps{g, g.transpose(*x, {0, 2, 3, 1}),
                 g.expand(g.iota(builder.getIntegerType(64), {N, 1, 1, 1}),
                          {N, Ho, Wo, 1}),
                 H, W};
  Value acc;
  auto accumulate = [&](Value v) { acc = acc ? g.add(acc, v) : v; };
  Value one = c(1.0);
  if (mode == "nearest") {
    Value px = g.unary("graph.round", pad(gx, W));
    Value py = g.unary("graph.round", pad(gy, H));
    accumulate(taps.read(py, px, g.expand(one, {N, Ho, Wo, 1})));
  } else if (linear) {
    Value px = pad(gx, W), py = pad(gy, H);
    Value x0 = g.unary("graph.floor", px), y0 = g.unary("graph.floor", py);
    Value x1 = g.add(x0, one), y1 = g.add(y0, one);
    Value wx1 = g.sub(px, x0), wy1 = g.sub(py, y0);
    Value wx0 = g.sub(one, wx1), wy0 = g.sub(one, wy1);
    accumulate(taps.read(y0, x0, g.mul(wy0, wx0)));
    accumulate(taps.read(y0, x1, g.mul(wy0, wx1)));
    accumulate(taps.read(y1, x0, g.mul(wy1, wx0)));
    accumulate(taps.read(y1, x1, g.mul(wy1, wx1)));
  } else {
    // Cubic convolution (A = -0.75) over the 4x4 neighbourhood; padding
    // applies to each tap's coordinate.
    const double A = -0.75;
    auto near = [&](Value t) { // |t| <= 1
      return g.add(g.mul(g.mul(g.sub(g.mul(c(A + 2), t), c(A + 3)), t), t),
                   one);
    };
    auto far = [&](Value t) { // 1 < |t| < 2
      Value r = g.add(g.mul(g.sub(g.mul(c(A), t), c(5 * A)), t), c(8 * A));
      return g.sub(g.mul(r, t), c(4 * A));
    };
    auto coeffs = [&](Value t) {
      return SmallVector<Value>{far(g.add(t, one)), near(t),
                                near(g.sub(one, t)), far(g.sub(c(2.0), t))};
    };
    Value fx = g.unary("graph.floor", gx), fy = g.unary("graph.floor", gy);
    SmallVector<Value> wx = coeffs(g.sub(gx, fx)), wy = coeffs(g.sub(gy, fy));
    for (int i = 0; i < 4; ++i) {
      Value ty = pad(g.add(fy, c(i - 1.0)), H);
      for (int j = 0; j < 4; ++j) {
        Value tx = pad(g.add(fx, c(j - 1.0)), W);
        accumulate(taps.read(ty, tx, g.mul(wy[i], wx[j])));
      }
    }
  }
  Value y = g.transpose(acc, {0, 3, 1, 2});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::roiAlign(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto rois = requireInput(n, 1, "rois");
  auto batchIdx = requireInput(n, 2, "batch_indices");
  auto modeAttr = stringAttr(n, "mode");
  auto ctmAttr = stringAttr(n, "coordinate_transformation_mode");
  auto ph = intAttr(n, "output_height", 1);
  auto pw = intAttr(n, "output_width", 1);
  auto ratio = intAttr(n, "sampling_ratio", 0);
  auto scale = floatAttr(n, "spatial_scale", 1.0);
  if (failed(x) || failed(rois) || failed(batchIdx) || failed(modeAttr) ||
      failed(ctmAttr) || failed(ph) || failed(pw) || failed(ratio) ||
      failed(scale))
    return failure();
  std::string mode = modeAttr->value_or("avg");
  std::string ctm =
      ctmAttr->value_or(n.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (mode != "avg" && mode != "max") {
    error(n) << "attribute 'mode' must be 'avg' or 'max', not '" << mode << "'";
    return failure();
  }
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    error(n) << "attribute 'coordinate_transformation_mode' must be "
                "'half_pixel' or 'output_half_pixel', not '"
             << ctm << "'";
    return failure();
  }
  if (*ph <= 0 || *pw <= 0) {
    error(n) << "attributes 'output_height' (" << *ph
             << ") and 'output_width' (" << *pw << ") must be positive";
    return failure();
  }
  if (*ratio <= 0) {
    unsupported(n) << ": attribute 'sampling_ratio' " << *ratio
                   << " (adaptive: the sample count would depend on each "
                      "RoI's run-time size) is not supported; give a "
                      "positive sampling_ratio";
    return failure();
  }
  auto xt = rankedOf(*x);
  auto rt = rankedOf(*rois);
  auto bt = rankedOf(*batchIdx);
  if (!xt || !rt || !bt || !xt.hasStaticShape() || !rt.hasStaticShape() ||
      !bt.hasStaticShape() || xt.getRank() != 4 || rt.getRank() != 2 ||
      rt.getDimSize(1) != 4 || bt.getRank() != 1 ||
      bt.getDimSize(0) != rt.getDimSize(0) ||
      !isa<FloatType>(xt.getElementType()) ||
      !isa<IntegerType>(bt.getElementType())) {
    error(n) << "needs a static float input [N, C, H, W], rois [R, 4] and "
                "integer batch_indices [R]";
    return failure();
  }
  int64_t R = rt.getDimSize(0), H = xt.getDimSize(2), W = xt.getDimSize(3);
  int64_t gh = *ratio, gw = *ratio, S = *ph * gh, T = *pw * gw;
  Type elem = xt.getElementType();
  Type i64t = builder.getIntegerType(64);
  bool halfPixel = ctm == "half_pixel";

  OpChain g(builder, n.loc);
  auto c = [&](double v) { return g.scalar(elem, v); };
  Value r = g.cast(*rois, elem);
  auto corner = [&](int64_t i) { // [R, 1]
    return g.sub(g.mul(g.slice(r, 1, i, i + 1), c(*scale)),
                 c(halfPixel ? 0.5 : 0.0));
  };
  Value x1 = corner(0), y1 = corner(1), x2 = corner(2), y2 = corner(3);
  Value rw = g.sub(x2, x1), rh = g.sub(y2, y1);
  if (!halfPixel) {
    rw = g.max(rw, c(1.0));
    rh = g.max(rh, c(1.0));
  }
  // Sample s of bin p at start + bin * (p + (s + 0.5) / grid).
  auto samples = [&](Value start, Value extent, int64_t bins, int64_t grid) {
    SmallVector<double> a;
    for (int64_t p = 0; p < bins; ++p)
      for (int64_t s = 0; s < grid; ++s)
        a.push_back((double)p + ((double)s + 0.5) / (double)grid);
    Value bin = g.div(extent, c((double)bins));
    return g.add(start, g.mul(bin, g.constant(elem, {1, bins * grid}, a)));
  };
  Value ys = samples(y1, rh, *ph, gh); // [R, S]
  Value xs = samples(x1, rw, *pw, gw); // [R, T]

  // Bilinear taps of one coordinate: low and high index, their weights
  // (0 outside [-1, size]).
  struct Axis {
    Value low, high, wLow, wHigh;
  };
  auto axis = [&](Value v, int64_t size) {
    Value valid =
        g.logicalAnd(g.cmp("graph.greater_or_equal", v, c(-1.0)),
                     g.cmp("graph.less_or_equal", v, c((double)size)));
    Value vc = g.max(v, c(0.0));
    Value fl = g.unary("graph.floor", vc);
    Value atEnd = g.cmp("graph.greater_or_equal", fl, c((double)(size - 1)));
    Value last = c((double)(size - 1));
    Axis a;
    a.low = g.where(atEnd, last, fl);
    a.high = g.where(atEnd, last, g.add(fl, c(1.0)));
    Value l = g.where(atEnd, c(0.0), g.sub(vc, fl));
    a.wLow = g.where(valid, g.sub(c(1.0), l), c(0.0));
    a.wHigh = g.where(valid, l, c(0.0));
    return a;
  };
  Axis ay = axis(ys, H), ax = axis(xs, W);

  Value image = g.transpose(*x, {0, 2, 3, 1});
  Value b =
      g.expand(g.reshape(g.cast(*batchIdx, i64t), {R, 1, 1, 1}), {R, S, T, 1});
  auto yIndex = [&](Value v) {
    return g.expand(g.reshape(g.cast(v, i64t), {R, S, 1, 1}), {R, S, T, 1});
  };
  auto xIndex = [&](Value v) {
    return g.expand(g.reshape(g.cast(v, i64t), {R, 1, T, 1}), {R, S, T, 1});
  };
  Value acc;
  for (auto [yi, wy] : {std::pair{ay.low, ay.wLow}, {ay.high, ay.wHigh}})
    for (auto [xi, wx] : {std::pair{ax.low, ax.wLow}, {ax.high, ax.wHigh}}) {
      Value idx = g.concat({b, yIndex(yi), xIndex(xi)}, 3);
      Value v =
          g.op("graph.gather_nd", {image, idx}, {named("batch_dims", i64(0))});
      Value w = g.mul(g.reshape(wy, {R, S, 1, 1}), g.reshape(wx, {R, 1, T, 1}));
      Value tap = g.mul(v, w); // [R, S, T, C]
      if (!acc)
        acc = tap;
      else
        acc = mode == "avg" ? g.add(acc, tap) : g.max(acc, tap);
    }
  int64_t C = xt.getDimSize(1);
  Value pooled =
      g.reduce(mode == "avg" ? "graph.reduce_mean" : "graph.reduce_max",
               g.reshape(acc, {R, *ph, gh, *pw, gw, C}), {2, 4}, false);
  Value y = g.transpose(pooled, {0, 3, 1, 2});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::maxUnpool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto indices = requireInput(n, 1, "I");
  auto kernel = intsAttr(n, "kernel_shape");
  auto stridesAttr = intsAttr(n, "strides");
  auto padsAttr = intsAttr(n, "pads");
  if (failed(x) || failed(indices) || failed(kernel) || failed(stridesAttr) ||
      failed(padsAttr))
    return failure();
  auto xt = rankedOf(*x);
  auto it = rankedOf(*indices);
  if (!xt || !it || !xt.hasStaticShape() || xt.getRank() < 3 ||
      it.getShape() != xt.getShape() ||
      !isa<IntegerType>(it.getElementType())) {
    error(n) << "needs a static input [N, C, D1, ...] and integer indices "
                "of the same shape";
    return failure();
  }
  int64_t rank = xt.getRank(), spatial = rank - 2;
  if (!*kernel || (int64_t)(*kernel)->size() != spatial) {
    error(n) << "attribute 'kernel_shape' must have " << spatial << " values";
    return failure();
  }
  SmallVector<int64_t> strides =
      stridesAttr->value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      padsAttr->value_or(SmallVector<int64_t>(2 * spatial, 0));
  if ((int64_t)strides.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial) {
    error(n) << "attributes 'strides' and 'pads' must have " << spatial
             << " and " << 2 * spatial << " values";
    return failure();
  }
  // With output_shape, the pads are ignored: the values are scattered into
  // the shape the unpooling infers and that is zero-padded at the end of
  // each dimension up to output_shape (like ONNX's reference).
  SmallVector<int64_t> outShape;
  bool explicitShape = false;
  if (Value s = n.in(2); s && !isEmptyTensorValue(s)) {
    if (failed(graph::getConstantInts(s, outShape))) {
      unsupported(n) << ": 'output_shape' is not a constant";
      return failure();
    }
    if ((int64_t)outShape.size() != rank) {
      error(n) << "output_shape has " << outShape.size()
               << " values for an input of rank " << rank;
      return failure();
    }
    explicitShape = true;
  }
  SmallVector<int64_t> inferred{xt.getDimSize(0), xt.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t d = (xt.getDimSize(i + 2) - 1) * strides[i] + (**kernel)[i];
    if (!explicitShape)
      d -= pads[i] + pads[i + spatial];
    if (d < 0) {
      error(n) << "negative output dimension " << d;
      return failure();
    }
    inferred.push_back(d);
  }
  if (!explicitShape)
    outShape = inferred;
  SmallVector<int64_t> endPads(2 * rank, 0);
  bool padded = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (outShape[i] < inferred[i]) {
      error(n) << "output_shape " << shapeString(outShape)
               << " is smaller than the inferred shape "
               << shapeString(inferred);
      return failure();
    }
    endPads[rank + i] = outShape[i] - inferred[i];
    padded |= endPads[rank + i] != 0;
  }
  int64_t total = 1;
  for (int64_t d : inferred)
    total *= d;
  int64_t count = xt.getNumElements();
  Type elem = xt.getElementType();
  OpChain g(builder, n.loc);
  Value zeros = g.expand(g.scalar(elem, 0.0), {total});
  Value idx =
      g.reshape(g.cast(*indices, builder.getIntegerType(64)), {count, 1});
  Value y = g.op("graph.scatter_nd", {zeros, idx, g.reshape(*x, {count})},
                 {named("reduction", builder.getStringAttr("none"))});
  y = g.reshape(y, inferred);
  if (padded)
    y = g.op("graph.pad", {y, g.scalar(elem, 0.0)},
             {named("pads", i64s(endPads)),
              named("mode", builder.getStringAttr("constant"))});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

FailureOr<SmallVector<Value>> NodeImporter::det(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  if (failed(x))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape() || xt.getRank() < 2 ||
      xt.getDimSize(xt.getRank() - 1) != xt.getDimSize(xt.getRank() - 2) ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [..., M, M]";
    return failure();
  }
  Type elem = xt.getElementType();
  int64_t M = xt.getShape().back();
  SmallVector<int64_t> batchShape(xt.getShape().drop_back(2));
  int64_t B = 1;
  for (int64_t d : batchShape)
    B *= d;
  OpChain g(builder, n.loc);
  if (M == 0) {
    Value y = g.expand(g.scalar(elem, 1.0), batchShape);
    if (g.failed())
      return failure();
    return SmallVector<Value>{y};
  }
  Type i1 = builder.getI1Type();
  Value rows = g.iota(builder.getIntegerType(64), {1, M});
  Value a = g.reshape(*x, {B, M, M});
  Value det = g.constant(elem, {B, 1, 1}, SmallVector<double>(B, 1.0));
  for (int64_t k = 0; k < M; ++k) {
    if (k + 1 < M) {
      // Partial pivoting: swap row k with the row (>= k) of the largest
      // magnitude in column k.
      SmallVector<double> before(M, 0.0);
      for (int64_t i = 0; i < k; ++i)
        before[i] = 1.0;
      Value col = g.reshape(g.slice(a, 2, k, k + 1), {B, M});
      Value masked = g.unary("graph.abs", col);
      if (k > 0)
        masked =
            g.where(g.constant(i1, {1, M}, before), g.scalar(elem, -1), masked);
      Value p = g.op("graph.arg_max", {masked},
                     {named("axis", i64(1)), named("keepdims", boolean(true)),
                      named("select_last_index", boolean(false))});
      Value kc = g.i64Tensor({}, {k});
      Value perm = g.where(g.cmp("graph.equal", rows, kc), p,
                           g.where(g.cmp("graph.equal", rows, p), kc, rows));
      a = g.op("graph.gather_elements",
               {a, g.expand(g.reshape(perm, {B, M, 1}), {B, M, M})},
               {named("axis", i64(1))});
      Value same = g.reshape(g.cmp("graph.equal", p, kc), {B, 1, 1});
      det = g.where(same, det, g.unary("graph.neg", det));
    }
    Value pivot = g.slice(g.slice(a, 1, k, k + 1), 2, k, k + 1); // [B, 1, 1]
    det = g.mul(det, pivot);
    if (k + 1 < M) {
      Value safe = g.where(g.cmp("graph.equal", pivot, g.scalar(elem, 0.0)),
                           g.scalar(elem, 1.0), pivot);
      SmallVector<double> below(M, 0.0);
      for (int64_t i = k + 1; i < M; ++i)
        below[i] = 1.0;
      Value factor = g.mul(g.div(g.slice(a, 2, k, k + 1), safe),
                           g.constant(elem, {1, M, 1}, below));
      a = g.sub(a, g.mul(factor, g.slice(a, 1, k, k + 1)));
    }
  }
  Value y = g.reshape(det, batchShape);
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

/// CenterCropPad (opset 18): each listed axis is cropped to `shape`'s size
/// around its centre (the odd element left over goes to the start's side of
/// the kept range: start = (dim - size) / 2) or zero-padded to it (the odd
/// element at the end).
FailureOr<SmallVector<Value>> NodeImporter::centerCropPad(NodeCtx &n) {
  auto x = requireInput(n, 0, "input_data");
  auto shapeIn = requireInput(n, 1, "shape");
  auto axesAttr = intsAttr(n, "axes");
  if (failed(x) || failed(shapeIn) || failed(axesAttr))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape()) {
    error(n) << "needs an input of static shape";
    return failure();
  }
  int64_t rank = xt.getRank();
  SmallVector<int64_t> sizes;
  if (failed(graph::getConstantInts(*shapeIn, sizes))) {
    unsupported(n) << ": 'shape' is not a constant";
    return failure();
  }
  SmallVector<int64_t> axes;
  if (*axesAttr) {
    axes = **axesAttr;
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (axes.size() != sizes.size()) {
    error(n) << "'shape' has " << sizes.size() << " values for " << axes.size()
             << " axes";
    return failure();
  }
  SmallVector<int64_t> starts, ends, sliceAxes, pads(2 * rank, 0);
  SmallVector<bool> seen(rank, false);
  for (auto [ax, size] : llvm::zip(axes, sizes)) {
    int64_t a = ax < 0 ? ax + rank : ax;
    if (a < 0 || a >= rank || seen[a]) {
      error(n) << "axis " << ax << " of 'axes' is "
               << (a < 0 || a >= rank ? "out of range" : "repeated")
               << " for an input of rank " << rank;
      return failure();
    }
    seen[a] = true;
    if (size < 0) {
      error(n) << "'shape' has the negative size " << size << " for axis "
               << ax;
      return failure();
    }
    int64_t dim = xt.getDimSize(a);
    if (size < dim) {
      starts.push_back((dim - size) / 2);
      ends.push_back((dim - size) / 2 + size);
      sliceAxes.push_back(a);
    } else if (size > dim) {
      pads[a] = (size - dim) / 2;
      pads[a + rank] = size - dim - pads[a];
    }
  }
  OpChain g(builder, n.loc);
  Value y = *x;
  if (!sliceAxes.empty())
    y = g.op("graph.slice",
             {y, g.i64s(starts), g.i64s(ends), g.i64s(sliceAxes),
              g.i64s(SmallVector<int64_t>(sliceAxes.size(), 1))});
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    y = g.op("graph.pad", {y, g.scalar(xt.getElementType(), 0.0)},
             {g.attr("pads", builder.getDenseI64ArrayAttr(pads)),
              g.attr("mode", builder.getStringAttr("constant"))});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

/// AffineGrid (opset 20): the normalized coordinates of every output
/// position, (x, y[, z], 1) as a constant [positions, r + 1], times each
/// batch's theta transposed ([N, r + 1, r]): a batched matmul.
FailureOr<SmallVector<Value>> NodeImporter::affineGrid(NodeCtx &n) {
  auto theta = requireInput(n, 0, "theta");
  auto sizeIn = requireInput(n, 1, "size");
  auto alignAttr = intAttr(n, "align_corners", 0);
  if (failed(theta) || failed(sizeIn) || failed(alignAttr))
    return failure();
  SmallVector<int64_t> size;
  if (failed(graph::getConstantInts(*sizeIn, size))) {
    unsupported(n) << ": 'size' is not a constant";
    return failure();
  }
  if (size.size() != 4 && size.size() != 5) {
    error(n) << "'size' must be [N, C, H, W] or [N, C, D, H, W]; it has "
             << size.size() << " values";
    return failure();
  }
  int64_t r = (int64_t)size.size() - 2; // spatial rank: 2 or 3
  auto tt = rankedOf(*theta);
  if (!tt || !tt.hasStaticShape() || tt.getRank() != 3 ||
      tt.getDimSize(1) != r || tt.getDimSize(2) != r + 1 ||
      tt.getDimSize(0) != size[0] || !isa<FloatType>(tt.getElementType())) {
    error(n) << "'theta' must be a float tensor [" << size[0] << ", " << r
             << ", " << r + 1 << "] for 'size' of " << size.size() << " values";
    return failure();
  }
  for (int64_t d : ArrayRef<int64_t>(size).drop_front(2))
    if (d <= 0) {
      error(n) << "'size' has a spatial size of " << d;
      return failure();
    }
  bool align = *alignAttr != 0;
  // Normalized coordinate i of an axis of `len` positions.
  auto coord = [&](int64_t i, int64_t len) -> double {
    if (align)
      return len == 1 ? -1.0 : -1.0 + 2.0 * (double)i / (double)(len - 1);
    return (2.0 * (double)i + 1.0) / (double)len - 1.0;
  };
  // Spatial dims in size order (D,) H, W; the coordinates go x (W) first.
  ArrayRef<int64_t> spatial = ArrayRef<int64_t>(size).drop_front(2);
  int64_t positions = 1;
  for (int64_t d : spatial)
    positions *= d;
  SmallVector<double> base;
  base.reserve(positions * (r + 1));
  SmallVector<int64_t> idx(r, 0);
  for (int64_t pos = 0; pos < positions; ++pos) {
    int64_t rest = pos;
    for (int64_t d = r - 1; d >= 0; --d) {
      idx[d] = rest % spatial[d];
      rest /= spatial[d];
    }
    for (int64_t d = r - 1; d >= 0; --d)
      base.push_back(coord(idx[d], spatial[d]));
    base.push_back(1.0);
  }
  Type elem = tt.getElementType();
  OpChain g(builder, n.loc);
  Value grid = g.op("graph.matmul", {g.constant(elem, {positions, r + 1}, base),
                                     g.transpose(*theta, {0, 2, 1})});
  SmallVector<int64_t> outShape{size[0]};
  outShape.append(spatial.begin(), spatial.end());
  outShape.push_back(r);
  Value y = g.reshape(grid, outShape);
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

/// Col2Im (opset 18): a transposed convolution of the columns, reshaped to
/// [N, C * prod(block), L_1, ...], by a constant one-hot kernel per group of
/// prod(block) channels (channel c * prod(block) + j puts its value at block
/// position j of image channel c); output_padding makes up the rows and
/// columns that no block covers at the end.
FailureOr<SmallVector<Value>> NodeImporter::col2Im(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto imageIn = requireInput(n, 1, "image_shape");
  auto blockIn = requireInput(n, 2, "block_shape");
  if (failed(x) || failed(imageIn) || failed(blockIn))
    return failure();
  SmallVector<int64_t> image, block;
  if (failed(graph::getConstantInts(*imageIn, image)) ||
      failed(graph::getConstantInts(*blockIn, block))) {
    unsupported(n) << ": 'image_shape' and 'block_shape' must be constants";
    return failure();
  }
  size_t r = image.size();
  if (r == 0 || block.size() != r) {
    error(n) << "'image_shape' (" << image.size() << " values) and "
             << "'block_shape' (" << block.size()
             << " values) must have one value per spatial dimension";
    return failure();
  }
  if (r > 3) {
    unsupported(n) << ": " << r << "-D images (1-D to 3-D are supported)";
    return failure();
  }
  auto ints = [&](StringRef name, int64_t dflt,
                  size_t len) -> FailureOr<SmallVector<int64_t>> {
    auto v = intsAttr(n, name);
    if (failed(v))
      return failure();
    if (!*v)
      return SmallVector<int64_t>(len, dflt);
    if ((*v)->size() != len) {
      error(n) << "attribute '" << name << "' has " << (*v)->size()
               << " values; expected " << len;
      return failure();
    }
    return **v;
  };
  auto strides = ints("strides", 1, r);
  auto dilations = ints("dilations", 1, r);
  auto pads = ints("pads", 0, 2 * r);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape() || xt.getRank() != 3 ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [N, C * prod(block_shape), L]";
    return failure();
  }
  int64_t k = 1;
  for (int64_t b : block) {
    if (b <= 0) {
      error(n) << "'block_shape' has the size " << b;
      return failure();
    }
    k *= b;
  }
  if (xt.getDimSize(1) % k != 0) {
    error(n) << "input dimension 1 (" << xt.getDimSize(1)
             << ") is not a multiple of prod(block_shape) = " << k;
    return failure();
  }
  int64_t channels = xt.getDimSize(1) / k;
  SmallVector<int64_t> blocks, outputPadding;
  int64_t count = 1;
  for (size_t i = 0; i < r; ++i) {
    int64_t s = (*strides)[i], d = (*dilations)[i];
    if (s <= 0 || d <= 0 || image[i] <= 0) {
      error(n) << "strides, dilations and 'image_shape' must be positive";
      return failure();
    }
    int64_t span =
        image[i] + (*pads)[i] + (*pads)[i + r] - d * (block[i] - 1) - 1;
    if (span < 0) {
      error(n) << "the block does not fit spatial dimension " << i
               << " of the padded image";
      return failure();
    }
    blocks.push_back(span / s + 1);
    outputPadding.push_back(span % s);
    count *= blocks.back();
  }
  if (count != xt.getDimSize(2)) {
    error(n) << "input dimension 2 (" << xt.getDimSize(2)
             << ") must be the number of blocks, " << count;
    return failure();
  }
  Type elem = xt.getElementType();
  SmallVector<int64_t> colsShape{xt.getDimSize(0), channels * k};
  colsShape.append(blocks.begin(), blocks.end());
  SmallVector<int64_t> wShape{channels * k, 1};
  wShape.append(block.begin(), block.end());
  SmallVector<double> weights(channels * k * k, 0.0);
  for (int64_t c = 0; c < channels * k; ++c)
    weights[c * k + c % k] = 1.0;
  OpChain g(builder, n.loc);
  Value y = g.op(
      "graph.conv_transpose",
      {g.reshape(*x, colsShape), g.constant(elem, wShape, weights)},
      {g.attr("strides", builder.getDenseI64ArrayAttr(*strides)),
       g.attr("pads", builder.getDenseI64ArrayAttr(*pads)),
       g.attr("dilations", builder.getDenseI64ArrayAttr(*dilations)),
       g.attr("output_padding", builder.getDenseI64ArrayAttr(outputPadding)),
       g.attr("group", builder.getI64IntegerAttr(channels))});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

/// MaxRoiPool (opset 1), as ONNX Runtime computes it: each RoI's corners
/// scaled and rounded half away from zero, bins of (size + 1) / pooled
/// positions starting at floor(i * bin) and ending at ceil((i + 1) * bin)
/// (clamped to the image), an empty bin gives 0. Masked maxima: over the
/// columns of each bin ([R, C, H, PW]), then over its rows.
FailureOr<SmallVector<Value>> NodeImporter::maxRoiPool(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto rois = requireInput(n, 1, "rois");
  auto pooled = intsAttr(n, "pooled_shape");
  auto scale = floatAttr(n, "spatial_scale", 1.0);
  if (failed(x) || failed(rois) || failed(pooled) || failed(scale))
    return failure();
  if (!*pooled || (*pooled)->size() != 2 || (**pooled)[0] <= 0 ||
      (**pooled)[1] <= 0) {
    error(n) << "attribute 'pooled_shape' must be two positive integers";
    return failure();
  }
  auto xt = rankedOf(*x);
  auto rt = rankedOf(*rois);
  if (!xt || !rt || !xt.hasStaticShape() || !rt.hasStaticShape() ||
      xt.getRank() != 4 || rt.getRank() != 2 || rt.getDimSize(1) != 5 ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [N, C, H, W] and rois [R, 5] "
                "(batch index, x1, y1, x2, y2)";
    return failure();
  }
  int64_t R = rt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3), PH = (**pooled)[0], PW = (**pooled)[1];
  Type elem = xt.getElementType();
  Type i64t = builder.getIntegerType(64);

  OpChain g(builder, n.loc);
  auto c = [&](double v) { return g.scalar(elem, v); };
  Value r = g.cast(*rois, elem);
  // Half away from zero, as std::round.
  auto round = [&](Value v) {
    return g.mul(
        g.unary("graph.sign", v),
        g.unary("graph.floor", g.add(g.unary("graph.abs", v), c(0.5))));
  };
  auto corner = [&](int64_t i) { // [R, 1]
    return round(g.mul(g.slice(r, 1, i, i + 1), c(*scale)));
  };
  Value x1 = corner(1), y1 = corner(2), x2 = corner(3), y2 = corner(4);
  // The bounds of every bin along one axis ([R, bins]) and the mask of the
  // positions inside each ([R, bins, size]); `empty` where end <= start.
  struct Bins {
    Value mask, empty;
  };
  auto bins = [&](Value start, Value end, int64_t count, int64_t size) {
    Value extent = g.max(g.add(g.sub(end, start), c(1.0)), c(1.0));
    Value bin = g.div(extent, c((double)count));
    Value i = g.iota(elem, {1, count});
    auto clamp = [&](Value v) {
      return g.min(g.max(g.add(v, start), c(0.0)), c((double)size));
    };
    Value lo = clamp(g.unary("graph.floor", g.mul(i, bin)));
    Value hi = clamp(g.unary("graph.ceil", g.mul(g.add(i, c(1.0)), bin)));
    Value pos = g.iota(elem, {1, 1, size});
    Value lo3 = g.reshape(lo, {R, count, 1}),
          hi3 = g.reshape(hi, {R, count, 1});
    Bins b;
    b.mask = g.logicalAnd(g.cmp("graph.greater_or_equal", pos, lo3),
                          g.cmp("graph.less", pos, hi3));
    b.empty = g.cmp("graph.less_or_equal", hi, lo);
    return b;
  };
  Bins rowsB = bins(y1, y2, PH, H), colsB = bins(x1, x2, PW, W);
  Value batch = g.reshape(g.cast(g.slice(r, 1, 0, 1), i64t), {R});
  Value img = g.op("graph.gather", {*x, batch},
                   {g.attr("axis", builder.getI64IntegerAttr(0))});
  Value lowest = c(-std::numeric_limits<double>::infinity());
  // Over the columns: [R, C, H, 1, W] against [R, 1, 1, PW, W].
  Value cols = g.reduce("graph.reduce_max",
                        g.where(g.reshape(colsB.mask, {R, 1, 1, PW, W}),
                                g.reshape(img, {R, C, H, 1, W}), lowest),
                        {4}, false);
  // Over the rows: [R, C, 1, H, PW] against [R, 1, PH, H, 1].
  Value rowsMax = g.reduce("graph.reduce_max",
                           g.where(g.reshape(rowsB.mask, {R, 1, PH, H, 1}),
                                   g.reshape(cols, {R, C, 1, H, PW}), lowest),
                           {3}, false);
  Value empty = g.op("graph.or", {g.reshape(rowsB.empty, {R, 1, PH, 1}),
                                  g.reshape(colsB.empty, {R, 1, 1, PW})});
  Value y = g.where(empty, c(0.0), rowsMax);
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}

/// DeformConv (opset 19), 2-D: every kernel tap of every output position
/// samples its input channels bilinearly (as torchvision and ONNX Runtime:
/// 0 outside (-1, size), corners outside the image read 0) at the tap's
/// regular position plus its learned offset, optionally scaled by the mask;
/// the samples [N, offset groups, taps, H', W', channels per offset group]
/// become the columns of one batched matmul per convolution group.
FailureOr<SmallVector<Value>> NodeImporter::deformConv(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto wt = requireInput(n, 1, "W");
  auto offset = requireInput(n, 2, "offset");
  auto kernel = intsAttr(n, "kernel_shape");
  auto group = intAttr(n, "group", 1);
  auto offsetGroup = intAttr(n, "offset_group", 1);
  if (failed(x) || failed(wt) || failed(offset) || failed(kernel) ||
      failed(group) || failed(offsetGroup))
    return failure();
  Value bias = n.in(3), mask = n.in(4);
  auto xt = rankedOf(*x);
  auto wType = rankedOf(*wt);
  auto ot = rankedOf(*offset);
  if (!xt || !wType || !ot || !xt.hasStaticShape() || !wType.hasStaticShape() ||
      !ot.hasStaticShape() || !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs static float X, W and offset";
    return failure();
  }
  if (xt.getRank() != 4 || wType.getRank() != 4) {
    unsupported(n) << ": " << xt.getRank() - 2
                   << "-D deformable convolution (2-D is supported)";
    return failure();
  }
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3), M = wType.getDimSize(0),
          kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  if (*kernel &&
      ((*kernel)->size() != 2 || (**kernel)[0] != kh || (**kernel)[1] != kw)) {
    error(n) << "attribute 'kernel_shape' does not match W's " << kh << "x"
             << kw;
    return failure();
  }
  int64_t G = *offsetGroup, groups = *group;
  if (groups <= 0 || G <= 0 || C % groups != 0 || M % groups != 0 ||
      C % G != 0 || wType.getDimSize(1) * groups != C) {
    error(n) << "'group' (" << groups << ") and 'offset_group' (" << G
             << ") must divide the " << C << " input channels, 'group' the "
             << M << " output channels, and W must have " << C << "/group "
             << "input channels";
    return failure();
  }
  WindowAttrs w;
  w.kernel = {kh, kw};
  if (failed(windowAttrs(n, *x, w, false)))
    return failure();
  int64_t oh = graph::windowOutputSize(H, kh, w.strides[0], w.dilations[0],
                                       w.pads[0], w.pads[2], false);
  int64_t ow = graph::windowOutputSize(W, kw, w.strides[1], w.dilations[1],
                                       w.pads[1], w.pads[3], false);
  int64_t K = kh * kw, Cg = C / G;
  if (oh <= 0 || ow <= 0) {
    error(n) << "the kernel does not fit the padded input";
    return failure();
  }
  auto expect = [&](Value v, StringRef name, int64_t channels) {
    auto t = rankedOf(v);
    if (t && t.hasStaticShape() &&
        t.getShape() == ArrayRef<int64_t>{N, channels, oh, ow})
      return true;
    error(n) << "input '" << name << "' must be [" << N << ", " << channels
             << ", " << oh << ", " << ow << "]";
    return false;
  };
  if (!expect(*offset, "offset", G * 2 * K) ||
      (mask && !expect(mask, "mask", G * K)))
    return failure();
  if (bias) {
    auto bt = rankedOf(bias);
    if (!bt || bt.getShape() != ArrayRef<int64_t>{M}) {
      error(n) << "input 'B' must be [" << M << "]";
      return failure();
    }
  }
  Type elem = xt.getElementType();
  Type i64t = builder.getIntegerType(64);
  OpChain g(builder, n.loc);
  auto c = [&](double v) { return g.scalar(elem, v); };
  // Every quantity per sample position is [N, G, K, oh, ow, 1].
  SmallVector<int64_t> pos{N, G, K, oh, ow, 1};
  // The regular sampling positions of the taps: [1, 1, K, oh, 1, 1] rows
  // and [1, 1, K, 1, ow, 1] columns.
  SmallVector<double> rows, cols;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < oh; ++i)
      rows.push_back(
          (double)(i * w.strides[0] - w.pads[0] + (k / kw) * w.dilations[0]));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < ow; ++j)
      cols.push_back(
          (double)(j * w.strides[1] - w.pads[1] + (k % kw) * w.dilations[1]));
  Value off = g.reshape(*offset, {N, G, K, 2, oh, ow});
  Value y = g.add(g.constant(elem, {1, 1, K, oh, 1, 1}, rows),
                  g.reshape(g.slice(off, 3, 0, 1), pos));
  Value xs = g.add(g.constant(elem, {1, 1, K, 1, ow, 1}, cols),
                   g.reshape(g.slice(off, 3, 1, 2), pos));
  Value inRange =
      g.logicalAnd(g.logicalAnd(g.cmp("graph.greater", y, c(-1.0)),
                                g.cmp("graph.less", y, c((double)H))),
                   g.logicalAnd(g.cmp("graph.greater", xs, c(-1.0)),
                                g.cmp("graph.less", xs, c((double)W))));
  Value y0 = g.unary("graph.floor", y), x0 = g.unary("graph.floor", xs);
  Value ly = g.sub(y, y0), lx = g.sub(xs, x0);
  Value hy = g.sub(c(1.0), ly), hx = g.sub(c(1.0), lx);
  // The image as [N, H, W, G, Cg], read at (n, y, x, offset group) tuples.
  TapReader taps{g,
                 g.reshape(g.transpose(*x, {0, 2, 3, 1}), {N, H, W, G, Cg}),
                 g.expand(g.iota(i64t, {N, 1, 1, 1, 1, 1}), pos),
                 H,
                 W,
                 g.expand(g.iota(i64t, {1, G, 1, 1, 1, 1}), pos)};
  Value scale = mask ? g.reshape(mask, pos) : Value();
  auto tap = [&](Value cy, Value cx, Value weight) {
    if (scale)
      weight = g.mul(weight, scale);
    return taps.read(cy, cx, g.where(inRange, weight, c(0.0)));
  };
  Value y1 = g.add(y0, c(1.0)), x1 = g.add(x0, c(1.0));
  Value samples =
      g.add(g.add(tap(y0, x0, g.mul(hy, hx)), tap(y0, x1, g.mul(hy, lx))),
            g.add(tap(y1, x0, g.mul(ly, hx)), tap(y1, x1, g.mul(ly, lx))));
  // Columns [N, groups, (C / groups) * K, oh * ow], channel-major as W.
  int64_t kc = C / groups * K;
  Value columns = g.reshape(g.transpose(samples, {0, 1, 5, 2, 3, 4}),
                            {N, groups, kc, oh * ow});
  Value out =
      g.op("graph.matmul", {g.reshape(*wt, {groups, M / groups, kc}), columns});
  Value result = g.reshape(out, {N, M, oh, ow});
  if (bias)
    result = g.add(result, g.reshape(bias, {1, M, 1, 1}));
  if (g.failed())
    return failure();
  return SmallVector<Value>{result};
}

/// The [out, in] interpolation matrix of one axis of an antialiased linear
/// or cubic Resize, as the ONNX reference defines it (and ONNX Runtime
/// computes it): the filter stretched by 1 / scale when downscaling, its
/// taps the input positions nearest the source coordinate (edge values
/// beyond the ends, or none with exclude_outside), weights normalized to 1.
static SmallVector<double> antialiasMatrix(int64_t in, int64_t out,
                                           double scale, bool cubic,
                                           StringRef ct, double a,
                                           bool excludeOutside) {
  double s = std::min(scale, 1.0);
  auto cubicWeight = [&](double v) {
    v = std::fabs(v);
    if (v <= 1.0)
      return ((a + 2.0) * v - (a + 3.0)) * v * v + 1.0;
    if (v < 2.0)
      return ((a * v - 5.0 * a) * v + 8.0 * a) * v - 4.0 * a;
    return 0.0;
  };
  SmallVector<double> m(out * in, 0.0);
  double outWidth = scale * (double)in;
  for (int64_t o = 0; o < out; ++o) {
    double src;
    if (ct == "align_corners")
      src = outWidth == 1.0 ? 0.0
                            : (double)o * (double)(in - 1) / (outWidth - 1.0);
    else if (ct == "asymmetric")
      src = (double)o / scale;
    else if (ct == "pytorch_half_pixel")
      src = outWidth == 1.0 ? -0.5 : ((double)o + 0.5) / scale - 0.5;
    else if (ct == "half_pixel_symmetric")
      src = (double)in / 2.0 * (1.0 - (double)out / outWidth) +
            ((double)o + 0.5) / scale - 0.5;
    else // half_pixel
      src = ((double)o + 0.5) / scale - 0.5;
    double base = std::floor(src);
    // In (0, 1]: an integral coordinate takes the pixel on its left.
    double ratio = src == base ? 1.0 : src - base;
    int64_t first = cubic ? (int64_t)std::floor(-2.0 / s) + 1
                          : (int64_t)std::floor(-1.0 / s) + 1;
    int64_t taps = 2 - 2 * first;
    SmallVector<double> w;
    double total = 0.0;
    for (int64_t i = first; i < first + taps; ++i) {
      double arg = s * ((double)i - ratio);
      double v =
          cubic ? cubicWeight(arg) : std::clamp(1.0 - std::fabs(arg), 0.0, 1.0);
      w.push_back(v);
      total += v;
    }
    // The taps (an even count, 2 * half) input positions nearest `src`,
    // ties to the lower one: from base - half + 1, or from base - half when
    // `src` is integral; kept inside the input padded by `half` edge values
    // on each side.
    int64_t half = taps / 2;
    int64_t low = (int64_t)base - half + (src == base ? 0 : 1);
    low = std::clamp<int64_t>(low, -half,
                              std::max<int64_t>(-half, in + half - taps));
    if (excludeOutside) {
      total = 0.0;
      for (int64_t i = 0; i < taps; ++i) {
        if (low + i < 0 || low + i >= in)
          w[i] = 0.0;
        total += w[i];
      }
    }
    for (int64_t i = 0; i < taps; ++i)
      m[o * in + std::clamp<int64_t>(low + i, 0, in - 1)] +=
          total != 0.0 ? w[i] / total : 0.0;
  }
  return m;
}

/// An antialiased linear or cubic Resize of a static input to `outDims`:
/// each resized axis is a matmul by its constant interpolation matrix.
FailureOr<Value> NodeImporter::antialiasResize(
    NodeCtx &n, Value x, ArrayRef<double> scales, ArrayRef<int64_t> outDims,
    StringRef mode, StringRef ct, double cubicA, bool excludeOutside) {
  auto xt = rankedOf(x);
  int64_t rank = xt.getRank();
  Type elem = xt.getElementType();
  if (!isa<FloatType>(elem)) {
    unsupported(n) << ": antialias=1 on a non-float input";
    return failure();
  }
  OpChain g(builder, n.loc);
  Value y = x;
  for (int64_t ax = 0; ax < rank; ++ax) {
    int64_t in = xt.getDimSize(ax), out = outDims[ax];
    if (in == out && scales[ax] == 1.0)
      continue;
    if (in <= 0 || out <= 0) {
      unsupported(n) << ": antialias=1 with an empty dimension";
      return failure();
    }
    SmallVector<double> m = antialiasMatrix(
        in, out, scales[ax], mode == "cubic", ct, cubicA, excludeOutside);
    if (ax == rank - 1) {
      // [..., in] x [in, out]: the transposed matrix.
      SmallVector<double> t(in * out);
      for (int64_t o = 0; o < out; ++o)
        for (int64_t i = 0; i < in; ++i)
          t[i * out + o] = m[o * in + i];
      y = g.op("graph.matmul", {y, g.constant(elem, {in, out}, t)});
      continue;
    }
    // [out, in] x [..., in, rest]: the axis moved next to last.
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != ax)
        perm.push_back(i);
    perm.insert(perm.end() - 1, ax);
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[perm[i]] = i;
    bool moved = ax != rank - 2;
    Value v = moved ? g.transpose(y, perm) : y;
    v = g.op("graph.matmul", {g.constant(elem, {out, in}, m), v});
    y = moved ? g.transpose(v, inverse) : v;
  }
  if (g.failed())
    return failure();
  return y;
}
