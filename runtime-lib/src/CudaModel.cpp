//===- CudaModel.cpp - CUDA model instances and the mgpu* host ABI --------===//
//
// tfrt_cuda_model_create/run/destroy (see tfrt/cuda.h) and the functions that
// MLIR's gpu-to-llvm lowering calls from the generated host code
// (mgpuModuleLoad, mgpuLaunchKernel, mgpuStreamCreate, ...). tfrt-compile
// renames those calls to tfrt_cuda_mgpu* in every model object, so models
// never define or clash on mgpu* symbols (nor with MLIR's own runtime
// wrappers) and all share this one implementation.
//
// The generated code creates "a stream" at the start of each kernel launch
// and synchronises it afterwards. During tfrt_cuda_model_run the current
// thread's run state names the instance's stream: mgpuStreamCreate returns it
// and mgpuStreamSynchronize/Destroy leave it alone, so a run is one stream of
// H->D copies, kernels and D->H copies with a single wait at the end. Driver
// errors inside these void functions are recorded in the run state and
// turned into the run's (or create's) status.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Internal.h"
#include "tfrt/cuda.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

using tfrt::rt::MessageBuilder;
using tfrt::rt::modelName;
using namespace tfrt::cuda;

namespace {

/// One cached kernel handle. The generated code looks a kernel up by name
/// before every launch; the names are constants of the model object, so the
/// pointer identifies the kernel.
struct FunctionCacheEntry {
  CUmodule module;
  const char *name;
  CUfunction function;
};
/// Entries per instance (open addressing; a power of two). Models with more
/// kernels than this look the rest up in the driver each time.
constexpr size_t kFunctionCacheSize = 1024;

/// What the mgpu* functions act on while runtime-lib calls generated code.
struct RunState {
  const Driver *api = nullptr;
  CUstream stream = nullptr;
  /// The instance's kernel handles (NULL outside a run).
  FunctionCacheEntry *functions = nullptr;
  /// First failing driver call and where.
  CUresult error = CUDA_SUCCESS;
  const char *where = nullptr;
};

thread_local RunState *current = nullptr;

/// Serialises the per-model module load counts.
pthread_mutex_t loadLock = PTHREAD_MUTEX_INITIALIZER;

struct CudaInstance {
  /// First member, as in the CPU instance (tfrt_model_descriptor reads it).
  const tfrt_model_desc *desc;
  const tfrt_cuda_model_desc *cuda;
  const Driver *api;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUevent done;
  /// Timing events: before the input copies, before the first kernel, after
  /// the last kernel (the output copies follow).
  CUevent timing[3];
  bool moduleLoaded;
  CUdeviceptr workspace;
  CUdeviceptr io;
  /// num_inputs + num_outputs device pointers into `io`.
  void **buffers;
  size_t *bytes;
  /// kFunctionCacheSize entries, allocated with the instance.
  FunctionCacheEntry *functions;
};

size_t tensorBytes(const tfrt_tensor_desc &t) {
  size_t n = tfrt_dtype_size(t.dtype);
  for (int32_t i = 0; i < t.rank; ++i)
    n *= size_t(t.dims[i]);
  return n;
}

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

tfrt_status driverError(const tfrt_model_desc *desc, const char *what,
                        CUresult r, tfrt_code code = TFRT_INTERNAL) {
  MessageBuilder message;
  message.append("model '")
      .append(modelName(desc))
      .append("': ")
      .append(what)
      .append(" failed: ")
      .append(errorString(r))
      .append(" (CUDA error ")
      .appendInt(r)
      .append(")");
  return message.toStatus(code);
}

/// Records the first error of a run; returns true on success.
bool check(CUresult r, const char *where) {
  if (r == CUDA_SUCCESS)
    return true;
  if (current && current->error == CUDA_SUCCESS) {
    current->error = r;
    current->where = where;
  }
  return false;
}

/// Releases everything an instance holds (partially created ones too).
void release(CudaInstance *inst) {
  const Driver *d = inst->api;
  if (inst->context) {
    d->cuCtxPushCurrent(inst->context);
    if (inst->stream)
      d->cuStreamSynchronize(inst->stream);
    if (inst->done)
      d->cuEventDestroy(inst->done);
    for (CUevent e : inst->timing)
      if (e)
        d->cuEventDestroy(e);
    if (inst->stream)
      d->cuStreamDestroy(inst->stream);
    if (inst->io)
      d->cuMemFree(inst->io);
    if (inst->workspace)
      d->cuMemFree(inst->workspace);
    if (inst->moduleLoaded) {
      pthread_mutex_lock(&loadLock);
      if (--*inst->cuda->load_count == 0) {
        RunState state;
        state.api = d;
        RunState *saved = current;
        current = &state;
        inst->cuda->unload();
        current = saved;
      }
      pthread_mutex_unlock(&loadLock);
    }
    CUcontext popped;
    d->cuCtxPopCurrent(&popped);
    d->cuDevicePrimaryCtxRelease(inst->device);
  }
  free(inst->functions);
  free(inst);
}

tfrt_status createInstance(const tfrt_model_desc *desc,
                           const tfrt_cuda_model_desc *cuda,
                           tfrt_instance **out) {
  tfrt_status status = nullptr;
  const Driver *d = driver(&status);
  if (!d) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': ")
        .append(tfrt_status_message(status));
    tfrt_code code = tfrt_status_code(status);
    tfrt_status_free(status);
    return message.toStatus(code);
  }
  size_t numBuffers = size_t(desc->num_inputs) + desc->num_outputs;
  void *block = calloc(1, sizeof(CudaInstance) +
                              numBuffers * (sizeof(void *) + sizeof(size_t)));
  if (!block)
    return tfrt_status_create(TFRT_OUT_OF_MEMORY,
                              "cannot allocate a CUDA model instance");
  auto *inst = static_cast<CudaInstance *>(block);
  inst->desc = desc;
  inst->cuda = cuda;
  inst->api = d;
  inst->buffers = reinterpret_cast<void **>(inst + 1);
  inst->bytes = reinterpret_cast<size_t *>(inst->buffers + numBuffers);
  inst->functions = static_cast<FunctionCacheEntry *>(
      calloc(kFunctionCacheSize, sizeof(FunctionCacheEntry)));
  if (!inst->functions) {
    free(inst);
    return tfrt_status_create(TFRT_OUT_OF_MEMORY,
                              "cannot allocate a CUDA model instance");
  }

