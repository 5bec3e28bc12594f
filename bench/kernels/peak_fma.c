/* peak_fma.c - single-thread FP32 FMA throughput of this machine, the
 * reference for the "% of peak" of tfrt-run --profile and bench/kernels.
 *
 * Twelve independent accumulator chains of vector FMAs (AVX-512 when the
 * compiler targets it, else AVX2/FMA, else scalar), enough to cover the
 * FMA latency times the FMA ports of current x86 cores. Every chain does
 * acc = acc * a + b with values that stay finite; the result is printed so
 * that the loop cannot be dropped. Prints the best of several rounds:
 *
 *   peak_fma: 12 chains x 16 lanes, 187.3 GFLOP/s (1 thread)
 *
 * Build and run (on the machine you profile, nothing else running):
 *   cc -O2 -march=native bench/kernels/peak_fma.c -o build/peak_fma
 *   build/peak_fma            # or build/peak_fma SECONDS_PER_ROUND
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vec.h"

#define CHAINS 12

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* `iterations` rounds of one FMA on every chain; returns a checksum. The
 * volatile read keeps the compiler from computing a call once for all. */
static float run(long iterations, const volatile float *scale) {
  vec a = VSET(0.999999f * *scale), b = VSET(1e-7f);
  vec c0 = VSET(1.0f), c1 = VSET(1.1f), c2 = VSET(1.2f), c3 = VSET(1.3f);
  vec c4 = VSET(1.4f), c5 = VSET(1.5f), c6 = VSET(1.6f), c7 = VSET(1.7f);
  vec c8 = VSET(1.8f), c9 = VSET(1.9f), c10 = VSET(2.0f), c11 = VSET(2.1f);
  for (long i = 0; i < iterations; ++i) {
    c0 = VFMA(c0, a, b);
    c1 = VFMA(c1, a, b);
    c2 = VFMA(c2, a, b);
    c3 = VFMA(c3, a, b);
    c4 = VFMA(c4, a, b);
    c5 = VFMA(c5, a, b);
    c6 = VFMA(c6, a, b);
    c7 = VFMA(c7, a, b);
    c8 = VFMA(c8, a, b);
    c9 = VFMA(c9, a, b);
    c10 = VFMA(c10, a, b);
    c11 = VFMA(c11, a, b);
  }
  return vsum(c0) + vsum(c1) + vsum(c2) + vsum(c3) + vsum(c4) + vsum(c5) +
         vsum(c6) + vsum(c7) + vsum(c8) + vsum(c9) + vsum(c10) + vsum(c11);
}

int main(int argc, char **argv) {
  double perRound = argc > 1 ? atof(argv[1]) : 0.5;
  if (!(perRound > 0))
    perRound = 0.5;
  /* The scale comes from the command line so the compiler cannot fold. */
  volatile float scale = argc > 2 ? (float)atof(argv[2]) : 1.0f;
  long iterations = 1 << 20;
  /* Calibrate: grow until one call takes at least a tenth of a round. */
  for (;;) {
    double t = seconds();
    volatile float sink = run(iterations, &scale);
    (void)sink;
    if (seconds() - t > perRound / 10 || iterations > (1L << 40))
      break;
    iterations *= 2;
  }
  double best = 0;
  float checksum = 0;
  for (int round = 0; round < 5; ++round) {
    long calls = 0;
    double start = seconds(), elapsed;
    do {
      checksum += run(iterations, &scale);
      ++calls;
      elapsed = seconds() - start;
    } while (elapsed < perRound);
    double flops = 2.0 * CHAINS * LANES * (double)iterations * (double)calls;
    double gflops = flops / elapsed / 1e9;
    if (gflops > best)
      best = gflops;
  }
  printf("peak_fma: %d chains x %d lanes, %.1f GFLOP/s (1 thread) "
         "[checksum %g]\n",
         CHAINS, LANES, best, (double)checksum);
  return 0;
}
