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
using tfrt::codegen::takeChannelInit;

namespace {

/// Depthwise kernels with at most this many taps take an epilogue.
constexpr int64_t kMaxEpilogueTaps = 16;

/// The static shape of one depthwise convolution.
struct Shape {
  int64_t n, c, ih, iw, kh, kw, oh, ow, sh, sw, dh, dw;
};

/// Emits the body of `rows` output rows from `oh0`: `starts` are the first
/// output columns of the vectors (all of `width` lanes) computed together
/// in each row; `maxStarts` their largest values over the enclosing loop,
/// for the static in-bounds check of the input reads. Each tap's broadcast
/// weight feeds the accumulators of all the rows. With `epilogue`, each
/// accumulator vector goes through it into `out`, its destination. Returns
/// the updated output tensor.
Value emitVectors(OpBuilder &b, Location loc, const Shape &s, Value in,
                  Value out, Value n, Value c, Value oh0, Value initValue,
                  ArrayRef<Value> weights, ArrayRef<Value> starts,
                  ArrayRef<int64_t> maxStarts, int64_t width,
                  const tfrt::Epilogue *epilogue,
                  const tfrt::EpilogueOperands *epilogueOperands,
                  int64_t rows = 1) {
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
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < width; ++i)
    mask.push_back(i * s.sw);

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
  for (int64_t i = 0; i < s.kh; ++i) {
    for (int64_t j = 0; j < s.kw; ++j) {
      Value w = broadcasts[i * s.kw + j];
      for (int64_t r = 0; r < rows; ++r) {
        Value rowBase =
            s.sh == 1
                ? ohs[r]
                : arith::MulIOp::create(b, loc, ohs[r], cst(s.sh)).getResult();
        Value row = arith::AddIOp::create(b, loc, rowBase, cst(i * s.dh));
        for (auto [u, col] : llvm::enumerate(cols)) {
          Value x = arith::AddIOp::create(b, loc, col, cst(j * s.dw));
          bool inBounds = maxStarts[u] * s.sw + j * s.dw + width * s.sw <= s.iw;
          Value v = vector::TransferReadOp::create(
              b, loc, rawType, in, ValueRange{n, c, row, x}, zero,
              ArrayRef<bool>{inBounds});
          if (s.sw != 1)
            v = vector::ShuffleOp::create(b, loc, vecType, v, v, mask);
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

/// Vectors per group of full vectors: the largest candidate dividing
/// `full` (5 and 4 keep accumulators, inputs and taps within 32 zmm).
int64_t vectorsPerGroup(int64_t full) {
  for (int64_t u : {5, 4, 3, 2})
    if (full % u == 0)
      return u;
  return 1;
}

LogicalResult vectorizeOne(RewriterBase &rewriter,
                           linalg::DepthwiseConv2DNchwChwOp op, int64_t lanes,
                           int64_t rowsPerStep, bool epilogues, bool remarks,
                           int64_t &fusedEpilogues) {
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
  // Kernels of up to 16 taps: a 5x5 kernel's 25 weight broadcasts already
  // hold most of the 32 vector registers across the row, and with the
  // epilogue's values as well det's 5x5 depthwise convs ran 15-30% slower.
  std::optional<tfrt::Epilogue> epilogue;
  if (epilogues && s.kh * s.kw <= kMaxEpilogueTaps)
    epilogue = tfrt::matchEpilogue(op.getResult(0), lanes);
  if (epilogue && epilogue->indexing != tfrt::Epilogue::Indexing::Direct)
    epilogue.reset();
  InitStart start;
  std::optional<InitStart> taken =
      takeChannelInit(rewriter, op, op.getOutputs()[0], init);
  if (taken)
    start = *taken;
  // The epilogue needs accumulators that do not read the op's init, and an
  // init that is not the shared output of an enclosing scf.forall (whose
  // producer would then stay).
  if (epilogue && (!taken || taken->channelOffset))
    epilogue.reset();
  // With an epilogue the loops replace its consumer, whose operands are
  // defined before it, and write its destination.
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation()
                                      : op.getOperation());
  tfrt::EpilogueOperands epilogueOperands;
  if (epilogue) {
    epilogueOperands = tfrt::prepareEpilogue(rewriter, loc, *epilogue);
    init = epilogueOperands.dest;
  }
  const tfrt::Epilogue *epi = epilogue ? &*epilogue : nullptr;
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  int64_t full = s.ow / lanes, tail = s.ow % lanes;
  int64_t perGroup = vectorsPerGroup(full);
  int64_t groups = full / perGroup;

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
                                  int64_t rows) -> Value {
                int64_t step = perGroup * lanes;
                if (groups > 1) {
                  auto gLoop = scf::ForOp::create(
                      b, l, c0, cst(b, groups * step), cst(b, step),
                      ValueRange{out},
                      [&](OpBuilder &b, Location l, Value ow,
                          ValueRange gIter) {
                        SmallVector<Value> starts;
                        SmallVector<int64_t> maxStarts;
                        for (int64_t u = 0; u < perGroup; ++u) {
                          starts.push_back(arith::AddIOp::create(
                              b, l, ow, cst(b, u * lanes)));
                          maxStarts.push_back((groups - 1) * step + u * lanes);
                        }
                        Value r =
                            emitVectors(b, l, s, in, gIter[0], n, c, oh,
                                        initValue, weights, starts, maxStarts,
                                        lanes, epi, &epilogueOperands, rows);
                        scf::YieldOp::create(b, l, r);
                      });
                  out = gLoop.getResult(0);
                } else if (groups == 1) {
                  SmallVector<Value> starts;
                  SmallVector<int64_t> maxStarts;
                  for (int64_t u = 0; u < perGroup; ++u) {
                    starts.push_back(cst(b, u * lanes));
                    maxStarts.push_back(u * lanes);
                  }
                  out = emitVectors(b, l, s, in, out, n, c, oh, initValue,
                                    weights, starts, maxStarts, lanes, epi,
                                    &epilogueOperands, rows);
                }
                if (tail) {
                  int64_t start = full * lanes;
                  out = emitVectors(b, l, s, in, out, n, c, oh, initValue,
                                    weights, {cst(b, start)}, {start}, tail,
                                    epi, &epilogueOperands, rows);
                }
                return out;
              };
              // Steps of rowsPerStep rows where they divide the rows, one
              // row at a time otherwise (a separate block for the remaining
              // rows would double the code of small maps: PP-OCR cls's
              // compile took 12% more CPU time).
              int64_t rows = s.oh % rowsPerStep ? 1 : rowsPerStep;
              auto hLoop = scf::ForOp::create(
                  b, l, c0, cst(b, s.oh), cst(b, rows), cIter,
                  [&](OpBuilder &b, Location l, Value oh, ValueRange hIter) {
                    scf::YieldOp::create(b, l,
                                         rowBlock(b, l, oh, hIter[0], rows));
                  });
              Value out = hLoop.getResult(0);
              scf::YieldOp::create(b, l, out);
            });
        scf::YieldOp::create(b, l, cLoop.getResult(0));
      });
  if (epilogue) {
    tfrt::finishEpilogue(rewriter, *epilogue, nLoop.getResult(0), op,
                         "depthwise convolution", remarks);
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
      (void)vectorizeOne(rewriter, op, lanes, rows, epilogues, remarks, fused);
    numEpilogues += fused;
  }
};
} // namespace
