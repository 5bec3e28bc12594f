//===- SeedConvTiles.cpp - conv register tiles start from their bias ------===//
//
// Implements tfrt-seed-conv-tiles: the register tiles of windowed
// convolutions (tfrt-vectorize-conv), after the accumulator hoisting, read
// their accumulators from the conv's output, which a separate launch has
// filled with the bias (or zero) first. Where that init is a linalg.fill or
// the graph lowering's broadcast of a [C] bias (ChannelInit.h), the tiles of
// the first input-channel block start from the bias instead, and the pass
// over the output that wrote it goes.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Epilogue.h"
#include "passes/CodegenCPU/Passes.h"

#include "passes/CodegenCPU/ChannelInit.h"
#include "passes/CodegenCPU/RegisterTile.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace tfrt {
#define GEN_PASS_DEF_SEEDCONVTILES
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// A register tile's accumulator read: a vector<M x N> f32 read of the
/// [channel, column] dims (1 and 3) of a static rank-4 tensor, in bounds and
/// unmasked, that is the initial value of a loop carrying vectors only (the
/// tap loop), whose result is written back to the same place.
struct AccRead {
  vector::TransferReadOp read;
  /// The write of the tap loop's result back to the same place.
  vector::TransferWriteOp write;
  /// The loops whose iter_args carry the output tensor, innermost first.
  SmallVector<scf::ForOp> chain;
  unsigned topArg; // the iter_arg of chain.back() that carries it
  /// Whether the outermost loop leaves the tile where it is (a loop over
  /// input-channel blocks): only its first iteration starts from the init,
  /// only its last one finishes the values.
  bool blocks = false;
};

std::optional<AccRead> matchAccRead(vector::TransferReadOp read) {
  auto type = dyn_cast<RankedTensorType>(read.getBase().getType());
  VectorType vt = read.getVectorType();
  MLIRContext *ctx = read.getContext();
  if (!type || type.getRank() != 4 || !type.hasStaticShape() ||
      !type.getElementType().isF32() || vt.getRank() != 2 || read.getMask() ||
      read.getPermutationMap() !=
          AffineMap::get(4, 0,
                         {getAffineDimExpr(1, ctx), getAffineDimExpr(3, ctx)},
                         ctx) ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
    return std::nullopt;
  if (!read->hasOneUse())
    return std::nullopt;
  OpOperand &use = *read->use_begin();
  auto tap = dyn_cast<scf::ForOp>(use.getOwner());
  if (!tap || use.getOperandNumber() < tap.getNumControlOperands() ||
      !tfrt::codegen::carriesOnlyVectors(tap))
    return std::nullopt;
  unsigned resultNo = use.getOperandNumber() - tap.getNumControlOperands();
  Value result = tap->getResult(resultNo);
  auto write = result.hasOneUse()
                   ? dyn_cast<vector::TransferWriteOp>(*result.user_begin())
                   : nullptr;
  if (!write || write.getBase() != read.getBase() ||
      write.getIndices() != read.getIndices() ||
      write.getPermutationMap() != read.getPermutationMap())
    return std::nullopt;
  // Up the iter_args that carry the output tensor.
  AccRead r{read, write, {}, 0, false};
  Value v = read.getBase();
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      break;
    r.chain.push_back(loop);
    r.topArg = arg.getArgNumber() - 1;
    v = loop.getInitArgs()[r.topArg];
  }
  if (r.chain.empty())
    return std::nullopt;
  return r;
}

/// Whether `v` depends on `iv` through index arithmetic (affine.apply and
/// arith ops on index values).
bool dependsOn(Value v, Value iv) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || def->getNumOperands() > 4)
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value o) { return dependsOn(o, iv); });
}

/// The scf.forall whose shared output `v` is, if any.
scf::ForallOp sharedOutputOf(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
             : scf::ForallOp();
}

/// `then` when the loop variable `iv` equals `at`, else `otherwise`, as an
/// scf.if yielding one value.
Value atIteration(OpBuilder &b, Location loc, Value iv, Value at,
                  function_ref<Value(OpBuilder &, Location)> then,
                  function_ref<Value(OpBuilder &, Location)> otherwise) {
  Value cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv, at);
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, then(b, l)); },
      [&](OpBuilder &b, Location l) {
        scf::YieldOp::create(b, l, otherwise(b, l));
      });
  return ifOp.getResult(0);
}

/// Whether every reader of the output tensor that `top` carries in its
/// iter_arg `arg` is one of `reads`: following the tensor through nested
/// loops' iter_args and results and through vector.transfer_write, only
/// those reads, the writes and the loop plumbing may use it.
bool onlyReaders(scf::ForOp top, unsigned arg,
                 const llvm::SmallPtrSetImpl<Operation *> &reads) {
  SmallVector<Value> worklist{top.getRegionIterArgs()[arg]};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *owner = use.getOwner();
      if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        unsigned n = use.getOperandNumber();
        if (n < loop.getNumControlOperands())
          return false;
        unsigned i = n - loop.getNumControlOperands();
        worklist.push_back(loop.getRegionIterArgs()[i]);
        worklist.push_back(loop->getResult(i));
        continue;
      }
      if (isa<scf::YieldOp>(owner)) {
        Operation *parent = owner->getParentOp();
        if (parent == top.getOperation())
          continue;
        if (!isa<scf::ForOp>(parent))
          return false;
        worklist.push_back(parent->getResult(use.getOperandNumber()));
        continue;
      }
      if (auto write = dyn_cast<vector::TransferWriteOp>(owner)) {
        if (write.getBase() != v)
          return false;
        worklist.push_back(write.getResult());
        continue;
      }
      if (!reads.contains(owner))
        return false;
    }
  }
  return true;
}

