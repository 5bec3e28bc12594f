//===- SignalOps.cpp - ONNX signal ops onto the graph dialect -------------===//
//
// HannWindow, HammingWindow, BlackmanWindow, DFT, STFT and MelWeightMatrix
// (opset 17), and ReverseSequence, decomposed into existing graph ops:
//
//  - the windows are constants (their size must be a constant);
//  - DFT and STFT are a matmul of the (framed, windowed) signal, with real
//    and imaginary parts interleaved in the last dimension, by a constant
//    [n * c, k * 2] matrix of cosines and sines (STFT frames with a gather
//    of constant indices);
//  - MelWeightMatrix computes the triangular filters elementwise, so that
//    the sample rate and the edge frequencies may be run-time values;
//  - ReverseSequence is a gather_elements along the time axis with indices
//    computed from the sequence lengths.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

#include <cmath>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

/// A scalar integer constant operand (a window size, dft_length, ...).
static FailureOr<int64_t> constantScalarInt(Value v) {
  SmallVector<double> values;
  if (!v || failed(getConstantDoubles(v, values)) || values.size() != 1)
    return failure();
  return (int64_t)values[0];
}

/// cos and sin of 2 * pi * m / n, exact at multiples of a quarter turn so
/// that the components that vanish are exactly 0.
static std::pair<double, double> unitCircle(int64_t m, int64_t n) {
  m %= n;
  if ((4 * m) % n == 0) {
    switch ((4 * m) / n) {
    case 0:
      return {1.0, 0.0};
    case 1:
      return {0.0, 1.0};
    case 2:
      return {-1.0, 0.0};
    default:
      return {0.0, -1.0};
    }
  }
  double a = 2.0 * M_PI * (double)m / (double)n;
  return {std::cos(a), std::sin(a)};
}

/// The [n * c, k * 2] matrix that maps a signal of `n` samples with `c`
/// (1: real, 2: complex) interleaved components to its first `k` DFT bins,
/// real and imaginary parts interleaved. The inverse transform uses
/// exp(+2 pi i k t / n) and scales by 1 / n.
static DenseElementsAttr dftMatrix(Type elem, int64_t n, int64_t c, int64_t k,
                                   bool inverse) {
  SmallVector<double> m(n * c * k * 2);
  double s = inverse ? -1.0 : 1.0, scale = inverse ? 1.0 / (double)n : 1.0;
  for (int64_t t = 0; t < n; ++t)
    for (int64_t f = 0; f < k; ++f) {
      auto [cs, sn] = unitCircle(t * f, n);
      // (xr + i xi) * (cos - i s sin)
      int64_t row = t * c, col = f * 2;
      m[row * k * 2 + col] = cs * scale;
      m[row * k * 2 + col + 1] = -s * sn * scale + 0.0; // no -0
      if (c == 2) {
        m[(row + 1) * k * 2 + col] = s * sn * scale + 0.0;
        m[(row + 1) * k * 2 + col + 1] = cs * scale;
      }
    }
  return tensorFromDoubles(RankedTensorType::get({n * c, k * 2}, elem), m);
}

FailureOr<SmallVector<Value>> NodeImporter::windowFunction(NodeCtx &n) {
  auto sizeIn = requireInput(n, 0, "size");
  auto periodic = intAttr(n, "periodic", 1);
  auto dtype = intAttr(n, "output_datatype", kOnnxFloat);
  if (failed(sizeIn) || failed(periodic) || failed(dtype))
    return failure();
  auto size = constantScalarInt(*sizeIn);
  if (failed(size)) {
    unsupported(n) << ": the window size is not a constant scalar";
    return failure();
  }
  if (*size < 0) {
    error(n) << "negative window size " << *size;
    return failure();
  }
  Type elem = onnxElementType(ctx, (int)*dtype);
  if (!elem || elem.isInteger(1)) {
    error(n) << "attribute 'output_datatype' " << *dtype << " ("
             << onnxDataTypeName((int)*dtype)
             << ") is not a numeric tensor type";
    return failure();
  }
  // a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N), N = size (periodic) or
  // size - 1 (symmetric).
  double a0, a1, a2 = 0;
  StringRef type = n.node.opType;
  if (type == "HannWindow") {
    a0 = 0.5;
    a1 = 0.5;
  } else if (type == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 21.0 / 46.0;
  } else {
    a0 = 0.42;
    a1 = 0.5;
    a2 = 0.08;
  }
  int64_t denom = *periodic ? *size : *size - 1;
  SmallVector<double> values;
  for (int64_t i = 0; i < *size; ++i) {
    double c1 = denom > 0 ? unitCircle(i, denom).first : 1.0;
    double c2 = denom > 0 ? unitCircle(2 * i, denom).first : 1.0;
    values.push_back(a0 - a1 * c1 + a2 * c2);
  }
  return SmallVector<Value>{constant(
      n, tensorFromDoubles(RankedTensorType::get({*size}, elem), values))};
}

