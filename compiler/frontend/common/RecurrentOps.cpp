//===- RecurrentOps.cpp - ONNX RNN, GRU and LSTM --------------------------===//
//
// The recurrent ops are unrolled over their (static) sequence length into
// graph ops: one matmul projects the whole input sequence onto every gate of
// a direction, then each step adds a gemm of the previous hidden state with
// the recurrence weights and applies the gate activations. Shorter sequences
// (sequence_lens) are masked per step with `where`: past a sequence's length
// the state is carried unchanged and the output is 0, so Y_h/Y_c hold the
// last valid step (and the reverse direction starts at the last valid step).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

namespace {

enum class CellKind { Rnn, Gru, Lstm };

/// One activation function of the `activations` attribute with its
/// parameters.
struct Activation {
  std::string name; // lower case
  double alpha = 0, beta = 0;
};

/// Whether the activation takes `alpha` / `beta`, and their defaults (those
/// of ONNX Runtime when the attribute lists run short).
void activationParams(StringRef name, bool &hasAlpha, bool &hasBeta,
                      double &alpha, double &beta) {
  hasAlpha = hasBeta = false;
  alpha = beta = 0;
  if (name == "affine") {
    hasAlpha = hasBeta = true;
    alpha = 1.0;
  } else if (name == "leakyrelu") {
    hasAlpha = true;
    alpha = 0.01;
  } else if (name == "thresholdedrelu" || name == "elu") {
    hasAlpha = true;
    alpha = 1.0;
  } else if (name == "scaledtanh") {
    hasAlpha = hasBeta = true;
    alpha = beta = 1.0;
  } else if (name == "hardsigmoid") {
    hasAlpha = hasBeta = true;
    alpha = 0.2;
    beta = 0.5;
  }
}

bool knownActivation(StringRef name) {
  return llvm::is_contained({"relu", "tanh", "sigmoid", "affine", "leakyrelu",
                             "thresholdedrelu", "scaledtanh", "hardsigmoid",
                             "elu", "softsign", "softplus"},
                            name);
}

} // namespace

