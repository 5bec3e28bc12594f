// det's 3x3 96->24 conv on 160x160 (stride 1, pad 1): our direct rows-outer
// register tiles against Winograd F(2x2, 3x3) (AVX-512 intrinsics, not part
// of the compiler). Input [H + 2][C][162] (padded rows, as the compiled
// model lays it out). The direct variant is the compiled kernel's structure
// (8 output channels x 32 columns, input-channel blocks of 16, chunks of 4
// rows, the next input row prefetched at every tap). The Winograd variant
// takes blocks of TR tile rows (2 output rows each): the input transform
// B^T d B of every 4x4 patch into V[16][C][TR * 80] (16 tiles per vector:
// even and odd columns split by one permute), 16 products
// M[xi][24][T] = U[xi][24][C] x V[xi][C][T] with the same 8x32 register
// tile, and the output transform A^T m A written back with the two columns
// of each tile interleaved. U = G g G^T is computed once, as a compiler
// would at compile time. Variants alternate call by call; it prints each
// median, its paired ratio to the first, and the largest difference between
// the two outputs relative to the largest output.
//
//   clang-22 -O3 -march=native bench/experiments/winograd3x3.c -o
//   build/winograd3x3 && build/winograd3x3 [ITERATIONS]
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { H = 160, W = 160, C = 96, M = 24, RS = 162, CB = 16, MAXIT = 400 };
#ifndef TR
#define TR 2
#endif
enum { TW = W / 2, T = TR * TW };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// Weights packed as [M / 8][3][3][C][8]; out starts at zero.
__attribute__((noinline)) static void direct(const float *in, const float *wp,
                                             float *out) {
  for (int y0 = 0; y0 < H; y0 += 4)
    for (int cb = 0; cb < C; cb += CB)
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
                const float *ip = in + (size_t)(y + kh) * C * RS +
                                  (size_t)cb * RS + x + kw;
                const float *w = wp + (((mt * 3 + kh) * 3 + kw) * C + cb) * 8;
#pragma clang loop unroll_count(4)
                for (int c = 0; c < CB; c++) {
                  _mm_prefetch((const char *)(ip + (C + c) * RS + 16 * kw),
                               _MM_HINT_T0);
                  __m512 a0 = _mm512_loadu_ps(ip + c * RS);
                  __m512 a1 = _mm512_loadu_ps(ip + c * RS + 16);
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

static float V[16][C][T] __attribute__((aligned(64)));
#ifdef PHASES
static double phase[3];
#define MARK(i) do { double t1 = now(); phase[i] += t1 - tp; tp = t1; } while (0)
#else
#define MARK(i) do { } while (0)
#endif
static float Mx[16][M][T] __attribute__((aligned(64)));

// U packed as [16][M / 8][C][8].
__attribute__((noinline)) static void winograd(const float *in, const float *u,
                                               float *out) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                        10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13,
                                       11, 9, 7, 5, 3, 1);
  const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2,
                                      17, 1, 16, 0);
  const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11,
                                      26, 10, 25, 9, 24, 8);
  double tp = now();
  (void)tp;
  for (int th0 = 0; th0 < H / 2; th0 += TR) {
    // Input transform.
    for (int tr = 0; tr < TR; tr++)
      for (int c = 0; c < C; c++)
        for (int tw = 0; tw < TW; tw += 16) {
          __m512 r[4][4];
          for (int i = 0; i < 4; i++) {
            const float *p =
                in + (size_t)(2 * (th0 + tr) + i) * C * RS + c * RS + 2 * tw;
            __m512 p0a = _mm512_loadu_ps(p), p0b = _mm512_loadu_ps(p + 16);
            __m512 p1a = _mm512_loadu_ps(p + 2), p1b = _mm512_loadu_ps(p + 18);
            __m512 d0 = _mm512_permutex2var_ps(p0a, even, p0b);
            __m512 d1 = _mm512_permutex2var_ps(p0a, odd, p0b);
            __m512 d2 = _mm512_permutex2var_ps(p1a, even, p1b);
            __m512 d3 = _mm512_permutex2var_ps(p1a, odd, p1b);
            r[i][0] = _mm512_sub_ps(d0, d2);
            r[i][1] = _mm512_add_ps(d1, d2);
            r[i][2] = _mm512_sub_ps(d2, d1);
            r[i][3] = _mm512_sub_ps(d1, d3);
          }
          int t = tr * TW + tw;
          for (int j = 0; j < 4; j++) {
            _mm512_store_ps(&V[0 + j][c][t], _mm512_sub_ps(r[0][j], r[2][j]));
            _mm512_store_ps(&V[4 + j][c][t], _mm512_add_ps(r[1][j], r[2][j]));
            _mm512_store_ps(&V[8 + j][c][t], _mm512_sub_ps(r[2][j], r[1][j]));
            _mm512_store_ps(&V[12 + j][c][t], _mm512_sub_ps(r[1][j], r[3][j]));
          }
        }
    MARK(0);
    // 16 products, 8 output channels x 32 tiles per register tile.
    for (int xi = 0; xi < 16; xi++)
      for (int t = 0; t < T; t += 32)
        for (int mt = 0; mt < M / 8; mt++) {
          __m512 acc[8][2];
          for (int r = 0; r < 8; r++)
            acc[r][0] = acc[r][1] = _mm512_setzero_ps();
          const float *w = u + ((size_t)(xi * (M / 8) + mt) * C) * 8;
#pragma clang loop unroll_count(4)
          for (int c = 0; c < C; c++) {
            __m512 a0 = _mm512_load_ps(&V[xi][c][t]);
            __m512 a1 = _mm512_load_ps(&V[xi][c][t + 16]);
            for (int r = 0; r < 8; r++) {
              __m512 b = _mm512_set1_ps(w[c * 8 + r]);
              acc[r][0] = _mm512_fmadd_ps(b, a0, acc[r][0]);
              acc[r][1] = _mm512_fmadd_ps(b, a1, acc[r][1]);
            }
          }
          for (int r = 0; r < 8; r++) {
            _mm512_store_ps(&Mx[xi][mt * 8 + r][t], acc[r][0]);
            _mm512_store_ps(&Mx[xi][mt * 8 + r][t + 16], acc[r][1]);
          }
        }
    MARK(1);
    // Output transform.
    for (int m = 0; m < M; m++)
      for (int tr = 0; tr < TR; tr++)
        for (int tw = 0; tw < TW; tw += 16) {
          int t = tr * TW + tw;
          __m512 s[2][4];
          for (int j = 0; j < 4; j++) {
            __m512 m0 = _mm512_load_ps(&Mx[j][m][t]),
                   m1 = _mm512_load_ps(&Mx[4 + j][m][t]),
                   m2 = _mm512_load_ps(&Mx[8 + j][m][t]),
                   m3 = _mm512_load_ps(&Mx[12 + j][m][t]);
            s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
            s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
          }
          for (int i = 0; i < 2; i++) {
            __m512 y0 = _mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]);
            __m512 y1 = _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3]);
            float *o = out + (size_t)m * H * W +
                       (size_t)(2 * (th0 + tr) + i) * W + 2 * tw;
            _mm512_storeu_ps(o, _mm512_permutex2var_ps(y0, lo, y1));
            _mm512_storeu_ps(o + 16, _mm512_permutex2var_ps(y0, hi, y1));
          }
        }
    MARK(2);
  }
}