FailureOr<SmallVector<Value>> NodeImporter::dft(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto axisAttr = intAttr(n, "axis", 1);
  auto inverse = intAttr(n, "inverse", 0);
  auto onesided = intAttr(n, "onesided", 0);
  if (failed(x) || failed(axisAttr) || failed(inverse) || failed(onesided))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape() || xt.getRank() < 2 ||
      (xt.getShape().back() != 1 && xt.getShape().back() != 2) ||
      !isa<FloatType>(xt.getElementType())) {
    error(n) << "needs a static float input [batch, n..., 1 or 2]";
    return failure();
  }
  int64_t rank = xt.getRank();
  int64_t axis = *axisAttr;
  if (Value a = n.in(2); a && !isEmptyTensorValue(a)) { // opset 20: an input
    auto v = constantScalarInt(a);
    if (failed(v)) {
      unsupported(n) << ": 'axis' is not a constant";
      return failure();
    }
    axis = *v;
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank - 2) {
    error(n) << "axis " << *axisAttr << " is out of range for an input of rank "
             << rank;
    return failure();
  }
  int64_t len = xt.getDimSize(axis), c = xt.getShape().back();
  int64_t length = len;
  if (Value l = n.in(1); l && !isEmptyTensorValue(l)) {
    auto v = constantScalarInt(l);
    if (failed(v)) {
      unsupported(n) << ": 'dft_length' is not a constant";
      return failure();
    }
    if (*v <= 0) {
      error(n) << "dft_length " << *v << " must be positive";
      return failure();
    }
    length = *v;
  }
  int64_t bins = *onesided ? length / 2 + 1 : length;

  OpChain g(builder, n.loc);
  Type elem = xt.getElementType();
  // Move the signal axis next to the component axis.
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  bool identity = axis == rank - 2;
  Value v = identity ? *x : g.transpose(*x, perm);
  // Truncate or zero-pad to dft_length.
  if (length < len) {
    v = g.slice(v, rank - 2, 0, length);
  } else if (length > len) {
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[rank + rank - 2] = length - len;
    v = g.op("graph.pad", {v, g.scalar(elem, 0.0)},
             {named("pads", i64s(pads)),
              named("mode", builder.getStringAttr("constant"))});
  }
  SmallVector<int64_t> outer(v ? rankedOf(v).getShape().drop_back(2)
                               : ArrayRef<int64_t>());
  SmallVector<int64_t> flat(outer), result(outer);
  flat.push_back(length * c);
  result.append({bins, 2});
  v = g.reshape(v, flat);
  v = g.op("graph.matmul",
           {v, g.constant(dftMatrix(elem, length, c, bins, *inverse != 0))});
  v = g.reshape(v, result);
  if (!identity) {
    SmallVector<int64_t> inv(rank);
    for (int64_t i = 0; i < rank; ++i)
      inv[perm[i]] = i;
    v = g.transpose(v, inv);
  }
  if (g.failed())
    return failure();
  return SmallVector<Value>{v};
}

