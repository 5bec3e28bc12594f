//===- VectorizeDepthwise.cpp - depthwise convolutions as row vectors -----===//
//
// Implements tfrt-vectorize-depthwise: every static f32
// linalg.depthwise_conv_2d_nchw_chw on tensors becomes loops over (n, c, oh)
// whose body computes a row of output columns as vectors, one FMA per kernel
// tap and vector (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZEDEPTHWISE
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;
using tfrt::codegen::InitStart;
using tfrt::codegen::takeChannelInitForEpilogue;

namespace {

/// Depthwise kernels with at most this many taps apply an epilogue to
/// their accumulators; larger ones (a 5x5 kernel's 25 weight broadcasts
/// hold most of the 32 vector registers across a row, and with the
/// epilogue's values as well det's 5x5 depthwise convs ran 10-30% slower)
/// write the accumulators into the consumer's destination and apply it
/// to each channel's plane once its rows are done, while the plane is in
/// L1 (planeEpilogue).
constexpr int64_t kMaxEpilogueTaps = 16;

/// Strided convs whose input planes have at least this many bytes compute
/// one output row per step.
constexpr int64_t kOneRowPlaneBytes = 65536;
/// So do convs strided along the columns whose rows run in groups of this
/// many vectors: two rows of them, with the lane shuffles of their reads,
/// exceed the vector registers.
constexpr int64_t kOneRowGroupVectors = 5;

/// The static shape of one depthwise convolution. With padTop/padLeft the
/// input is read unpadded (ih x iw): input row oh * sh + i * dh - padTop,
/// zero where that is outside it; likewise the columns.
struct Shape {
  int64_t n, c, ih, iw, kh, kw, oh, ow, sh, sw, dh, dw;
  int64_t padTop = 0, padLeft = 0;
};

/// Where a tap at column `offset` of a row reads its `width` lanes of
/// stride s.sw: the read's start (`base`, relative to the vector's first
/// column times the stride), the lane of the read its first lane takes
/// (`shift`; lane k takes shift + k * sw), and whether its last lane lies
/// one column past the read (`past`: taken from a one-element read).
struct TapRead {
  int64_t base, shift;
  bool past;
};

TapRead tapRead(const Shape &s, int64_t offset, int64_t width) {
  // With a stride, a tap whose offset lies between two points of the
  // stride's grid reads at the one below it, no further left than the first
  // tap (offset -padLeft), and takes its lanes from there: taps share reads.
  int64_t shift = ((offset % s.sw) + s.sw) % s.sw;
  if (offset - shift < -s.padLeft)
    shift = 0;
  // On a padded input, a later tap whose lanes from the first tap's read
  // reach at most one lane past it takes them from that read too (a 3x3
  // stride-2 kernel row: one window of 2 vectors and one element instead of
  // two windows). Not on an unpadded input: there the first read starts one
  // float off the rows' lines, and det's Conv.11 ran 1.5x as long.
  int64_t firstBase = -s.padLeft;
  if (s.sw != 1 && s.padLeft == 0 && offset - shift != firstBase) {
    int64_t wide = offset - firstBase;
    int64_t beyond = wide + (width - 1) * s.sw - (width * s.sw - 1);
    if (beyond <= 1)
      return {firstBase, wide, beyond == 1};
  }
  return {offset - shift, shift, false};
}

/// Emits the body of `rows` output rows from `oh0`: `starts` are the first
/// output columns of the vectors (all of `width` lanes) computed together
/// in each row; `maxStarts` their largest values over the enclosing loop,
/// for the static in-bounds check of the input reads. Each tap's broadcast
/// weight feeds the accumulators of all the rows. With `epilogue`, each
/// accumulator vector goes through it into `out`, its destination. Returns
/// the updated output tensor. With `s.padTop`, the row oh0 is `staticOh`
/// where its taps may fall outside the input (rows == 1; those taps are
/// skipped); with `s.padLeft`, a vector whose start is a constant left of
/// the input reads from column 0 and shifts zeros in (a vector at a
/// loop-dependent column must start at or right of the input's first).
Value emitVectors(OpBuilder &b, Location loc, const Shape &s, Value in,
                  Value out, Value n, Value c, Value oh0, Value initValue,
                  ArrayRef<Value> weights, ArrayRef<Value> starts,
                  ArrayRef<int64_t> maxStarts, int64_t width,
                  const tfrt::Epilogue *epilogue,
                  const tfrt::EpilogueOperands *epilogueOperands,
                  int64_t rows = 1,
                  std::optional<int64_t> staticOh = std::nullopt) {
  Type f32 = b.getF32Type();
  auto vecType = VectorType::get({width}, f32);
  auto rawType = VectorType::get({width * s.sw}, f32);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> broadcasts;
  for (Value w : weights)
    broadcasts.push_back(vector::BroadcastOp::create(b, loc, vecType, w));

  SmallVector<Value> ohs;
  for (int64_t r = 0; r < rows; ++r)
    ohs.push_back(r ? arith::AddIOp::create(b, loc, oh0, cst(r)).getResult()
                    : oh0);
  // accs[r * starts.size() + u]: output row oh0 + r, vector u.
  SmallVector<Value> accs, cols;
  for (Value oh : ohs)
    for (Value start : starts) {
      if (initValue)
        accs.push_back(vector::BroadcastOp::create(b, loc, vecType, initValue));
      else
        accs.push_back(vector::TransferReadOp::create(
            b, loc, vecType, out, ValueRange{n, c, oh, start}, zero,
            ArrayRef<bool>{true}));
    }
  for (Value start : starts)
    cols.push_back(
        s.sw == 1
            ? start
            : arith::MulIOp::create(b, loc, start, cst(s.sw)).getResult());
  int64_t vecs = starts.size();
  Value zeros;
  for (int64_t i = 0; i < s.kh; ++i) {
    // A row outside the input adds nothing.
    if (staticOh) {
      int64_t row = *staticOh * s.sh + i * s.dh - s.padTop;
      if (row < 0 || row >= s.ih)
        continue;
    }
    for (int64_t j = 0; j < s.kw; ++j) {
      Value w = broadcasts[i * s.kw + j];
      for (int64_t r = 0; r < rows; ++r) {
        Value rowBase =
            s.sh == 1
                ? ohs[r]
                : arith::MulIOp::create(b, loc, ohs[r], cst(s.sh)).getResult();
        Value row =
            arith::AddIOp::create(b, loc, rowBase, cst(i * s.dh - s.padTop));
        for (auto [u, col] : llvm::enumerate(cols)) {
          int64_t offset = j * s.dw - s.padLeft;
          std::optional<int64_t> first = getConstantIntValue(starts[u]);
          if (first && *first * s.sw + offset < 0) {
            // Lane k reads column x0 + k * sw: zero left of the input, else
            // from a read at column 0.
            int64_t x0 = *first * s.sw + offset;
            int64_t len = width * s.sw;
            Value raw = vector::TransferReadOp::create(
                b, loc, rawType, in, ValueRange{n, c, row, cst(0)}, zero,
                ArrayRef<bool>{len <= s.iw});
            if (!zeros)
              zeros = arith::ConstantOp::create(
                  b, loc, rawType, DenseElementsAttr::get(rawType, 0.0f));
            SmallVector<int64_t> lanes;
            for (int64_t k = 0; k < width; ++k)
              lanes.push_back(x0 + k * s.sw < 0 ? 0 : len + x0 + k * s.sw);
            Value v =
                vector::ShuffleOp::create(b, loc, vecType, zeros, raw, lanes);
            Value &acc = accs[r * vecs + u];
            acc = vector::FMAOp::create(b, loc, v, w, acc);
            continue;
          }
          auto [base, shift, past] = tapRead(s, offset, width);
          Value x = arith::AddIOp::create(b, loc, col, cst(base));
          bool inBounds = maxStarts[u] * s.sw + base + width * s.sw <= s.iw;
          Value v = vector::TransferReadOp::create(
              b, loc, rawType, in, ValueRange{n, c, row, x}, zero,
              ArrayRef<bool>{inBounds});
          if (s.sw != 1) {
            SmallVector<int64_t> lanes;
            for (int64_t k = 0; k < width; ++k)
              lanes.push_back(past && k == width - 1 ? 0 : shift + k * s.sw);
            v = vector::ShuffleOp::create(b, loc, vecType, v, v, lanes);
          }
          if (past) {
            // The last lane: column base + shift + (width - 1) * sw.
            auto one = VectorType::get({1}, f32);
            int64_t last = base + shift + (width - 1) * s.sw;
            Value at = arith::AddIOp::create(b, loc, col, cst(last));
            Value e = vector::TransferReadOp::create(
                b, loc, one, in, ValueRange{n, c, row, at}, zero,
                ArrayRef<bool>{maxStarts[u] * s.sw + last < s.iw});
            SmallVector<bool> lastLane(width, false);
            lastLane.back() = true;
            Value mask = arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(VectorType::get({width}, b.getI1Type()),
                                       ArrayRef<bool>(lastLane)));
            v = arith::SelectOp::create(
                b, loc, mask, vector::BroadcastOp::create(b, loc, vecType, e),
                v);
          }
          Value &acc = accs[r * vecs + u];
          acc = vector::FMAOp::create(b, loc, v, w, acc);
        }
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r)
    for (auto [u, start] : llvm::enumerate(starts)) {
      Value acc = accs[r * vecs + u];
      if (epilogue) {
        out =
            tfrt::applyEpilogueDirect(b, loc, *epilogue, *epilogueOperands, acc,
                                      out, ValueRange{n, c, ohs[r], start});
        continue;
      }
      out = vector::TransferWriteOp::create(b, loc, acc, out,
                                            ValueRange{n, c, ohs[r], start},
                                            ArrayRef<bool>{true})
                .getResult();
    }
  return out;
}

/// The epilogue over channel `c`'s plane of `out`, which holds the
/// accumulators: one loop over the rows, each row's vectors (and its tail)
/// read, passed through the consumer's body and written back in place.
Value applyPlaneEpilogue(OpBuilder &b, Location loc, const Shape &s,
                         const tfrt::Epilogue &epilogue,
                         const tfrt::EpilogueOperands &operands, Value out,
                         Value n, Value c, int64_t lanes) {
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  auto rows = scf::ForOp::create(
      b, loc, cst(b, 0), cst(b, s.oh), cst(b, 1), ValueRange{out},
      [&](OpBuilder &b, Location l, Value oh, ValueRange iter) {
        Value plane = iter[0];
        for (int64_t start = 0; start < s.ow; start += lanes) {
          int64_t width = std::min(lanes, s.ow - start);
          SmallVector<Value> idx{n, c, oh, cst(b, start)};
          Value acc = vector::TransferReadOp::create(
              b, l, VectorType::get({width}, b.getF32Type()), plane, idx, zero,
              ArrayRef<bool>{true});
          plane = tfrt::applyEpilogueDirect(b, l, epilogue, operands, acc,
                                            plane, idx);
        }
        scf::YieldOp::create(b, l, plane);
      });
  return rows.getResult(0);
}

/// Vectors per group of full vectors: the largest candidate dividing
/// `full` (5 and 4 keep accumulators, inputs and taps within 32 zmm).
int64_t vectorsPerGroup(int64_t full) {
  for (int64_t u : {5, 4, 3, 2})
    if (full % u == 0)
      return u;
  return 1;
}

/// How many output rows at the top and at the bottom have a tap outside
/// the input rows (all of them, at the top, when none is inside).
std::pair<int64_t, int64_t> edgeRows(const Shape &s) {
  auto inside = [&](int64_t oh) {
    return oh * s.sh - s.padTop >= 0 &&
           oh * s.sh + (s.kh - 1) * s.dh - s.padTop < s.ih;
  };
  int64_t top = 0, bottom = 0;
  while (top < s.oh && !inside(top))
    ++top;
  while (bottom < s.oh - top && !inside(s.oh - 1 - bottom))
    ++bottom;
  return {top, bottom};
}

/// Output rows whose taps may fall outside an unpadded input, at the top
/// and at the bottom, at most this many in all: they are emitted one by one.
constexpr int64_t kMaxEdgeRows = 4;

/// With `in` a zero tensor.pad of the spatial dims only (static), reads its
/// source instead: sets the padding and the unpadded size in `s` and
/// returns the source. Null when `in` is not such a pad, or when more than
/// kMaxEdgeRows rows would need their taps checked.
Value unpaddedInput(Value in, Shape &s) {
  auto pad = in.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return {};
  std::optional<APFloat> value;
  if (Value v = pad.getConstantPaddingValue()) {
    FloatAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      value = attr.getValue();
  }
  if (!value || !value->isZero() || value->isNegative())
    return {};
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (low.size() != 4 || llvm::any_of(low, ShapedType::isDynamic) ||
      llvm::any_of(high, ShapedType::isDynamic) || low[0] || low[1] ||
      high[0] || high[1])
    return {};
  auto src = cast<RankedTensorType>(pad.getSource().getType());
  if (!src.hasStaticShape())
    return {};
  Shape t = s;
  t.padTop = low[2];
  t.padLeft = low[3];
  t.ih = src.getDimSize(2);
  t.iw = src.getDimSize(3);
  auto [top, bottom] = edgeRows(t);
  if (top + bottom > kMaxEdgeRows)
    return {};
  s = t;
  return pad.getSource();
}

LogicalResult vectorizeOne(RewriterBase &rewriter,
                           linalg::DepthwiseConv2DNchwChwOp op, int64_t lanes,
                           int64_t rowsPerStep, bool epilogues, bool remarks,
                           bool unpadded, int64_t &fusedEpilogues) {
  if (!op.hasPureTensorSemantics())
    return failure();
  Value in = op.getInputs()[0], filter = op.getInputs()[1],
        init = op.getOutputs()[0];
  auto it = dyn_cast<RankedTensorType>(in.getType());
  auto ft = dyn_cast<RankedTensorType>(filter.getType());
  auto ot = dyn_cast<RankedTensorType>(init.getType());
  if (!it || !ft || !ot || !it.hasStaticShape() || !ft.hasStaticShape() ||
      !ot.hasStaticShape() || !it.getElementType().isF32() ||
      !ft.getElementType().isF32() || !ot.getElementType().isF32())
    return failure();
  SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
  if (strides.size() != 2 || dilations.size() != 2)
    return failure();
  Shape s;
  s.n = ot.getDimSize(0);
  s.c = ot.getDimSize(1);
  s.ih = it.getDimSize(2);
  s.iw = it.getDimSize(3);
  s.kh = ft.getDimSize(1);
  s.kw = ft.getDimSize(2);
  s.oh = ot.getDimSize(2);
  s.ow = ot.getDimSize(3);
  s.sh = strides[0];
  s.sw = strides[1];
  s.dh = dilations[0];
  s.dw = dilations[1];
  // Strides beyond 4 would read mostly unused lanes; leave them to loops.
  if (s.sw < 1 || s.sw > 4 || s.kh * s.kw > 49 || s.ow < 1)
    return failure();

  Location loc = op.getLoc();
  std::optional<tfrt::Epilogue> epilogue;
  if (epilogues)
    epilogue = tfrt::matchEpilogue(op.getResult(0), lanes);
  // Kernels with more taps run the epilogue per plane (kMaxEpilogueTaps).
  const bool planeEpilogue = s.kh * s.kw > kMaxEpilogueTaps;
  if (epilogue && epilogue->indexing != tfrt::Epilogue::Indexing::Direct)
    epilogue.reset();
  InitStart start;
  tfrt::EpilogueOperands epilogueOperands;
  if (std::optional<InitStart> taken = takeChannelInitForEpilogue(
          rewriter, op, op.getOutputs()[0], init, epilogue, epilogueOperands))
    start = *taken;
  const tfrt::Epilogue *epi = epilogue && !planeEpilogue ? &*epilogue : nullptr;
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  int64_t full = s.ow / lanes, tail = s.ow % lanes;
  int64_t perGroup = vectorsPerGroup(full);
  int64_t groups = full / perGroup;
  if (unpadded)
    if (Value source = unpaddedInput(in, s))
      in = source;
  // Plain variables: the loop builders capture them.
  const std::pair<int64_t, int64_t> edges = edgeRows(s);
  const int64_t topRows = edges.first, bottomRows = edges.second;

  auto nLoop = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, s.n), c1, ValueRange{init},
      [&](OpBuilder &b, Location l, Value n, ValueRange nIter) {
        auto cLoop = scf::ForOp::create(
            b, l, c0, cst(b, s.c), c1, nIter,
            [&](OpBuilder &b, Location l, Value c, ValueRange cIter) {
              Value initValue = start.valueAt(b, l, c);
              SmallVector<Value> weights;
              for (int64_t i = 0; i < s.kh; ++i)
                for (int64_t j = 0; j < s.kw; ++j)
                  weights.push_back(tensor::ExtractOp::create(
                      b, l, filter, ValueRange{c, cst(b, i), cst(b, j)}));
              // `rows` output rows from oh, each in groups of perGroup
              // vectors and a tail vector.
              auto rowBlock = [&](OpBuilder &b, Location l, Value oh, Value out,
                                  int64_t rows,
                                  std::optional<int64_t> staticOh =
                                      std::nullopt) -> Value {
                int64_t step = perGroup * lanes;
                // The first group's vectors start at constant columns when it
                // is the only group, and with left padding on an unpadded
                // input (some start left of it); the loop takes the others.
                bool staticFirst = groups == 1 || (groups > 1 && s.padLeft);
                if (staticFirst) {
                  SmallVector<Value> starts;
                  SmallVector<int64_t> maxStarts;
                  for (int64_t u = 0; u < perGroup; ++u) {
                    starts.push_back(cst(b, u * lanes));
                    maxStarts.push_back(u * lanes);
                  }
                  out = emitVectors(b, l, s, in, out, n, c, oh, initValue,
                                    weights, starts, maxStarts, lanes, epi,
                                    &epilogueOperands, rows, staticOh);
                }
                if (groups > 1) {
                  auto gLoop = scf::ForOp::create(
                      b, l, cst(b, staticFirst ? step : 0),
                      cst(b, groups * step), cst(b, step), ValueRange{out},
                      [&](OpBuilder &b, Location l, Value ow,
                          ValueRange gIter) {
                        SmallVector<Value> starts;
                        SmallVector<int64_t> maxStarts;
                        for (int64_t u = 0; u < perGroup; ++u) {
                          starts.push_back(arith::AddIOp::create(
                              b, l, ow, cst(b, u * lanes)));
                          maxStarts.push_back((groups - 1) * step + u * lanes);
                        }
                        Value r = emitVectors(
                            b, l, s, in, gIter[0], n, c, oh, initValue, weights,
                            starts, maxStarts, lanes, epi, &epilogueOperands,
                            rows, staticOh);
                        scf::YieldOp::create(b, l, r);
                      });
                  out = gLoop.getResult(0);
                }
                if (tail) {
                  int64_t start = full * lanes;
                  out = emitVectors(b, l, s, in, out, n, c, oh, initValue,
                                    weights, {cst(b, start)}, {start}, tail,
                                    epi, &epilogueOperands, rows, staticOh);
                }
                return out;
              };
              // Steps of rowsPerStep rows where they divide the rows, one
              // row at a time otherwise (a separate block for the remaining
              // rows would double the code of small maps: PP-OCR cls's
              // compile took 12% more CPU time).
              // Rows with taps outside an unpadded input come one by one,
              // before and after the loop.
              Value out = cIter[0];
              for (int64_t oh = 0; oh < topRows; ++oh)
                out = rowBlock(b, l, cst(b, oh), out, 1, oh);
              int64_t middle = s.oh - topRows - bottomRows;
              // Strided convs on input planes of 64 KiB or more take one row
              // per step: at stride 2 two rows share no input row, and the
              // second row's accumulators and reads only add registers (det's
              // Conv.3, 32 x 321 x 322 floats: 0.56-0.70 -> 0.40-0.55 ms);
              // on small planes (PP-OCR cls) two rows stay faster, except
              // with column strides and groups of five vectors, whose two
              // rows with their reads' lane shuffles spill (det's Conv.3 in
              // the band of tfrt-fuse-conv-bands, where its input is a band
              // of rows 322 wide: the band's launch inside det 1.88-1.97 ->
              // 1.59-1.69 ms in three alternating profiling rounds).
              bool bigStrided =
                  s.sh > 1 && (s.ih * s.iw * 4 >= kOneRowPlaneBytes ||
                               (s.sw > 1 && perGroup >= kOneRowGroupVectors));
              int64_t rows =
                  middle % rowsPerStep || bigStrided ? 1 : rowsPerStep;
              if (middle > 0) {
                auto hLoop = scf::ForOp::create(
                    b, l, cst(b, topRows), cst(b, topRows + middle),
                    cst(b, rows), ValueRange{out},
                    [&](OpBuilder &b, Location l, Value oh, ValueRange hIter) {
                      scf::YieldOp::create(b, l,
                                           rowBlock(b, l, oh, hIter[0], rows));
                    });
                out = hLoop.getResult(0);
              }
              for (int64_t oh = s.oh - bottomRows; oh < s.oh; ++oh)
                out = rowBlock(b, l, cst(b, oh), out, 1, oh);
              if (epilogue && planeEpilogue)
                out = applyPlaneEpilogue(b, l, s, *epilogue, epilogueOperands,
                                         out, n, c, lanes);
              scf::YieldOp::create(b, l, out);
            });
        scf::YieldOp::create(b, l, cLoop.getResult(0));
      });
  if (epilogue) {
    tfrt::finishEpilogue(rewriter, *epilogue, nLoop.getResult(0), op,
                         planeEpilogue ? "depthwise convolution, applied to "
                                         "each channel's plane after its rows"
                                       : "depthwise convolution",
                         remarks);
    ++fusedEpilogues;
    return success();
  }
  rewriter.replaceOp(op, nLoop.getResult(0));
  return success();
}

struct VectorizeDepthwisePass
    : public tfrt::impl::VectorizeDepthwiseBase<VectorizeDepthwisePass> {
  using VectorizeDepthwiseBase::VectorizeDepthwiseBase;

  void runOnOperation() override {
    if (lanes < 1) {
      getOperation().emitError("tfrt-vectorize-depthwise: lanes must be >= 1");
      return signalPassFailure();
    }
    if (rows < 1 || rows > 8) {
      getOperation().emitError(
          "tfrt-vectorize-depthwise: rows must be in [1, 8], got ")
          << rows.getValue();
      return signalPassFailure();
    }
    SmallVector<linalg::DepthwiseConv2DNchwChwOp> ops;
    getOperation().walk(
        [&](linalg::DepthwiseConv2DNchwChwOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    IRRewriter rewriter(&getContext());
    int64_t fused = 0;
    for (linalg::DepthwiseConv2DNchwChwOp op : ops)
      (void)vectorizeOne(rewriter, op, lanes, rows, epilogues, remarks,
                         unpadded, fused);
    numEpilogues += fused;
  }
};
} // namespace
