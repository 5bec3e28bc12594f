//===- Registration.h - register the passes of every area -------*- C++ -*-===//
//
// Registers the passes (and pass pipelines) of every area under passes/ with
// the global registry, for tfrt-opt and lit tests.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_REGISTRATION_H
#define TFRT_PASSES_REGISTRATION_H

namespace tfrt {
/// Registers the lowering, memory-planning and codegen passes.
void registerProjectPasses();
} // namespace tfrt

#endif // TFRT_PASSES_REGISTRATION_H
