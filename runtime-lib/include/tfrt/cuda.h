/*===- tfrt/cuda.h - CUDA models: descriptor and instances ---------*- C -*-===*
 *
 * Models compiled with `tfrt-compile --target=cuda` keep the ordinary model
 * ABI (NAME_create/run/destroy, tfrt_model_desc) and add a second constant,
 * tfrt_cuda_model_desc, that their NAME_create passes to
 * tfrt_cuda_model_create(). Users call the NAME_* functions; this header is
 * the contract between generated code and runtime-lib.
 *
 * Contract
 * --------
 * - The CUDA driver is loaded at run time (dlopen("libcuda.so.1"); the
 *   TFRT_CUDA_DRIVER environment variable names another file). No CUDA
 *   header or library is needed to build or link a model. Without a driver,
 *   create returns TFRT_UNAVAILABLE "no CUDA driver (libcuda.so.1 not
 *   found)"; without a device TFRT_UNAVAILABLE "no CUDA device".
 * - The device is ordinal 0 (or TFRT_CUDA_DEVICE); its primary context is
 *   retained per instance. The model's kernels (one fat binary: a cubin per
 *   compiled arch plus PTX of the newest) are loaded once per process and
 *   model, and unloaded with the last instance.
 * - Each instance owns, on the device: the workspace (planned scratch bytes
 *   followed by the weights, uploaded once in create), one buffer per input
 *   and output, a stream and an event. A run copies the inputs host->device,
 *   enqueues every kernel, copies the outputs device->host on the stream and
 *   waits for an event recorded after the last copy: when NAME_run returns OK
 *   the outputs are in the caller's buffers. Kernel launch errors are
 *   reported by that run's status (TFRT_INTERNAL).
 * - As for CPU models: one run at a time per instance; instances may run
 *   concurrently on different threads.
 * - Process-wide state: the driver's function table (loaded once) and a lock
 *   around module load counts.
 *===----------------------------------------------------------------------===*/
#ifndef TFRT_CUDA_H
#define TFRT_CUDA_H

#include "tfrt/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** tfrt_model_desc.flags bit: the entry expects device pointers and the
 *  instance must come from tfrt_cuda_model_create(). */
#define TFRT_MODEL_FLAG_CUDA 1u

/** Version of tfrt_cuda_model_desc. */
#define TFRT_CUDA_ABI_VERSION 1u

/** The CUDA half of a model's description (emitted by tfrt-compile). */
typedef struct tfrt_cuda_model_desc {
  uint32_t abi_version;            /**< TFRT_CUDA_ABI_VERSION */
  uint32_t reserved;               /**< 0 */
  const char *archs;               /**< compiled chips, "sm_80,sm_90" */
  const void *weights;             /**< host copy of the weights */
  uint64_t weights_size;           /**< bytes at `weights` */
  uint64_t weights_offset;         /**< where they go in the workspace */
  uint64_t device_workspace_size;  /**< scratch + weights bytes */
  void (*load)(void);              /**< loads the kernels (mgpuModuleLoad) */
  void (*unload)(void);            /**< unloads them */
  uint64_t *load_count;            /**< per-model counter owned by runtime-lib */
} tfrt_cuda_model_desc;

/** Creates an instance of a CUDA model: driver, context, kernels, device
 *  workspace with the weights, I/O buffers, stream. Errors as for
 *  tfrt_model_create() plus TFRT_UNAVAILABLE for a missing driver or device
 *  and TFRT_FAILED_PRECONDITION when the kernels do not fit the device. */
TFRT_API tfrt_status tfrt_cuda_model_create(const tfrt_model_desc *desc,
                                            const tfrt_cuda_model_desc *cuda,
                                            tfrt_instance **out);
/** Validates like tfrt_model_run(), then H->D, kernels, D->H, wait. */
TFRT_API tfrt_status tfrt_cuda_model_run(tfrt_instance *instance,
                                         const tfrt_tensor *inputs,
                                         size_t num_inputs,
                                         const tfrt_tensor *outputs,
                                         size_t num_outputs);
/** Device time of the instance's last completed run, from CUDA events on its
 *  stream: `kernels_ms` from before the first kernel to after the last one,
 *  `with_copies_ms` from before the input copies to after the output copies.
 *  TFRT_INVALID_ARGUMENT for a CPU instance; a driver error before the first
 *  run. */
TFRT_API tfrt_status tfrt_cuda_last_run_times(tfrt_instance *instance,
                                              float *kernels_ms,
                                              float *with_copies_ms);
/** Waits for the stream and releases the instance; NULL is allowed. */
TFRT_API tfrt_status tfrt_cuda_model_destroy(tfrt_instance *instance);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFRT_CUDA_H */
