//===- Status.cpp - tfrt_status objects and message formatting ------------===//
//
// A status is one heap block holding the code and a private copy of the
// message. Allocation failures never turn an error into success: they yield a
// preallocated, immutable out-of-memory status that tfrt_status_free() skips.
// Everything here uses the C library only, so the runtime objects can be
// linked into a model without the C++ runtime.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfrt_status_s {
  tfrt_code code;
  const char *message;
};

namespace {
/// Immutable; constant-initialized, so no guard and no mutable global state.
const tfrt_status_s kOutOfMemory = {TFRT_OUT_OF_MEMORY,
                                    "out of memory while creating a status"};
} // namespace

tfrt_status tfrt::rt::outOfMemoryStatus() {
  return const_cast<tfrt_status_s *>(&kOutOfMemory);
}

extern "C" {

TFRT_API tfrt_code tfrt_status_code(tfrt_status status) {
  return status ? status->code : TFRT_OK;
}

TFRT_API const char *tfrt_status_message(tfrt_status status) {
  return status && status->message ? status->message : "";
}

TFRT_API void tfrt_status_free(tfrt_status status) {
  if (!status || status == &kOutOfMemory)
    return;
  free(status);
}

TFRT_API tfrt_status tfrt_status_create(tfrt_code code, const char *message) {
  // NULL is the OK status; there is no OK status object.
  if (code == TFRT_OK)
    return nullptr;
  if (!message)
    message = "";
  size_t length = strlen(message);
  if (length > SIZE_MAX - sizeof(tfrt_status_s) - 1)
    return tfrt::rt::outOfMemoryStatus();
  void *block = malloc(sizeof(tfrt_status_s) + length + 1);
  if (!block)
    return tfrt::rt::outOfMemoryStatus();
  auto *status = static_cast<tfrt_status_s *>(block);
  char *text = reinterpret_cast<char *>(status + 1);
  memcpy(text, message, length + 1);
  status->code = code;
  status->message = text;
  return status;
}

} // extern "C"

namespace tfrt {
namespace rt {

MessageBuilder::~MessageBuilder() { free(buffer); }

bool MessageBuilder::reserve(size_t extra) {
  if (failed)
    return false;
  if (extra > SIZE_MAX / 2 - length - 1) {
    failed = true;
    return false;
  }
  size_t needed = length + extra + 1;
  if (needed <= capacity)
    return true;
  size_t newCapacity = capacity ? capacity : 64;
  while (newCapacity < needed)
    newCapacity *= 2;
  char *grown = static_cast<char *>(realloc(buffer, newCapacity));
  if (!grown) {
    failed = true;
    return false;
  }
  buffer = grown;
  capacity = newCapacity;
  return true;
}

MessageBuilder &MessageBuilder::append(const char *text) {
  if (!text)
    text = "(null)";
  size_t size = strlen(text);
  if (!reserve(size))
    return *this;
  memcpy(buffer + length, text, size + 1);
  length += size;
  return *this;
}

MessageBuilder &MessageBuilder::appendInt(long long value) {
  char digits[32];
  snprintf(digits, sizeof(digits), "%lld", value);
  return append(digits);
}

MessageBuilder &MessageBuilder::appendUInt(unsigned long long value) {
  char digits[32];
  snprintf(digits, sizeof(digits), "%llu", value);
  return append(digits);
}

MessageBuilder &MessageBuilder::appendShape(int32_t rank, const int64_t *dims) {
  if (rank > 0 && !dims)
    return append("[?]");
  append("[");
  for (int32_t i = 0; i < rank; ++i) {
    if (i)
      append(",");
    appendInt(dims[i]);
  }
  return append("]");
}

MessageBuilder &MessageBuilder::appendName(const char *name, size_t index) {
  if (!name)
    return append("#").appendUInt(index);
  return append("'").append(name).append("'");
}

tfrt_status MessageBuilder::toStatus(tfrt_code code) {
  if (failed)
    return outOfMemoryStatus();
  return tfrt_status_create(code, buffer ? buffer : "");
}

const char *modelName(const tfrt_model_desc *desc) {
  return desc && desc->name ? desc->name : "<unnamed>";
}

} // namespace rt
} // namespace tfrt
