//===- ControlFlowOps.cpp - If, Loop and Scan imported inline -------------===//
//
// The compiled model has no control flow: subgraphs are imported inline.
// If with a constant condition imports the taken branch only; with a
// run-time condition both branches, selected with Where (their outputs must
// have the same static shapes). Loop is unrolled when its trip count and
// condition are known at compile time (the body's condition output must
// fold to a constant in every iteration); Scan is unrolled over its static
// scan axis. Values of subgraphs may be tensors or sequences
// (SequenceOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

/// Unrolling stops with an error beyond this many iterations.
static constexpr int64_t kMaxUnrolledIterations = 4096;

/// The value of a one-element tensor known at compile time: a constant, or
/// comparisons and logic of such, which the dialect does not fold (a loop
/// condition such as Less(iteration, limit)). Booleans are 0 or 1.
static std::optional<double> knownScalar(Value v, unsigned depth = 0) {
  auto t = v ? rankedOf(v) : RankedTensorType();
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1 || depth > 32)
    return std::nullopt;
  SmallVector<double> d;
  if (succeeded(getConstantDoubles(v, d)) && d.size() == 1) {
    if (t.getElementType().isInteger(1))
      return d[0] != 0 ? 1.0 : 0.0;
    return d[0];
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumOperands() == 0)
    return std::nullopt;
  StringRef name = op->getName().getStringRef();
  auto a = knownScalar(op->getOperand(0), depth + 1);
  if (!a)
    return std::nullopt;
  if (name == "graph.identity" || name == "graph.reshape" ||
      name == "graph.squeeze" || name == "graph.unsqueeze" ||
      name == "graph.flatten")
    return a;
  if (name == "graph.not")
    return *a == 0 ? 1.0 : 0.0;
  if (op->getNumOperands() != 2)
    return std::nullopt;
  auto b = knownScalar(op->getOperand(1), depth + 1);
  if (!b)
    return std::nullopt;
  std::optional<bool> r;
  if (name == "graph.equal")
    r = *a == *b;
  else if (name == "graph.less")
    r = *a < *b;
  else if (name == "graph.less_or_equal")
    r = *a <= *b;
  else if (name == "graph.greater")
    r = *a > *b;
  else if (name == "graph.greater_or_equal")
    r = *a >= *b;
  else if (name == "graph.and")
    r = *a != 0 && *b != 0;
  else if (name == "graph.or")
    r = *a != 0 || *b != 0;
  else if (name == "graph.xor")
    r = (*a != 0) != (*b != 0);
  if (!r)
    return std::nullopt;
  return *r ? 1.0 : 0.0;
}

/// A condition known at compile time (see knownScalar).
static std::optional<bool> knownCondition(Value v) {
  if (auto x = knownScalar(v))
    return *x != 0;
  return std::nullopt;
}

void NodeImporter::collectUsedNames(const GraphDesc &graph) {
  for (const NodeDesc &node : graph.nodes) {
    for (const std::string &in : node.inputs)
      if (!in.empty())
        usedNames.insert(in);
    for (const auto &attr : node.attributes)
      if (auto *sub = std::get_if<SubgraphAttr>(&attr.second))
        if (sub->graph)
          collectUsedNames(*sub->graph);
  }
  for (const std::string &out : graph.outputs)
    usedNames.insert(out);
}

const GraphDesc *NodeImporter::graphAttr(NodeCtx &n, StringRef name) {
  const AttrValue *a = n.node.findAttr(name);
  if (!a) {
    error(n) << "missing attribute '" << name << "'";
    return nullptr;
  }
  if (auto *u = std::get_if<UnsupportedAttr>(a)) {
    unsupported(n) << ": " << u->what;
    return nullptr;
  }
  auto *sub = std::get_if<SubgraphAttr>(a);
  if (!sub || !sub->graph) {
    error(n) << "attribute '" << name << "' must be a graph";
    return nullptr;
  }
  return sub->graph.get();
}

FailureOr<NodeImporter::ScopeValue> NodeImporter::scopeInput(NodeCtx &n,
                                                             unsigned i) {
  ScopeValue v;
  if (Value t = n.in(i)) {
    v.tensor = t;
    return v;
  }
  if (const SmallVector<Value> *seq = seqInput(n, i)) {
    v.isSeq = true;
    v.elems = *seq;
    return v;
  }
  return failure(); // seqInput reported it
}