  int ordinal = 0;
  if (const char *env = getenv("TFRT_CUDA_DEVICE"))
    ordinal = atoi(env);
  CUresult r = d->cuDeviceGet(&inst->device, ordinal);
  if (r != CUDA_SUCCESS) {
    free(inst->functions);
    free(inst);
    return driverError(desc, "cuDeviceGet", r, TFRT_UNAVAILABLE);
  }
  r = d->cuDevicePrimaryCtxRetain(&inst->context, inst->device);
  if (r != CUDA_SUCCESS) {
    inst->context = nullptr;
    free(inst->functions);
    free(inst);
    return driverError(desc, "cuDevicePrimaryCtxRetain", r, TFRT_UNAVAILABLE);
  }
  d->cuCtxPushCurrent(inst->context);

  // Kernels: once per process and model.
  pthread_mutex_lock(&loadLock);
  r = CUDA_SUCCESS;
  if ((*cuda->load_count)++ == 0) {
    RunState state;
    state.api = d;
    RunState *saved = current;
    current = &state;
    cuda->load();
    current = saved;
    r = state.error;
    if (r != CUDA_SUCCESS)
      --*cuda->load_count;
  }
  pthread_mutex_unlock(&loadLock);
  if (r != CUDA_SUCCESS) {
    int major = 0, minor = 0;
    d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                            inst->device);
    d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                            inst->device);
    CUcontext popped;
    d->cuCtxPopCurrent(&popped);
    inst->moduleLoaded = false;
    release(inst);
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': cannot load its kernels on this GPU (sm_")
        .appendInt(major)
        .appendInt(minor)
        .append("; compiled for ")
        .append(cuda->archs ? cuda->archs : "?")
        .append("): ")
        .append(errorString(r));
    bool noCode =
        r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    return message.toStatus(noCode ? TFRT_FAILED_PRECONDITION : TFRT_INTERNAL);
  }
  inst->moduleLoaded = true;

  // Device workspace (scratch + weights) and I/O buffers.
  const char *what = nullptr;
  if (cuda->device_workspace_size > 0) {
    r = d->cuMemAlloc(&inst->workspace, cuda->device_workspace_size);
    what = "allocating the device workspace";
    if (r == CUDA_SUCCESS && cuda->weights_size > 0) {
      r = d->cuMemcpyHtoD(inst->workspace + cuda->weights_offset,
                          cuda->weights, cuda->weights_size);
      what = "uploading the weights";
    }
  }
  size_t ioBytes = 0;
  for (uint32_t i = 0; i < numBuffers; ++i) {
    const tfrt_tensor_desc &t = i < desc->num_inputs
                                    ? desc->inputs[i]
                                    : desc->outputs[i - desc->num_inputs];
    inst->bytes[i] = tensorBytes(t);
    ioBytes += alignUp(inst->bytes[i], 256);
  }
  if (r == CUDA_SUCCESS && ioBytes > 0) {
    r = d->cuMemAlloc(&inst->io, ioBytes);
    what = "allocating device input/output buffers";
    size_t offset = 0;
    for (uint32_t i = 0; r == CUDA_SUCCESS && i < numBuffers; ++i) {
      inst->buffers[i] = reinterpret_cast<void *>(inst->io + offset);
      offset += alignUp(inst->bytes[i], 256);
    }
  }
  if (r == CUDA_SUCCESS) {
    r = d->cuStreamCreate(&inst->stream, CU_STREAM_NON_BLOCKING);
    what = "cuStreamCreate";
  }
  if (r == CUDA_SUCCESS) {
    r = d->cuEventCreate(&inst->done, 0); // timing: tfrt_cuda_last_run_times
    what = "cuEventCreate";
  }
  for (CUevent &e : inst->timing)
    if (r == CUDA_SUCCESS)
      r = d->cuEventCreate(&e, 0); // timing enabled
  CUcontext popped;
  d->cuCtxPopCurrent(&popped);
  if (r != CUDA_SUCCESS) {
    release(inst);
    return driverError(desc, what, r,
                       r == 2 /*CUDA_ERROR_OUT_OF_MEMORY*/ ? TFRT_OUT_OF_MEMORY
                                                           : TFRT_INTERNAL);
  }
  *out = reinterpret_cast<tfrt_instance *>(inst);
  return nullptr;
}

} // namespace

