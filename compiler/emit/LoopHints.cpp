//===- LoopHints.cpp - unrolling hints for LLVM's middle end --------------===//
//
// See LoopHints.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/LoopHints.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// Gives `loop` a distinct loop ID that names itself first, then
/// llvm.loop.unroll.disable.
static void disableUnrolling(Loop &loop) {
  LLVMContext &ctx = loop.getHeader()->getContext();
  Metadata *hint =
      MDNode::get(ctx, MDString::get(ctx, "llvm.loop.unroll.disable"));
  MDNode *id = MDNode::getDistinct(ctx, {nullptr, hint});
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

unsigned tfrt::limitUnrolling(Function &f, unsigned maxTrips) {
  if (f.isDeclaration())
    return 0;
  TargetLibraryInfoImpl tlii(f.getParent()->getTargetTriple());
  TargetLibraryInfo tli(tlii, &f);
  AssumptionCache ac(f);
  DominatorTree dt(f);
  LoopInfo li(dt);
  ScalarEvolution se(f, tli, ac, dt, li);
  unsigned marked = 0;
  for (Loop *loop : li.getLoopsInPreorder()) {
    if (!loop->getLoopLatch() || loop->getLoopID())
      continue;
    unsigned trips = se.getSmallConstantTripCount(loop);
    if (trips != 0 && trips <= maxTrips)
      continue;
    disableUnrolling(*loop);
    ++marked;
  }
  return marked;
}

unsigned tfrt::keepLargeLoopsRolled(Function &f, unsigned maxInstructions) {
  if (f.isDeclaration() || maxInstructions == 0)
    return 0;
  DominatorTree dt(f);
  LoopInfo li(dt);
  unsigned marked = 0;
  for (Loop *loop : li.getLoopsInPreorder()) {
    if (!loop->getLoopLatch() || loop->getLoopID())
      continue;
    // Instructions of the loop and of the loops nested in it.
    size_t size = 0;
    for (BasicBlock *bb : loop->blocks())
      size += bb->size();
    if (size <= maxInstructions)
      continue;
    disableUnrolling(*loop);
    ++marked;
  }
  return marked;
}
