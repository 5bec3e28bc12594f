/* interleave.c - A/B timing of compiled models in one process: loads
 * several shared objects built by `tfrt-compile --emit=shared` for the same
 * model (same --name), gives them the same deterministic inputs, and calls
 * them in turn, one call each per iteration (in reverse order every other
 * iteration), so that every variant sees the same phases of a noisy
 * machine. Prints each variant's median, minimum and
 * first quartile, and the median over iterations of its time divided by the
 * first variant's time in the same iteration (the paired ratio).
 *
 *   cc -O2 -I runtime-lib/include bench/ab/interleave.c \
 *      -o build/interleave -ldl
 *   build/interleave NAME ITERATIONS A.so [B.so ...]
 *
 * Inputs are filled with a fixed pattern in [-0.5, 0.5); outputs are not
 * compared (correctness is the tests' job). THREADS in the environment
 * (default 1) is a comma-separated list of thread counts: every object
 * runs as one instance per count, each a variant of its own ("A.so@2t").
 * An instance for N > 1 gets a pool of N - 1 workers of the object's own
 * runtime (`NAME_set_pool`), so that its runs split their parallel loops
 * over N threads with the caller; for 1 no pool is set. `THREADS=1,2` with
 * one object measures its 2-thread time against its 1-thread time in the
 * same phases of the machine.
 */
#include "model_tensors.h"
#include "tfrt/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef tfrt_status (*pool_create_fn)(int32_t, tfrt_pool **);
typedef tfrt_status (*set_pool_fn)(void *, tfrt_pool *);

enum { kMaxVariants = 16, kMaxTensors = 16 };

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: [THREADS=N,...] %s NAME ITERATIONS A.so [B.so ...]\n",
            argv[0]);
    return 2;
  }
  const char *name = argv[1];
  const char *threadsText = getenv("THREADS");
  int counts[kMaxVariants], numCounts = 0;
  for (const char *p = threadsText ? threadsText : "1"; *p;) {
    char *end = NULL;
    long n = strtol(p, &end, 10);
    if (end == p || n < 1 || n > 256 || numCounts == kMaxVariants ||
        (*end && *end != ',')) {
      fprintf(stderr, "interleave: THREADS is a list of counts from 1 to "
                      "256, such as 1,2\n");
      return 2;
    }
    counts[numCounts++] = (int)n;
    p = *end ? end + 1 : end;
  }
  int objects = argc - 3;
  int iterations = atoi(argv[2]), variants = objects * numCounts;
  if (iterations < 1 || variants > kMaxVariants) {
    fprintf(stderr,
            "interleave: ITERATIONS >= 1 and at most %d objects x counts\n",
            kMaxVariants);
    return 2;
  }
  char label[kMaxVariants][512];
  void *instance[kMaxVariants];
  run_fn run[kMaxVariants];
  message_fn message = NULL;
  tfrt_tensor inputs[kMaxTensors], outputs[kMaxTensors];
  int numInputs = 0, numOutputs = 0;
  for (int v = 0; v < variants; ++v) {
    const char *path = argv[3 + v / numCounts];
    int threads = counts[v % numCounts];
    if (numCounts > 1)
      snprintf(label[v], sizeof label[v], "%s@%dt", path, threads);
    else
      snprintf(label[v], sizeof label[v], "%s", path);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      fprintf(stderr, "interleave: %s\n", dlerror());
      return 1;
    }
    create_fn create = (create_fn)symbol(lib, name, "_create");
    run[v] = (run_fn)symbol(lib, name, "_run");
    info_fn inputInfo = (info_fn)symbol(lib, name, "_input_info");
    info_fn outputInfo = (info_fn)symbol(lib, name, "_output_info");
    if (!create || !run[v] || !inputInfo || !outputInfo) {
      fprintf(stderr, "interleave: %s has no %s_create/_run/_input_info\n",
              label[v], name);
      return 1;
    }
    message = (message_fn)dlsym(lib, "tfrt_status_message");
    /* The objects carry the runtime: its element sizes. */
    dtype_size_fn elementBytes = (dtype_size_fn)dlsym(lib, "tfrt_dtype_size");
    tfrt_status st = create(&instance[v]);
    if (st) {
      fprintf(stderr, "interleave: %s: %s\n", label[v],
              message ? message(st) : "create failed");
      return 1;
    }
    if (threads > 1) {
      pool_create_fn poolCreate =
          (pool_create_fn)dlsym(lib, "tfrt_pool_create");
      set_pool_fn setPool = (set_pool_fn)symbol(lib, name, "_set_pool");
      tfrt_pool *pool = NULL;
      if (!poolCreate || !setPool) {
        fprintf(stderr, "interleave: %s has no tfrt_pool_create/%s_set_pool\n",
                label[v], name);
        return 1;
      }
      if ((st = poolCreate(threads - 1, &pool)) ||
          (st = setPool(instance[v], pool))) {
        fprintf(stderr, "interleave: %s: %s\n", label[v],
                message ? message(st) : "cannot set a pool");
        return 1;
      }
    }
    if (v > 0)
      continue;
    if (!elementBytes) {
      fprintf(stderr, "interleave: %s exports no tfrt_dtype_size\n", label[v]);
      return 1;
    }
    /* Tensors from the first object's descriptors. */
    numInputs = allocModelTensors(inputInfo, elementBytes, inputs, kMaxTensors);
    numOutputs =
        allocModelTensors(outputInfo, elementBytes, outputs, kMaxTensors);
    if (numInputs < 0 || numOutputs < 0) {
      fprintf(stderr, "interleave: out of memory\n");
      return 1;
    }
  }
  double *times = malloc(sizeof(double) * (size_t)iterations * variants);
  double *sorted = malloc(sizeof(double) * (size_t)iterations);
  if (!times || !sorted)
    return 1;
  // Odd iterations call the variants in reverse order: whichever runs
  // second finds the caches warmed by the first (the same weights, when
  // the variants are instances of one object), and alternating shares
  // that advantage out evenly.
  for (int it = -3; it < iterations; ++it)
    for (int i = 0; i < variants; ++i) {
      int v = (it & 1) ? variants - 1 - i : i;
      double start = now();
      tfrt_status st =
          run[v](instance[v], inputs, numInputs, outputs, numOutputs);
      double t = now() - start;
      if (st) {
        fprintf(stderr, "interleave: %s: %s\n", label[v],
                message ? message(st) : "run failed");
        return 1;
      }
      if (it >= 0)
        times[(size_t)v * iterations + it] = t;
    }
  for (int v = 0; v < variants; ++v) {
    double *mine = times + (size_t)v * iterations;
    for (int i = 0; i < iterations; ++i)
      sorted[i] = mine[i] / times[i];
    qsort(sorted, iterations, sizeof(double), compare);
    double ratio = sorted[iterations / 2];
    memcpy(sorted, mine, sizeof(double) * iterations);
    qsort(sorted, iterations, sizeof(double), compare);
    printf("%-40s median %.3f ms  min %.3f  q1 %.3f  paired ratio vs first "
           "%.3f\n",
           label[v], sorted[iterations / 2] * 1e3, sorted[0] * 1e3,
           sorted[iterations / 4] * 1e3, ratio);
  }
  return 0;
}
