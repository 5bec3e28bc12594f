//===- Model.cpp - model instances: create, run, destroy ------------------===//
//
// An instance couples a read-only tfrt_model_desc with the workspace arena it
// owns (allocated once, aligned as the descriptor asks) and a preallocated
// array of buffer pointers, so tfrt_model_run() never allocates on success.
// tfrt_model_run() validates every caller tensor against the descriptor
// (count, data pointer, dtype, rank, dims) before it calls the generated
// entry, which itself never fails.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "RunContext.h"
#include "tfrt/async.h"
#include "tfrt/profile.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

using tfrt::rt::MessageBuilder;
using tfrt::rt::modelName;

struct tfrt_instance_s {
  const tfrt_model_desc *desc;
  /// The arena; NULL when the descriptor's workspace_size is 0.
  void *workspace;
  /// num_inputs + num_outputs entries, filled by every run.
  void **buffers;
  /// Where the parallel loops of synchronous runs go (NULL: the caller).
  tfrt_pool *pool;
  /// The completion of the asynchronous run in flight.
  tfrt_run_done_fn done;
  void *userData;
  /// The context of the current run: its pool and cancellation flag.
  tfrt_run_context_s run;
};

namespace {

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

tfrt_status invalidArgument(const char *message) {
  return tfrt_status_create(TFRT_INVALID_ARGUMENT, message);
}

/// Checks the static description of input or output `index` of `desc`.
tfrt_status checkTensorDesc(const tfrt_model_desc *desc, const char *kind,
                            size_t index, const tfrt_tensor_desc &tensor) {
  const char *problem = nullptr;
  if (tfrt_dtype_size(tensor.dtype) == 0)
    problem = "has an unsupported dtype code ";
  else if (tensor.rank < 0)
    problem = "has a negative rank";
  else if (tensor.rank > 0 && !tensor.dims)
    problem = "has a null dims pointer";
  else
    for (int32_t i = 0; i < tensor.rank; ++i)
      if (tensor.dims[i] < 0)
        problem = "has a negative dimension";
  if (!problem)
    return nullptr;
  MessageBuilder message;
  message.append("model '")
      .append(modelName(desc))
      .append("': descriptor of ")
      .append(kind)
      .append(" ")
      .appendUInt(index)
      .append(" (")
      .appendName(tensor.name, index)
      .append(") ")
      .append(problem);
  if (tfrt_dtype_size(tensor.dtype) == 0)
    message.appendInt(tensor.dtype);
  return message.toStatus(TFRT_INVALID_ARGUMENT);
}

/// Checks the whole descriptor before an instance is created from it.
tfrt_status checkWholeDescriptor(const tfrt_model_desc *desc) {
  if (desc->abi_version != TFRT_MODEL_ABI_VERSION) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': descriptor ABI version ")
        .appendUInt(desc->abi_version)
        .append(" is not supported (runtime ABI version ")
        .appendUInt(TFRT_MODEL_ABI_VERSION)
        .append(")");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (!isPowerOfTwo(desc->workspace_alignment)) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': workspace alignment ")
        .appendUInt(desc->workspace_alignment)
        .append(" is not a power of two");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (!desc->entry) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': null entry function");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  const struct {
    const char *kind;
    uint32_t count;
    const tfrt_tensor_desc *tensors;
  } groups[] = {{"input", desc->num_inputs, desc->inputs},
                {"output", desc->num_outputs, desc->outputs}};
  for (const auto &group : groups) {
    if (group.count > 0 && !group.tensors) {
      MessageBuilder message;
      message.append("model '")
          .append(modelName(desc))
          .append("': null ")
          .append(group.kind)
          .append(" descriptor array");
      return message.toStatus(TFRT_INVALID_ARGUMENT);
    }
    for (uint32_t i = 0; i < group.count; ++i)
      if (tfrt_status status =
              checkTensorDesc(desc, group.kind, i, group.tensors[i]))
        return status;
  }
  if (desc->flags & TFRT_MODEL_FLAG_PROFILE) {
    const tfrt_profile_desc *profile =
        reinterpret_cast<const tfrt_profiled_model_desc *>(desc)->profile;
    if (!profile || !profile->entries || profile->num_entries == 0 ||
        profile->num_launches >= profile->num_entries) {
      MessageBuilder message;
      message.append("model '")
          .append(modelName(desc))
          .append("': malformed profile table");
      return message.toStatus(TFRT_INVALID_ARGUMENT);
    }
  }
  return nullptr;
}

