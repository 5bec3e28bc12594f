//===- LoopHints.h - unrolling hints for LLVM's middle end ------*- C++ -*-===//
//
// Loop metadata that the emitter attaches before LLVM optimises a model.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_EMIT_LOOPHINTS_H
#define TFRT_COMPILER_EMIT_LOOPHINTS_H

namespace llvm {
class Function;
} // namespace llvm

namespace tfrt {

/// Marks every loop of `f` that runs a constant number of times above
/// `maxTrips`, or an unknown number of times, `llvm.loop.unroll.disable`,
/// so that LLVM's unroller leaves it rolled (loops of at most `maxTrips`
/// iterations keep LLVM's own decision). Returns how many loops it marked.
///
/// Meant for the code that runs between pool launches (the compute
/// function): its kernels are already register-tiled and unrolled by the
/// MLIR passes, and fully unrolled loops of tens of iterations there only
/// make machine code generation slower (see docs/performance.md).
unsigned limitUnrolling(llvm::Function &f, unsigned maxTrips);

} // namespace tfrt

#endif // TFRT_COMPILER_EMIT_LOOPHINTS_H
