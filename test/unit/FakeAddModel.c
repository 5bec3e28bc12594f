/*===- FakeAddModel.c - hand-written stand-in for an --emit=shared model ---===*
 *
 * Implements, by hand, the entry points tfrt-compile emits for
 * `--emit=shared --name NAME`: NAME_create, NAME_run, NAME_destroy and
 * NAME_descriptor, on top of the static runtime-lib (so the library also
 * exports the tfrt_status_* functions, like a compiled model). The model has
 * inputs a, b (float32 [2,3]) and outputs "sum/out" = a + b (float32 [2,3])
 * and "count" (int64 scalar, always 6). Built twice: as fakeadd.so and, with
 * FAKE_MODEL_FAIL_CREATE, as fakefail.so whose NAME_create always fails.
 *===----------------------------------------------------------------------===*/

#include "tfrt/runtime.h"

#ifndef FAKE_MODEL_NAME
#define FAKE_MODEL_NAME fakeadd
#endif

#define FAKE_CONCAT2(a, b) a##b
#define FAKE_CONCAT(a, b) FAKE_CONCAT2(a, b)
#define FAKE_SYMBOL(suffix) FAKE_CONCAT(FAKE_MODEL_NAME, suffix)
#define FAKE_STRING2(x) #x
#define FAKE_STRING(x) FAKE_STRING2(x)

#define FAKE_EXPORT __attribute__((visibility("default")))

static const int64_t kDims[] = {2, 3};

static const tfrt_tensor_desc kInputs[] = {
    {"a", TFRT_DTYPE_FLOAT32, 2, kDims},
    {"b", TFRT_DTYPE_FLOAT32, 2, kDims},
};

static const tfrt_tensor_desc kOutputs[] = {
    {"sum/out", TFRT_DTYPE_FLOAT32, 2, kDims},
    {"count", TFRT_DTYPE_INT64, 0, 0},
};

static void entry(void *const *inputs, void *const *outputs, void *workspace,
                  tfrt_run_context *run) {
  (void)run;
  const float *a = (const float *)inputs[0];
  const float *b = (const float *)inputs[1];
  float *scratch = (float *)workspace;
  float *sum = (float *)outputs[0];
  int i;
  for (i = 0; i < 6; ++i)
    scratch[i] = a[i] + b[i];
  for (i = 0; i < 6; ++i)
    sum[i] = scratch[i];
  *(int64_t *)outputs[1] = 6;
}

static const tfrt_model_desc kDescriptor = {
    TFRT_MODEL_ABI_VERSION,
    2,
    2,
    0,
    FAKE_STRING(FAKE_MODEL_NAME),
    kInputs,
    kOutputs,
    6 * sizeof(float),
    64,
    entry,
};

FAKE_EXPORT const tfrt_model_desc *FAKE_SYMBOL(_descriptor)(void) {
  return &kDescriptor;
}

FAKE_EXPORT tfrt_status FAKE_SYMBOL(_create)(tfrt_instance **out) {
#ifdef FAKE_MODEL_FAIL_CREATE
  if (out)
    *out = 0;
  return tfrt_status_create(TFRT_UNAVAILABLE, "no accelerator available");
#else
  return tfrt_model_create(&kDescriptor, out);
#endif
}

FAKE_EXPORT tfrt_status FAKE_SYMBOL(_run)(tfrt_instance *instance,
                                          const tfrt_tensor *inputs,
                                          size_t num_inputs,
                                          const tfrt_tensor *outputs,
                                          size_t num_outputs) {
  return tfrt_model_run(instance, inputs, num_inputs, outputs, num_outputs);
}

FAKE_EXPORT tfrt_status FAKE_SYMBOL(_destroy)(tfrt_instance *instance) {
  return tfrt_model_destroy(instance);
}
