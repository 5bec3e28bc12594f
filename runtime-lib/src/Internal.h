//===- Internal.h - runtime-lib private helpers -----------------*- C++ -*-===//
//
// Helpers shared by the runtime-lib sources and never installed: a small
// message builder that formats error messages without exceptions, iostreams
// or the C++ runtime (only the C library), the status constructor that
// takes ownership of a built message, and the monotonic clock.
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_RUNTIME_LIB_INTERNAL_H
#define TFRT_RUNTIME_LIB_INTERNAL_H

#include "tfrt/runtime.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

namespace tfrt {
namespace rt {

/// Appends text to a growing heap buffer. Allocation failures are sticky: the
/// builder then produces the preallocated out-of-memory status instead.
class MessageBuilder {
public:
  MessageBuilder() = default;
  MessageBuilder(const MessageBuilder &) = delete;
  MessageBuilder &operator=(const MessageBuilder &) = delete;
  ~MessageBuilder();

  /// Appends a NUL-terminated string; NULL appends "(null)".
  MessageBuilder &append(const char *text);
  /// Appends a signed decimal integer.
  MessageBuilder &appendInt(long long value);
  /// Appends an unsigned decimal integer.
  MessageBuilder &appendUInt(unsigned long long value);
  /// Appends a shape as "[d0,d1,...]"; "[]" for rank <= 0 and "[?]" for a
  /// NULL dims pointer with a positive rank.
  MessageBuilder &appendShape(int32_t rank, const int64_t *dims);
  /// Appends "'name'", or "#index" when the name is NULL.
  MessageBuilder &appendName(const char *name, size_t index);

  /// Creates a status with `code` and the text built so far.
  tfrt_status toStatus(tfrt_code code);

private:
  bool reserve(size_t extra);

  char *buffer = nullptr;
  size_t length = 0;
  size_t capacity = 0;
  bool failed = false;
};

/// The status returned when a status itself cannot be allocated. It lives in
/// read-only storage and tfrt_status_free() ignores it.
tfrt_status outOfMemoryStatus();

/// Display name of a model descriptor ("<unnamed>" for a NULL name).
const char *modelName(const tfrt_model_desc *desc);

/// The descriptor checks of tfrt_model_create() (not the CUDA flag check).
tfrt_status checkDescriptor(const tfrt_model_desc *desc);
/// The tensor checks of tfrt_model_run() for both inputs and outputs.
tfrt_status checkRunTensors(const tfrt_model_desc *desc,
                            const tfrt_tensor *inputs, size_t num_inputs,
                            const tfrt_tensor *outputs, size_t num_outputs);

/// CLOCK_MONOTONIC in nanoseconds (a vDSO call, no syscall): the profile
/// counters and the thread pool's spin time.
inline uint64_t monotonicNanoseconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

/// ThreadPool::BeginBurst/EndBurst of a C pool (AsyncCApi.cpp): a model
/// run brackets its parallel loops with them. NULL pools are ignored.
void poolBeginBurst(tfrt_pool *pool);
void poolEndBurst(tfrt_pool *pool);
} // namespace rt
} // namespace tfrt

#endif // TFRT_RUNTIME_LIB_INTERNAL_H