/// Checks a caller tensor against the descriptor's tensor `expected`.
tfrt_status checkTensor(const char *kind, size_t index,
                        const tfrt_tensor_desc &expected,
                        const tfrt_tensor &actual) {
  MessageBuilder message;
  // A tensor without elements has no data to read or write.
  bool empty = false;
  for (int32_t i = 0; i < expected.rank; ++i)
    empty = empty || expected.dims[i] == 0;
  if (!actual.data && !empty) {
    message.append(kind)
        .append(" ")
        .appendUInt(index)
        .append(" (")
        .appendName(expected.name, index)
        .append("): null data pointer");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  message.append(kind)
      .append(" ")
      .appendName(expected.name, index)
      .append(": ");
  if (actual.dtype != expected.dtype) {
    message.append("dtype ")
        .append(tfrt_dtype_name(actual.dtype))
        .append(" does not match the model's ")
        .append(tfrt_dtype_name(expected.dtype));
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (actual.rank > 0 && !actual.dims) {
    message.append("null dims pointer for rank ").appendInt(actual.rank);
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (actual.rank != expected.rank) {
    message.append("rank ")
        .appendInt(actual.rank)
        .append(" does not match the model's rank ")
        .appendInt(expected.rank)
        .append(" (shape ")
        .appendShape(actual.rank, actual.dims)
        .append(" vs the model's ")
        .appendShape(expected.rank, expected.dims)
        .append(")");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  for (int32_t i = 0; i < expected.rank; ++i) {
    if (actual.dims[i] == expected.dims[i])
      continue;
    message.append("shape ")
        .appendShape(actual.rank, actual.dims)
        .append(" does not match the model's ")
        .appendShape(expected.rank, expected.dims);
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  return nullptr;
}

/// Checks a count and array of caller tensors against the descriptor.
tfrt_status checkTensors(const tfrt_model_desc *desc, const char *kind,
                         uint32_t expectedCount,
                         const tfrt_tensor_desc *expected,
                         const tfrt_tensor *actual, size_t actualCount) {
  if (actualCount != expectedCount) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': expected ")
        .appendUInt(expectedCount)
        .append(" ")
        .append(kind)
        .append("s, got ")
        .appendUInt(actualCount);
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (actualCount > 0 && !actual) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': null ")
        .append(kind)
        .append("s array for ")
        .appendUInt(actualCount)
        .append(" ")
        .append(kind)
        .append("s");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  for (size_t i = 0; i < actualCount; ++i)
    if (tfrt_status status = checkTensor(kind, i, expected[i], actual[i]))
      return status;
  return nullptr;
}

tfrt_status checkInfoArgs(const tfrt_model_desc *desc, const char *kind,
                          size_t index, uint32_t count, tfrt_tensor_desc *out) {
  if (!desc)
    return invalidArgument("tensor info: null model descriptor");
  if (!out)
    return invalidArgument("tensor info: null output pointer");
  if (index < count)
    return nullptr;
  MessageBuilder message;
  message.append("model '")
      .append(modelName(desc))
      .append("': ")
      .append(kind)
      .append(" index ")
      .appendUInt(index)
      .append(" is out of range (the model has ")
      .appendUInt(count)
      .append(" ")
      .append(kind)
      .append("s)");
  return message.toStatus(TFRT_INVALID_ARGUMENT);
}

/// Records the caller's buffers in the instance's pointer arrays.
void bindBuffers(tfrt_instance *instance, const tfrt_tensor *inputs,
                 size_t num_inputs, const tfrt_tensor *outputs,
                 size_t num_outputs) {
  for (size_t i = 0; i < num_inputs; ++i)
    instance->buffers[i] = inputs[i].data;
  for (size_t i = 0; i < num_outputs; ++i)
    instance->buffers[num_inputs + i] = outputs[i].data;
}

/// The status of the run that just ended: TFRT_INVALID_ARGUMENT with the
/// message of its first failed run-time check, TFRT_CANCELLED when it was
/// cancelled, else NULL.
tfrt_status runStatus(tfrt_instance *instance) {
  // A failed run-time check first: the run completed, its outputs are not
  // meaningful.
  if (const char *error = instance->run.error.load(std::memory_order_acquire)) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(instance->desc))
        .append("': ")
        .append(error)
        .append("; the outputs are unspecified");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (!instance->run.cancel.IsCancelled())
    return nullptr;
  MessageBuilder message;
  message.append("model '")
      .append(modelName(instance->desc))
      .append("': the run was cancelled (tfrt_model_cancel); its outputs are "
              "unspecified");
  return message.toStatus(TFRT_CANCELLED);
}

/// The error for CPU-only entry points called on a CUDA model's instance.
tfrt_status rejectCuda(const tfrt_model_desc *desc, const char *function) {
  if (!(desc->flags & 1u /* TFRT_MODEL_FLAG_CUDA */))
    return nullptr;
  MessageBuilder message;
  message.append(function)
      .append(": model '")
      .append(modelName(desc))
      .append("' is compiled for CUDA, which runs on its own stream");
  return message.toStatus(TFRT_INVALID_ARGUMENT);
}

} // namespace

tfrt_status tfrt::rt::checkDescriptor(const tfrt_model_desc *desc) {
  return checkWholeDescriptor(desc);
}

tfrt_status tfrt::rt::checkRunTensors(const tfrt_model_desc *desc,
                                      const tfrt_tensor *inputs,
                                      size_t num_inputs,
                                      const tfrt_tensor *outputs,
                                      size_t num_outputs) {
  if (tfrt_status status = checkTensors(desc, "input", desc->num_inputs,
                                        desc->inputs, inputs, num_inputs))
    return status;
  return checkTensors(desc, "output", desc->num_outputs, desc->outputs,
                      outputs, num_outputs);
}

extern "C" {

TFRT_API tfrt_status tfrt_model_create(const tfrt_model_desc *desc,
                                       tfrt_instance **out) {
  if (!out)
    return invalidArgument("tfrt_model_create: null output pointer");
  *out = nullptr;
  if (!desc)
    return invalidArgument("tfrt_model_create: null model descriptor");
  if (tfrt_status status = checkWholeDescriptor(desc))
    return status;
  if (desc->flags & 1u /* TFRT_MODEL_FLAG_CUDA, tfrt/cuda.h */) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("' is compiled for CUDA: create it with its NAME_create "
                "(tfrt_cuda_model_create)");
    return message.toStatus(TFRT_FAILED_PRECONDITION);
  }

  size_t numBuffers = size_t(desc->num_inputs) + size_t(desc->num_outputs);
  void *block = malloc(sizeof(tfrt_instance_s) + numBuffers * sizeof(void *));
  if (!block) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': cannot allocate an instance");
    return message.toStatus(TFRT_OUT_OF_MEMORY);
  }
  auto *instance = static_cast<tfrt_instance_s *>(block);
  instance->desc = desc;
  instance->workspace = nullptr;
  instance->buffers = reinterpret_cast<void **>(instance + 1);
  memset(instance->buffers, 0, numBuffers * sizeof(void *));
  instance->pool = nullptr;
  instance->done = nullptr;
  instance->userData = nullptr;
  ::new (&instance->run) tfrt_run_context_s();

  if (desc->workspace_size > 0) {
    // posix_memalign wants a multiple of sizeof(void *); a larger power of two
    // still satisfies the descriptor's alignment.
    uint64_t alignment = desc->workspace_alignment;
    if (alignment < sizeof(void *))
      alignment = sizeof(void *);
    uint64_t bytes = desc->workspace_size;
    // A large workspace starts on a 2 MiB boundary and covers whole 2 MiB
    // pages, which it asks to be huge pages: det's 38 MiB then needs ~20 TLB
    // entries instead of ~9600 (the kernels stream planes of several MiB).
    const uint64_t kHugePage = uint64_t(2) << 20;
    bool huge = bytes >= 2 * kHugePage && bytes <= UINT64_MAX - kHugePage;
    if (huge) {
      if (alignment < kHugePage)
        alignment = kHugePage;
      bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    }
    void *workspace = nullptr;
    if (bytes > SIZE_MAX || alignment > SIZE_MAX ||
        posix_memalign(&workspace, size_t(alignment), size_t(bytes)) != 0) {
      free(instance);
      MessageBuilder message;
      message.append("model '")
          .append(modelName(desc))
          .append("': cannot allocate a workspace of ")
          .appendUInt(desc->workspace_size)
          .append(" bytes aligned to ")
          .appendUInt(desc->workspace_alignment);
      return message.toStatus(TFRT_OUT_OF_MEMORY);
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: without transparent huge pages it fails and changes
    // nothing.
    if (huge)
      (void)madvise(workspace, size_t(bytes), MADV_HUGEPAGE);
#endif
    instance->workspace = workspace;
  }
  if (const tfrt_profile_desc *profile = tfrt_model_profile_desc(desc)) {
    void *counters = calloc(profile->num_entries, sizeof(tfrt_profile_counter));
    if (!counters) {
      free(instance->workspace);
      instance->run.~tfrt_run_context_s();
      free(instance);
      MessageBuilder message;
      message.append("model '")
          .append(modelName(desc))
          .append("': cannot allocate the profile counters");
      return message.toStatus(TFRT_OUT_OF_MEMORY);
    }
    instance->run.profile.counters =
        static_cast<tfrt_profile_counter *>(counters);
    instance->run.profile.numEntries = profile->num_entries;
  }
  *out = instance;
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_run(tfrt_instance *instance,
                                    const tfrt_tensor *inputs,
                                    size_t num_inputs,
                                    const tfrt_tensor *outputs,
                                    size_t num_outputs) {
  if (!instance)
    return invalidArgument("tfrt_model_run: null instance");
  const tfrt_model_desc *desc = instance->desc;
  if (tfrt_status status = checkTensors(desc, "input", desc->num_inputs,
                                        desc->inputs, inputs, num_inputs))
    return status;
  if (tfrt_status status = checkTensors(desc, "output", desc->num_outputs,
                                        desc->outputs, outputs, num_outputs))
    return status;

  bindBuffers(instance, inputs, num_inputs, outputs, num_outputs);
  instance->run.pool = instance->pool;
  instance->run.cancel.Reset();
  instance->run.error.store(nullptr, std::memory_order_relaxed);
  tfrt::rt::poolBeginBurst(instance->pool);
  tfrt::rt::profileRunBegin(instance->run.profile);
  desc->entry(instance->buffers, instance->buffers + num_inputs,
              instance->workspace, &instance->run);
  tfrt::rt::profileRunEnd(instance->run.profile);
  tfrt::rt::poolEndBurst(instance->pool);
  return runStatus(instance);
}

TFRT_API tfrt_status tfrt_model_cancel(tfrt_instance *instance) {
  if (!instance)
    return invalidArgument("tfrt_model_cancel: null instance");
  if (tfrt_status status = rejectCuda(instance->desc, "tfrt_model_cancel"))
    return status;
  instance->run.cancel.Cancel();
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_set_pool(tfrt_instance *instance,
                                         tfrt_pool *pool) {
  if (!instance)
    return invalidArgument("tfrt_model_set_pool: null instance");
  if (tfrt_status status = rejectCuda(instance->desc, "tfrt_model_set_pool"))
    return status;
  instance->pool = pool;
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_run_async(tfrt_instance *instance,
                                          const tfrt_tensor *inputs,
                                          size_t num_inputs,
                                          const tfrt_tensor *outputs,
                                          size_t num_outputs, tfrt_pool *pool,
                                          tfrt_run_done_fn done,
                                          void *user_data) {
  if (!instance)
    return invalidArgument("tfrt_model_run_async: null instance");
  if (!pool)
    return invalidArgument("tfrt_model_run_async: null pool");
  if (!done)
    return invalidArgument("tfrt_model_run_async: null completion callback");
  const tfrt_model_desc *desc = instance->desc;
  if (tfrt_status status = rejectCuda(desc, "tfrt_model_run_async"))
    return status;
  if (tfrt_status status = tfrt::rt::checkRunTensors(desc, inputs, num_inputs,
                                                     outputs, num_outputs))
    return status;
  bindBuffers(instance, inputs, num_inputs, outputs, num_outputs);
  instance->done = done;
  instance->userData = user_data;
  instance->run.pool = pool;
  instance->run.cancel.Reset();
  instance->run.error.store(nullptr, std::memory_order_relaxed);
  auto task = [](void *ctx) {
    auto *inst = static_cast<tfrt_instance *>(ctx);
    const tfrt_model_desc *d = inst->desc;
    tfrt::rt::poolBeginBurst(inst->run.pool);
    tfrt::rt::profileRunBegin(inst->run.profile);
    d->entry(inst->buffers, inst->buffers + d->num_inputs, inst->workspace,
             &inst->run);
    tfrt::rt::profileRunEnd(inst->run.profile);
    tfrt::rt::poolEndBurst(inst->run.pool);
    // Read everything before `done`: it may start the next run at once.
    tfrt_run_done_fn callback = inst->done;
    void *userData = inst->userData;
    callback(userData, runStatus(inst));
  };
  if (tfrt_status status = tfrt_pool_spawn(pool, task, instance))
    return status;
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_destroy(tfrt_instance *instance) {
  if (!instance)
    return nullptr;
  free(instance->workspace);
  free(instance->run.profile.counters);
  instance->run.~tfrt_run_context_s();
  free(instance);
  return nullptr;
}

TFRT_API const tfrt_model_desc *
tfrt_model_descriptor(const tfrt_instance *instance) {
  return instance ? instance->desc : nullptr;
}

TFRT_API tfrt_status tfrt_model_input_info(const tfrt_model_desc *desc,
                                           size_t index,
                                           tfrt_tensor_desc *out) {
  if (tfrt_status status =
          checkInfoArgs(desc, "input", index, desc ? desc->num_inputs : 0, out))
    return status;
  if (!desc->inputs)
    return invalidArgument("tfrt_model_input_info: null input array");
  *out = desc->inputs[index];
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_output_info(const tfrt_model_desc *desc,
                                            size_t index,
                                            tfrt_tensor_desc *out) {
  if (tfrt_status status = checkInfoArgs(desc, "output", index,
                                         desc ? desc->num_outputs : 0, out))
    return status;
  if (!desc->outputs)
    return invalidArgument("tfrt_model_output_info: null output array");
  *out = desc->outputs[index];
  return nullptr;
}

TFRT_API const tfrt_profile_desc *
tfrt_model_profile_desc(const tfrt_model_desc *desc) {
  if (!desc || !(desc->flags & TFRT_MODEL_FLAG_PROFILE))
    return nullptr;
  return reinterpret_cast<const tfrt_profiled_model_desc *>(desc)->profile;
}

TFRT_API tfrt_status tfrt_model_profile(const tfrt_instance *instance,
                                        tfrt_profile_counter *counters,
                                        size_t num_counters, uint64_t *runs,
                                        uint64_t *run_nanoseconds) {
  if (!instance)
    return invalidArgument("tfrt_model_profile: null instance");
  const tfrt::rt::ProfileState &profile = instance->run.profile;
  if (!profile.counters) {
    MessageBuilder message;
    message.append("tfrt_model_profile: model '")
        .append(modelName(instance->desc))
        .append("' was compiled without --profile");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (num_counters != profile.numEntries || (num_counters && !counters)) {
    MessageBuilder message;
    message.append("tfrt_model_profile: model '")
        .append(modelName(instance->desc))
        .append("' has ")
        .appendUInt(profile.numEntries)
        .append(" profile entries, got room for ")
        .appendUInt(counters ? num_counters : 0);
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  if (num_counters)
    memcpy(counters, profile.counters,
           num_counters * sizeof(tfrt_profile_counter));
  if (runs)
    *runs = profile.runs;
  if (run_nanoseconds)
    *run_nanoseconds = profile.runNanoseconds;
  return nullptr;
}

TFRT_API tfrt_status tfrt_model_profile_reset(tfrt_instance *instance) {
  if (!instance)
    return invalidArgument("tfrt_model_profile_reset: null instance");
  tfrt::rt::ProfileState &profile = instance->run.profile;
  if (!profile.counters) {
    MessageBuilder message;
    message.append("tfrt_model_profile_reset: model '")
        .append(modelName(instance->desc))
        .append("' was compiled without --profile");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  memset(profile.counters, 0,
         profile.numEntries * sizeof(tfrt_profile_counter));
  profile.runs = 0;
  profile.runNanoseconds = 0;
  return nullptr;
}

} // extern "C"
