//===- EmulateLaunches.cpp - run gpu.launch bodies as CPU loops -----------===//
//
// Implements tfrt-cuda-emulate-launches, a testing aid: every gpu.launch
// becomes sequential loops over its blocks and threads, so the kernels that
// tfrt-cuda-map-to-gpu forms can be compiled for and checked on a CPU
// (`tfrt-compile --target=cuda-emulate`).
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCUDA/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace tfrt {
#define GEN_PASS_DEF_EMULATELAUNCHES
#include "passes/CodegenCUDA/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
struct EmulateLaunchesPass
    : public tfrt::impl::EmulateLaunchesBase<EmulateLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches) {
      if (!launch.getBody().hasOneBlock() || launch.getAsyncToken() ||
          launch.getClusterSizeX()) {
        launch.emitError("cannot emulate this launch (several blocks, async "
                         "or clusters)");
        return signalPassFailure();
      }
      Location loc = launch.getLoc();
      rewriter.setInsertionPoint(launch);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      SmallVector<Value> bounds{grid.x, grid.y, grid.z,
                                block.x, block.y, block.z};
      SmallVector<Value> ivs;
      for (Value ub : bounds) {
        auto f = scf::ForOp::create(rewriter, loc, zero, ub, one);
        ivs.push_back(f.getInductionVar());
        rewriter.setInsertionPointToStart(f.getBody());
      }
      Block &body = launch.getBody().front();
      rewriter.eraseOp(body.getTerminator());
      // Block args: block ids, thread ids, grid sizes, block sizes.
      SmallVector<Value> args(ivs.begin(), ivs.end());
      args.append(bounds.begin(), bounds.end());
      rewriter.inlineBlockBefore(&body, rewriter.getInsertionBlock(),
                                 rewriter.getInsertionPoint(),
                                 ArrayRef<Value>(args).take_front(
                                     body.getNumArguments()));
      rewriter.eraseOp(launch);
    }
  }
};
} // namespace