struct SeedConvTilesPass
    : public tfrt::impl::SeedConvTilesBase<SeedConvTilesPass> {
  void runOnOperation() override {
    // The accumulator reads, grouped by the outermost loop that carries
    // their output (one conv's tiles share it), in walk order.
    llvm::MapVector<Operation *, SmallVector<AccRead>> groups;
    getOperation().walk([&](vector::TransferReadOp read) {
      if (std::optional<AccRead> r = matchAccRead(read))
        groups[r->chain.back()].push_back(*r);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[topOp, reads] : groups) {
      auto top = cast<scf::ForOp>(topOp);
      unsigned arg = reads.front().topArg;
      Value iv = top.getInductionVar();
      llvm::SmallPtrSet<Operation *, 8> readOps;
      bool ok = true;
      for (AccRead &r : reads) {
        readOps.insert(r.read);
        r.blocks = llvm::none_of(r.read.getIndices(),
                                 [&](Value i) { return dependsOn(i, iv); });
        // Every loop below the outermost must move the tile: a second loop
        // that revisits it would accumulate across its iterations too.
        ok &= r.topArg == arg &&
              llvm::all_of(ArrayRef(r.chain).drop_back(), [&](scf::ForOp l) {
                return llvm::any_of(r.read.getIndices(), [&](Value i) {
                  return dependsOn(i, l.getInductionVar());
                });
              });
      }
      if (!ok || !onlyReaders(top, arg, readOps))
        continue;
      Value init = top.getInitArgs()[arg];
      // The init's producer, or in a chunk of an scf.forall the producer of
      // its shared output: dead once the tiles no longer read it.
      Operation *producer = init.getDefiningOp();
      if (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
        if (scf::ForallOp forall = sharedOutputOf(slice.getSource()))
          if (OpOperand *shared = forall.getTiedOpOperand(
                  cast<BlockArgument>(slice.getSource())))
            producer = shared->get().getDefiningOp();
      Value dest;
      std::optional<tfrt::codegen::InitStart> start =
          tfrt::codegen::takeChannelInit(rewriter, top, init, dest);
      if (!start)
        continue;
      if (dest != init)
        rewriter.modifyOpInPlace(
            top, [&] { top.getInitArgsMutable()[arg].set(dest); });
      // Under input-channel blocks only the first block starts from it.
      for (AccRead &r : reads) {
        vector::TransferReadOp read = r.read;
        Location loc = read.getLoc();
        VectorType vt = read.getVectorType();
        auto seed = [&](OpBuilder &b, Location) -> Value {
          if (!start->bias)
            return vector::BroadcastOp::create(b, loc, vt, start->scalar);
          Value ch = read.getIndices()[1];
          if (start->channelOffset)
            ch = arith::AddIOp::create(b, loc, ch, start->channelOffset);
          MLIRContext *ctx = b.getContext();
          AffineMap bcast = AffineMap::get(
              1, 0, {getAffineDimExpr(0, ctx), getAffineConstantExpr(0, ctx)},
              ctx);
          Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
          return vector::TransferReadOp::create(b, loc, vt, start->bias,
                                                ValueRange{ch}, pad, bcast,
                                                ArrayRef<bool>{true, true});
        };
        rewriter.setInsertionPoint(read);
        Value replacement =
            !r.blocks
                ? seed(rewriter, loc)
                : atIteration(
                      rewriter, loc, iv, top.getLowerBound(), seed,
                      [&](OpBuilder &b, Location) {
                        return b.clone(*read.getOperation())->getResult(0);
                      });
        rewriter.replaceOp(read, replacement);
        ++numSeeded;
      }
      if (producer && isOpTriviallyDead(producer))
        rewriter.eraseOp(producer);

      // The conv's final value: the outermost loop's result, or the result
      // of the scf.forall whose chunks it computes.
      Value result = top->getResult(arg);
      if (result.hasOneUse())
        if (auto insert =
                dyn_cast<tensor::ParallelInsertSliceOp>(*result.user_begin()))
          if (scf::ForallOp forall = sharedOutputOf(insert.getDest()))
            result = forall.getTiedOpResult(
                forall.getTiedOpOperand(cast<BlockArgument>(insert.getDest())));
      linalg::GenericOp epilogue = tfrt::unaryEpilogue(result);
      std::optional<int64_t> lb = getConstantIntValue(top.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(top.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(top.getStep());
      if (!epilogue || !lb || !ub || !step || *step <= 0 || *ub <= *lb ||
          (*ub - *lb) % *step)
        continue;
      // The last block (or every tile of one sweep) applies it before the
      // write; the consumer's own pass over the output goes.
      for (AccRead &r : reads) {
        vector::TransferWriteOp write = r.write;
        Location loc = write.getLoc();
        rewriter.setInsertionPoint(write);
        Value acc = write.getVector();
        auto apply = [&](OpBuilder &b, Location l) {
          return tfrt::applyUnaryEpilogue(b, l, epilogue, acc);
        };
        Value out;
        if (!r.blocks) {
          out = apply(rewriter, loc);
        } else {
          Value lastIv =
              arith::ConstantIndexOp::create(rewriter, loc, *ub - *step);
          out = atIteration(rewriter, loc, iv, lastIv, apply,
                            [&](OpBuilder &, Location) { return acc; });
        }
        rewriter.modifyOpInPlace(
            write, [&] { write.getValueToStoreMutable().set(out); });
        ++numEpilogues;
      }
      rewriter.replaceOp(epilogue, result);
    }
  }
};
} // namespace