FailureOr<SmallVector<Value>> NodeImporter::recurrent(NodeCtx &n) {
  StringRef opType = n.node.opType;
  CellKind kind = opType == "RNN"   ? CellKind::Rnn
                  : opType == "GRU" ? CellKind::Gru
                                    : CellKind::Lstm;
  const int64_t numGates = kind == CellKind::Rnn   ? 1
                           : kind == CellKind::Gru ? 3
                                                   : 4;
  const unsigned numActs = numGates == 1 ? 1 : numGates == 3 ? 2 : 3;

  auto x = requireInput(n, 0, "X");
  auto w = requireInput(n, 1, "W");
  auto r = requireInput(n, 2, "R");
  if (failed(x) || failed(w) || failed(r))
    return failure();
  Value bias = n.in(3), seqLens = n.in(4), initH = n.in(5);
  Value initC = kind == CellKind::Lstm ? n.in(6) : Value();
  Value peep = kind == CellKind::Lstm ? n.in(7) : Value();

  // Attributes.
  auto hiddenAttr = optIntAttr(n, "hidden_size");
  auto dirAttr = stringAttr(n, "direction");
  auto layoutAttr = intAttr(n, "layout", 0);
  auto clipAttr = optFloatAttr(n, "clip");
  auto inputForget = intAttr(n, "input_forget", 0);
  auto linearBeforeReset = intAttr(n, "linear_before_reset", 0);
  if (failed(hiddenAttr) || failed(dirAttr) || failed(layoutAttr) ||
      failed(clipAttr) || failed(inputForget) || failed(linearBeforeReset))
    return failure();
  if (n.opset() < 7 && n.node.findAttr("output_sequence")) {
    unsupported(n) << ": attribute 'output_sequence' (opset " << n.opset()
                   << ") is not supported";
    return failure();
  }
  std::string direction = dirAttr->value_or("forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    error(n) << "attribute 'direction' must be forward, reverse or "
                "bidirectional, not '"
             << direction << "'";
    return failure();
  }
  const int64_t numDirs = direction == "bidirectional" ? 2 : 1;
  const int64_t layout = *layoutAttr;
  if (layout != 0 && layout != 1) {
    error(n) << "attribute 'layout' must be 0 or 1, not " << layout;
    return failure();
  }

  // Shapes: everything static.
  auto xType = rankedOf(*x), wType = rankedOf(*w), rType = rankedOf(*r);
  if (!xType || !wType || !rType || !xType.hasStaticShape() ||
      !wType.hasStaticShape() || !rType.hasStaticShape()) {
    unsupported(n) << ": X, W and R need static shapes (the sequence is "
                      "unrolled)";
    return failure();
  }
  Type elem = xType.getElementType();
  if (!isa<FloatType>(elem)) {
    unsupported(n) << ": element type " << elem;
    return failure();
  }
  if (xType.getRank() != 3 || wType.getRank() != 3 || rType.getRank() != 3) {
    error(n) << "X, W and R must be 3-D";
    return failure();
  }
  const int64_t seqLen = xType.getDimSize(layout == 0 ? 0 : 1);
  const int64_t batch = xType.getDimSize(layout == 0 ? 1 : 0);
  const int64_t inputSize = xType.getDimSize(2);
  const int64_t hidden = hiddenAttr->value_or(rType.getDimSize(2));
  if (seqLen == 0) {
    unsupported(n) << ": an empty sequence (X has shape "
                   << shapeString(xType.getShape()) << ")";
    return failure();
  }
  if (wType.getDimSize(0) != numDirs || rType.getDimSize(0) != numDirs) {
    error(n) << "W and R must have " << numDirs
             << " direction(s) for direction '" << direction << "', not "
             << shapeString(wType.getShape()) << " and "
             << shapeString(rType.getShape());
    return failure();
  }
  if (wType.getDimSize(1) != numGates * hidden ||
      wType.getDimSize(2) != inputSize ||
      rType.getDimSize(1) != numGates * hidden ||
      rType.getDimSize(2) != hidden) {
    error(n) << "W " << shapeString(wType.getShape()) << " and R "
             << shapeString(rType.getShape())
             << " do not match attribute 'hidden_size' " << hidden
             << " and input size " << inputSize;
    return failure();
  }
  auto checkShape = [&](Value v, StringRef what,
                        ArrayRef<int64_t> expected) -> bool {
    if (!v)
      return true;
    auto t = rankedOf(v);
    if (!t || !t.hasStaticShape() || t.getShape() != expected) {
      error(n) << "input '" << what << "' must have shape "
               << shapeString(expected) << ", not "
               << (t ? shapeString(t.getShape()) : std::string("unranked"));
      return false;
    }
    return true;
  };
  SmallVector<int64_t> stateShape =
      layout == 0 ? SmallVector<int64_t>{numDirs, batch, hidden}
                  : SmallVector<int64_t>{batch, numDirs, hidden};
  if (!checkShape(bias, "B", {numDirs, 2 * numGates * hidden}) ||
      !checkShape(seqLens, "sequence_lens", {batch}) ||
      !checkShape(initH, "initial_h", stateShape) ||
      !checkShape(initC, "initial_c", stateShape) ||
      !checkShape(peep, "P", {numDirs, 3 * hidden}))
    return failure();

  // Activations and their parameters.
  SmallVector<Activation> acts;
  {
    const AttrValue *a = n.node.findAttr("activations");
    std::vector<std::string> names;
    if (a) {
      if (auto *v = std::get_if<std::vector<std::string>>(a)) {
        names = *v;
      } else if (auto *s = std::get_if<std::string>(a)) {
        names = {*s};
      } else {
        error(n) << "attribute 'activations' must be a list of strings";
        return failure();
      }
    }
    if (names.empty()) {
      for (int64_t d = 0; d < numDirs; ++d) {
        if (kind == CellKind::Rnn)
          names.push_back("tanh");
        else
          names.push_back("sigmoid");
        for (unsigned i = 1; i < numActs; ++i)
          names.push_back("tanh");
      }
    } else if (names.size() == numActs && numDirs == 2) {
      // The same functions for both directions.
      for (unsigned i = 0; i < numActs; ++i)
        names.push_back(names[i]);
    }
    if (names.size() != (size_t)(numActs * numDirs)) {
      error(n) << "attribute 'activations' must name " << numActs * numDirs
               << " functions (" << numActs << " per direction), not "
               << names.size();
      return failure();
    }
    auto floats = [&](StringRef name,
                      SmallVector<double> &out) -> LogicalResult {
      const AttrValue *v = n.node.findAttr(name);
      if (!v)
        return success();
      if (auto *f = std::get_if<SmallVector<double>>(v)) {
        out = *f;
        return success();
      }
      if (auto *i = std::get_if<SmallVector<int64_t>>(v)) {
        out.assign(i->begin(), i->end());
        return success();
      }
      if (auto *f = std::get_if<double>(v)) {
        out = {*f};
        return success();
      }
      error(n) << "attribute '" << name << "' must be a list of floats";
      return failure();
    };
    SmallVector<double> alphas, betas;
    if (failed(floats("activation_alpha", alphas)) ||
        failed(floats("activation_beta", betas)))
      return failure();
    size_t nextAlpha = 0, nextBeta = 0;
    for (const std::string &name : names) {
      Activation act;
      act.name = StringRef(name).lower();
      if (!knownActivation(act.name)) {
        unsupported(n) << ": activation '" << name
                       << "' in attribute 'activations' is not supported";
        return failure();
      }
      bool hasAlpha, hasBeta;
      activationParams(act.name, hasAlpha, hasBeta, act.alpha, act.beta);
      if (hasAlpha && nextAlpha < alphas.size())
        act.alpha = alphas[nextAlpha++];
      if (hasBeta && nextBeta < betas.size())
        act.beta = betas[nextBeta++];
      acts.push_back(act);
    }
  }

  // Sequence lengths: masking is needed unless they are constant and all
  // equal to the sequence length.
  bool masked = false;
  if (seqLens) {
    if (!isa<IntegerType>(elementTypeOf(seqLens))) {
      error(n) << "input 'sequence_lens' must be an integer tensor";
      return failure();
    }
    SmallVector<int64_t> lens;
    if (succeeded(graph::getConstantInts(seqLens, lens))) {
      for (int64_t l : lens) {
        if (l < 0 || l > seqLen) {
          error(n) << "input 'sequence_lens' holds " << l << ", outside [0, "
                   << seqLen << "]";
          return failure();
        }
        masked |= l != seqLen;
      }
    } else {
      masked = true;
    }
  }

  // Graph construction. A failed op leaves a null value; everything built
  // from it is skipped and the handler fails at the end.
  bool bad = false;
  auto op = [&](StringRef name, ValueRange operands,
                ArrayRef<NamedAttribute> attrs = {}) -> Value {
    if (bad || llvm::any_of(operands, [](Value v) { return !v; })) {
      bad = true;
      return Value();
    }
    auto v = build(n, name, operands, attrs);
    if (failed(v)) {
      bad = true;
      return Value();
    }
    return *v;
  };
  auto scalar = [&](double v) { return constant(n, scalarOf(elem, v)); };
  auto sliceAxis = [&](Value v, int64_t axis, int64_t begin,
                       int64_t end) -> Value {
    return op("graph.slice", {v, constI64(n, {begin}), constI64(n, {end}),
                              constI64(n, {axis}), constI64(n, {1})});
  };
  auto squeeze = [&](Value v, int64_t axis) -> Value {
    return op("graph.squeeze", {v, constI64(n, {axis})});
  };
  auto unsqueeze = [&](Value v, int64_t axis) -> Value {
    return op("graph.unsqueeze", {v, constI64(n, {axis})});
  };
  // Row `i` of the leading dimension.
  auto row = [&](Value v, int64_t i) -> Value {
    return squeeze(sliceAxis(v, 0, i, i + 1), 0);
  };
  auto add = [&](Value a, Value b) { return op("graph.add", {a, b}); };
  auto mul = [&](Value a, Value b) { return op("graph.mul", {a, b}); };
  auto clip = [&](Value v) -> Value {
    if (!*clipAttr)
      return v;
    double c = **clipAttr;
    return op("graph.clip", {v, scalar(-c), scalar(c)});
  };
  auto activate = [&](Value v, const Activation &a) -> Value {
    v = clip(v);
    StringRef name = a.name;
    auto params = [&](double alpha, double beta) {
      return SmallVector<NamedAttribute>{named("alpha", f32(alpha)),
                                         named("beta", f32(beta))};
    };
    if (name == "relu")
      return op("graph.relu", {v});
    if (name == "tanh")
      return op("graph.tanh", {v});
    if (name == "sigmoid")
      return op("graph.sigmoid", {v});
    if (name == "softsign")
      return op("graph.softsign", {v});
    if (name == "softplus")
      return op("graph.softplus", {v});
    if (name == "affine")
      return add(mul(v, scalar(a.alpha)), scalar(a.beta));
    if (name == "scaledtanh")
      return mul(op("graph.tanh", {mul(v, scalar(a.beta))}), scalar(a.alpha));
    if (name == "leakyrelu")
      return op("graph.leaky_relu", {v}, params(a.alpha, 0));
    if (name == "thresholdedrelu")
      return op("graph.thresholded_relu", {v}, params(a.alpha, 0));
    if (name == "elu")
      return op("graph.elu", {v}, params(a.alpha, 0));
    return op("graph.hard_sigmoid", {v}, params(a.alpha, a.beta));
  };

  // To the [seq, batch, ...] / [dirs, batch, hidden] layout.
  Value xs = *x;
  if (layout == 1) {
    xs = op("graph.transpose", {xs}, {named("perm", i64s({1, 0, 2}))});
    if (initH)
      initH = op("graph.transpose", {initH}, {named("perm", i64s({1, 0, 2}))});
    if (initC)
      initC = op("graph.transpose", {initC}, {named("perm", i64s({1, 0, 2}))});
  }
  RankedTensorType stateType = RankedTensorType::get({batch, hidden}, elem);
  Value zeroState =
      constant(n, DenseElementsAttr::get(stateType, builder.getZeroAttr(elem)));

  // Per-step masks [batch, 1] (i1): step t lies within the sequence.
  SmallVector<Value> masks;
  if (masked) {
    Type lenElem = elementTypeOf(seqLens);
    for (int64_t t = 0; t < seqLen; ++t) {
      Value tv = constant(n, scalarOf(lenElem, (double)t));
      masks.push_back(unsqueeze(op("graph.less", {tv, seqLens}), 1));
    }
  }

  bool wantY = outputUsed(n, 0), wantH = outputUsed(n, 1);
  bool wantC = kind == CellKind::Lstm && outputUsed(n, 2);
  const int64_t gh = numGates * hidden;
  SmallVector<Value> ysPerDir, finalH, finalC;
  for (int64_t d = 0; d < numDirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Value wd = row(*w, d), rd = row(*r, d);
    // Input projection of the whole sequence: [seq, batch, gates*hidden].
    Value wt = op("graph.transpose", {wd}, {named("perm", i64s({1, 0}))});
    Value xproj = op("graph.matmul", {xs, wt});
    Value rBias; // GRU: recurrence bias, applied with the recurrence gemms
    if (bias) {
      Value bd = row(bias, d);
      Value wb = sliceAxis(bd, 0, 0, gh), rb = sliceAxis(bd, 0, gh, 2 * gh);
      if (kind == CellKind::Gru) {
        xproj = add(xproj, wb);
        rBias = rb;
      } else {
        xproj = add(xproj, add(wb, rb));
      }
    }
    Value pi, po, pf;
    if (peep) {
      Value pd = row(peep, d);
      pi = sliceAxis(pd, 0, 0, hidden);
      po = sliceAxis(pd, 0, hidden, 2 * hidden);
      pf = sliceAxis(pd, 0, 2 * hidden, 3 * hidden);
    }
    // GRU: the update/reset and the hidden gate recurrences are separate.
    Value rZR, rH, rbZR, rbH;
    if (kind == CellKind::Gru) {
      rZR = sliceAxis(rd, 0, 0, 2 * hidden);
      rH = sliceAxis(rd, 0, 2 * hidden, 3 * hidden);
      if (rBias) {
        rbZR = sliceAxis(rBias, 0, 0, 2 * hidden);
        rbH = sliceAxis(rBias, 0, 2 * hidden, 3 * hidden);
      }
    }
    auto gemm = [&](Value a, Value b, Value c) -> Value {
      SmallVector<Value> operands{a, b};
      if (c)
        operands.push_back(c);
      if (!a || !b)
        operands = {Value()};
      return op("graph.gemm", operands,
                {named("alpha", f32(1.0)), named("beta", f32(1.0)),
                 named("trans_a", boolean(false)),
                 named("trans_b", boolean(true))});
    };
    // Gate k of a [batch, gates*hidden] or [gates*hidden] value; null
    // (an absent term) stays null.
    auto gate = [&](Value v, int64_t k) -> Value {
      if (!v)
        return Value();
      int64_t axis = cast<ShapedType>(v.getType()).getRank() - 1;
      return sliceAxis(v, axis, k * hidden, (k + 1) * hidden);
    };
    // a + b where b may be absent.
    auto plus = [&](Value a, Value b) { return b ? add(a, b) : a; };
    const Activation *f = &acts[d * numActs];
    const Activation *g = numActs > 1 ? &acts[d * numActs + 1] : nullptr;
    const Activation *h = numActs > 2 ? &acts[d * numActs + 2] : nullptr;

    Value hPrev = initH ? row(initH, d) : zeroState;
    // Without initial_h the first step's recurrence terms are just the
    // recurrence bias (or nothing): no gemm with the zero state.
    bool hZero = !initH;
    Value cPrev =
        kind == CellKind::Lstm ? (initC ? row(initC, d) : zeroState) : Value();
    SmallVector<Value> ys(seqLen);
    for (int64_t s = 0; s < seqLen && !bad; ++s) {
      int64_t t = reverse ? seqLen - 1 - s : s;
      Value xt = row(xproj, t); // [batch, gates*hidden]
      Value hNew, cNew;
      if (kind == CellKind::Rnn) {
        hNew = activate(hZero ? xt : add(xt, gemm(hPrev, rd, Value())), *f);
      } else if (kind == CellKind::Gru) {
        Value hzr = hZero ? rbZR : gemm(hPrev, rZR, rbZR);
        Value z = activate(plus(gate(xt, 0), gate(hzr, 0)), *f);
        Value rg = activate(plus(gate(xt, 1), gate(hzr, 1)), *f);
        Value hh;
        if (!hZero)
          hh = *linearBeforeReset ? mul(rg, gemm(hPrev, rH, rbH))
                                  : gemm(mul(rg, hPrev), rH, rbH);
        else if (rbH)
          hh = *linearBeforeReset ? mul(rg, rbH) : rbH;
        Value cand = activate(plus(gate(xt, 2), hh), *g);
        // (1 - z) * cand + z * hPrev = cand + z * (hPrev - cand)
        hNew = add(cand, mul(z, op("graph.sub", {hPrev, cand})));
      } else {
        Value gates = hZero ? xt : add(xt, gemm(hPrev, rd, Value()));
        Value gi = gate(gates, 0), go = gate(gates, 1), gf = gate(gates, 2),
              gc = gate(gates, 3);
        if (peep) {
          gi = add(gi, mul(pi, cPrev));
          gf = add(gf, mul(pf, cPrev));
        }
        Value i = activate(gi, *f);
        Value fg =
            *inputForget ? op("graph.sub", {scalar(1.0), i}) : activate(gf, *f);
        Value c = activate(gc, *g);
        cNew = add(mul(fg, cPrev), mul(i, c));
        if (peep)
          go = add(go, mul(po, cNew));
        Value o = activate(go, *f);
        hNew = mul(o, activate(cNew, *h));
      }
      if (masked) {
        Value m = masks[t];
        if (wantY)
          ys[t] = op("graph.where", {m, hNew, scalar(0.0)});
        hNew = op("graph.where", {m, hNew, hPrev});
        if (cNew)
          cNew = op("graph.where", {m, cNew, cPrev});
      } else {
        ys[t] = hNew;
      }
      hPrev = hNew;
      hZero = false;
      cPrev = cNew;
    }
    if (bad)
      break;
    if (wantY) {
      SmallVector<Value> pieces;
      for (Value y : ys)
        pieces.push_back(unsqueeze(y, 0));
      // [seq, 1, batch, hidden]
      ysPerDir.push_back(
          unsqueeze(op("graph.concat", pieces, {named("axis", i64(0))}), 1));
    }
    if (masked) {
      // An empty sequence has zero final states (as ONNX Runtime); step 0's
      // mask is "length > 0".
      Value nonEmpty = masks[0];
      hPrev = op("graph.where", {nonEmpty, hPrev, scalar(0.0)});
      if (cPrev)
        cPrev = op("graph.where", {nonEmpty, cPrev, scalar(0.0)});
    }
    finalH.push_back(unsqueeze(hPrev, 0));
    if (cPrev)
      finalC.push_back(unsqueeze(cPrev, 0));
  }
  if (bad)
    return failure();

  SmallVector<Value> results(kind == CellKind::Lstm ? 3 : 2);
  auto states = [&](ArrayRef<Value> perDir) -> Value {
    Value v = op("graph.concat", perDir, {named("axis", i64(0))});
    if (layout == 1)
      v = op("graph.transpose", {v}, {named("perm", i64s({1, 0, 2}))});
    return v;
  };
  if (wantY) {
    Value y = op("graph.concat", ysPerDir, {named("axis", i64(1))});
    if (layout == 1) // [batch, seq, dirs, hidden]
      y = op("graph.transpose", {y}, {named("perm", i64s({2, 0, 1, 3}))});
    results[0] = y;
  }
  if (wantH)
    results[1] = states(finalH);
  if (wantC)
    results[2] = states(finalC);
  if (bad)
    return failure();
  return results;
}
