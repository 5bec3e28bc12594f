/* vec.h - the vector type of bench/kernels/peak_fma.c and mem_probe.c: one
 * zmm of 16 floats when the compiler targets AVX-512, one ymm of 8 with
 * AVX2 and FMA, else a scalar, with the few operations the two probes use.
 * Header-only, so that each probe still builds with one cc command. */
#ifndef TFRT_BENCH_KERNELS_VEC_H
#define TFRT_BENCH_KERNELS_VEC_H

#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vec;
#define LANES 16
#define VSET(x) _mm512_set1_ps(x)
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_load_ps(p)
#define VADD(a, b) _mm512_add_ps(a, b)
#define VFMA(acc, a, b) _mm512_fmadd_ps(acc, a, b)
static inline float vsum(vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
typedef __m256 vec;
#define LANES 8
#define VSET(x) _mm256_set1_ps(x)
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_load_ps(p)
#define VADD(a, b) _mm256_add_ps(a, b)
#define VFMA(acc, a, b) _mm256_fmadd_ps(acc, a, b)
static inline float vsum(vec v) {
  float lanes[8];
  _mm256_storeu_ps(lanes, v);
  float s = 0;
  for (int i = 0; i < 8; ++i)
    s += lanes[i];
  return s;
}
#else
typedef float vec;
#define LANES 1
#define VSET(x) (x)
#define VZERO() 0.0f
#define VLOAD(p) (*(p))
#define VADD(a, b) ((a) + (b))
#define VFMA(acc, a, b) ((acc) * (a) + (b))
static inline float vsum(vec v) { return v; }
#endif

#endif /* TFRT_BENCH_KERNELS_VEC_H */
