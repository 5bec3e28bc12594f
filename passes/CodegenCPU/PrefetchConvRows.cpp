//===- PrefetchConvRows.cpp - prefetch the next input row of conv tiles ---===//
//
// Implements tfrt-prefetch-conv-rows: the register tiles of windowed
// convolutions on the rows-outer [N, H, C, W] input (tfrt-vectorize-conv)
// prefetch, with every input read of a tap, the same channels' row one
// further down, one 64-byte line per column tap. Each row of output tiles
// then finds the one input row it adds to the window in L1 instead of
// waiting on L2 or L3 for every channel of it: the hardware prefetchers do
// not follow a stream that jumps a whole [C, W] row plane per channel.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/RegisterTile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"

namespace tfrt {
#define GEN_PASS_DEF_PREFETCHCONVROWS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Floats per 64-byte cache line.
constexpr int64_t kLineFloats = 16;

/// The enclosing scf.for of `op` whose induction variable is `iv`, if it is
/// a register tile's tap loop: it carries the accumulators (vector iter_args
/// only) from 0 in steps of 1 to a static bound of at least 2.
scf::ForOp tapLoop(Operation *op, Value iv) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    if (loop.getInductionVar() != iv)
      continue;
    if (!tfrt::codegen::carriesOnlyVectors(loop))
      return {};
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    if (lb == 0 && step == 1 && ub && *ub >= 2)
      return loop;
    return {};
  }
  return {};
}

/// The tap loop of `index`, a window position oh + kh or ow + kw: the
/// index itself when it is a tap loop's induction variable (a tile at
/// position 0), else the one operand of the affine.apply computing it that
/// is.
std::pair<scf::ForOp, Value> tapOf(Operation *read, Value index) {
  if (scf::ForOp loop = tapLoop(read, index))
    return {loop, index};
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return {};
  std::pair<scf::ForOp, Value> found;
  for (Value operand : apply.getMapOperands()) {
    if (scf::ForOp loop = tapLoop(read, operand)) {
      if (found.first)
        return {};
      found = {loop, operand};
    }
  }
  return found;
}

/// The register-tile input reads this pass prefetches for: an in-bounds,
/// unmasked vector<K x N> f32 read of the minor [C, W] dims of a static
/// rank-4 tensor, used as the right operand of a vector.contract, at a row
/// oh + kh and a column ow + kw of enclosing tap loops.
struct TileRead {
  vector::TransferReadOp read;
  scf::ForOp kwLoop;
  Value kw;
  int64_t kernelW;
};

std::optional<TileRead> matchTileRead(vector::TransferReadOp read) {
  auto tensorType = dyn_cast<RankedTensorType>(read.getBase().getType());
  VectorType vecType = read.getVectorType();
  if (!tensorType || tensorType.getRank() != 4 ||
      !tensorType.hasStaticShape() || !tensorType.getElementType().isF32() ||
      vecType.getRank() != 2 || read.getMask() ||
      !read.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
    return std::nullopt;
  if (!llvm::any_of(read->getUsers(), [&](Operation *user) {
        auto contract = dyn_cast<vector::ContractionOp>(user);
        return contract && contract.getRhs() == read.getResult();
      }))
    return std::nullopt;
  ValueRange indices = read.getIndices();
  if (!tapOf(read, indices[1]).first)
    return std::nullopt;
  auto [kwLoop, kw] = tapOf(read, indices[3]);
  if (!kwLoop)
    return std::nullopt;
  return TileRead{read, kwLoop, kw,
                  *getConstantIntValue(kwLoop.getUpperBound())};
}

struct PrefetchConvRowsPass
    : public tfrt::impl::PrefetchConvRowsBase<PrefetchConvRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (rowsAhead < 0) {
      getOperation().emitError("tfrt-prefetch-conv-rows: rows-ahead must "
                               "not be negative, got ")
          << static_cast<int64_t>(rowsAhead);
      return signalPassFailure();
    }
    if (rowsAhead == 0)
      return;
    SmallVector<TileRead> reads;
    getOperation().walk([&](vector::TransferReadOp read) {
      if (std::optional<TileRead> t = matchTileRead(read))
        reads.push_back(*t);
    });
    // One read-only buffer view per input tensor, placed where the tensor
    // is defined (a dynamic layout, so that bufferization copies nothing).
    llvm::DenseMap<Value, Value> buffers;
    MLIRContext *ctx = &getContext();
    for (TileRead &t : reads) {
      vector::TransferReadOp read = t.read;
      Value tensor = read.getBase();
      auto type = cast<RankedTensorType>(tensor.getType());
      Value &buffer = buffers[tensor];
      if (!buffer) {
        OpBuilder b(ctx);
        if (auto arg = dyn_cast<BlockArgument>(tensor))
          b.setInsertionPointToStart(arg.getOwner());
        else
          b.setInsertionPointAfter(tensor.getDefiningOp());
        auto layout = StridedLayoutAttr::get(
            ctx, ShapedType::kDynamic,
            SmallVector<int64_t>(4, ShapedType::kDynamic));
        buffer = bufferization::ToBufferOp::create(
            b, tensor.getLoc(),
            MemRefType::get(type.getShape(), type.getElementType(), layout),
            tensor, /*read_only=*/true);
      }

      // Row: oh + kh + rowsAhead, kept inside the tensor. Column: the tap's
      // line of the tile's columns, ow + 16 * kw, up to the tile's last
      // column (ow + N + KW - 2) and the row's last 16 columns.
      OpBuilder b(read);
      Location loc = read.getLoc();
      ValueRange idx = read.getIndices();
      int64_t h = type.getDimSize(1), w = type.getDimSize(3);
      int64_t k = read.getVectorType().getDimSize(0);
      int64_t n = read.getVectorType().getDimSize(1);
      AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
      Value row = affine::AffineMinOp::create(
          b, loc,
          AffineMap::get(1, 0,
                         {d0 + static_cast<int64_t>(rowsAhead),
                          getAffineConstantExpr(h - 1, ctx)},
                         ctx),
          ValueRange{idx[1]});
      Value col = affine::AffineMinOp::create(
          b, loc,
          AffineMap::get(
              2, 0,
              {d0 + d1 * (kLineFloats - 1), d0 - d1 + (n + t.kernelW - 2),
               getAffineConstantExpr(std::max<int64_t>(w - kLineFloats, 0),
                                     ctx)},
              ctx),
          ValueRange{idx[3], t.kw});
      for (int64_t i = 0; i < k; ++i) {
        Value c = i == 0 ? idx[2]
                         : affine::AffineApplyOp::create(
                               b, loc, AffineMap::get(1, 0, d0 + i, ctx),
                               ValueRange{idx[2]})
                               .getResult();
        memref::PrefetchOp::create(b, loc, buffer,
                                   ValueRange{idx[0], row, c, col},
                                   /*isWrite=*/false, /*locality=*/3,
                                   /*isDataCache=*/true);
      }
      ++numPrefetched;
    }
  }
};
} // namespace
