// det's 3x3 96->24 conv on 160x160 as the rows-outer register tiles run it
// (AVX-512 intrinsics, not part of the compiler): input [H + 2][C][RS]
// (padded rows of RS floats, the interior from OFF + 1), weights packed per
// 8 output channels as [M / 8][3][3][C][8], chunks of 4 output rows,
// input-channel blocks of CB outermost, then rows, 32-column tiles and
// 8-channel output tiles, taps, channels. Variants run interleaved (every
// call alternates between them) and print their medians and their median
// ratio to the first, paired call by call: the VM's speed drifts by 2x
// within minutes, so only paired ratios compare.
//
//   clang-22 -O3 -march=native bench/experiments/conv3x3_rows.c -o
//   build/conv3x3_rows && build/conv3x3_rows [ITERATIONS]
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { H = 160, W = 160, C = 96, M = 24, MAXV = 16, MAXIT = 200 };

typedef struct {
  const char *name;
  int rs, off, cb;
  int l1;       // every tile reads the same (L1-resident) input window
  int wide;     // 24 output channels x 16 columns, embedded broadcasts
  int prefetch; // 0: none, 1: next row at every tap, 2: next row, last tap
                // row only, 3: next row, first output-channel tile only
} Variant;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static const float *window(const Variant *v, const float *in, int y, int kh,
                           int cb, int x, int kw) {
  size_t row = v->l1 ? (size_t)kh : (size_t)(y + kh);
  return in + row * C * v->rs + (size_t)cb * v->rs + v->off + (v->l1 ? 0 : x) +
         kw;
}

__attribute__((noinline)) static void
conv8x32(const Variant *v, const float *in, const float *wp, float *out) {
  int rs = v->rs;
  for (int y0 = 0; y0 < H; y0 += 4)
    for (int cb = 0; cb < C; cb += v->cb)
      for (int y = y0; y < y0 + 4; y++)
        for (int x = 0; x < W; x += 32)
          for (int mt = 0; mt < M / 8; mt++) {
            __m512 acc[8][2];
            float *o = out + (size_t)(mt * 8) * H * W + y * W + x;
            for (int r = 0; r < 8; r++) {
              acc[r][0] = _mm512_loadu_ps(o + r * H * W);
              acc[r][1] = _mm512_loadu_ps(o + r * H * W + 16);
            }
            for (int kh = 0; kh < 3; kh++)
              for (int kw = 0; kw < 3; kw++) {
                const float *ip = window(v, in, y, kh, cb, x, kw);
                const float *w = wp + (((mt * 3 + kh) * 3 + kw) * C + cb) * 8;
                int pf = v->prefetch == 1 || (v->prefetch == 2 && kh == 2) ||
                         (v->prefetch == 3 && mt == 0 && kh == 2 && kw == 0);
#pragma clang loop unroll_count(4)
                for (int c = 0; c < v->cb; c++) {
                  if (pf && v->prefetch != 3)
                    _mm_prefetch((const char *)(ip + (C + c) * rs + 15 * kw),
                                 _MM_HINT_T0);
                  if (pf && v->prefetch == 3)
                    for (int q = 0; q < 3; q++)
                      _mm_prefetch((const char *)(ip + (C + c) * rs + 16 * q),
                                   _MM_HINT_T0);
                  __m512 a0 = _mm512_loadu_ps(ip + c * rs);
                  __m512 a1 = _mm512_loadu_ps(ip + c * rs + 16);
                  for (int r = 0; r < 8; r++) {
                    __m512 b = _mm512_set1_ps(w[c * 8 + r]);
                    acc[r][0] = _mm512_fmadd_ps(b, a0, acc[r][0]);
                    acc[r][1] = _mm512_fmadd_ps(b, a1, acc[r][1]);
                  }
                }
              }
            for (int r = 0; r < 8; r++) {
              _mm512_storeu_ps(o + r * H * W, acc[r][0]);
              _mm512_storeu_ps(o + r * H * W + 16, acc[r][1]);
            }
          }
}

