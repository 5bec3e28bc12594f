// 1x1-conv prototype (AVX-512 intrinsics, not part of the compiler): the
// register tile of tfrt-vectorize-matmul's seeded 1x1 convs (8 output
// channels x 32 positions, K whole, bias-initialised accumulators) over a
// [CI, HW] input in column blocks of NB, split into `chunks` parallel-chunk
// row ranges run one after the other (as at 1 thread). Prints the best of 30
// in ms, GFLOP/s and % of a 227 GFLOP/s peak; with `cold` = 1 the caches are
// flushed (16 MB written) before each run. -DNT=1 writes the outputs with
// streaming (non-temporal) stores; -DCONSUME=1 then also times a reader of
// the whole output right after each run (a consumer, as the next layer).
// -DRS / -DRSO set the floats from one input / output channel to the next
// (default HW): a 160x160 map's channels are 25 pages apart, so a column's
// K input rows share one L1 set; RS = HW + 16 staggers them.
//
//   clang-22 -O3 -march=native [-DCI=48 -DCM=48 -DHW=25600 -DNB=256 -DPF=0 \
//       -DNT=0 -DCONSUME=0 -DRS=25600 -DRSO=25600] \
//       bench/experiments/pw_1x1.c -o build/pw_1x1
//   build/pw_1x1 COLD CHUNKS
//
// det's Conv.6 is CI = CM = 48, HW = 160 * 160, 2 chunks.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef CI
#define CI 48
#endif
#ifndef CM
#define CM 48
#endif
#ifndef HW
#define HW 25600
#endif
// Floats from one input channel's row to the next (HW: dense; HW + 16
// moves the rows of a 160x160 map off a common 4 KiB offset).
#ifndef RS
#define RS HW
#endif
// The same for the output's channels.
#ifndef RSO
#define RSO RS
#endif
#ifndef PF
#define PF 0
#endif
#ifndef NT
#define NT 0
#endif
#ifndef CONSUME
#define CONSUME 0
#endif
#if NT
#define STORE _mm512_stream_ps
#else
#define STORE _mm512_storeu_ps
#endif
#ifndef NB
#define NB 256
#endif
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static float w[CM][CI], b[CM];
static volatile float sink;
// rows [m0,m1) , columns blocks of NB
__attribute__((noinline)) static void pw(const float *in, float *out, int m0s,
                                         int m1s) {
  for (int n0 = 0; n0 < HW; n0 += NB)
    for (int m0 = m0s; m0 < m1s; m0 += 8)
      for (int w0 = n0; w0 < n0 + NB; w0 += 32) {
        __m512 acc[8][2];
        for (int i = 0; i < 8; ++i)
          acc[i][0] = acc[i][1] = _mm512_set1_ps(b[m0 + i]);
        for (int k = 0; k < CI; ++k) {
          if (PF && m0 == m0s) {
            _mm_prefetch((const char *)(in + (size_t)k * RS + w0 + PF),
                         _MM_HINT_T0);
            _mm_prefetch((const char *)(in + (size_t)k * RS + w0 + PF + 16),
                         _MM_HINT_T0);
          }
          __m512 x0 = _mm512_loadu_ps(in + (size_t)k * RS + w0),
                 x1 = _mm512_loadu_ps(in + (size_t)k * RS + w0 + 16);
          for (int i = 0; i < 8; ++i) {
            __m512 wv = _mm512_set1_ps(w[m0 + i][k]);
            acc[i][0] = _mm512_fmadd_ps(wv, x0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(wv, x1, acc[i][1]);
          }
        }
        for (int i = 0; i < 8; ++i) {
          STORE(out + (size_t)(m0 + i) * RSO + w0, acc[i][0]);
          STORE(out + (size_t)(m0 + i) * RSO + w0 + 16, acc[i][1]);
        }
      }
}
int main(int argc, char **argv) {
  float *in = aligned_alloc(64, (size_t)CI * RS * 4),
        *out = aligned_alloc(64, (size_t)CM * RSO * 4);
  float *ev = aligned_alloc(64, 64 << 20);
  memset(ev, 0, 64 << 20);
  for (size_t i = 0; i < (size_t)CI * HW; ++i)
    in[i] = (i % 7) * 0.1f;
  memset(out, 0, (size_t)CM * RSO * 4);
  for (int m = 0; m < CM; ++m) {
    b[m] = m;
    for (int k = 0; k < CI; ++k)
      w[m][k] = 0.01f * (m + k);
  }
  int cold = argc > 1 && atoi(argv[1]);
  int chunks = argc > 2 ? atoi(argv[2]) : 1;
  double best = 1e9;
  for (int r = 0; r < 30; ++r) {
    if (cold)
      for (size_t i = 0; i < (16 << 20); i += 16)
        ev[i] += 1;
    double t = now();
    for (int c = 0; c < chunks; ++c)
      pw(in, out, c * CM / chunks, (c + 1) * CM / chunks);
    __asm__ volatile("" ::: "memory");
#if CONSUME
    __m512 s = _mm512_setzero_ps();
    for (size_t i = 0; i < (size_t)CM * HW; i += 16)
      s = _mm512_add_ps(s, _mm512_load_ps(out + i));
    sink += _mm512_reduce_add_ps(s);
#endif
    t = now() - t;
    if (t < best)
      best = t;
  }
  double sum = 0;
  for (size_t i = 0; i < (size_t)CM * HW; i += 97)
    sum += out[i];
  fprintf(stderr, "%g\n", sum);
  double fl = 2.0 * CI * CM * HW;
  printf("CI=%d CM=%d HW=%d NB=%d PF=%d cold=%d chunks=%d: %.3f ms %.1f GF/s "
         "%.1f%%\n",
         CI, CM, HW, NB, PF, cold, chunks, best * 1e3, fl / best * 1e-9,
         100 * fl / best * 1e-9 / 227);
  return 0;
}
