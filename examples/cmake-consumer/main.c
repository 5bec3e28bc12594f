/* examples/cmake-consumer/main.c - two models compiled by tfrt_compile_model()
 * in one program.
 *
 * Runs tiny_cnn (examples/tiny-cnn/model.json) on a fixed 1x1x8x8 input and
 * mlp (mlp.json, batch fixed at 2) on a fixed 2x6 input, and prints every
 * output value, one line per model:
 *   tiny_cnn.y: v0 v1 v2
 *   mlp.y: v0 ... v7
 * Exit status 0 when every call succeeded. */
#include <stdio.h>

#include "mlp.h"
#include "tiny_cnn.h"

static int failed(tfrt_status status, const char *what) {
  if (status == NULL)
    return 0;
  fprintf(stderr, "error: %s: %s\n", what, tfrt_status_message(status));
  tfrt_status_free(status);
  return 1;
}

static void print_values(const char *label, const float *v, long long n) {
  printf("%s:", label);
  for (long long i = 0; i < n; ++i)
    printf(" %.9g", v[i]);
  printf("\n");
}

static int run_tiny_cnn(void) {
  static float x[TINY_CNN_INPUT_0_ELEMENTS];
  static float y[TINY_CNN_OUTPUT_0_ELEMENTS];
  for (long long i = 0; i < TINY_CNN_INPUT_0_ELEMENTS; ++i)
    x[i] = (float)(((i * 7) % 11) / 10.0 - 0.5);
  const tfrt_model_desc *d = tiny_cnn_descriptor();
  tfrt_tensor in = {x, d->inputs[0].dtype, d->inputs[0].rank, d->inputs[0].dims};
  tfrt_tensor out = {y, d->outputs[0].dtype, d->outputs[0].rank,
                     d->outputs[0].dims};
  tfrt_instance *inst = NULL;
  if (failed(tiny_cnn_create(&inst), "tiny_cnn_create"))
    return 1;
  int bad = failed(tiny_cnn_run(inst, &in, 1, &out, 1), "tiny_cnn_run");
  bad |= failed(tiny_cnn_destroy(inst), "tiny_cnn_destroy");
  if (!bad)
    print_values("tiny_cnn.y", y, TINY_CNN_OUTPUT_0_ELEMENTS);
  return bad;
}

static int run_mlp(void) {
  static float x[MLP_INPUT_0_ELEMENTS];
  static float y[MLP_OUTPUT_0_ELEMENTS];
  for (long long i = 0; i < MLP_INPUT_0_ELEMENTS; ++i)
    x[i] = (float)(((i * 3) % 7) / 6.0 - 0.5);
  const tfrt_model_desc *d = mlp_descriptor();
  tfrt_tensor in = {x, d->inputs[0].dtype, d->inputs[0].rank, d->inputs[0].dims};
  tfrt_tensor out = {y, d->outputs[0].dtype, d->outputs[0].rank,
                     d->outputs[0].dims};
  tfrt_instance *inst = NULL;
  if (failed(mlp_create(&inst), "mlp_create"))
    return 1;
  int bad = failed(mlp_run(inst, &in, 1, &out, 1), "mlp_run");
  bad |= failed(mlp_destroy(inst), "mlp_destroy");
  if (!bad)
    print_values("mlp.y", y, MLP_OUTPUT_0_ELEMENTS);
  return bad;
}

int main(void) {
  int bad = run_tiny_cnn();
  bad |= run_mlp();
  return bad ? 1 : 0;
}