FailureOr<SmallVector<Value>>
NodeImporter::setOutputs(NodeCtx &n, ArrayRef<ScopeValue> outs) {
  SmallVector<Value> results;
  for (auto [i, v] : llvm::enumerate(outs)) {
    if (!v.isSeq) {
      results.push_back(v.tensor);
      continue;
    }
    results.push_back(Value());
    if (i < n.node.outputs.size() && !n.node.outputs[i].empty())
      sequences[n.node.outputs[i]] = v.elems;
  }
  return results;
}

LogicalResult NodeImporter::importSubgraph(NodeCtx &n, StringRef attrName,
                                           const GraphDesc &g,
                                           ArrayRef<ScopeValue> ins,
                                           SmallVectorImpl<ScopeValue> &outs) {
  if (ins.size() != g.inputs.size()) {
    error(n) << "subgraph '" << attrName << "' has " << g.inputs.size()
             << " inputs; the node passes " << ins.size();
    return failure();
  }
  // The subgraph's names live only while it is imported: the enclosing
  // scope is restored afterwards (an unrolled body reuses its names).
  llvm::StringMap<Value> savedValues = values;
  llvm::StringMap<SmallVector<Value>> savedSequences = sequences;
  llvm::StringSet<> savedUnknown = unknown;
  bool savedHadError = hadError;
  hadError = false;

  for (auto [desc, v] : llvm::zip(g.inputs, ins)) {
    unknown.erase(desc.name);
    if (v.isSeq) {
      values.erase(desc.name);
      sequences[desc.name] = v.elems;
    } else {
      sequences.erase(desc.name);
      values[desc.name] = v.tensor;
    }
  }
  for (const auto &[name, value] : g.initializers) {
    unknown.erase(name);
    sequences.erase(name);
    Location loc = NameLoc::get(builder.getStringAttr(name), fileLocation);
    values[name] =
        graph::ConstantOp::create(builder, loc, value.getType(), value);
  }
  // ONNX lists a graph's nodes in dependency order.
  for (auto [i, node] : llvm::enumerate(g.nodes))
    importNode(node, i);

  outs.clear();
  for (const std::string &out : g.outputs) {
    ScopeValue v;
    if (auto it = values.find(out); it != values.end()) {
      v.tensor = it->second;
    } else if (auto sit = sequences.find(out); sit != sequences.end()) {
      v.isSeq = true;
      v.elems = sit->second;
    } else if (!hadError && !unknown.contains(out)) {
      error(n) << "subgraph '" << attrName << "': output '" << out
               << "' is not produced by any node, initializer or input";
      hadError = true;
    } else {
      hadError = true;
    }
    outs.push_back(std::move(v));
  }

  bool failedInside = hadError;
  values = std::move(savedValues);
  sequences = std::move(savedSequences);
  unknown = std::move(savedUnknown);
  hadError = savedHadError;
  return failure(failedInside);
}

FailureOr<Value> NodeImporter::sliceAt(NodeCtx &n, Value x, int64_t axis,
                                       int64_t i) {
  auto s = build(n, "graph.slice",
                 {x, constI64(n, {i}), constI64(n, {i + 1}),
                  constI64(n, {axis}), constI64(n, {1})});
  if (failed(s))
    return failure();
  return build(n, "graph.squeeze", {*s, constI64(n, {axis})});
}

