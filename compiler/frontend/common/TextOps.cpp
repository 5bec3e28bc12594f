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

#include <numeric>

using namespace mlir;
using namespace tfrt;
using namespace tfrt::frontend;
using namespace tfrt::frontend::detail;

namespace {
/// One level of the pool: `num` n-grams of length `len` from token `first`,
/// the first of them the pool's n-gram `firstNgram`.
struct Level {
  int64_t len, first, num, firstNgram;
};

using SkipsFn = function_ref<SmallVector<int64_t>(int64_t)>;

/// What the lookup of the input's n-grams needs, built from the pool at
/// compile time. A token's id is its rank among the pool's distinct tokens
/// (their count for tokens outside the pool). An n-gram's key grows one
/// token at a time, key * base + id, base = distinct tokens + 1; before a
/// step would take it past 2^62, and after the last token, the key is
/// replaced by its rank in the sorted table of the level's keys of that
/// length (the table's size when absent, which matches nothing after), as
/// in a trie. The last table's ranks are the level's n-grams, each with its
/// column in the counts.
struct TokenLookup {
  struct LevelTables {
    /// Per token position: the sorted keys to rank against, or empty where
    /// the key is kept as it is.
    SmallVector<SmallVector<int64_t>> tables;
    SmallVector<int64_t> columns;
  };
  SmallVector<int64_t> vocab;
  SmallVector<LevelTables> levels;

  int64_t base() const { return static_cast<int64_t>(vocab.size()) + 1; }