static int byValue(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 25;
  if (iterations < 1 || iterations > MAXIT)
    iterations = 25;
  size_t inFloats = (size_t)(H + 2) * C * RS;
  float *in = aligned_alloc(64, sizeof(float) * inFloats);
  float g[M][C][3][3];
  float *wp = aligned_alloc(64, sizeof(float) * M * 9 * C);
  float *u = aligned_alloc(64, sizeof(float) * 16 * M * C);
  float *out[2] = {aligned_alloc(64, sizeof(float) * M * H * W),
                   aligned_alloc(64, sizeof(float) * M * H * W)};
  srand(1);
  for (int r = 0; r < H + 2; r++)
    for (int c = 0; c < C; c++)
      for (int x = 0; x < RS; x++)
        in[((size_t)r * C + c) * RS + x] =
            r == 0 || r == H + 1 || x == 0 || x == W + 1
                ? 0.0f
                : (float)rand() / (float)RAND_MAX - 0.5f;
  for (int m = 0; m < M; m++)
    for (int c = 0; c < C; c++)
      for (int k = 0; k < 9; k++)
        g[m][c][k / 3][k % 3] = ((float)rand() / (float)RAND_MAX - 0.5f) * 0.2f;
  for (int m = 0; m < M; m++)
    for (int c = 0; c < C; c++)
      for (int k = 0; k < 9; k++)
        wp[((((m / 8) * 3 + k / 3) * 3 + k % 3) * C + c) * 8 + m % 8] =
            g[m][c][k / 3][k % 3];
  // U = G g G^T, G = [[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]].
  static const float G[4][3] = {
      {1, 0, 0}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0, 0, 1}};
  for (int m = 0; m < M; m++)
    for (int c = 0; c < C; c++)
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
          float s = 0;
          for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
              s += G[a][i] * g[m][c][i][j] * G[b][j];
          u[((size_t)((a * 4 + b) * (M / 8) + m / 8) * C + c) * 8 + m % 8] = s;
        }
  static double t[2][MAXIT], ratio[MAXIT];
  for (int it = 0; it < iterations + 2; it++)
    for (int k = 0; k < 2; k++) {
      memset(out[k], 0, sizeof(float) * M * H * W);
      double t0 = now();
      if (k == 0)
        direct(in, wp, out[0]);
      else
        winograd(in, u, out[1]);
      if (it >= 2)
        t[k][it - 2] = now() - t0;
    }
  double maxOut = 0, maxDiff = 0;
  for (size_t i = 0; i < (size_t)M * H * W; i++) {
    maxOut = fmax(maxOut, fabs(out[0][i]));
    maxDiff = fmax(maxDiff, fabs(out[0][i] - out[1][i]));
  }
  for (int i = 0; i < iterations; i++)
    ratio[i] = t[1][i] / t[0][i];
  qsort(ratio, iterations, sizeof(double), byValue);
  double flop = 2.0 * M * H * W * C * 9;
  const char *names[2] = {"direct 8x32 (compiled structure)",
                          "Winograd F(2x2,3x3)"};
  for (int k = 0; k < 2; k++) {
    qsort(t[k], iterations, sizeof(double), byValue);
    printf("%-34s median %7.3f ms  %6.1f direct-GFLOP/s", names[k],
           t[k][iterations / 2] * 1e3, flop / t[k][iterations / 2] / 1e9);
    if (k)
      printf("  paired %.3f", ratio[iterations / 2]);
    printf("\n");
  }
#ifdef PHASES
  printf("phases per call: input transform %.3f ms, products %.3f ms, output "
         "transform %.3f ms\n",
         phase[0] * 1e3 / (iterations + 2), phase[1] * 1e3 / (iterations + 2),
         phase[2] * 1e3 / (iterations + 2));
#endif
  printf("max |direct - winograd| = %.3g (largest output %.3g)\n", maxDiff,
         maxOut);
  return 0;
}
