// Band-fusion prototype (AVX-512 intrinsics, not part of the compiler): det's
// Conv.2 (1x1, 16 -> 32 channels on 320x320) + hard-swish + Conv.3 (depthwise
// 3x3, stride 2, pad 1) computed (a) as three passes over memory, as the
// compiled model does today, and (b) fused: each row of the 1x1 conv goes
// into a ring of three padded rows (124 KB, L2-resident) and each output row
// of the depthwise conv is computed as soon as its three input rows exist.
// Prints the best of N repetitions of each pass and of the fused loop, the
// time of the 1x1 conv inside it (rdtsc around each row) and its GFLOP/s
// against the peak given, and checks that both orders give the same result.
//
//   clang-22 -O3 -march=native -DPF=640 -DEPILOGUE_IN_TILE=0 \
//       bench/experiments/band_pw_dw.c -lm -o build/band_pw_dw
//   build/band_pw_dw REPS PEAK_GFLOPS [warm]
//
// PF: software prefetch distance (floats) of the 1x1 conv's input rows (0:
// none); EPILOGUE_IN_TILE=1 applies hard-swish to the register tile before
// its store, 0 in a separate pass over the ring row; `warm`: the chain's
// input is in cache (as when its producer was fused too), else evicted.
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#ifndef EPILOGUE_IN_TILE
#define EPILOGUE_IN_TILE 1
#endif
#ifndef PF
#define PF 0
#endif
enum {
  CI = 16,
  CM = 32,
  H = 320,
  W = 320,
  HP = 322,
  WP = 322,
  HO = 160,
  WO = 160
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static float *alloc(size_t n) {
  float *p = aligned_alloc(64, ((n * 4 + 63) / 64) * 64);
  memset(p, 0, n * 4);
  return p;
}

static float w2[CM][CI], b2[CM], wd[CM][9], bd[CM];

static inline __m512 hswish(__m512 v) {
  __m512 t = _mm512_min_ps(
      _mm512_max_ps(_mm512_add_ps(v, _mm512_set1_ps(3.f)), _mm512_setzero_ps()),
      _mm512_set1_ps(6.f));
  return _mm512_mul_ps(v, _mm512_mul_ps(t, _mm512_set1_ps(1.f / 6.f)));
}

// One row of the 1x1 conv: out[m][0..W) = b + sum_k w2[m][k] * in[k][0..W)
// (in: channel stride sin; out: channel stride sout), 8 rows x 32 columns
// per register tile; optional hard-swish before the store.
static void pw_row(const float *in, size_t sin, float *out, size_t sout,
                   int act) {
  for (int m0 = 0; m0 < CM; m0 += 8)
    for (int w0 = 0; w0 < W; w0 += 32) {
      __m512 acc[8][2];
      for (int i = 0; i < 8; ++i)
        acc[i][0] = acc[i][1] = _mm512_set1_ps(b2[m0 + i]);
      for (int k = 0; k < CI; ++k) {
        if (PF > 0 && m0 == 0) {
          _mm_prefetch((const char *)(in + k * sin + w0 + PF), _MM_HINT_T0);
          _mm_prefetch((const char *)(in + k * sin + w0 + PF + 16),
                       _MM_HINT_T0);
        }
        __m512 x0 = _mm512_loadu_ps(in + k * sin + w0);
        __m512 x1 = _mm512_loadu_ps(in + k * sin + w0 + 16);
        for (int i = 0; i < 8; ++i) {
          __m512 wv = _mm512_set1_ps(w2[m0 + i][k]);
          acc[i][0] = _mm512_fmadd_ps(wv, x0, acc[i][0]);
          acc[i][1] = _mm512_fmadd_ps(wv, x1, acc[i][1]);
        }
      }
      for (int i = 0; i < 8; ++i) {
        __m512 a0 = act ? hswish(acc[i][0]) : acc[i][0];
        __m512 a1 = act ? hswish(acc[i][1]) : acc[i][1];
        _mm512_storeu_ps(out + (m0 + i) * sout + w0, a0);
        _mm512_storeu_ps(out + (m0 + i) * sout + w0 + 16, a1);
      }
    }
}

// One output row of the depthwise 3x3 stride-2 conv of channel c from three
// padded rows r0..r2 (WP wide).
static void dw_row(const float *r0, const float *r1, const float *r2, int c,
                   float *out) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                        23, 25, 27, 29, 31);
  const __m512i even2 = _mm512_setr_epi32(2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                          22, 24, 26, 28, 30, 32);
  const float *rows[3] = {r0, r1, r2};
  for (int j = 0; j < WO; j += 16) {
    __m512 acc = _mm512_set1_ps(bd[c]);
    for (int kh = 0; kh < 3; ++kh) {
      const float *r = rows[kh] + 2 * j;
      __m512 a = _mm512_loadu_ps(r), b = _mm512_loadu_ps(r + 16);
      __m512 c2 = _mm512_maskz_loadu_ps(1, r + 32);
      __m512 e = _mm512_permutex2var_ps(a, even, b);
      __m512 o = _mm512_permutex2var_ps(a, odd, b);
      // kw = 2: the even lanes shifted by one, r[32] in the last lane.
      __m512 e2 = _mm512_permutex2var_ps(a, even2, b);
      e2 = _mm512_mask_mov_ps(e2, 0x8000,
                              _mm512_permutexvar_ps(_mm512_set1_epi32(0), c2));
      acc = _mm512_fmadd_ps(_mm512_set1_ps(wd[c][kh * 3 + 0]), e, acc);
      acc = _mm512_fmadd_ps(_mm512_set1_ps(wd[c][kh * 3 + 1]), o, acc);
      acc = _mm512_fmadd_ps(_mm512_set1_ps(wd[c][kh * 3 + 2]), e2, acc);
    }
    _mm512_storeu_ps(out + j, acc);
  }
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  srand(7);
  for (int m = 0; m < CM; ++m) {
    for (int k = 0; k < CI; ++k)
      w2[m][k] = rand() / (float)RAND_MAX - 0.5f;
    b2[m] = rand() / (float)RAND_MAX - 0.5f;
    for (int t = 0; t < 9; ++t)
      wd[m][t] = rand() / (float)RAND_MAX - 0.5f;
    bd[m] = rand() / (float)RAND_MAX - 0.5f;
  }
  float *x = alloc((size_t)CI * H * W);
  for (size_t i = 0; i < (size_t)CI * H * W; ++i)
    x[i] = rand() / (float)RAND_MAX - 0.5f;
  float *y = alloc((size_t)CM * H * W);     // conv output
  float *z = alloc((size_t)CM * HP * WP);   // hard-swish, padded
  float *o1 = alloc((size_t)CM * HO * WO);  // unfused result
  float *o2 = alloc((size_t)CM * HO * WO);  // fused result
  float *ring = alloc((size_t)3 * CM * WP); // fused: 3 padded rows per channel
  float *evict = alloc((size_t)64 << 20 >> 2); // 64 MB to flush caches
  double tA = 1e9, tB = 1e9, tC = 1e9, tF = 1e9, tPW = 1e9, ticksPerSec = 0;
  for (int rep = 0; rep < reps; ++rep) {
    // The chain's input comes from memory in the model: evict.
    for (size_t i = 0; i < ((size_t)64 << 20 >> 2); i += 16)
      evict[i] += 1;
    double t0 = now();
    for (int h = 0; h < H; ++h)
      pw_row(x + h * W, (size_t)H * W, y + h * W, (size_t)H * W, 0);
    double t1 = now();
    for (int c = 0; c < CM; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; w += 16)
          _mm512_storeu_ps(
              z + ((size_t)c * HP + h + 1) * WP + w + 1,
              hswish(_mm512_loadu_ps(y + ((size_t)c * H + h) * W + w)));
    double t2 = now();
    for (int c = 0; c < CM; ++c)
      for (int r = 0; r < HO; ++r) {
        const float *base = z + (size_t)c * HP * WP;
        dw_row(base + (2 * r) * WP, base + (2 * r + 1) * WP,
               base + (2 * r + 2) * WP, c, o1 + ((size_t)c * HO + r) * WO);
      }
    double t3 = now();
    if (t1 - t0 < tA)
      tA = t1 - t0;
    if (t2 - t1 < tB)
      tB = t2 - t1;
    if (t3 - t2 < tC)
      tC = t3 - t2;

    if (argc <= 3)
      for (size_t i = 0; i < ((size_t)64 << 20 >> 2); i += 16)
        evict[i] += 1;
    else // the input warm (as if its producer had just run)
      for (size_t i = 0; i < (size_t)CI * H * W; i += 16)
        x[i] += 0;
    // Fused: padded row p (0..321) of the conv output lives in ring slot p % 3.
    double f0 = now();
    unsigned long long pwCycles = 0, c0, c1;
    memset(ring, 0,
           (size_t)3 * CM * WP * 4); // padded row 0 (zeros) and borders
    int next = 1;                    // next padded row to compute
    for (int r = 0; r < HO; ++r) {
      int need = 2 * r + 2; // rows 2r, 2r+1, 2r+2 (padded)
      while (next <= need) {
        float *slot = ring + (size_t)(next % 3) * CM * WP;
        if (next <= H) {
          c0 = __rdtsc();
          pw_row(x + (next - 1) * W, (size_t)H * W, slot + 1, WP,
                 EPILOGUE_IN_TILE);
          c1 = __rdtsc();
          pwCycles += c1 - c0;
          if (!EPILOGUE_IN_TILE)
            for (int c = 0; c < CM; ++c)
              for (int w = 0; w < W; w += 16)
                _mm512_storeu_ps(
                    slot + c * WP + 1 + w,
                    hswish(_mm512_loadu_ps(slot + c * WP + 1 + w)));
        } else {
          memset(slot, 0, (size_t)CM * WP * 4);
        }
        ++next;
      }
      for (int c = 0; c < CM; ++c)
        dw_row(ring + ((size_t)((2 * r) % 3) * CM + c) * WP,
               ring + ((size_t)((2 * r + 1) % 3) * CM + c) * WP,
               ring + ((size_t)((2 * r + 2) % 3) * CM + c) * WP, c,
               o2 + ((size_t)c * HO + r) * WO);
    }
    double f1 = now();
    if (f1 - f0 < tF)
      tF = f1 - f0;
    // The time stamp counter ticks at a constant rate: measure it once.
    if (!ticksPerSec) {
      unsigned long long a = __rdtsc();
      double s = now();
      while (now() - s < 0.05) {
      }
      ticksPerSec = (__rdtsc() - a) / (now() - s);
    }
    double pw = pwCycles / ticksPerSec;
    if (pw < tPW)
      tPW = pw;
  }
  double maxd = 0;
  for (size_t i = 0; i < (size_t)CM * HO * WO; ++i) {
    double d = fabs(o1[i] - o2[i]);
    if (d > maxd)
      maxd = d;
  }
  // A scalar reference at sampled outputs (borders included).
  double maxr = 0;
  for (int c = 0; c < CM; c += 5)
    for (int r = 0; r < HO; r += 7)
      for (int j = 0; j < WO; j += (j == 0 ? 1 : 13)) {
        double acc = bd[c];
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            int h = 2 * r + kh - 1, w = 2 * j + kw - 1;
            if (h < 0 || h >= H || w < 0 || w >= W)
              continue;
            double v = b2[c];
            for (int k = 0; k < CI; ++k)
              v += (double)w2[c][k] * x[((size_t)k * H + h) * W + w];
            double t = fmin(fmax(v + 3, 0), 6);
            acc += wd[c][kh * 3 + kw] * (v * t / 6);
          }
        double d = fabs(acc - o2[((size_t)c * HO + r) * WO + j]);
        if (d > maxr)
          maxr = d;
      }
  printf("max |fused - scalar reference| = %.3g (sampled)\n", maxr);
  double pwFlop = 2.0 * CI * CM * H * W;
  double peak = argc > 2 ? atof(argv[2]) : 0;
  printf("unfused: conv1x1 %.3f ms, hard-swish+pad %.3f ms, dw s2 %.3f ms, "
         "total %.3f ms\n",
         tA * 1e3, tB * 1e3, tC * 1e3, (tA + tB + tC) * 1e3);
  printf("fused:   total %.3f ms, of which conv1x1%s %.3f ms\n", tF * 1e3,
         EPILOGUE_IN_TILE ? " with hard-swish in its tile"
                          : " (hard-swish a separate pass on the row)",
         tPW * 1e3);
  if (peak > 0)
    printf(
        "conv1x1 GFLOP/s: unfused %.1f (%.1f%%), fused %.1f (%.1f%%) of %.1f\n",
        pwFlop / tA * 1e-9, 100 * pwFlop / tA * 1e-9 / peak,
        pwFlop / tPW * 1e-9, 100 * pwFlop / tPW * 1e-9 / peak, peak);
  printf("max |unfused - fused| = %.3g\n", maxd);
  return 0;
}
