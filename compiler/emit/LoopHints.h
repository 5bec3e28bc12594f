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

/// Marks every loop of `f` with more than `maxInstructions` LLVM
/// instructions (its nested loops' included) `llvm.loop.unroll.disable`;
/// 0 marks none. Returns how many loops it marked.
///
/// Meant for every function of a model, parallel bodies included: loops that
/// large hold register tiles our passes unrolled already. LLVM's O2 unroller
/// left them rolled on PP-OCR cls, det and rec (the objects are the same with
/// and without the mark), but only after costing each of them, simulating
/// the full unrolling of those that run at most 10 times. The mark skips that
/// work: 11% of the instructions of cls's compile (docs/performance.md).
unsigned keepLargeLoopsRolled(llvm::Function &f, unsigned maxInstructions);

} // namespace tfrt

#endif // TFRT_COMPILER_EMIT_LOOPHINTS_H