// Weights as [3][3][C][24]: one 24-float row per channel step.
__attribute__((noinline)) static void
conv24x16(const Variant *v, const float *in, const float *wp, float *out) {
  int rs = v->rs;
  for (int y0 = 0; y0 < H; y0 += 4)
    for (int cb = 0; cb < C; cb += v->cb)
      for (int y = y0; y < y0 + 4; y++)
        for (int x = 0; x < W; x += 16) {
          __m512 acc[24];
          float *o = out + y * W + x;
          for (int r = 0; r < 24; r++)
            acc[r] = _mm512_loadu_ps(o + r * H * W);
          for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++) {
              const float *ip = window(v, in, y, kh, cb, x, kw);
              const float *w = wp + ((kh * 3 + kw) * C + cb) * 24;
#pragma clang loop unroll_count(4)
              for (int c = 0; c < v->cb; c++) {
                if (v->prefetch && kw == 0)
                  _mm_prefetch((const char *)(ip + c * rs + 32), _MM_HINT_T0);
                __m512 a = _mm512_loadu_ps(ip + c * rs);
                for (int r = 0; r < 24; r++)
                  acc[r] =
                      _mm512_fmadd_ps(_mm512_set1_ps(w[c * 24 + r]), a, acc[r]);
              }
            }
          for (int r = 0; r < 24; r++)
            _mm512_storeu_ps(o + r * H * W, acc[r]);
        }
}

static int byValue(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static const Variant variants[] = {
      {"8x32, rows of 162", 162, 0, 16, 0, 0, 0},
      {"8x32, L1-resident input", 162, 0, 16, 1, 0, 0},
      {"8x32, rows of 176, interior at 16", 176, 15, 16, 0, 0, 0},
      {"8x32, channel blocks of 32", 162, 0, 32, 0, 0, 0},
      {"8x32, next row at every tap", 162, 0, 16, 0, 0, 1},
      {"8x32, next row at the last tap row", 162, 0, 16, 0, 0, 2},
      {"8x32, next row from tile 0", 162, 0, 16, 0, 0, 3},
      {"24x16, rows of 176, one sweep", 176, 15, 96, 0, 1, 1},
  };
  int n = sizeof variants / sizeof variants[0];
  int iterations = argc > 1 ? atoi(argv[1]) : 25;
  if (iterations < 1 || iterations > MAXIT)
    iterations = 25;
  size_t inFloats = (size_t)(H + 3) * C * 176;
  float *in = aligned_alloc(64, sizeof(float) * inFloats);
  float *wp = aligned_alloc(64, sizeof(float) * M * 9 * C);
  float *out = aligned_alloc(64, sizeof(float) * M * H * W);
  if (!in || !wp || !out)
    return 1;
  for (size_t i = 0; i < inFloats; i++)
    in[i] = (float)(i % 7) * 0.1f;
  for (int i = 0; i < M * 9 * C; i++)
    wp[i] = (float)(i % 5) * 0.01f;
  static double t[MAXV][MAXIT], ratio[MAXV][MAXIT];
  for (int it = 0; it < iterations + 2; it++)
    for (int k = 0; k < n; k++) {
      memset(out, 0, sizeof(float) * M * H * W);
      double t0 = now();
      if (variants[k].wide)
        conv24x16(&variants[k], in, wp, out);
      else
        conv8x32(&variants[k], in, wp, out);
      if (it >= 2)
        t[k][it - 2] = now() - t0;
    }
  double flop = 2.0 * M * H * W * C * 9;
  for (int k = 0; k < n; k++) {
    for (int i = 0; i < iterations; i++)
      ratio[k][i] = t[k][i] / t[0][i];
    qsort(t[k], iterations, sizeof(double), byValue);
    qsort(ratio[k], iterations, sizeof(double), byValue);
    printf("%-36s median %7.3f ms  %6.1f GFLOP/s  paired vs first %.3f\n",
           variants[k].name, t[k][iterations / 2] * 1e3,
           flop / t[k][iterations / 2] / 1e9, ratio[k][iterations / 2]);
  }
  return 0;
}
