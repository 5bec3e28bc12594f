//===- TextOps.cpp - ONNX text-feature ops onto the graph dialect ---------===//
//
// TfIdfVectorizer over integer tokens (pool_int64s). The pool is known at
// compile time, so the n-gram counts are comparisons of shifted slices of
// the input with constant token columns:
//
//   count[b, j] = sum over skips s, positions p of
//                 AND_k (x[b, p + k * (s + 1)] == pool_j[k])
//
// one equal/and chain per n-gram length over all skips at once (the skips'
// slices are concatenated along the positions), reduced over positions.
// The work is (pool n-grams) x (positions x skips) x n comparisons; the
// counts are then weighted per mode and gathered into their output
// coordinates (ngram_indexes), zero where no n-gram maps. Unigrams are
// counted once whatever max_skip_count is, as in the ONNX reference.
// String tokens (pool_strings) need string tensors and are unsupported.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/common/NodeImporterImpl.h"
#include "compiler/frontend/common/OpChain.h"

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

FailureOr<SmallVector<Value>> NodeImporter::tfIdfVectorizer(NodeCtx &n) {
  auto x = requireInput(n, 0, "X");
  auto minLen = optIntAttr(n, "min_gram_length");
  auto maxLen = optIntAttr(n, "max_gram_length");
  auto maxSkip = optIntAttr(n, "max_skip_count");
  auto mode = stringAttr(n, "mode");
  auto counts = intsAttr(n, "ngram_counts");
  auto indexes = intsAttr(n, "ngram_indexes");
  auto pool = intsAttr(n, "pool_int64s");
  auto weights = floatsAttr(n, "weights");
  if (failed(x) || failed(minLen) || failed(maxLen) || failed(maxSkip) ||
      failed(mode) || failed(counts) || failed(indexes) || failed(weights))
    return failure();
  if (n.node.findAttr("pool_strings")) {
    unsupported(n) << ": string n-grams ('pool_strings') need string tensors";
    return failure();
  }
  if (failed(pool))
    return failure();
  if (failed(requireAttrs(n, {"min_gram_length", "max_gram_length",
                              "max_skip_count", "mode", "ngram_counts",
                              "ngram_indexes", "pool_int64s"})))
    return failure();
  int64_t lo = **minLen, hi = **maxLen, skips = **maxSkip;
  if (lo < 1 || hi < lo) {
    error(n) << "attributes 'min_gram_length' = " << lo
             << " and 'max_gram_length' = " << hi
             << " must satisfy 1 <= min <= max";
    return failure();
  }
  if (skips < 0) {
    error(n) << "attribute 'max_skip_count' = " << skips << " is negative";
    return failure();
  }
  StringRef m = **mode;
  if (m != "TF" && m != "IDF" && m != "TFIDF") {
    error(n) << "attribute 'mode' = '" << m << "' is not one of TF, IDF, TFIDF";
    return failure();
  }

  // The pool's levels: level l holds (l + 1)-grams from counts[l] to the
  // next level's start (or the pool's end).
  ArrayRef<int64_t> starts = **counts, tokens = **pool;
  auto poolSize = static_cast<int64_t>(tokens.size());
  struct Level {
    int64_t len, first, num, firstNgram;
  };
  SmallVector<Level> levels;
  int64_t numNgrams = 0;
  for (auto [l, start] : llvm::enumerate(starts)) {
    if (start < 0 || start > poolSize || (l > 0 && start < starts[l - 1])) {
      error(n) << "attribute 'ngram_counts' must be non-decreasing start "
                  "offsets within 'pool_int64s' ("
               << poolSize << " tokens); entry " << l << " is " << start;
      return failure();
    }
  }
  for (auto [l, start] : llvm::enumerate(starts)) {
    int64_t end = l + 1 < starts.size() ? starts[l + 1] : poolSize;
    int64_t len = static_cast<int64_t>(l) + 1;
    if ((end - start) % len != 0) {
      error(n) << "the " << len << "-grams of 'pool_int64s' (tokens " << start
               << " to " << end << ") are not a whole number of " << len
               << "-grams";
      return failure();
    }
    levels.push_back({len, start, (end - start) / len, numNgrams});
    numNgrams += (end - start) / len;
  }
  ArrayRef<int64_t> outIndex = **indexes;
  if (numNgrams == 0 || static_cast<int64_t>(outIndex.size()) != numNgrams) {
    error(n) << "attribute 'ngram_indexes' has " << outIndex.size()
             << " entries; the pool holds " << numNgrams
             << " n-grams (one entry each, at least one)";
    return failure();
  }
  ArrayRef<double> w = *weights;
  if (!w.empty() && static_cast<int64_t>(w.size()) != numNgrams) {
    error(n) << "attribute 'weights' has " << w.size()
             << " entries; the pool holds " << numNgrams << " n-grams";
    return failure();
  }
  // Output coordinates past 2^28 would make a gigabyte-sized row.
  constexpr int64_t kMaxOutput = int64_t(1) << 28;
  int64_t outSize = 0;
  for (int64_t idx : outIndex) {
    if (idx < 0 || idx >= kMaxOutput) {
      error(n) << "attribute 'ngram_indexes' has an entry " << idx
               << " outside [0, " << kMaxOutput << ")";
      return failure();
    }
    outSize = std::max(outSize, idx + 1);
  }
  // The n-gram at each output coordinate, -1 where none maps.
  SmallVector<int64_t> ngramAt(outSize, -1);
  for (auto [i, idx] : llvm::enumerate(outIndex)) {
    if (ngramAt[idx] >= 0) {
      error(n) << "attribute 'ngram_indexes' maps n-grams " << ngramAt[idx]
               << " and " << i << " to the same output coordinate " << idx;
      return failure();
    }
    ngramAt[idx] = static_cast<int64_t>(i);
  }

  auto xt = rankedOf(*x);
  if (!xt || !xt.hasStaticShape() || xt.getRank() < 1 || xt.getRank() > 2) {
    error(n) << "input 0 ('X') must be a 1-D or 2-D tensor of static shape";
    return failure();
  }
  Type elem = xt.getElementType();
  if (!elem.isSignlessInteger(32) && !elem.isSignlessInteger(64)) {
    error(n) << "input 0 ('X') must hold int32 or int64 tokens (the pool is "
                "'pool_int64s'), not "
             << elem;
    return failure();
  }
  int64_t rows = xt.getRank() == 2 ? xt.getDimSize(0) : 1;
  int64_t cols = xt.getDimSize(xt.getRank() - 1);
  Type i64Type = builder.getIntegerType(64), f32Type = builder.getF32Type();

  OpChain g(builder, n.loc);
  Value tokensIn = g.cast(g.reshape(*x, {rows, cols}), i64Type);
  // The counts of the levels within [min, max], in pool order; the column
  // of each n-gram among them (-1 for the others).
  SmallVector<Value> counted;
  SmallVector<int64_t> columnOf(numNgrams, -1);
  int64_t numColumns = 0;
  for (const Level &lev : levels) {
    if (lev.len < lo || lev.len > hi || lev.num == 0)
      continue;
    // The slices of every skip for each token position k of the n-gram.
    SmallVector<SmallVector<Value>> pieces(lev.len);
    int64_t positions = 0;
    for (int64_t s = 0; s <= (lev.len == 1 ? 0 : skips); ++s) {
      int64_t span = (lev.len - 1) * (s + 1);
      if (span >= cols)
        break;
      for (int64_t k = 0; k < lev.len; ++k)
        pieces[k].push_back(span == 0 ? tokensIn
                                      : g.slice(tokensIn, 1, k * (s + 1),
                                                k * (s + 1) + cols - span));
      positions += cols - span;
    }
    Value count;
    if (positions == 0) {
      count = g.zeros(f32Type, {rows, lev.num});
    } else {
      Value match;
      for (int64_t k = 0; k < lev.len; ++k) {
        Value at =
            pieces[k].size() == 1 ? pieces[k][0] : g.concat(pieces[k], 1);
        SmallVector<int64_t> column(lev.num);
        for (int64_t j = 0; j < lev.num; ++j)
          column[j] = tokens[lev.first + j * lev.len + k];
        Value eq = g.cmp("graph.equal", g.reshape(at, {rows, 1, positions}),
                         g.i64Tensor({1, lev.num, 1}, column));
        match = match ? g.logicalAnd(match, eq) : eq;
      }
      count = g.reduce("graph.reduce_sum", g.cast(match, f32Type), {2}, false);
    }
    for (int64_t j = 0; j < lev.num; ++j)
      columnOf[lev.firstNgram + j] = numColumns + j;
    numColumns += lev.num;
    counted.push_back(count);
  }

  Value result;
  if (counted.empty()) {
    result = g.zeros(f32Type, {rows, outSize});
  } else {
    Value v = counted.size() == 1 ? counted[0] : g.concat(counted, 1);
    if (m == "IDF")
      v = g.min(v, g.scalar(f32Type, 1.0));
    if (m != "TF" && !w.empty()) {
      SmallVector<double> scale(numColumns);
      for (auto [i, col] : llvm::enumerate(columnOf))
        if (col >= 0)
          scale[col] = w[i];
      v = g.mul(v, g.constant(f32Type, {1, numColumns}, scale));
    }
    // Each output coordinate reads its n-gram's column or the zero column
    // appended after the last.
    v = g.concat({v, g.zeros(f32Type, {rows, 1})}, 1);
    SmallVector<int64_t> source(outSize, numColumns);
    for (auto [coord, ngram] : llvm::enumerate(ngramAt))
      if (ngram >= 0 && columnOf[ngram] >= 0)
        source[coord] = columnOf[ngram];
    result = g.op("graph.gather", {v, g.i64s(source)},
                  {g.attr("axis", builder.getI64IntegerAttr(1))});
  }
  if (xt.getRank() == 1)
    result = g.reshape(result, {outSize});
  if (g.failed())
    return failure();
  return SmallVector<Value>{result};
}
