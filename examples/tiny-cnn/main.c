/*===- examples/tiny-cnn/main.c - use a model compiled by tfrt-compile -----===*
 *
 * tiny_cnn (model.json: Conv+bias -> Relu -> MaxPool -> Flatten -> Gemm ->
 * Softmax) compiled ahead of time:
 *
 *   build/bin/tfrt-compile examples/tiny-cnn/model.json --name tiny_cnn \
 *       -o OUT --emit=obj
 *   clang-22 -I runtime-lib/include -I OUT examples/tiny-cnn/main.c \
 *       OUT/tiny_cnn.o build/lib/libtfrt_runtime.a -lm -lstdc++ -o tiny_cnn
 *
 * The program creates an instance, runs it on a fixed 1x1x8x8 input, prints
 * the class probabilities and checks them against values computed
 * independently (a float64 NumPy reference, confirmed by ONNX Runtime).
 * Exit status 0 when they match, 1 otherwise or on any error status.
 *===----------------------------------------------------------------------===*/
#include <math.h>
#include <stdio.h>

#include "tiny_cnn.h"

enum { kClasses = 3 };

/* Expected softmax output for the input below. */
static const float kExpected[kClasses] = {0.299851588f, 0.14253679f,
                                          0.557611622f};

static int check(tfrt_status status, const char *what) {
  if (status == NULL)
    return 0;
  fprintf(stderr, "error: %s failed: %s (code %d)\n", what,
          tfrt_status_message(status), (int)tfrt_status_code(status));
  tfrt_status_free(status);
  return 1;
}

int main(void) {
  const tfrt_model_desc *desc = tiny_cnn_descriptor();
  printf("model %s: %u input(s), %u output(s), workspace %llu bytes\n",
         desc->name, desc->num_inputs, desc->num_outputs,
         (unsigned long long)desc->workspace_size);

  /* A deterministic input: a fixed pattern in [-0.5, 0.5]. */
  float x[1 * 1 * 8 * 8];
  for (int i = 0; i < 64; ++i)
    x[i] = (float)(((i * 7) % 11) / 10.0 - 0.5);
  float y[1 * kClasses] = {0};

  static const int64_t x_dims[4] = {1, 1, 8, 8};
  static const int64_t y_dims[2] = {1, kClasses};
  tfrt_tensor input = {x, TFRT_DTYPE_FLOAT32, 4, x_dims};
  tfrt_tensor output = {y, TFRT_DTYPE_FLOAT32, 2, y_dims};

  tfrt_instance *inst = NULL;
  if (check(tiny_cnn_create(&inst), "tiny_cnn_create"))
    return 1;
  int failed = check(tiny_cnn_run(inst, &input, 1, &output, 1), "tiny_cnn_run");
  /* Run twice: an instance is reusable and results must not change. */
  float first[kClasses];
  for (int c = 0; c < kClasses; ++c)
    first[c] = y[c];
  if (!failed)
    failed = check(tiny_cnn_run(inst, &input, 1, &output, 1), "tiny_cnn_run");
  failed |= check(tiny_cnn_destroy(inst), "tiny_cnn_destroy");
  if (failed)
    return 1;

  float sum = 0.0f;
  int best = 0;
  for (int c = 0; c < kClasses; ++c) {
    printf("y[0][%d] = %.6f\n", c, y[c]);
    sum += y[c];
    if (y[c] > y[best])
      best = c;
    if (fabsf(y[c] - kExpected[c]) > 1e-5f) {
      fprintf(stderr, "error: y[0][%d] = %.7f, expected %.7f\n", c, y[c],
              kExpected[c]);
      failed = 1;
    }
    if (y[c] != first[c]) {
      fprintf(stderr, "error: second run gave y[0][%d] = %.7f, first %.7f\n", c,
              y[c], first[c]);
      failed = 1;
    }
  }
  printf("sum = %.6f, predicted class = %d\n", sum, best);
  if (failed)
    return 1;
  printf("OK: outputs match the reference\n");
  return 0;
}
