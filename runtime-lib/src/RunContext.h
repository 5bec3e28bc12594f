//===- RunContext.h - the context of one model run --------------*- C++ -*-===//
//
// Private to runtime-lib: what tfrt_run_context (tfrt/runtime.h) holds. An
// instance owns one and hands it to its generated entry on every run.
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_RUNTIME_LIB_RUNCONTEXT_H
#define TFRT_RUNTIME_LIB_RUNCONTEXT_H

#include "Internal.h"
#include "tfrt/profile.h"
#include "tfrt/runtime.h"
#include "tfrt/thread_pool.h"

#include <atomic>

namespace tfrt::rt {
/// The per-instance counters of a model compiled with --profile
/// (tfrt/profile.h). Only the thread running the entry writes them.
struct ProfileState {
  /// numEntries counters; NULL for models without a profile table. The last
  /// one is the rest of the inline code.
  tfrt_profile_counter *counters = nullptr;
  uint32_t numEntries = 0;
  /// When the previous entry ended (or the run started).
  uint64_t stamp = 0;
  uint64_t runStart = 0;
  uint64_t runs = 0;
  uint64_t runNanoseconds = 0;
};

/// Adds the time since the last stamp to the rest of the inline code and
/// returns now (without counting a call: that entry counts runs).
inline uint64_t chargeRest(ProfileState &p) {
  uint64_t now = monotonicNanoseconds();
  p.counters[p.numEntries - 1].nanoseconds += now - p.stamp;
  return now;
}

/// One call of `entry` that took [begin, end); `end` is the new stamp.
inline void chargeEntry(ProfileState &p, int64_t entry, uint64_t begin,
                        uint64_t end) {
  tfrt_profile_counter &c = p.counters[entry];
  ++c.calls;
  c.nanoseconds += end - begin;
  p.stamp = end;
}

/// Called before the entry runs.
inline void profileRunBegin(ProfileState &p) {
  if (!p.counters)
    return;
  p.stamp = p.runStart = monotonicNanoseconds();
}

/// Called after the entry returned: the code after the last entry and the
/// whole run.
inline void profileRunEnd(ProfileState &p) {
  if (!p.counters)
    return;
  uint64_t now = chargeRest(p);
  ++p.counters[p.numEntries - 1].calls;
  ++p.runs;
  p.runNanoseconds += now - p.runStart;
}
} // namespace tfrt::rt

struct tfrt_run_context_s {
  /// The pool of the run's parallel loops; NULL: the calling thread only.
  tfrt_pool *pool = nullptr;
  /// Set by tfrt_model_cancel; reset when a run starts.
  tfrt::CancellationToken cancel;
  /// Counters of a profiling build (tfrt/profile.h).
  tfrt::rt::ProfileState profile;
  /// The first failed run-time check of the run (tfrt_run_report_error);
  /// reset when a run starts.
  std::atomic<const char *> error{nullptr};
};

#endif // TFRT_RUNTIME_LIB_RUNCONTEXT_H
