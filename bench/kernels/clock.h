/* clock.h - the monotonic clock in seconds, for the probes and peak loops
 * of bench/kernels (peak_fma.c, mem_probe.c, xcore_probe.c). */
#ifndef TFRT_BENCH_KERNELS_CLOCK_H
#define TFRT_BENCH_KERNELS_CLOCK_H

#include <time.h>

static inline double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif /* TFRT_BENCH_KERNELS_CLOCK_H */