extern "C" {

TFRT_API tfrt_status tfrt_cuda_model_create(const tfrt_model_desc *desc,
                                            const tfrt_cuda_model_desc *cuda,
                                            tfrt_instance **out) {
  if (!out)
    return tfrt_status_create(TFRT_INVALID_ARGUMENT,
                              "tfrt_cuda_model_create: null output pointer");
  *out = nullptr;
  if (!desc || !cuda)
    return tfrt_status_create(TFRT_INVALID_ARGUMENT,
                              "tfrt_cuda_model_create: null model descriptor");
  if (tfrt_status status = tfrt::rt::checkDescriptor(desc))
    return status;
  if (cuda->abi_version != TFRT_CUDA_ABI_VERSION || !cuda->load ||
      !cuda->unload || !cuda->load_count ||
      (cuda->weights_size > 0 && !cuda->weights) ||
      cuda->weights_offset + cuda->weights_size > cuda->device_workspace_size) {
    MessageBuilder message;
    message.append("model '")
        .append(modelName(desc))
        .append("': malformed or unsupported CUDA descriptor (version ")
        .appendUInt(cuda->abi_version)
        .append(")");
    return message.toStatus(TFRT_INVALID_ARGUMENT);
  }
  return createInstance(desc, cuda, out);
}

TFRT_API tfrt_status tfrt_cuda_model_run(tfrt_instance *instance,
                                         const tfrt_tensor *inputs,
                                         size_t num_inputs,
                                         const tfrt_tensor *outputs,
                                         size_t num_outputs) {
  if (!instance)
    return tfrt_status_create(TFRT_INVALID_ARGUMENT,
                              "tfrt_cuda_model_run: null instance");
  auto *inst = reinterpret_cast<CudaInstance *>(instance);
  const tfrt_model_desc *desc = inst->desc;
  if (tfrt_status status = tfrt::rt::checkRunTensors(desc, inputs, num_inputs,
                                                     outputs, num_outputs))
    return status;
  const Driver *d = inst->api;
  d->cuCtxPushCurrent(inst->context);
  RunState state;
  state.api = d;
  state.stream = inst->stream;
  state.functions = inst->functions;
  RunState *saved = current;
  current = &state;
  check(d->cuEventRecord(inst->timing[0], inst->stream), "cuEventRecord");
  for (size_t i = 0; i < num_inputs; ++i)
    if (inst->bytes[i])
      check(d->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(inst->buffers[i]),
                                 inputs[i].data, inst->bytes[i], inst->stream),
            "copying an input to the device");
  check(d->cuEventRecord(inst->timing[1], inst->stream), "cuEventRecord");
  if (state.error == CUDA_SUCCESS)
    desc->entry(inst->buffers, inst->buffers + num_inputs,
                reinterpret_cast<void *>(inst->workspace), nullptr);
  check(d->cuEventRecord(inst->timing[2], inst->stream), "cuEventRecord");
  for (size_t i = 0; i < num_outputs && state.error == CUDA_SUCCESS; ++i) {
    size_t k = num_inputs + i;
    if (inst->bytes[k])
      check(d->cuMemcpyDtoHAsync(outputs[i].data,
                                 reinterpret_cast<CUdeviceptr>(inst->buffers[k]),
                                 inst->bytes[k], inst->stream),
            "copying an output to the host");
  }
  // The outputs are available once everything enqueued so far has run.
  check(d->cuEventRecord(inst->done, inst->stream), "cuEventRecord");
  check(d->cuEventSynchronize(inst->done), "waiting for the run");
  current = saved;
  CUcontext popped;
  d->cuCtxPopCurrent(&popped);
  if (state.error != CUDA_SUCCESS)
    return driverError(desc, state.where, state.error);
  return nullptr;
}

