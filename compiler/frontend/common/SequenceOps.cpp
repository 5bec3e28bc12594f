//===- SequenceOps.cpp - sequences as compile-time lists of tensors -------===//
//
// A sequence never reaches the compiled model: the importer keeps it as a
// list of SSA tensors (NodeImporter::sequences), so positions must be
// constants and SequenceLength folds to a constant. Graph inputs and
// outputs of sequence type are not supported (the compiled model's ABI
// passes tensors only).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

const SmallVector<Value> *NodeImporter::seqInput(NodeCtx &n, unsigned i) {
  n.markRead(i);
  if (i >= n.node.inputs.size() || n.node.inputs[i].empty()) {
    error(n) << "missing input " << i << " (a sequence)";
    return nullptr;
  }
  auto it = sequences.find(n.node.inputs[i]);
  if (it == sequences.end()) {
    error(n) << "input " << i << " ('" << n.node.inputs[i]
             << "') must be a sequence";
    return nullptr;
  }
  return &it->second;
}

/// The constant position of input `i` normalised to [0, size) (or
/// [0, size] with `allowEnd`); `dflt` when the input is omitted.
FailureOr<int64_t> NodeImporter::seqPosition(NodeCtx &n, unsigned i,
                                             int64_t size, int64_t dflt,
                                             bool allowEnd) {
  Value p = n.in(i);
  if (!p)
    return dflt;
  SmallVector<int64_t> v;
  if (failed(graph::getConstantInts(p, v)) || v.size() != 1) {
    unsupported(n) << ": 'position' is a run-time value; sequences are "
                      "resolved at compile time, so it must be a constant";
    return failure();
  }
  int64_t pos = v[0] < 0 ? v[0] + size : v[0];
  if (pos < 0 || pos > size || (!allowEnd && pos == size)) {
    error(n) << "position " << v[0] << " is out of range for a sequence of "
             << size << " tensors";
    return failure();
  }
  return pos;
}

