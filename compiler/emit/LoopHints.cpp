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

unsigned tfrt::limitUnrolling(Function &f, unsigned maxTrips) {
  if (f.isDeclaration())
    return 0;
  TargetLibraryInfoImpl tlii(f.getParent()->getTargetTriple());
  TargetLibraryInfo tli(tlii, &f);
  AssumptionCache ac(f);
  DominatorTree dt(f);
  LoopInfo li(dt);
  ScalarEvolution se(f, tli, ac, dt, li);
  LLVMContext &ctx = f.getContext();
  unsigned marked = 0;
  for (Loop *loop : li.getLoopsInPreorder()) {
    if (!loop->getLoopLatch() || loop->getLoopID())
      continue;
    unsigned trips = se.getSmallConstantTripCount(loop);
    if (trips != 0 && trips <= maxTrips)
      continue;
    // A distinct loop ID that names itself first, then the hint.
    Metadata *hint =
        MDNode::get(ctx, MDString::get(ctx, "llvm.loop.unroll.disable"));
    MDNode *id = MDNode::getDistinct(ctx, {nullptr, hint});
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
    ++marked;
  }
  return marked;
}