TFRT_API tfrt_status tfrt_cuda_last_run_times(tfrt_instance *instance,
                                              float *kernels_ms,
                                              float *with_copies_ms) {
  if (!instance || !kernels_ms || !with_copies_ms)
    return tfrt_status_create(TFRT_INVALID_ARGUMENT,
                              "tfrt_cuda_last_run_times: null argument");
  auto *inst = reinterpret_cast<CudaInstance *>(instance);
  if (!(inst->desc->flags & TFRT_MODEL_FLAG_CUDA))
    return tfrt_status_create(TFRT_INVALID_ARGUMENT,
                              "tfrt_cuda_last_run_times: not a CUDA instance");
  const Driver *d = inst->api;
  d->cuCtxPushCurrent(inst->context);
  // The last run waited for `done`, recorded after the other three. Before
  // the first run the driver reports an error, returned as a status.
  CUresult r =
      d->cuEventElapsedTime(kernels_ms, inst->timing[1], inst->timing[2]);
  if (r == CUDA_SUCCESS)
    r = d->cuEventElapsedTime(with_copies_ms, inst->timing[0], inst->done);
  CUcontext popped;
  d->cuCtxPopCurrent(&popped);
  if (r != CUDA_SUCCESS)
    return driverError(inst->desc, "cuEventElapsedTime", r);
  return nullptr;
}

TFRT_API tfrt_status tfrt_cuda_model_destroy(tfrt_instance *instance) {
  if (instance)
    release(reinterpret_cast<CudaInstance *>(instance));
  return nullptr;
}

//===----------------------------------------------------------------------===//
// MLIR's GPU host ABI, called by generated code during create (module load)
// and run (launches). Renamed by tfrt-compile from mgpu* to tfrt_cuda_mgpu*.
//===----------------------------------------------------------------------===//

