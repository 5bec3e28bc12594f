//===- ChannelInit.cpp - accumulators that start from a fill or bias -----===//
//
// Implements ChannelInit.h.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/ChannelInit.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using tfrt::codegen::InitStart;

namespace {
/// Matches a linalg.fill of a scalar (or a generic of rank 4 or more
/// yielding one), or the broadcast of a rank-1 tensor along dim 1 of a
/// result of rank 4 or more (a ConvTranspose's 6-D one); `dest` is its own
/// init.
bool matchChannelInit(Operation *def, InitStart &start, Value &dest) {
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    if (!fill.hasPureTensorSemantics())
      return false;
    start.scalar = fill.getInputs()[0];
    dest = fill.getOutputs()[0];
    return true;
  }
  auto g = dyn_cast_or_null<linalg::GenericOp>(def);
  if (!g || !g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 ||
      g.getNumLoops() < 4 || g.getNumReductionLoops() != 0)
    return false;
  // A generic without inputs yielding a value from outside its body: the
  // broadcast of a one-element bias, folded into a constant.
  if (g.getNumDpsInputs() == 0) {
    Block &body = g.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (body.getOperations().size() != 1 || yield.getNumOperands() != 1 ||
        yield.getOperand(0).getParentBlock() == &body)
      return false;
    start.scalar = yield.getOperand(0);
    dest = g.getOutputs()[0];
    return true;
  }
  if (g.getNumDpsInputs() != 1)
    return false;
  auto bt = dyn_cast<RankedTensorType>(g.getInputs()[0].getType());
  if (!bt || bt.getRank() != 1)
    return false;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  MLIRContext *ctx = g.getContext();
  if (maps[0] !=
          AffineMap::get(g.getNumLoops(), 0, {getAffineDimExpr(1, ctx)}, ctx) ||
      !maps[1].isIdentity())
    return false;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return false;
  start.bias = g.getInputs()[0];
  dest = g.getOutputs()[0];
  return true;
}
} // namespace

Value InitStart::valueAt(OpBuilder &b, Location loc, Value channel) const {
  if (!bias)
    return scalar;
  if (channelOffset)
    channel = arith::AddIOp::create(b, loc, channel, channelOffset);
  return tensor::ExtractOp::create(b, loc, bias, ValueRange{channel});
}

std::optional<InitStart> tfrt::codegen::takeChannelInit(RewriterBase &rewriter,
                                                        Operation *op,
                                                        Value init,
                                                        Value &dest) {
  InitStart start;
  Value newDest;
  Operation *def = init.getDefiningOp();
  if (def && def->hasOneUse() && matchChannelInit(def, start, newDest)) {
    dest = newDest;
    return start;
  }
  // In a chunk: init = extract_slice of the forall's shared output, the
  // result inserted back at the same place.
  auto slice = init.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice->hasOneUse() || !slice.hasUnitStride() ||
      !op->hasOneUse())
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(slice.getSource());
  auto forall =
      arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!forall)
    return std::nullopt;
  auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(*op->user_begin());
  if (!insert || insert.getDest() != arg ||
      insert.getMixedOffsets() != slice.getMixedOffsets() ||
      insert.getMixedSizes() != slice.getMixedSizes())
    return std::nullopt;
  OpOperand *shared = forall.getTiedOpOperand(arg);
  Operation *producer = shared ? shared->get().getDefiningOp() : nullptr;
  if (!producer || !producer->hasOneUse() ||
      !matchChannelInit(producer, start, newDest))
    return std::nullopt;
  OpFoldResult offset = slice.getMixedOffsets()[1];
  if (!isConstantIntValue(offset, 0)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    start.channelOffset =
        getValueOrCreateConstantIndexOp(rewriter, op->getLoc(), offset);
  }
  rewriter.modifyOpInPlace(forall, [&] { shared->set(newDest); });
  dest = init;
  return start;
}

std::optional<InitStart> tfrt::codegen::takeChannelInitForEpilogue(
    RewriterBase &rewriter, Operation *op, Value init, Value &dest,
    std::optional<tfrt::Epilogue> &epilogue, tfrt::EpilogueOperands &operands) {
  std::optional<InitStart> taken = takeChannelInit(rewriter, op, init, dest);
  if (epilogue && (!taken || taken->channelOffset))
    epilogue.reset();
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation() : op);
  if (epilogue) {
    operands = tfrt::prepareEpilogue(rewriter, op->getLoc(), *epilogue);
    dest = operands.dest;
  }
  return taken;
}

bool tfrt::codegen::readsChannelsOnly(AffineMap map) {
  for (unsigned d = 2; d < map.getNumDims(); ++d)
    if (map.isFunctionOfDim(d))
      return false;
  return true;
}

Operation *tfrt::codegen::recomputableChannelInit(Value init) {
  Operation *def = init.getDefiningOp();
  if (!def || !init.hasOneUse())
    return nullptr;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return fill.hasPureTensorSemantics() ? def : nullptr;
  auto g = dyn_cast<linalg::GenericOp>(def);
  if (!g || !g.hasPureTensorSemantics() || g.getNumReductionLoops() != 0 ||
      g.getNumDpsInits() != 1 ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return nullptr;
  for (OpOperand *in : g.getDpsInputOperands())
    if (!readsChannelsOnly(g.getMatchingIndexingMap(in)))
      return nullptr;
  return g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity()
             ? def
             : nullptr;
}
