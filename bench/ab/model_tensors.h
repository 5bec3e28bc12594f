/* model_tensors.h - the driver side of a compiled model's C API for the
 * bench tools (bench/ab/interleave.c, bench/kernels/paired_peak.c): the
 * function types they look up with dlsym (symbol()), the tensors of one
 * run, allocated from the model's descriptors and filled with a fixed
 * pattern in [-0.5, 0.5) (outputs zeroed), and the clock and comparison
 * the timings use. Header-only, so that each tool still builds with one cc
 * command. */
#ifndef TFRT_BENCH_AB_MODEL_TENSORS_H
#define TFRT_BENCH_AB_MODEL_TENSORS_H

#include "tfrt/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef tfrt_status (*create_fn)(void **);
typedef tfrt_status (*run_fn)(void *, const tfrt_tensor *, int, tfrt_tensor *,
                              int);
typedef tfrt_status (*info_fn)(int, tfrt_tensor_desc *);
typedef const char *(*message_fn)(tfrt_status);
typedef size_t (*dtype_size_fn)(int32_t);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* NAME followed by SUFFIX in `lib` (the model's API: NAME_create, ...). */
static void *symbol(void *lib, const char *name, const char *suffix) {
  char full[256];
  snprintf(full, sizeof full, "%s%s", name, suffix);
  return dlsym(lib, full);
}

/* Allocates one tensor per input (io 0) or output (io 1) description that
 * `info` returns, at most `max`, into `tensors`; returns how many, or -1
 * when out of memory. */
static int allocModelTensors(info_fn info, dtype_size_fn elementBytes,
                             tfrt_tensor *tensors, int max) {
  int n = 0;
  for (int i = 0; i < max; ++i) {
    tfrt_tensor_desc d;
    if (info(i, &d))
      break;
    long count = 1;
    for (int r = 0; r < d.rank; ++r)
      count *= d.dims[r];
    size_t bytes = (size_t)count * elementBytes(d.dtype);
    char *data = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!data)
      return -1;
    memset(data, 0, bytes);
    if (d.dtype == TFRT_DTYPE_FLOAT32)
      for (long j = 0; j < count; ++j)
        ((float *)data)[j] = (float)((j * 7919) % 1000) / 1000.0f - 0.5f;
    tfrt_tensor t = {data, d.dtype, d.rank, d.dims};
    tensors[n++] = t;
  }
  return n;
}

#endif /* TFRT_BENCH_AB_MODEL_TENSORS_H */