  static TokenLookup build(ArrayRef<int64_t> tokens,
                           ArrayRef<const Level *> used) {
    TokenLookup t;
    for (const Level *lev : used)
      for (int64_t i = 0; i < lev->num * lev->len; ++i)
        t.vocab.push_back(tokens[lev->first + i]);
    llvm::sort(t.vocab);
    t.vocab.erase(std::unique(t.vocab.begin(), t.vocab.end()), t.vocab.end());
    auto idOf = [&](int64_t token) {
      return static_cast<int64_t>(llvm::lower_bound(t.vocab, token) -
                                  t.vocab.begin());
    };
    constexpr int64_t kKeyLimit = int64_t(1) << 62;
    int64_t column = 0;
    for (const Level *lev : used) {
      LevelTables lt;
      SmallVector<int64_t> key(lev->num, 0);
      // Keys of the current length lie in [0, bound).
      int64_t bound = 1;
      for (int64_t k = 0; k < lev->len; ++k) {
        for (int64_t j = 0; j < lev->num; ++j)
          key[j] =
              key[j] * t.base() + idOf(tokens[lev->first + j * lev->len + k]);
        bound *= t.base();
        bool last = k + 1 == lev->len;
        if (!last && bound <= kKeyLimit / t.base()) {
          lt.tables.emplace_back();
          continue;
        }
        SmallVector<int64_t> table(key);
        llvm::sort(table);
        table.erase(std::unique(table.begin(), table.end()), table.end());
        for (int64_t j = 0; j < lev->num; ++j)
          key[j] = llvm::lower_bound(table, key[j]) - table.begin();
        bound = static_cast<int64_t>(table.size()) + 1;
        lt.tables.push_back(std::move(table));
      }
      // The pool's n-grams are distinct (checked at import), so the last
      // ranks are a permutation of the level's n-grams.
      lt.columns.resize(lev->num);
      for (int64_t j = 0; j < lev->num; ++j)
        lt.columns[key[j]] = column + j;
      column += lev->num;
      t.levels.push_back(std::move(lt));
    }
    return t;
  }
};

/// The rank of each element of the int64 tensor `x` in the sorted constant
/// `sorted`, or its size where it is absent: a branch-free binary search
/// (one gather and compare per halving) for the number of entries below
/// the element, over `sorted` padded by INT64_MAX to a power of two above
/// its size so that the search never leaves it, then one gather to check
/// that the entry there is the element.
Value rankOrSize(OpChain &g, Value x, ArrayRef<int64_t> sorted) {
  if (!x)
    return Value();
  int64_t size = static_cast<int64_t>(sorted.size()), padded = 1;
  while (padded <= size)
    padded *= 2;
  SmallVector<int64_t> table(sorted);
  table.resize(padded, std::numeric_limits<int64_t>::max());
  Value tableV = g.i64s(table);
  Type i64Type = IntegerType::get(g.context(), 64);
  auto axis0 = g.attr("axis", IntegerAttr::get(i64Type, 0));
  Value pos = g.zeros(i64Type, cast<ShapedType>(x.getType()).getShape());
  for (int64_t step = padded / 2; step >= 1; step /= 2) {
    Value next = g.add(pos, g.i64Tensor({}, {step}));
    Value below =
        g.cmp("graph.less",
              g.op("graph.gather", {tableV, g.sub(next, g.i64Tensor({}, {1}))},
                   {axis0}),
              x);
    pos = g.where(below, next, pos);
  }
  return g.where(
      g.cmp("graph.equal", g.op("graph.gather", {tableV, pos}, {axis0}), x),
      pos, g.i64Tensor({}, {size}));
}

/// The counts [rows, columns] of the levels' n-grams (columns in level
/// order): every token's id, every position's n-gram found token by token
/// (binary searches over constant tables), then one scatter-add of ones
/// into [rows, columns + 1] at the found columns (the last column takes the
/// misses and is dropped). positions x n x log(pool) work for the searches;
/// the scatter is linear in the positions on CPU targets.
Value countNgrams(OpChain &g, ArrayRef<int64_t> tokens, Value tokensIn,
                  ArrayRef<const Level *> used, SkipsFn skipsOf, int64_t rows,
                  int64_t cols, int64_t numColumns) {
  MLIRContext *ctx = g.context();
  Type i64Type = IntegerType::get(ctx, 64), f32Type = Float32Type::get(ctx);
  auto axis0 = g.attr("axis", IntegerAttr::get(i64Type, 0));
  TokenLookup lookup = TokenLookup::build(tokens, used);
  Value ids = rankOrSize(g, tokensIn, lookup.vocab);
  Value base = g.i64Tensor({}, {lookup.base()});
  SmallVector<Value> columnParts;
  for (auto [l, lev] : llvm::enumerate(used)) {
    const TokenLookup::LevelTables &lt = lookup.levels[l];
    // The ids at each token position k of the n-gram, every skip's slice
    // concatenated along the positions.
    SmallVector<SmallVector<Value>> pieces(lev->len);
    int64_t positions = 0;
    for (int64_t s : skipsOf(lev->len)) {
      int64_t span = (lev->len - 1) * (s + 1);
      for (int64_t k = 0; k < lev->len; ++k)
        pieces[k].push_back(span == 0 ? ids
                                      : g.slice(ids, 1, k * (s + 1),
                                                k * (s + 1) + cols - span));
      positions += cols - span;
    }
    if (positions == 0)
      continue;
    Value key;
    for (int64_t k = 0; k < lev->len; ++k) {
      Value id = pieces[k].size() == 1 ? pieces[k][0] : g.concat(pieces[k], 1);
      key = k == 0 ? id : g.add(g.mul(key, base), id);
      if (!lt.tables[k].empty())
        key = rankOrSize(g, key, lt.tables[k]);
    }
    // Found n-grams read their column; the others (rank == count) the
    // column past the last.
    SmallVector<int64_t> columns(lt.columns);
    columns.push_back(numColumns);
    columnParts.push_back(
        g.op("graph.gather", {g.i64s(columns), key}, {axis0}));
  }
  if (columnParts.empty())
    return g.zeros(f32Type, {rows, numColumns});
  Value column =
      columnParts.size() == 1 ? columnParts[0] : g.concat(columnParts, 1);
  if (!column)
    return Value();
  int64_t positions = cast<ShapedType>(column.getType()).getDimSize(1);
  Value counts = g.op("graph.scatter_elements",
                      {g.zeros(f32Type, {rows, numColumns + 1}), column,
                       g.expand(g.scalar(f32Type, 1.0), {rows, positions})},
                      {g.attr("axis", IntegerAttr::get(i64Type, 1)),
                       g.attr("reduction", StringAttr::get(ctx, "add"))});
  return g.slice(counts, 1, 0, numColumns);
}
} // namespace

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
  // Each n-gram once per level (ONNX Runtime rejects repeats as well).
  for (const Level &lev : levels) {
    auto gram = [&](int64_t j) {
      return tokens.slice(lev.first + j * lev.len, lev.len);
    };
    SmallVector<int64_t> order(lev.num);
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](int64_t a, int64_t b) {
      ArrayRef<int64_t> x = gram(a), y = gram(b);
      return std::lexicographical_compare(x.begin(), x.end(), y.begin(),
                                          y.end());
    });
    for (int64_t i = 1; i < lev.num; ++i) {
      if (gram(order[i - 1]) != gram(order[i]))
        continue;
      auto d = error(n);
      d << "attribute 'pool_int64s' holds the " << lev.len << "-gram (";
      llvm::interleaveComma(gram(order[i]), d);
      d << ") twice (n-grams " << lev.firstNgram + order[i - 1] << " and "
        << lev.firstNgram + order[i] << ")";
      return failure();
    }
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
  // The levels within [min, max] that can match at least one position, and
  // the column of each of their n-grams in the counts (-1 for the others).
  SmallVector<const Level *> used;
  SmallVector<int64_t> columnOf(numNgrams, -1);
  int64_t numColumns = 0;
  for (const Level &lev : levels) {
    if (lev.len < lo || lev.len > hi || lev.num == 0)
      continue;
    for (int64_t j = 0; j < lev.num; ++j)
      columnOf[lev.firstNgram + j] = numColumns + j;
    numColumns += lev.num;
    used.push_back(&lev);
  }
  // The skips that fit in a row for n-grams of length len (unigrams: one).
  auto skipsOf = [&](int64_t len) {
    SmallVector<int64_t> out;
    for (int64_t s = 0; s <= (len == 1 ? 0 : skips); ++s)
      if ((len - 1) * (s + 1) < cols)
        out.push_back(s);
    return out;
  };

  Value v;
  if (numColumns > 0)
    v = countNgrams(g, tokens, tokensIn, used, skipsOf, rows, cols, numColumns);
  Value result;
  if (!v) {
    result = g.zeros(f32Type, {rows, outSize});
  } else {
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
