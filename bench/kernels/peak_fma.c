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

#include "clock.h"
#include "fma_chains.h"

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
    volatile float sink = fmaChains(iterations, &scale);
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
      checksum += fmaChains(iterations, &scale);
      ++calls;
      elapsed = seconds() - start;
    } while (elapsed < perRound);
    double flops =
        2.0 * FMA_CHAINS * LANES * (double)iterations * (double)calls;
    double gflops = flops / elapsed / 1e9;
    if (gflops > best)
      best = gflops;
  }
  printf("peak_fma: %d chains x %d lanes, %.1f GFLOP/s (1 thread) "
         "[checksum %g]\n",
         FMA_CHAINS, LANES, best, (double)checksum);
  return 0;
}
