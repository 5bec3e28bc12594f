//===- RunContext.h - the context of one model run --------------*- C++ -*-===//
//
// Private to runtime-lib: what tfrt_run_context (tfrt/runtime.h) holds. An
// instance owns one and hands it to its generated entry on every run.
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_RUNTIME_LIB_RUNCONTEXT_H
#define TFRT_RUNTIME_LIB_RUNCONTEXT_H

#include "tfrt/runtime.h"
#include "tfrt/thread_pool.h"

struct tfrt_run_context_s {
  /// The pool of the run's parallel loops; NULL: the calling thread only.
  tfrt_pool *pool = nullptr;
  /// Set by tfrt_model_cancel; reset when a run starts.
  tfrt::CancellationToken cancel;
};

#endif // TFRT_RUNTIME_LIB_RUNCONTEXT_H
