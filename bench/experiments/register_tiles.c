// Register tiles alone (AVX-512 intrinsics, not part of the compiler): an
// R-row x V-vector tile of accumulators, R broadcast weights and V input
// vectors per step, K = 64 steps over data that stay in L1, repeated. It
// shows what the core sustains for each tile shape with no memory traffic
// beyond L1; 24x16 compiles to FMAs with embedded broadcasts
// (`vfmadd231ps m32{1to16}`), the others to separate `vbroadcastss`.
//
//   clang-22 -O3 -march=native bench/experiments/register_tiles.c -o
//   build/register_tiles && build/register_tiles
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define TILE(NAME, R, V)                                                       \
  __attribute__((noinline)) static void NAME(const float *a, const float *b,   \
                                             float *c, int k, int reps) {      \
    for (int rep = 0; rep < reps; rep++) {                                     \
      __m512 acc[R][V];                                                        \
      for (int r = 0; r < R; r++)                                              \
        for (int v = 0; v < V; v++)                                            \
          acc[r][v] = _mm512_load_ps(c + (r * V + v) * 16);                    \
      _Pragma("clang loop unroll_count(4)") for (int s = 0; s < k; s++) {      \
        __m512 x[V];                                                           \
        for (int v = 0; v < V; v++)                                            \
          x[v] = _mm512_load_ps(b + (s * V + v) * 16);                         \
        for (int r = 0; r < R; r++) {                                          \
          __m512 w = _mm512_set1_ps(a[s * R + r]);                             \
          for (int v = 0; v < V; v++)                                          \
            acc[r][v] = _mm512_fmadd_ps(w, x[v], acc[r][v]);                   \
        }                                                                      \
      }                                                                        \
      for (int r = 0; r < R; r++)                                              \
        for (int v = 0; v < V; v++)                                            \
          _mm512_store_ps(c + (r * V + v) * 16, acc[r][v]);                    \
    }                                                                          \
  }

TILE(tile8x32, 8, 2)
TILE(tile4x64, 4, 4)
TILE(tile6x64, 6, 4)
TILE(tile12x32, 12, 2)
TILE(tile16x16, 16, 1)
TILE(tile24x16, 24, 1)

typedef void (*Tile)(const float *, const float *, float *, int, int);

static int byValue(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  static const Tile tiles[] = {tile8x32,  tile4x64,  tile6x64,
                               tile12x32, tile16x16, tile24x16};
  static const int fmas[] = {16, 16, 24, 24, 16, 24};
  static const char *names[] = {"8x32",  "4x64",  "6x64",
                                "12x32", "16x16", "24x16"};
  enum { N = 6, ROUNDS = 9, K = 64, REPS = 20000 };
  float *a = aligned_alloc(64, sizeof(float) * K * 24);
  float *b = aligned_alloc(64, sizeof(float) * K * 64);
  float *c = aligned_alloc(64, sizeof(float) * 24 * 64);
  if (!a || !b || !c)
    return 1;
  for (int i = 0; i < K * 24; i++)
    a[i] = 1e-3f;
  for (int i = 0; i < K * 64; i++)
    b[i] = 1e-3f;
  for (int i = 0; i < 24 * 64; i++)
    c[i] = 0;
  double g[N][ROUNDS];
  for (int round = 0; round < ROUNDS; round++)
    for (int f = 0; f < N; f++) {
      double t0 = now();
      tiles[f](a, b, c, K, REPS);
      g[f][round] = 2.0 * fmas[f] * 16 * K * REPS / (now() - t0) / 1e9;
    }
  for (int f = 0; f < N; f++) {
    qsort(g[f], ROUNDS, sizeof(double), byValue);
    printf("%-6s median %6.1f GFLOP/s (max %.1f)\n", names[f], g[f][ROUNDS / 2],
           g[f][ROUNDS - 1]);
  }
  return 0;
}
