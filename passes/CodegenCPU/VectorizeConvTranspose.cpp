//===- VectorizeConvTranspose.cpp - non-overlapping transposed convs ------===//
//
// Implements tfrt-vectorize-conv-transpose: the graph lowering's generic of
// a 2-D ConvTranspose whose kernel equals its stride (every output pixel
// takes one tap) becomes loops over (n, ih, m, iw block) around
// register-resident accumulators for all taps of 16-column input vectors,
// interleaved into the output rows (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/ConvGeneric.h"
#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

namespace tfrt {
#define GEN_PASS_DEF_VECTORIZECONVTRANSPOSE
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Loops of the generic: (n, m, ih, kh, c, iw, kw).
enum : unsigned { kN, kM, kIH, kKH, kC, kIW, kKW, kLoops };

/// Floats between consecutive channel planes of the input `in` [N, C, H,
/// W] in memory: H * W, or through a slice (a chunk of input rows) that of
/// the tensor it slices.
int64_t planeStride(Value in) {
  auto type = cast<RankedTensorType>(in.getType());
  if (auto slice = in.getDefiningOp<tensor::ExtractSliceOp>();
      slice && slice.hasUnitStride() && slice.getSourceType().getRank() == 4)
    type = slice.getSourceType();
  return type.getDimSize(2) * type.getDimSize(3);
}

/// Whether more than 12 (the L1's ways) of `channels` planes `plane`
/// floats apart put a given column's line into the same L1 set (64 sets
/// of 64 bytes): det's 160x160 and 320x320 maps, 25 and 100 pages a plane.
bool planesShareSets(int64_t channels, int64_t plane) {
  int64_t lines = (plane * 4 / 64) % 64;
  int64_t sets = 64 / std::gcd<int64_t>(lines == 0 ? 64 : lines, 64);
  return llvm::divideCeil(channels, sets) > 12;
}

LogicalResult vectorizeOne(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t lanes, int64_t maxAccumulators,
                           bool epilogues, bool remarks, bool copyRows,
                           int64_t &fusedEpilogues) {
  if (!tfrt::conv::isConvTransposeGeneric(op))
    return failure();
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t kh = r[kKH], kw = r[kKW], iw = r[kIW];
  // Two column taps interleave with one shuffle; wider kernels (or no full
  // vector of input columns) keep the loop lowering.
  if ((kw != 1 && kw != 2) || iw % lanes || kh * kw > maxAccumulators)
    return failure();
  // Input vectors per step: all taps of each stay in registers (at most
  // `maxAccumulators` accumulators). det's ConvTranspose.0 (rows of ten
  // vectors, four taps) takes five with 20 accumulators: 1.20 -> 0.83 ms
  // against two.
  int64_t perStep = 1;
  for (int64_t u : {5, 4, 3, 2})
    if (kh * kw * u <= maxAccumulators && (iw / lanes) % u == 0) {
      perStep = u;
      break;
    }

  Value in = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  // An input row of all channels, read by every output channel, whose
  // planes crowd into a few L1 sets, is first copied into a scratch with
  // rows iw + 16 floats apart (det's ConvTranspose.0, 24 -> 24 on 160x160:
  // a one-node model at 68% of peak, 76-82% with 161 rows per plane).
  copyRows = copyRows && r[kM] >= 4 && planesShareSets(r[kC], planeStride(in));
  int64_t pitch = iw + 16;
  Value dest = op.getDpsInits()[0];
  // [N, M, IH, KH, IW * KW]: each (ih, kh) output row is contiguous.
  SmallVector<ReassociationIndices> rowsOf = {{0}, {1}, {2}, {3}, {4, 5}};
  std::optional<tfrt::Epilogue> epilogue;
  if (epilogues) {
    epilogue = tfrt::matchEpilogue(op->getResult(0), lanes);
    if (epilogue && (epilogue->indexing != tfrt::Epilogue::Indexing::Direct ||
                     !tfrt::epilogueViewsContiguous(*epilogue, 4)))
      epilogue.reset();
  }
  std::optional<tfrt::codegen::InitStart> start;
  {
    Value taken;
    start = tfrt::codegen::takeChannelInit(rewriter, op, dest, taken);
    if (start)
      dest = taken;
  }
  // The epilogue needs accumulators that do not read the op's init, and an
  // init that is not the shared output of an enclosing scf.forall.
  if (epilogue && (!start || start->channelOffset))
    epilogue.reset();

  Location loc = op.getLoc();
  // With an epilogue the loops replace its consumer, whose operands are
  // defined before it, and write its destination (viewed as rows).
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation()
                                      : op.getOperation());
  tfrt::EpilogueOperands epilogueOperands;
  if (epilogue) {
    epilogueOperands = tfrt::prepareEpilogue(rewriter, loc, *epilogue);
    for (auto [i, kind] : llvm::enumerate(epilogue->inputs))
      if (kind == tfrt::Epilogue::Input::Whole)
        epilogueOperands.inputs[i] = tensor::CollapseShapeOp::create(
            rewriter, loc, epilogueOperands.inputs[i], rowsOf);
    dest = epilogueOperands.dest;
  }
  Type f32 = rewriter.getF32Type();
  auto outType = cast<RankedTensorType>(dest.getType());
  SmallVector<int64_t> shape(outType.getShape());
  Value rows = tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(
          {shape[0], shape[1], shape[2], shape[3], shape[4] * shape[5]}, f32),
      dest, rowsOf);
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value c0 = cst(rewriter, 0), c1 = cst(rewriter, 1);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  auto vecType = VectorType::get({lanes}, f32);
  auto rowType = VectorType::get({lanes * kw}, f32);
  SmallVector<int64_t> interleave;
  for (int64_t i = 0; i < lanes; ++i)
    for (int64_t j = 0; j < kw; ++j)
      interleave.push_back(i + j * lanes);
  int64_t accs = kh * kw * perStep;
  auto accIndex = [&](int64_t h, int64_t k, int64_t u) {
    return (h * kw + k) * perStep + u;
  };

  // One step: perStep input vectors from column `col` of row ih (from
  // `row`, its copy [C, pitch], when not null).
  auto step = [&](OpBuilder &b, Location l, Value out, Value n, Value m,
                  Value ih, Value col, Value row) -> Value {
    Value first;
    if (!start) {
      first = arith::ConstantOp::create(b, l, vecType,
                                        DenseElementsAttr::get(vecType, 0.0f));
    } else {
      first =
          vector::BroadcastOp::create(b, l, vecType, start->valueAt(b, l, m));
    }
    SmallVector<Value> init(accs, first);
    auto cLoop = scf::ForOp::create(
        b, l, c0, cst(b, r[kC]), c1, init,
        [&](OpBuilder &b, Location l, Value c, ValueRange acc) {
          SmallVector<Value> x;
          for (int64_t u = 0; u < perStep; ++u) {
            Value at = arith::AddIOp::create(b, l, col, cst(b, u * lanes));
            x.push_back(row ? vector::TransferReadOp::create(
                                  b, l, vecType, row, ValueRange{c, at}, zero,
                                  ArrayRef<bool>{true})
                            : vector::TransferReadOp::create(
                                  b, l, vecType, in, ValueRange{n, c, ih, at},
                                  zero, ArrayRef<bool>{true}));
          }
          SmallVector<Value> next(acc.begin(), acc.end());
          for (int64_t h = 0; h < kh; ++h)
            for (int64_t k = 0; k < kw; ++k) {
              Value tap = tensor::ExtractOp::create(
                  b, l, w, ValueRange{c, m, cst(b, h), cst(b, k)});
              Value wv = vector::BroadcastOp::create(b, l, vecType, tap);
              for (int64_t u = 0; u < perStep; ++u) {
                int64_t a = accIndex(h, k, u);
                next[a] = vector::FMAOp::create(b, l, x[u], wv, next[a]);
              }
            }
          scf::YieldOp::create(b, l, next);
        });
    for (int64_t h = 0; h < kh; ++h)
      for (int64_t u = 0; u < perStep; ++u) {
        Value v = cLoop.getResult(accIndex(h, 0, u));
        if (kw == 2)
          v = vector::ShuffleOp::create(
              b, l, rowType, v, cLoop.getResult(accIndex(h, 1, u)), interleave);
        Value at = arith::MulIOp::create(
            b, l, arith::AddIOp::create(b, l, col, cst(b, u * lanes)),
            cst(b, kw));
        SmallVector<Value> idx = {n, m, ih, cst(b, h), at};
        if (epilogue) {
          out = tfrt::applyEpilogueDirect(b, l, *epilogue, epilogueOperands, v,
                                          out, idx);
          continue;
        }
        if (!start)
          v = arith::AddFOp::create(
              b, l, v,
              vector::TransferReadOp::create(b, l, rowType, out, idx, zero,
                                             ArrayRef<bool>{true}));
        out = vector::TransferWriteOp::create(b, l, v, out, idx,
                                              ArrayRef<bool>{true})
                  .getResult();
      }
    return out;
  };

  // Output channels inside input rows: one input row (all channels) is
  // read from the cache by every output channel.
  auto nLoop = scf::ForOp::create(
      rewriter, loc, c0, cst(rewriter, r[kN]), c1, ValueRange{rows},
      [&](OpBuilder &b, Location l, Value n, ValueRange nIter) {
        auto hLoop = scf::ForOp::create(
            b, l, c0, cst(b, r[kIH]), c1, nIter,
            [&](OpBuilder &b, Location l, Value ih, ValueRange hIter) {
              Value row;
              if (copyRows) {
                Value scratch = tensor::EmptyOp::create(
                    b, l, ArrayRef<int64_t>{r[kC], pitch}, f32);
                auto cLoop = scf::ForOp::create(
                    b, l, c0, cst(b, r[kC]), c1, ValueRange{scratch},
                    [&](OpBuilder &b, Location l, Value c, ValueRange cIter) {
                      Value to = cIter[0];
                      for (int64_t j = 0; j < iw; j += lanes) {
                        Value v = vector::TransferReadOp::create(
                            b, l, vecType, in, ValueRange{n, c, ih, cst(b, j)},
                            zero, ArrayRef<bool>{true});
                        to = vector::TransferWriteOp::create(
                                 b, l, v, to, ValueRange{c, cst(b, j)},
                                 ArrayRef<bool>{true})
                                 .getResult();
                      }
                      scf::YieldOp::create(b, l, to);
                    });
                row = cLoop.getResult(0);
              }
              auto mLoop = scf::ForOp::create(
                  b, l, c0, cst(b, r[kM]), c1, hIter,
                  [&](OpBuilder &b, Location l, Value m, ValueRange mIter) {
                    auto wLoop = scf::ForOp::create(
                        b, l, c0, cst(b, iw), cst(b, perStep * lanes), mIter,
                        [&](OpBuilder &b, Location l, Value col,
                            ValueRange wIter) {
                          scf::YieldOp::create(
                              b, l, step(b, l, wIter[0], n, m, ih, col, row));
                        });
                    scf::YieldOp::create(b, l, wLoop.getResults());
                  });
              scf::YieldOp::create(b, l, mLoop.getResults());
            });
        scf::YieldOp::create(b, l, hLoop.getResults());
      });
  if (epilogue) {
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, epilogue->generic->getResult(0).getType(),
        nLoop.getResult(0), rowsOf);
    tfrt::finishEpilogue(rewriter, *epilogue, result, op,
                         "transposed convolution", remarks);
    ++fusedEpilogues;
    return success();
  }
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      op, op.getResultTypes()[0], nLoop.getResult(0), rowsOf);
  return success();
}

struct VectorizeConvTransposePass
    : public tfrt::impl::VectorizeConvTransposeBase<
          VectorizeConvTransposePass> {
  using VectorizeConvTransposeBase::VectorizeConvTransposeBase;

  void runOnOperation() override {
    if (lanes < 1 || maxAccumulators < 1) {
      getOperation().emitError("tfrt-vectorize-conv-transpose: lanes and "
                               "max-accumulators must be >= 1");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (tfrt::conv::isConvTransposeGeneric(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    int64_t fused = 0;
    for (linalg::GenericOp op : ops)
      (void)vectorizeOne(rewriter, op, lanes, maxAccumulators, epilogues,
                         remarks, copyRows, fused);
    numEpilogues += fused;
  }
};
} // namespace
