/*===- bench/gpu/time_model.c - time a compiled model ----------------------===*
 *
 * Links a model object (NAME.o, any target) and prints, as one JSON object,
 * the time of NAME_create, of the first run and the median/min of N further
 * runs (wall clock, the run returns when the outputs are in host memory).
 * Inputs are filled with a fixed pattern; every tensor must be float32.
 *
 *   clang-22 -O2 -DTFRT_MODEL=NAME -I runtime-lib/include -I OUTDIR \
 *       time_model.c OUTDIR/NAME.o build/lib/libtfrt_runtime.a -lm -o t
 *   ./t [N=50]
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef TFRT_MODEL
#error "define TFRT_MODEL to the model's NAME"
#endif
#define STR2(x) #x
#define HEADER(x) STR2(x.h)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#include HEADER(TFRT_MODEL)
#include "tfrt/cuda.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static tfrt_tensor make(const tfrt_tensor_desc *d) {
  size_t n = 1;
  for (int i = 0; i < d->rank; ++i)
    n *= (size_t)d->dims[i];
  float *p = malloc((n ? n : 1) * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
  tfrt_tensor t = {p, d->dtype, d->rank, d->dims};
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  if (n < 1)
    n = 1;
  const tfrt_model_desc *desc = CAT(TFRT_MODEL, _descriptor)();
  tfrt_tensor in[16], out[16];
  if (desc->num_inputs > 16 || desc->num_outputs > 16)
    return 1;
  for (unsigned i = 0; i < desc->num_inputs; ++i)
    in[i] = make(&desc->inputs[i]);
  for (unsigned i = 0; i < desc->num_outputs; ++i)
    out[i] = make(&desc->outputs[i]);
  tfrt_instance *inst = NULL;
  double t0 = now_ms();
  tfrt_status st = CAT(TFRT_MODEL, _create)(&inst);
  double create = now_ms() - t0;
  if (st) {
    fprintf(stderr, "error: create: %s\n", tfrt_status_message(st));
    return 1;
  }
  double *times = malloc(sizeof(double) * (size_t)(n + 1));
  double *kern = malloc(sizeof(double) * (size_t)(n + 1));
  double *full = malloc(sizeof(double) * (size_t)(n + 1));
  int cuda = (desc->flags & TFRT_MODEL_FLAG_CUDA) != 0;
  for (int r = 0; r <= n; ++r) {
    t0 = now_ms();
    st = CAT(TFRT_MODEL, _run)(inst, in, desc->num_inputs, out,
                               desc->num_outputs);
    times[r] = now_ms() - t0;
    if (st) {
      fprintf(stderr, "error: run: %s\n", tfrt_status_message(st));
      return 1;
    }
    float k = 0, f = 0;
    if (cuda && (st = tfrt_cuda_last_run_times(inst, &k, &f))) {
      fprintf(stderr, "error: device timing: %s\n", tfrt_status_message(st));
      return 1;
    }
    kern[r] = k;
    full[r] = f;
  }
  double first = times[0];
  qsort(times + 1, (size_t)n, sizeof(double), cmp);
  qsort(kern + 1, (size_t)n, sizeof(double), cmp);
  qsort(full + 1, (size_t)n, sizeof(double), cmp);
  printf("{\"create_ms\": %.3f, \"first_run_ms\": %.3f, \"median_ms\": %.4f, "
         "\"min_ms\": %.4f, \"runs\": %d",
         create, first, times[1 + n / 2], times[1], n);
  if (cuda)
    printf(", \"device_kernels_median_ms\": %.4f, "
           "\"device_with_copies_median_ms\": %.4f",
           kern[1 + n / 2], full[1 + n / 2]);
  printf("}\n");
  CAT(TFRT_MODEL, _destroy)(inst);
  return 0;
}
