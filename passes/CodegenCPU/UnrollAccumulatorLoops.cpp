//===- UnrollAccumulatorLoops.cpp - unroll register-tile K loops ----------===//
//
// Implements tfrt-unroll-accumulator-loops: the reduction loops of the
// register tiles (one vector.contract on a loop-carried vector accumulator
// per step) take `factor` steps per iteration. LLVM leaves such loops
// rolled: with 16 FMAs, 2 loads and 8 broadcasts in the body they are over
// its unrolling thresholds, and every 16 FMAs then carry four loop
// instructions that compete for the ports.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/RegisterTile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"

namespace tfrt {
#define GEN_PASS_DEF_UNROLLACCUMULATORLOOPS
#include "passes/CodegenCPU/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// Bodies larger than this stay as they are.
constexpr int64_t kMaxBodyOps = 64;

/// Whether `loop` is a register tile's reduction loop: vector iter_args
/// only, a flat body (no nested regions) of at most kMaxBodyOps ops with
/// exactly one vector.contract, which accumulates into an iter_arg.
bool isAccumulatorLoop(scf::ForOp loop) {
  if (!tfrt::codegen::carriesOnlyVectors(loop))
    return false;
  vector::ContractionOp contract;
  int64_t ops = 0;
  for (Operation &op : *loop.getBody()) {
    if (op.getNumRegions() || ++ops > kMaxBodyOps)
      return false;
    if (auto c = dyn_cast<vector::ContractionOp>(op)) {
      if (contract)
        return false;
      contract = c;
    }
  }
  if (!contract)
    return false;
  auto acc = dyn_cast<BlockArgument>(contract.getAcc());
  return acc && acc.getOwner() == loop.getBody() && acc.getArgNumber() > 0;
}

struct UnrollAccumulatorLoopsPass
    : public tfrt::impl::UnrollAccumulatorLoopsBase<
          UnrollAccumulatorLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (factor < 1) {
      getOperation().emitError("tfrt-unroll-accumulator-loops: factor must "
                               "be at least 1, got ")
          << static_cast<int64_t>(factor);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isAccumulatorLoop(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips)
        continue;
      int64_t n = trips->getSExtValue();
      // The largest power of two up to `factor` that divides the trip
      // count: no remainder loop.
      int64_t f =
          static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(factor)));
      while (f > 1 && n % f)
        f /= 2;
      if (f > 1 && n >= f)
        (void)loopUnrollByFactor(loop, f);
    }
  }
};
} // namespace