TFRT_API CUmodule tfrt_cuda_mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!current)
    return nullptr;
  CUmodule module = nullptr;
  check(current->api->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

TFRT_API void tfrt_cuda_mgpuModuleUnload(CUmodule module) {
  if (current && module)
    current->api->cuModuleUnload(module);
}

TFRT_API CUfunction tfrt_cuda_mgpuModuleGetFunction(CUmodule module,
                                                    const char *name) {
  CUfunction fn = nullptr;
  if (!current)
    return nullptr;
  FunctionCacheEntry *slot = nullptr;
  if (FunctionCacheEntry *cache = current->functions) {
    size_t hash = (reinterpret_cast<uintptr_t>(name) >> 3) ^
                  (reinterpret_cast<uintptr_t>(module) >> 4);
    for (size_t i = 0; i < kFunctionCacheSize; ++i) {
      FunctionCacheEntry &e = cache[(hash + i) & (kFunctionCacheSize - 1)];
      if (e.name == name && e.module == module)
        return e.function;
      if (!e.name) {
        slot = &e;
        break;
      }
    }
  }
  if (check(current->api->cuModuleGetFunction(&fn, module, name),
            "cuModuleGetFunction") &&
      slot)
    *slot = {module, name, fn};
  return fn;
}

TFRT_API void tfrt_cuda_mgpuLaunchKernel(CUfunction fn, intptr_t gx,
                                         intptr_t gy, intptr_t gz,
                                         intptr_t bx, intptr_t by,
                                         intptr_t bz, int32_t smem,
                                         CUstream stream, void **params,
                                         void **extra, size_t /*nparams*/) {
  if (!current || !fn || current->error != CUDA_SUCCESS)
    return;
  check(current->api->cuLaunchKernel(fn, unsigned(gx), unsigned(gy),
                                     unsigned(gz), unsigned(bx), unsigned(by),
                                     unsigned(bz), unsigned(smem), stream,
                                     params, extra),
        "cuLaunchKernel");
}

TFRT_API CUstream tfrt_cuda_mgpuStreamCreate() {
  if (!current)
    return nullptr;
  if (current->stream)
    return current->stream;
  CUstream s = nullptr;
  check(current->api->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return s;
}

TFRT_API void tfrt_cuda_mgpuStreamDestroy(CUstream stream) {
  if (current && stream && stream != current->stream)
    current->api->cuStreamDestroy(stream);
}

TFRT_API void tfrt_cuda_mgpuStreamSynchronize(CUstream stream) {
  // The run's stream is waited for once, after the output copies.
  if (current && stream != current->stream)
    check(current->api->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

TFRT_API void tfrt_cuda_mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  if (current)
    check(current->api->cuStreamWaitEvent(stream, event, 0),
          "cuStreamWaitEvent");
}

TFRT_API CUevent tfrt_cuda_mgpuEventCreate() {
  CUevent e = nullptr;
  if (current)
    check(current->api->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
  return e;
}

TFRT_API void tfrt_cuda_mgpuEventDestroy(CUevent event) {
  if (current && event)
    current->api->cuEventDestroy(event);
}

TFRT_API void tfrt_cuda_mgpuEventSynchronize(CUevent event) {
  if (current)
    check(current->api->cuEventSynchronize(event), "cuEventSynchronize");
}

TFRT_API void tfrt_cuda_mgpuEventRecord(CUevent event, CUstream stream) {
  if (current)
    check(current->api->cuEventRecord(event, stream), "cuEventRecord");
}

TFRT_API void *tfrt_cuda_mgpuMemAlloc(uint64_t bytes, CUstream /*stream*/,
                                      bool /*hostShared*/) {
  CUdeviceptr p = 0;
  if (current && bytes)
    check(current->api->cuMemAlloc(&p, bytes), "cuMemAlloc");
  return reinterpret_cast<void *>(p);
}

TFRT_API void tfrt_cuda_mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (current && ptr)
    current->api->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

TFRT_API void tfrt_cuda_mgpuMemcpy(void *dst, void *src, size_t bytes,
                                   CUstream stream) {
  if (current)
    check(current->api->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                      reinterpret_cast<CUdeviceptr>(src),
                                      bytes, stream),
          "cuMemcpyAsync");
}

TFRT_API void tfrt_cuda_mgpuMemset32(void *dst, unsigned value, size_t count,
                                     CUstream stream) {
  if (current)
    check(current->api->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                         value, count, stream),
          "cuMemsetD32Async");
}

TFRT_API void tfrt_cuda_mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, CUstream stream) {
  if (current)
    check(current->api->cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                         value, count, stream),
          "cuMemsetD16Async");
}

TFRT_API void tfrt_cuda_mgpuSetDefaultDevice(int32_t /*device*/) {}

} // extern "C"