FailureOr<SmallVector<Value>> NodeImporter::stft(NodeCtx &n) {
  auto signal = requireInput(n, 0, "signal");
  auto stepIn = requireInput(n, 1, "frame_step");
  auto onesided = intAttr(n, "onesided", 1);
  if (failed(signal) || failed(stepIn) || failed(onesided))
    return failure();
  auto st = rankedOf(*signal);
  if (!st || !st.hasStaticShape() || st.getRank() != 3 ||
      (st.getDimSize(2) != 1 && st.getDimSize(2) != 2) ||
      !isa<FloatType>(st.getElementType())) {
    error(n) << "needs a static float signal [batch, length, 1 or 2]";
    return failure();
  }
  auto step = constantScalarInt(*stepIn);
  if (failed(step)) {
    unsupported(n) << ": 'frame_step' is not a constant";
    return failure();
  }
  if (*step <= 0) {
    error(n) << "frame_step " << *step << " must be positive";
    return failure();
  }
  Value window = n.in(2);
  if (window && isEmptyTensorValue(window))
    window = Value();
  int64_t frameLength = -1;
  if (window) {
    auto wt = rankedOf(window);
    if (!wt || wt.getRank() != 1 || wt.isDynamicDim(0)) {
      error(n) << "window must be a static 1-D tensor";
      return failure();
    }
    frameLength = wt.getDimSize(0);
  }
  if (Value l = n.in(3); l && !isEmptyTensorValue(l)) {
    auto v = constantScalarInt(l);
    if (failed(v)) {
      unsupported(n) << ": 'frame_length' is not a constant";
      return failure();
    }
    if (frameLength >= 0 && *v != frameLength) {
      error(n) << "frame_length " << *v << " differs from the window length "
               << frameLength;
      return failure();
    }
    frameLength = *v;
  }
  if (frameLength < 0) {
    error(n) << "needs a window or a frame_length";
    return failure();
  }
  int64_t batch = st.getDimSize(0), len = st.getDimSize(1),
          c = st.getDimSize(2);
  if (frameLength <= 0 || frameLength > len) {
    error(n) << "frame length " << frameLength
             << " must be in [1, signal length " << len << "]";
    return failure();
  }
  int64_t frames = 1 + (len - frameLength) / *step;
  int64_t bins = *onesided ? frameLength / 2 + 1 : frameLength;
  Type elem = st.getElementType();

  OpChain g(builder, n.loc);
  SmallVector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t t = 0; t < frameLength; ++t)
      idx.push_back(f * *step + t);
  // [batch, frames, frame_length, c]
  Value v =
      g.op("graph.gather", {*signal, g.i64Tensor({frames, frameLength}, idx)},
           {named("axis", i64(1))});
  if (window)
    v = g.mul(v, g.reshape(g.cast(window, elem), {1, 1, frameLength, 1}));
  v = g.reshape(v, {batch, frames, frameLength * c});
  v = g.op("graph.matmul",
           {v, g.constant(dftMatrix(elem, frameLength, c, bins, false))});
  v = g.reshape(v, {batch, frames, bins, 2});
  if (g.failed())
    return failure();
  return SmallVector<Value>{v};
}

FailureOr<SmallVector<Value>> NodeImporter::melWeightMatrix(NodeCtx &n) {
  auto melIn = requireInput(n, 0, "num_mel_bins");
  auto dftIn = requireInput(n, 1, "dft_length");
  auto rate = requireInput(n, 2, "sample_rate");
  auto lower = requireInput(n, 3, "lower_edge_hertz");
  auto upper = requireInput(n, 4, "upper_edge_hertz");
  auto dtype = intAttr(n, "output_datatype", kOnnxFloat);
  if (failed(melIn) || failed(dftIn) || failed(rate) || failed(lower) ||
      failed(upper) || failed(dtype))
    return failure();
  auto mels = constantScalarInt(*melIn);
  auto dftLength = constantScalarInt(*dftIn);
  if (failed(mels) || failed(dftLength)) {
    unsupported(n) << ": 'num_mel_bins' and 'dft_length' must be constants";
    return failure();
  }
  if (*mels <= 0 || *dftLength <= 0) {
    error(n) << "num_mel_bins (" << *mels << ") and dft_length (" << *dftLength
             << ") must be positive";
    return failure();
  }
  Type out = onnxElementType(ctx, (int)*dtype);
  if (!out || out.isInteger(1)) {
    error(n) << "attribute 'output_datatype' " << *dtype << " ("
             << onnxDataTypeName((int)*dtype)
             << ") is not a numeric tensor type";
    return failure();
  }
  for (Value v : {*rate, *lower, *upper}) {
    auto t = rankedOf(v);
    if (!t || !t.hasStaticShape() || t.getNumElements() != 1) {
      error(n) << "sample_rate, lower_edge_hertz and upper_edge_hertz must "
                  "be scalars";
      return failure();
    }
  }
  int64_t m = *mels, specBins = *dftLength / 2 + 1;

  // Computed in f64: the bin edges are floored, so keep them exact.
  OpChain g(builder, n.loc);
  Type f64 = builder.getF64Type();
  auto scalar = [&](Value v) { return g.reshape(g.cast(v, f64), {1}); };
  Value sr = scalar(*rate), lo = scalar(*lower), hi = scalar(*upper);
  double ln10 = std::log(10.0);
  // mel(f) = 2595 log10(1 + f / 700)
  auto toMel = [&](Value f) {
    Value r = g.unary(
        "graph.log", g.add(g.scalar(f64, 1.0), g.div(f, g.scalar(f64, 700.0))));
    return g.mul(r, g.scalar(f64, 2595.0 / ln10));
  };
  Value loMel = toMel(lo), hiMel = toMel(hi);
  Value melStep = g.div(g.sub(hiMel, loMel), g.scalar(f64, (double)(m + 2)));
  Value points = g.add(g.mul(g.iota(f64, {m + 2}), melStep), loMel);
  // hz(mel) = 700 (10^(mel / 2595) - 1)
  Value hz = g.mul(
      g.scalar(f64, 700.0),
      g.sub(g.unary("graph.exp", g.mul(points, g.scalar(f64, ln10 / 2595.0))),
            g.scalar(f64, 1.0)));
  // Bin index floor((dft_length + 1) * hz / sample_rate).
  Value bin =
      g.unary("graph.floor",
              g.div(g.mul(hz, g.scalar(f64, (double)(*dftLength + 1))), sr));
  // Edges of filter i are bins i, i + 1 and i + 2: [1, m] each.
  Value left = g.reshape(g.slice(bin, 0, 0, m), {1, m});
  Value center = g.reshape(g.slice(bin, 0, 1, m + 1), {1, m});
  Value right = g.reshape(g.slice(bin, 0, 2, m + 2), {1, m});
  Value j = g.iota(f64, {specBins, 1});
  Value one = g.scalar(f64, 1.0), zero = g.scalar(f64, 0.0);
  auto nonZero = [&](Value d) {
    return g.where(g.cmp("graph.equal", d, zero), one, d);
  };
  Value up = g.div(g.sub(j, left), nonZero(g.sub(center, left)));
  Value down = g.div(g.sub(right, j), nonZero(g.sub(right, center)));
  Value inUp = g.logicalAnd(g.cmp("graph.greater_or_equal", j, left),
                            g.cmp("graph.less", j, center));
  Value inDown = g.logicalAnd(g.cmp("graph.greater", j, center),
                              g.cmp("graph.less", j, right));
  Value w = g.where(g.cmp("graph.equal", j, center), one,
                    g.where(inUp, up, g.where(inDown, down, zero)));
  w = g.cast(w, out);
  if (g.failed())
    return failure();
  return SmallVector<Value>{w};
}

