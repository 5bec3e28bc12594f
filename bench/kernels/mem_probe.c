/* mem_probe.c - single-thread read bandwidth of this machine from an
 * L2-sized (1 MiB) and an L3-sized (16 MiB) buffer, printed next to the FMA
 * peak by bench/kernels/run.sh before each round of kernel timings.
 *
 * On a shared VM the FMA peak (peak_fma.c) hardly moves while neighbours
 * load the caches and the memory system, but every kernel that touches
 * memory slows down with them; this probe shows how loaded the memory side
 * was when a round ran. Each figure is the median of several sweeps with
 * four independent vector accumulators (AVX-512 when the compiler targets
 * it, else AVX2, else scalar):
 *
 *   mem_probe: L2 108.4 GB/s, L3 17.2 GB/s (1 thread)
 *
 *   cc -O2 -march=native bench/kernels/mem_probe.c -o build/mem_probe
 *   build/mem_probe            # or build/mem_probe SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "vec.h"

static volatile float sink;

/* Reads `n` floats `reps` times; returns GB/s. */
static double sweep(const float *p, long n, int reps) {
  vec s0 = VZERO(), s1 = VZERO(), s2 = VZERO(), s3 = VZERO();
  double t = seconds();
  for (int r = 0; r < reps; ++r)
    for (long i = 0; i < n; i += 4 * LANES) {
      s0 = VADD(s0, VLOAD(p + i));
      s1 = VADD(s1, VLOAD(p + i + LANES));
      s2 = VADD(s2, VLOAD(p + i + 2 * LANES));
      s3 = VADD(s3, VLOAD(p + i + 3 * LANES));
    }
  t = seconds() - t;
  sink = vsum(VADD(VADD(s0, s1), VADD(s2, s3)));
  return (double)reps * (double)n * sizeof(float) / t / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of `rounds` sweeps of `bytes`, each about `per` seconds. */
static double median_gbs(long bytes, double per, int rounds) {
  long n = bytes / (long)sizeof(float);
  float *p = aligned_alloc(64, (size_t)bytes);
  if (!p) {
    fprintf(stderr, "mem_probe: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < n; ++i)
    p[i] = 1.0f;
  /* Calibrate the repetitions on one warm sweep. */
  double gbs = sweep(p, n, 1);
  int reps = (int)(per * gbs * 1e9 / (double)bytes);
  if (reps < 1)
    reps = 1;
  double r[64];
  if (rounds > 64)
    rounds = 64;
  for (int i = 0; i < rounds; ++i)
    r[i] = sweep(p, n, reps);
  qsort(r, (size_t)rounds, sizeof(double), cmp);
  free(p);
  return r[rounds / 2];
}

int main(int argc, char **argv) {
  double total = argc > 1 ? atof(argv[1]) : 0.2;
  if (!(total > 0) || total > 60) {
    fprintf(stderr, "usage: mem_probe [SECONDS (0 < s <= 60, default 0.2)]\n");
    return 2;
  }
  double l2 = median_gbs(1L << 20, total / 10, 5);
  double l3 = median_gbs(16L << 20, total / 10, 5);
  printf("mem_probe: L2 %.1f GB/s, L3 %.1f GB/s (1 thread)\n", l2, l3);
  return 0;
}
