// GEMM 1024^3 prototype (AVX-512 intrinsics, not part of the compiler): the
// loop structure tfrt-vectorize-matmul generates inside the parallel chunks
// of tfrt-async-tile-loops, to see what the chunk size costs. The right
// operand is packed into [N/32][K][32] panels (as the compiler does for
// N = 1024) on every call when `pack` is 1; each chunk of CH rows then runs
// column blocks of NC, K blocks of 256, 8-row x 32-column register tiles.
// Every chunk streams the whole packed operand (4 MiB) through the caches,
// so small chunks read it from L3 many times. Variants run interleaved, 40
// times each; it prints the minimum and the median and their % of a 175
// GFLOP/s peak (an Intel Xeon VM's peak_fma; pass another with -DPEAK=).
//
//   clang-22 -O3 -march=native bench/experiments/gemm_chunks.c -o
//   build/gemm_chunks build/gemm_chunks CH NC PACK [CH NC PACK ...]    e.g. 32
//   256 1  128 256 1
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef PEAK
#define PEAK 175.0
#endif
#define MR 8
#define KC 256
#define S 1024
#define RUNS 40
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static float *A, *B, *C, *Bp;
static inline void tile(const float *a, const float *b, float *c, int first) {
  __m512 acc[MR][2];
  for (int i = 0; i < MR; i++) {
    acc[i][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * S);
    acc[i][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + i * S + 16);
  }
  for (int k = 0; k < KC; k++) {
    __m512 b0 = _mm512_loadu_ps(b + k * 32),
           b1 = _mm512_loadu_ps(b + k * 32 + 16);
    for (int i = 0; i < MR; i++) {
      __m512 x = _mm512_set1_ps(a[i * S + k]);
      acc[i][0] = _mm512_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < MR; i++) {
    _mm512_storeu_ps(c + i * S, acc[i][0]);
    _mm512_storeu_ps(c + i * S + 16, acc[i][1]);
  }
}
__attribute__((noinline)) static void gemm(int ch, int nc, int pack) {
  if (pack)
    for (int j = 0; j < S; j += 32)
      for (int k = 0; k < S; k++)
        memcpy(Bp + (long)(j / 32) * S * 32 + k * 32, B + (long)k * S + j, 128);
  for (int c0 = 0; c0 < S; c0 += ch)
    for (int n0 = 0; n0 < S; n0 += nc)
      for (int k0 = 0; k0 < S; k0 += KC)
        for (int m = c0; m < c0 + ch; m += MR)
          for (int j = n0; j < n0 + nc; j += 32)
            tile(A + (long)m * S + k0, Bp + (long)(j / 32) * S * 32 + k0 * 32,
                 C + (long)m * S + j, k0 == 0);
}
static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}
int main(int argc, char **argv) {
  int nv = (argc - 1) / 3;
  if (nv < 1 || nv > 16) {
    fprintf(stderr,
            "usage: %s CH NC PACK [CH NC PACK ...] (1 to 16 variants)\n",
            argv[0]);
    return 1;
  }
  A = aligned_alloc(64, 4L * S * S);
  B = aligned_alloc(64, 4L * S * S);
  C = aligned_alloc(64, 4L * S * S);
  Bp = aligned_alloc(64, 4L * S * S);
  for (long i = 0; i < (long)S * S; i++) {
    A[i] = (rand() % 7 - 3) * 0.25f;
    B[i] = (rand() % 5 - 2) * 0.5f;
    Bp[i] = 0;
  }
  static double t[16][RUNS];
  for (int r = 0; r < RUNS; r++)
    for (int v = 0; v < nv; v++) {
      double s = now();
      gemm(atoi(argv[1 + 3 * v]), atoi(argv[2 + 3 * v]), atoi(argv[3 + 3 * v]));
      t[v][r] = now() - s;
    }
  double fl = 2.0 * S * S * S;
  for (int v = 0; v < nv; v++) {
    qsort(t[v], RUNS, sizeof(double), cmp);
    printf(
        "CH=%s NC=%s pack=%s: min %.2f ms (%.1f%%), median %.2f ms (%.1f%%)\n",
        argv[1 + 3 * v], argv[2 + 3 * v], argv[3 + 3 * v], t[v][0] * 1e3,
        100 * fl / t[v][0] / 1e9 / PEAK, t[v][RUNS / 2] * 1e3,
        100 * fl / t[v][RUNS / 2] / 1e9 / PEAK);
  }
  return 0;
}
