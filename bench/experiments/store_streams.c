// Store-stream probe (AVX-512 intrinsics, not part of the compiler): how
// long one core takes to write an NCHW map of C planes x HW floats (det's
// 96 x 160 x 160, 9.8 MB, by default) with zmm stores, by the order in
// which a kernel would write it. Prints the best of 30 runs in ms and GB/s:
//   1. in blocks of `rows` planes x `vecs` vectors, channel blocks
//      outermost (order 0) or columns outermost (order 1, every plane's
//      stream open at once);
//   2. in blocks of NB columns per plane, within them channel blocks of M
//      planes and 8 x 2-vector steps (a 1x1 conv's 8 x 32 register tiles
//      over column blocks).
// Two buffers alternate, so each run writes over lines the previous run
// did not.
//
//   clang-22 -O2 -mavx512f [-DC=96 -DHW=25600] \
//       bench/experiments/store_streams.c -o store_streams && ./store_streams
#include "../kernels/clock.h"

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef C
#define C 96
#endif
#ifndef HW
#define HW 25600
#endif

static float *bufs[2];

static double best_of(void (*body)(float *, int, int), int a, int b) {
  double best = 1e9;
  for (int r = 0; r < 30; ++r) {
    double t = seconds();
    body(bufs[r & 1], a, b);
    t = seconds() - t;
    if (t < best)
      best = t;
  }
  return best;
}

static void blocks(float *out, int rows, int order) {
  __m512 v = _mm512_set1_ps(3.0f);
  int vecs = rows >= 16 ? 1 : 16 / rows;
  if (order == 0) {
    for (int c = 0; c < C; c += rows)
      for (long p = 0; p < HW; p += 16 * vecs)
        for (int k = 0; k < rows && c + k < C; ++k)
          for (int j = 0; j < vecs; ++j)
            _mm512_store_ps(out + (long)(c + k) * HW + p + 16 * j, v);
  } else {
    for (long p = 0; p < HW; p += 16 * vecs)
      for (int c = 0; c < C; c += rows)
        for (int k = 0; k < rows && c + k < C; ++k)
          for (int j = 0; j < vecs; ++j)
            _mm512_store_ps(out + (long)(c + k) * HW + p + 16 * j, v);
  }
}

static void columns(float *out, int nb, int m) {
  __m512 v = _mm512_set1_ps(3.0f);
  for (int cb = 0; cb < C; cb += m)
    for (long n0 = 0; n0 < HW; n0 += nb)
      for (int c = cb; c < cb + m && c < C; c += 8)
        for (long p = n0; p < n0 + nb && p < HW; p += 32)
          for (int k = 0; k < 8 && c + k < C; ++k) {
            _mm512_store_ps(out + (long)(c + k) * HW + p, v);
            _mm512_store_ps(out + (long)(c + k) * HW + p + 16, v);
          }
}

int main(void) {
  for (int i = 0; i < 2; ++i) {
    bufs[i] = aligned_alloc(4096, (size_t)C * HW * 4);
    for (long j = 0; j < (long)C * HW; ++j)
      bufs[i][j] = (float)i;
  }
  double bytes = (double)C * HW * 4;
  int rows[] = {1, 2, 4, 8, 16, 32};
  for (int i = 0; i < 6; ++i)
    for (int order = 0; order < 2; ++order) {
      double t = best_of(blocks, rows[i], order);
      printf("blocks of %2d planes, %s outermost: %.3f ms, %.1f GB/s\n",
             rows[i], order ? "columns " : "channels", t * 1e3,
             bytes / t / 1e9);
    }
  int nbs[] = {32, 64, 128, 256, 512, 1024, 2048};
  for (int i = 0; i < 7; ++i)
    for (int m = 8; m <= C; m = m == 32 ? C : 2 * m) {
      double t = best_of(columns, nbs[i], m);
      printf("columns in blocks of %4d, %2d planes per block: %.3f ms, "
             "%.1f GB/s\n",
             nbs[i], m, t * 1e3, bytes / t / 1e9);
      if (m == C)
        break;
    }
  free(bufs[0]);
  free(bufs[1]);
  return 0;
}
