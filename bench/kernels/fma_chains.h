/* fma_chains.h - the FMA loop of bench/kernels/peak_fma.c and
 * paired_peak.c: twelve independent accumulator chains of vector FMAs
 * (vec.h: AVX-512, AVX2/FMA or scalar), enough to cover the FMA latency
 * times the FMA ports of current x86 cores. Every chain does
 * acc = acc * a + b with values that stay finite. */
#ifndef TFRT_BENCH_KERNELS_FMA_CHAINS_H
#define TFRT_BENCH_KERNELS_FMA_CHAINS_H

#include "vec.h"

#define FMA_CHAINS 12

/* `iterations` rounds of one FMA on every chain; returns a checksum. The
 * volatile read keeps the compiler from computing a call once for all. */
static float fmaChains(long iterations, const volatile float *scale) {
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

#endif /* TFRT_BENCH_KERNELS_FMA_CHAINS_H */
