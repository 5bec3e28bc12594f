//===- CudaDriver.cpp - dlopen the CUDA driver, resolve its API -----------===//
//
// Opens libcuda.so.1 (or $TFRT_CUDA_DRIVER) once per process with
// pthread_once, resolves the driver entry points listed in CudaDriver.h and
// calls cuInit. The outcome (table or error) is kept for the process; a
// missing driver or device is a status, never a crash or a link error.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

using tfrt::rt::MessageBuilder;

namespace tfrt {
namespace cuda {
namespace {

struct DriverState {
  Driver api;
  bool ok = false;
  /// What failed, for the status: 1 no library, 2 missing symbol, 3 cuInit,
  /// 4 no device.
  int failure = 0;
  CUresult result = 0;
  const char *detail = nullptr;
  char libraryName[256] = {0};
};

DriverState state;
pthread_once_t once = PTHREAD_ONCE_INIT;

template <typename Fn> bool resolve(void *lib, Fn &fn, const char *name) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) {
    state.failure = 2;
    state.detail = name;
  }
  return fn != nullptr;
}

void load() {
  const char *name = getenv("TFRT_CUDA_DRIVER");
  if (!name || !*name)
    name = "libcuda.so.1";
  size_t i = 0;
  for (; name[i] && i + 1 < sizeof(state.libraryName); ++i)
    state.libraryName[i] = name[i];
  state.libraryName[i] = 0;
  // Never unloaded: the table stays valid for the process.
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    state.failure = 1;
    return;
  }
  Driver &d = state.api;
  bool ok = resolve(lib, d.cuInit, "cuInit") &&
            resolve(lib, d.cuGetErrorString, "cuGetErrorString") &&
            resolve(lib, d.cuDeviceGetCount, "cuDeviceGetCount") &&
            resolve(lib, d.cuDeviceGet, "cuDeviceGet") &&
            resolve(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
            resolve(lib, d.cuDeviceGetName, "cuDeviceGetName") &&
            resolve(lib, d.cuDevicePrimaryCtxRetain,
                    "cuDevicePrimaryCtxRetain") &&
            resolve(lib, d.cuDevicePrimaryCtxRelease,
                    "cuDevicePrimaryCtxRelease_v2") &&
            resolve(lib, d.cuCtxPushCurrent, "cuCtxPushCurrent_v2") &&
            resolve(lib, d.cuCtxPopCurrent, "cuCtxPopCurrent_v2") &&
            resolve(lib, d.cuModuleLoadData, "cuModuleLoadData") &&
            resolve(lib, d.cuModuleUnload, "cuModuleUnload") &&
            resolve(lib, d.cuModuleGetFunction, "cuModuleGetFunction") &&
            resolve(lib, d.cuMemAlloc, "cuMemAlloc_v2") &&
            resolve(lib, d.cuMemFree, "cuMemFree_v2") &&
            resolve(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
            resolve(lib, d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") &&
            resolve(lib, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") &&
            resolve(lib, d.cuMemcpyAsync, "cuMemcpyAsync") &&
            resolve(lib, d.cuMemsetD32Async, "cuMemsetD32Async") &&
            resolve(lib, d.cuMemsetD16Async, "cuMemsetD16Async") &&
            resolve(lib, d.cuLaunchKernel, "cuLaunchKernel") &&
            resolve(lib, d.cuStreamCreate, "cuStreamCreate") &&
            resolve(lib, d.cuStreamDestroy, "cuStreamDestroy_v2") &&
            resolve(lib, d.cuStreamSynchronize, "cuStreamSynchronize") &&
            resolve(lib, d.cuStreamWaitEvent, "cuStreamWaitEvent") &&
            resolve(lib, d.cuEventCreate, "cuEventCreate") &&
            resolve(lib, d.cuEventDestroy, "cuEventDestroy_v2") &&
            resolve(lib, d.cuEventRecord, "cuEventRecord") &&
            resolve(lib, d.cuEventQuery, "cuEventQuery") &&
            resolve(lib, d.cuEventSynchronize, "cuEventSynchronize") &&
            resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime");
  if (!ok)
    return;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    state.failure = r == CUDA_ERROR_NO_DEVICE ? 4 : 3;
    state.result = r;
    return;
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    state.failure = 4;
    state.result = r;
    return;
  }
  state.ok = true;
}
} // namespace

const Driver *driver(tfrt_status *status) {
  pthread_once(&once, load);
  if (state.ok)
    return &state.api;
  MessageBuilder message;
  switch (state.failure) {
  case 1:
    message.append("no CUDA driver (")
        .append(state.libraryName)
        .append(" not found)");
    break;
  case 2:
    message.append("CUDA driver ")
        .append(state.libraryName)
        .append(" lacks ")
        .append(state.detail)
        .append(" (driver too old?)");
    break;
  case 4:
    message.append("no CUDA device");
    break;
  default:
    message.append("CUDA driver initialisation failed: cuInit returned ")
        .append(errorString(state.result));
    break;
  }
  *status = message.toStatus(TFRT_UNAVAILABLE);
  return nullptr;
}

const char *errorString(CUresult result) {
  const char *text = nullptr;
  if (state.ok && state.api.cuGetErrorString &&
      state.api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  switch (result) {
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return "no kernel image is available for execution on the device";
  default:
    return "CUDA driver error";
  }
}

} // namespace cuda
} // namespace tfrt