FailureOr<SmallVector<Value>> NodeImporter::reverseSequence(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto lens = requireInput(n, 1, "sequence_lens");
  auto batchAttr = intAttr(n, "batch_axis", 1);
  auto timeAttr = intAttr(n, "time_axis", 0);
  if (failed(x) || failed(lens) || failed(batchAttr) || failed(timeAttr))
    return failure();
  auto xt = rankedOf(*x);
  auto lt = rankedOf(*lens);
  if (!xt || !xt.hasStaticShape() || xt.getRank() < 2) {
    error(n) << "needs a static input of rank >= 2";
    return failure();
  }
  int64_t rank = xt.getRank();
  int64_t batchAxis = *batchAttr < 0 ? *batchAttr + rank : *batchAttr;
  int64_t timeAxis = *timeAttr < 0 ? *timeAttr + rank : *timeAttr;
  if (batchAxis < 0 || batchAxis > 1 || timeAxis < 0 || timeAxis > 1 ||
      batchAxis == timeAxis) {
    error(n) << "attributes 'batch_axis' (" << *batchAttr
             << ") and 'time_axis' (" << *timeAttr
             << ") must be 0 and 1 in some order";
    return failure();
  }
  int64_t batch = xt.getDimSize(batchAxis), time = xt.getDimSize(timeAxis);
  if (!lt || lt.getRank() != 1 || lt.getDimSize(0) != batch ||
      !isa<IntegerType>(lt.getElementType())) {
    error(n) << "sequence_lens must be an integer tensor [" << batch << "]";
    return failure();
  }
  OpChain g(builder, n.loc);
  Type i64t = builder.getIntegerType(64);
  SmallVector<int64_t> lensShape(rank, 1), timeShape(rank, 1);
  lensShape[batchAxis] = batch;
  timeShape[timeAxis] = time;
  Value t = g.iota(i64t, timeShape);
  Value l = g.reshape(g.cast(*lens, i64t), lensShape);
  // t < len ? len - 1 - t : t
  Value rev = g.sub(g.sub(l, g.i64Tensor({}, {1})), t);
  Value idx = g.where(g.cmp("graph.less", t, l), rev, t);
  idx = g.expand(idx, xt.getShape());
  Value y =
      g.op("graph.gather_elements", {*x, idx}, {named("axis", i64(timeAxis))});
  if (g.failed())
    return failure();
  return SmallVector<Value>{y};
}