FailureOr<Value> NodeImporter::stack(NodeCtx &n, ArrayRef<Value> elems,
                                     int64_t axis) {
  SmallVector<Value> parts;
  for (Value e : elems) {
    auto u = build(n, "graph.unsqueeze", {e, constI64(n, {axis})});
    if (failed(u))
      return failure();
    parts.push_back(*u);
  }
  if (parts.size() == 1)
    return parts[0];
  return build(n, "graph.concat", parts, {named("axis", i64(axis))});
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::ifOp(NodeCtx &n) {
  auto cond = requireInput(n, 0, "cond");
  if (failed(cond))
    return failure();
  const GraphDesc *thenG = graphAttr(n, "then_branch");
  const GraphDesc *elseG = graphAttr(n, "else_branch");
  if (!thenG || !elseG)
    return failure();
  auto ct = rankedOf(*cond);
  if (!ct || !ct.hasStaticShape() || ct.getNumElements() != 1) {
    error(n) << "'cond' must be a tensor with a single element";
    return failure();
  }
  size_t count = n.node.outputs.size();
  for (auto [name, g] :
       {std::pair("then_branch", thenG), std::pair("else_branch", elseG)})
    if (g->outputs.size() != count) {
      error(n) << "subgraph '" << name << "' has " << g->outputs.size()
               << " outputs; the node has " << count;
      return failure();
    }

  if (std::optional<bool> c = knownCondition(*cond)) {
    SmallVector<ScopeValue> outs;
    if (failed(importSubgraph(n, *c ? "then_branch" : "else_branch",
                              *c ? *thenG : *elseG, {}, outs)))
      return failure();
    return setOutputs(n, outs);
  }

  // A run-time condition: both branches, then Where. The ops of the
  // branches run whichever is taken, so they carry `graph.speculative`:
  // tfrt-check-indices reports their indices only under the condition that
  // selects their branch (a branch not taken may index out of range; its
  // result is discarded).
  SmallVector<ScopeValue> thenOuts, elseOuts;
  Block *block = builder.getInsertionBlock();
  Block::iterator ip = builder.getInsertionPoint();
  Operation *before = ip == block->begin() ? nullptr : &*std::prev(ip);
  if (failed(importSubgraph(n, "then_branch", *thenG, {}, thenOuts)) ||
      failed(importSubgraph(n, "else_branch", *elseG, {}, elseOuts)))
    return failure();
  for (Block::iterator it = before ? std::next(before->getIterator())
                                   : block->begin();
       it != builder.getInsertionPoint(); ++it)
    it->walk([&](Operation *op) {
      op->setAttr("graph.speculative", builder.getUnitAttr());
    });
  auto scalarCond = reshapeTo(n, *cond, {});
  if (failed(scalarCond))
    return failure();
  auto select = [&](unsigned i, Value t, Value e) -> FailureOr<Value> {
    auto tt = rankedOf(t), et = rankedOf(e);
    if (!tt || !et || !tt.hasStaticShape() || tt != et) {
      unsupported(n) << ": the condition is a run-time value and output " << i
                     << " has different types in the branches (" << t.getType()
                     << " and " << e.getType()
                     << "); only branches with the same static shapes are "
                        "supported";
      return failure();
    }
    return build(n, "graph.where", {*scalarCond, t, e});
  };
  SmallVector<ScopeValue> outs(count);
  for (unsigned i = 0; i < count; ++i) {
    const ScopeValue &t = thenOuts[i], &e = elseOuts[i];
    if (t.isSeq != e.isSeq || (t.isSeq && t.elems.size() != e.elems.size())) {
      unsupported(n) << ": the condition is a run-time value and output " << i
                     << " differs in kind or sequence length between the "
                        "branches";
      return failure();
    }
    outs[i].isSeq = t.isSeq;
    if (!t.isSeq) {
      auto w = select(i, t.tensor, e.tensor);
      if (failed(w))
        return failure();
      outs[i].tensor = *w;
      continue;
    }
    for (auto [te, ee] : llvm::zip(t.elems, e.elems)) {
      auto w = select(i, te, ee);
      if (failed(w))
        return failure();
      outs[i].elems.push_back(*w);
    }
  }
  return setOutputs(n, outs);
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::loop(NodeCtx &n) {
  const GraphDesc *body = graphAttr(n, "body");
  if (!body)
    return failure();
  size_t numCarried = n.node.inputs.size() < 2 ? 0 : n.node.inputs.size() - 2;
  if (body->inputs.size() != numCarried + 2 ||
      body->outputs.size() < numCarried + 1) {
    error(n) << "the body has " << body->inputs.size() << " inputs and "
             << body->outputs.size() << " outputs; with " << numCarried
             << " loop-carried values it needs " << numCarried + 2
             << " inputs and at least " << numCarried + 1 << " outputs";
    return failure();
  }
  size_t numScan = body->outputs.size() - 1 - numCarried;

  // Without the input 'cond' the body's condition output is ignored (a for
  // loop); without both inputs the loop never ends.
  Value m = n.in(0), condIn = n.in(1);
  if (!m && !condIn) {
    unsupported(n) << ": a loop with neither a trip count nor a condition "
                      "never ends";
    return failure();
  }
  int64_t tripCount = std::numeric_limits<int64_t>::max();
  if (m) {
    SmallVector<int64_t> v;
    if (failed(graph::getConstantInts(m, v)) || v.size() != 1) {
      unsupported(n) << ": the trip count 'M' is a run-time value; only "
                        "loops with a trip count known at compile time are "
                        "unrolled";
      return failure();
    }
    tripCount = v[0];
  }
  bool cond = true;
  if (condIn) {
    std::optional<bool> c = knownCondition(condIn);
    if (!c) {
      unsupported(n) << ": the condition 'cond' is a run-time value; only "
                        "loops whose condition is known at compile time are "
                        "unrolled";
      return failure();
    }
    cond = *c;
  }

  SmallVector<ScopeValue> carried;
  for (size_t i = 0; i < numCarried; ++i) {
    auto v = scopeInput(n, i + 2);
    if (failed(v))
      return failure();
    carried.push_back(std::move(*v));
  }
  SmallVector<SmallVector<Value>> scans(numScan);
  auto boolType = RankedTensorType::get({}, builder.getI1Type());
  auto i64Type = RankedTensorType::get({}, builder.getIntegerType(64));
  Value condValue = constant(n, DenseElementsAttr::get(boolType, {cond}));
  for (int64_t iter = 0; iter < tripCount && cond; ++iter) {
    if (iter >= kMaxUnrolledIterations) {
      unsupported(n) << ": the loop runs more than " << kMaxUnrolledIterations
                     << " iterations, too many to unroll";
      return failure();
    }
    SmallVector<ScopeValue> ins(2);
    ins[0].tensor = constant(n, DenseElementsAttr::get(i64Type, {iter}));
    ins[1].tensor = condValue;
    ins.append(carried.begin(), carried.end());
    SmallVector<ScopeValue> outs;
    if (failed(importSubgraph(n, "body", *body, ins, outs)))
      return failure();
    if (outs[0].isSeq) {
      error(n) << "the body's condition output must be a tensor";
      return failure();
    }
    condValue = outs[0].tensor;
    if (condIn) {
      std::optional<bool> c = knownCondition(condValue);
      if (!c) {
        unsupported(n) << ": the body's condition output is a run-time value "
                          "(a data-dependent early exit); only loops whose "
                          "condition is known at compile time are unrolled";
        return failure();
      }
      cond = *c;
    }
    for (size_t i = 0; i < numCarried; ++i)
      carried[i] = std::move(outs[1 + i]);
    for (size_t k = 0; k < numScan; ++k) {
      const ScopeValue &s = outs[1 + numCarried + k];
      if (s.isSeq) {
        unsupported(n) << ": scan output " << k << " is a sequence";
        return failure();
      }
      scans[k].push_back(s.tensor);
    }
  }

  SmallVector<ScopeValue> results(carried.begin(), carried.end());
  for (size_t k = 0; k < numScan; ++k) {
    if (scans[k].empty()) {
      unsupported(n) << ": the loop runs no iteration, so the shape of scan "
                        "output "
                     << k << " is unknown";
      return failure();
    }
    auto s = stack(n, scans[k], 0);
    if (failed(s))
      return failure();
    ScopeValue v;
    v.tensor = *s;
    results.push_back(std::move(v));
  }
  return setOutputs(n, results);
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeImporter::scanUnrolled(
    NodeCtx &n, const GraphDesc &body, ArrayRef<ScopeValue> state,
    ArrayRef<Value> scanIns, ArrayRef<int64_t> inAxes, ArrayRef<int64_t> inDirs,
    ArrayRef<int64_t> outAxes, ArrayRef<int64_t> outDirs) {
  size_t numState = state.size();
  if (body.inputs.size() != numState + scanIns.size() ||
      body.outputs.size() < numState) {
    error(n) << "the body has " << body.inputs.size() << " inputs and "
             << body.outputs.size() << " outputs for " << numState
             << " state values and " << scanIns.size() << " scan inputs";
    return failure();
  }
  size_t numScanOut = body.outputs.size() - numState;
  if (outAxes.size() != numScanOut || outDirs.size() != numScanOut) {
    error(n) << "'scan_output_axes'/'scan_output_directions' must have one "
                "entry per scan output ("
             << numScanOut << ")";
    return failure();
  }
  // The common length of the scan axes.
  int64_t length = -1;
  for (auto [j, x] : llvm::enumerate(scanIns)) {
    auto t = rankedOf(x);
    int64_t axis = inAxes[j];
    if (t && axis < 0)
      axis += t.getRank();
    if (!t || axis < 0 || axis >= t.getRank() || t.isDynamicDim(axis)) {
      error(n) << "scan input " << j << ": axis " << inAxes[j]
               << " is invalid or not static";
      return failure();
    }
    int64_t len = t.getDimSize(axis);
    if (length >= 0 && len != length) {
      error(n) << "the scan inputs have different lengths (" << length
               << " and " << len << ")";
      return failure();
    }
    length = len;
  }
  if (length <= 0) {
    unsupported(n) << ": a scan of length " << length
                   << " leaves the shapes of its outputs unknown";
    return failure();
  }
  if (length > kMaxUnrolledIterations) {
    unsupported(n) << ": the scan runs " << length
                   << " iterations, too many to unroll";
    return failure();
  }

  SmallVector<ScopeValue> cur(state.begin(), state.end());
  SmallVector<SmallVector<Value>> outs(numScanOut);
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<ScopeValue> ins(cur.begin(), cur.end());
    for (auto [j, x] : llvm::enumerate(scanIns)) {
      int64_t axis =
          inAxes[j] < 0 ? inAxes[j] + rankedOf(x).getRank() : inAxes[j];
      auto e = sliceAt(n, x, axis, inDirs[j] ? length - 1 - t : t);
      if (failed(e))
        return failure();
      ScopeValue v;
      v.tensor = *e;
      ins.push_back(std::move(v));
    }
    SmallVector<ScopeValue> res;
    if (failed(importSubgraph(n, "body", body, ins, res)))
      return failure();
    for (size_t i = 0; i < numState; ++i)
      cur[i] = std::move(res[i]);
    for (size_t k = 0; k < numScanOut; ++k) {
      if (res[numState + k].isSeq) {
        unsupported(n) << ": scan output " << k << " is a sequence";
        return failure();
      }
      outs[k].push_back(res[numState + k].tensor);
    }
  }

  SmallVector<Value> results;
  for (ScopeValue &v : cur) {
    if (v.isSeq) {
      unsupported(n) << ": a sequence state value is not supported";
      return failure();
    }
    results.push_back(v.tensor);
  }
  for (size_t k = 0; k < numScanOut; ++k) {
    if (outDirs[k])
      std::reverse(outs[k].begin(), outs[k].end());
    int64_t rank = rankedOf(outs[k][0]) ? rankedOf(outs[k][0]).getRank() : -1;
    int64_t axis = outAxes[k] < 0 ? outAxes[k] + rank + 1 : outAxes[k];
    if (rank < 0 || axis < 0 || axis > rank) {
      error(n) << "scan output " << k << ": axis " << outAxes[k]
               << " is invalid";
      return failure();
    }
    auto s = stack(n, outs[k], axis);
    if (failed(s))
      return failure();
    results.push_back(*s);
  }
  return results;
}

FailureOr<SmallVector<Value>> NodeImporter::scan(NodeCtx &n) {
  const GraphDesc *body = graphAttr(n, "body");
  auto numScanInputs = optIntAttr(n, "num_scan_inputs");
  if (!body || failed(numScanInputs))
    return failure();
  if (!*numScanInputs) {
    error(n) << "missing attribute 'num_scan_inputs'";
    return failure();
  }
  int64_t m = **numScanInputs;
  // Opset 8 has an optional first input, sequence_lens, and a batch axis.
  unsigned first = n.opset() < 9 ? 1 : 0;
  int64_t numInputs = (int64_t)n.node.inputs.size() - first;
  if (m < 1 || m > numInputs) {
    error(n) << "'num_scan_inputs' " << m << " is invalid for " << numInputs
             << " inputs";
    return failure();
  }
  int64_t numState = numInputs - m;
  size_t numScanOut = body->outputs.size() > (size_t)numState
                          ? body->outputs.size() - numState
                          : 0;
  auto listAttr = [&](StringRef name, size_t count,
                      SmallVectorImpl<int64_t> &out) -> LogicalResult {
    auto v = intsAttr(n, name);
    if (failed(v))
      return failure();
    out.assign(count, 0);
    if (!*v)
      return success();
    if ((*v)->size() != count) {
      error(n) << "attribute '" << name << "' must have " << count
               << " entries";
      return failure();
    }
    out.assign((*v)->begin(), (*v)->end());
    return success();
  };

  SmallVector<Value> ins;
  for (int64_t i = 0; i < numInputs; ++i) {
    auto v = requireInput(n, first + i, "scan operand");
    if (failed(v))
      return failure();
    ins.push_back(*v);
  }

  if (n.opset() >= 9) {
    SmallVector<int64_t> inAxes, inDirs, outAxes, outDirs;
    if (failed(listAttr("scan_input_axes", m, inAxes)) ||
        failed(listAttr("scan_input_directions", m, inDirs)) ||
        failed(listAttr("scan_output_axes", numScanOut, outAxes)) ||
        failed(listAttr("scan_output_directions", numScanOut, outDirs)))
      return failure();
    SmallVector<ScopeValue> state;
    for (int64_t i = 0; i < numState; ++i) {
      ScopeValue v;
      v.tensor = ins[i];
      state.push_back(std::move(v));
    }
    return scanUnrolled(n, *body, state, ArrayRef(ins).drop_front(numState),
                        inAxes, inDirs, outAxes, outDirs);
  }

  // Opset 8: every operand has a batch axis 0, the scan axis is 1; the body
  // runs per batch element.
  SmallVector<int64_t> dirs;
  if (failed(listAttr("directions", m, dirs)))
    return failure();
  int64_t batch = -1;
  for (Value v : ins) {
    auto t = rankedOf(v);
    if (!t || t.getRank() < 1 || t.isDynamicDim(0) ||
        (batch >= 0 && t.getDimSize(0) != batch)) {
      error(n) << "every operand needs the same static batch dimension 0";
      return failure();
    }
    batch = t.getDimSize(0);
  }
  if (batch <= 0) {
    unsupported(n) << ": an empty batch leaves the output shapes unknown";
    return failure();
  }
  if (Value lens = n.in(0); lens && !isEmptyTensorValue(lens)) {
    SmallVector<int64_t> l;
    auto t = rankedOf(ins[numState]);
    if (failed(graph::getConstantInts(lens, l)) || t.getRank() < 2 ||
        llvm::any_of(l, [&](int64_t x) { return x != t.getDimSize(1); })) {
      unsupported(n) << ": 'sequence_lens' shorter than the scan axis (or "
                        "a run-time value) is not supported";
      return failure();
    }
  }
  SmallVector<SmallVector<Value>> perOutput(numState + numScanOut);
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<ScopeValue> state;
    SmallVector<Value> scanIns;
    for (auto [i, v] : llvm::enumerate(ins)) {
      auto e = sliceAt(n, v, 0, b);
      if (failed(e))
        return failure();
      if ((int64_t)i < numState) {
        ScopeValue s;
        s.tensor = *e;
        state.push_back(std::move(s));
      } else {
        scanIns.push_back(*e);
      }
    }
    auto r = scanUnrolled(n, *body, state, scanIns, SmallVector<int64_t>(m, 0),
                          dirs, SmallVector<int64_t>(numScanOut, 0),
                          SmallVector<int64_t>(numScanOut, 0));
    if (failed(r))
      return failure();
    for (auto [k, v] : llvm::enumerate(*r))
      perOutput[k].push_back(v);
  }
  SmallVector<Value> results;
  for (auto &vs : perOutput) {
    auto s = stack(n, vs, 0);
    if (failed(s))
      return failure();
    results.push_back(*s);
  }
  return results;
}