static FailureOr<SmallVector<Value>>
seqResult(llvm::StringMap<SmallVector<Value>> &sequences, NodeCtx &n,
          SmallVector<Value> elems) {
  if (!n.node.outputs.empty() && !n.node.outputs[0].empty())
    sequences[n.node.outputs[0]] = std::move(elems);
  return SmallVector<Value>{Value()};
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceConstruct(NodeCtx &n) {
  SmallVector<Value> elems;
  for (unsigned i = 0; i < n.node.inputs.size(); ++i) {
    auto v = requireInput(n, i, "a tensor");
    if (failed(v))
      return failure();
    elems.push_back(*v);
  }
  return seqResult(sequences, n, std::move(elems));
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceEmpty(NodeCtx &n) {
  return seqResult(sequences, n, {});
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceInsert(NodeCtx &n) {
  const SmallVector<Value> *seq = seqInput(n, 0);
  auto t = requireInput(n, 1, "tensor");
  if (!seq || failed(t))
    return failure();
  int64_t size = seq->size();
  auto pos = seqPosition(n, 2, size, size, /*allowEnd=*/true);
  if (failed(pos))
    return failure();
  SmallVector<Value> elems(*seq);
  elems.insert(elems.begin() + *pos, *t);
  return seqResult(sequences, n, std::move(elems));
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceErase(NodeCtx &n) {
  const SmallVector<Value> *seq = seqInput(n, 0);
  if (!seq)
    return failure();
  int64_t size = seq->size();
  if (size == 0) {
    error(n) << "cannot erase from an empty sequence";
    return failure();
  }
  auto pos = seqPosition(n, 1, size, size - 1, /*allowEnd=*/false);
  if (failed(pos))
    return failure();
  SmallVector<Value> elems(*seq);
  elems.erase(elems.begin() + *pos);
  return seqResult(sequences, n, std::move(elems));
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceAt(NodeCtx &n) {
  const SmallVector<Value> *seq = seqInput(n, 0);
  if (!seq)
    return failure();
  if (!n.in(1)) {
    error(n) << "missing input 1 (position)";
    return failure();
  }
  auto pos = seqPosition(n, 1, seq->size(), 0, /*allowEnd=*/false);
  if (failed(pos))
    return failure();
  return SmallVector<Value>{(*seq)[*pos]};
}

FailureOr<SmallVector<Value>> NodeImporter::sequenceLength(NodeCtx &n) {
  const SmallVector<Value> *seq = seqInput(n, 0);
  if (!seq)
    return failure();
  auto type = RankedTensorType::get({}, builder.getIntegerType(64));
  return SmallVector<Value>{
      constant(n, DenseElementsAttr::get(type, {(int64_t)seq->size()}))};
}

FailureOr<SmallVector<Value>> NodeImporter::splitToSequence(NodeCtx &n) {
  auto x = requireInput(n, 0, "input");
  auto axisAttr = intAttr(n, "axis", 0);
  auto keepdims = intAttr(n, "keepdims", 1);
  if (failed(x) || failed(axisAttr) || failed(keepdims))
    return failure();
  auto xt = rankedOf(*x);
  if (!xt) {
    error(n) << "the input must have a known rank";
    return failure();
  }
  int64_t axis = *axisAttr < 0 ? *axisAttr + xt.getRank() : *axisAttr;
  if (axis < 0 || axis >= xt.getRank() || xt.isDynamicDim(axis)) {
    error(n) << "attribute 'axis' " << *axisAttr
             << " is out of range or names a dynamic dimension";
    return failure();
  }
  int64_t dim = xt.getDimSize(axis);
  SmallVector<int64_t> parts;
  bool squeeze = false;
  Value s = n.in(1);
  if (!s) {
    parts.assign(dim, 1);
    squeeze = *keepdims == 0;
  } else {
    SmallVector<int64_t> v;
    auto st = rankedOf(s);
    if (failed(graph::getConstantInts(s, v)) || !st) {
      unsupported(n) << ": 'split' is a run-time value; sequences are "
                        "resolved at compile time, so it must be a constant";
      return failure();
    }
    // ONNX asks for positive lengths; empty parts (length 0) are accepted
    // as Split accepts them.
    if (llvm::any_of(v, [](int64_t p) { return p < 0; }) ||
        (st.getRank() == 0 && v[0] == 0)) {
      error(n) << "'split' must hold positive numbers";
      return failure();
    }
    if (st.getRank() == 0) {
      for (int64_t start = 0; start < dim; start += v[0])
        parts.push_back(std::min(v[0], dim - start));
    } else {
      int64_t total = 0;
      for (int64_t p : v)
        total += p;
      if (total != dim) {
        error(n) << "'split' adds up to " << total << ", not to dimension "
                 << axis << " of size " << dim;
        return failure();
      }
      parts = v;
    }
  }
  SmallVector<Value> elems;
  int64_t start = 0;
  for (int64_t p : parts) {
    FailureOr<Value> r =
        squeeze ? sliceAt(n, *x, axis, start)
                : build(n, "graph.slice",
                        {*x, constI64(n, {start}), constI64(n, {start + p}),
                         constI64(n, {axis}), constI64(n, {1})});
    if (failed(r))
      return failure();
    elems.push_back(*r);
    start += p;
  }
  return seqResult(sequences, n, std::move(elems));
}

FailureOr<SmallVector<Value>> NodeImporter::concatFromSequence(NodeCtx &n) {
  const SmallVector<Value> *seq = seqInput(n, 0);
  auto axisAttr = optIntAttr(n, "axis");
  auto newAxis = intAttr(n, "new_axis", 0);
  if (!seq || failed(axisAttr) || failed(newAxis))
    return failure();
  if (!*axisAttr) {
    error(n) << "missing attribute 'axis'";
    return failure();
  }
  if (seq->empty()) {
    unsupported(n) << ": the sequence is empty, so the result's shape is "
                      "unknown";
    return failure();
  }
  auto t0 = rankedOf((*seq)[0]);
  if (!t0) {
    error(n) << "the tensors must have a known rank";
    return failure();
  }
  int64_t rank = t0.getRank() + (*newAxis ? 1 : 0);
  int64_t axis = **axisAttr < 0 ? **axisAttr + rank : **axisAttr;
  if (axis < 0 || axis >= rank) {
    error(n) << "attribute 'axis' " << **axisAttr << " is out of range for "
             << (*newAxis ? "stacking" : "concatenating") << " rank-"
             << t0.getRank() << " tensors";
    return failure();
  }
  if (*newAxis)
    return one(stack(n, *seq, axis));
  if (seq->size() == 1)
    return SmallVector<Value>{(*seq)[0]};
  return one(build(n, "graph.concat", *seq, {named("axis", i64(axis))}));
}
