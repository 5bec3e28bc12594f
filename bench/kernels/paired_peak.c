/* paired_peak.c - a compiled kernel's GFLOP/s as a fraction of the FP32 FMA
 * peak measured in the same moments: every iteration times one call of the
 * kernel (an object built by `tfrt-compile --emit=shared`) and, right
 * before it, a slice of the FMA loop of peak_fma.c about as long as the
 * call. The ratio of the two rates is taken per iteration, and the median
 * of those ratios is printed with the medians of both rates:
 *
 *   paired_peak: gemm1024 30 pairs: kernel median 15.812 ms, 135.8 GFLOP/s;
 *   peak median 160.2 GFLOP/s; paired median 84.7% (q1 82.0%, q3 86.9%)
 *
 * On a VM whose neighbours take the core's FMA throughput away for
 * seconds at a time, a peak measured once per round of 30 calls can come
 * from another phase than the calls; the per-call pairing cannot. It
 * does not hide slow memory: a phase in which only the memory side is
 * slow lowers the kernel's rate and not the peak's.
 *
 *   cc -O2 -march=native -I runtime-lib/include bench/kernels/paired_peak.c \
 *      -o build/paired_peak -ldl
 *   build/paired_peak NAME FLOPS ITERATIONS KERNEL.so
 *
 * Inputs are filled with a fixed pattern in [-0.5, 0.5) (as
 * bench/ab/interleave.c does); outputs are not checked. One thread.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../ab/model_tensors.h"
#include "fma_chains.h"

enum { kMaxTensors = 16 };

static double quantile(double *values, int n, int num, int den) {
  qsort(values, (size_t)n, sizeof(double), compare);
  return values[(long)(n - 1) * num / den];
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s NAME FLOPS ITERATIONS KERNEL.so\n", argv[0]);
    return 2;
  }
  const char *name = argv[1];
  double flops = atof(argv[2]);
  int iterations = atoi(argv[3]);
  if (!(flops > 0) || iterations < 1) {
    fprintf(stderr, "paired_peak: FLOPS > 0 and ITERATIONS >= 1\n");
    return 2;
  }
  void *lib = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "paired_peak: %s\n", dlerror());
    return 1;
  }
  create_fn create = (create_fn)symbol(lib, name, "_create");
  run_fn run = (run_fn)symbol(lib, name, "_run");
  info_fn inputInfo = (info_fn)symbol(lib, name, "_input_info");
  info_fn outputInfo = (info_fn)symbol(lib, name, "_output_info");
  message_fn message = (message_fn)dlsym(lib, "tfrt_status_message");
  dtype_size_fn elementBytes = (dtype_size_fn)dlsym(lib, "tfrt_dtype_size");
  if (!create || !run || !inputInfo || !outputInfo || !elementBytes) {
    fprintf(stderr,
            "paired_peak: %s has no %s_create/_run/_input_info or "
            "tfrt_dtype_size\n",
            argv[4], name);
    return 1;
  }
  void *instance = NULL;
  tfrt_status st = create(&instance);
  if (st) {
    fprintf(stderr, "paired_peak: %s: %s\n", argv[4],
            message ? message(st) : "create failed");
    return 1;
  }
  tfrt_tensor inputs[kMaxTensors], outputs[kMaxTensors];
  int numInputs =
      allocModelTensors(inputInfo, elementBytes, inputs, kMaxTensors);
  int numOutputs =
      allocModelTensors(outputInfo, elementBytes, outputs, kMaxTensors);
  if (numInputs < 0 || numOutputs < 0) {
    fprintf(stderr, "paired_peak: out of memory\n");
    return 1;
  }
  volatile float scale = 1.0f;
  float checksum = 0;
  /* Warm up the kernel and size the FMA slice to about one call. */
  double call = 0;
  for (int i = 0; i < 3; ++i) {
    double start = now();
    if ((st = run(instance, inputs, numInputs, outputs, numOutputs))) {
      fprintf(stderr, "paired_peak: %s: %s\n", argv[4],
              message ? message(st) : "run failed");
      return 1;
    }
    call = now() - start;
  }
  long slice = 1 << 10;
  for (;;) {
    double start = now();
    checksum += fmaChains(slice, &scale);
    if (now() - start >= call || slice > (1L << 34))
      break;
    slice *= 2;
  }
  double sliceFlops = 2.0 * FMA_CHAINS * LANES * (double)slice;
  double *kernel = malloc(sizeof(double) * (size_t)iterations * 3);
  if (!kernel)
    return 1;
  double *peak = kernel + iterations, *ratio = peak + iterations;
  for (int it = 0; it < iterations; ++it) {
    double start = now();
    checksum += fmaChains(slice, &scale);
    double mid = now();
    st = run(instance, inputs, numInputs, outputs, numOutputs);
    double end = now();
    if (st) {
      fprintf(stderr, "paired_peak: %s: %s\n", argv[4],
              message ? message(st) : "run failed");
      return 1;
    }
    peak[it] = sliceFlops / (mid - start) / 1e9;
    kernel[it] = end - mid;
    ratio[it] = flops / kernel[it] / 1e9 / peak[it];
  }
  double kernelMs = quantile(kernel, iterations, 1, 2) * 1e3;
  double peakMedian = quantile(peak, iterations, 1, 2);
  double q1 = quantile(ratio, iterations, 1, 4);
  double median = quantile(ratio, iterations, 1, 2);
  double q3 = quantile(ratio, iterations, 3, 4);
  printf("paired_peak: %s %d pairs: kernel median %.3f ms, %.1f GFLOP/s; "
         "peak median %.1f GFLOP/s; paired median %.1f%% (q1 %.1f%%, "
         "q3 %.1f%%) [checksum %g]\n",
         name, iterations, kernelMs, flops / kernelMs / 1e6, peakMedian,
         100 * median, 100 * q1, 100 * q3, (double)checksum);
  return 0;
}
