/* Links a model compiled from add_relu.mlir with --target=cuda (NAME=m,
 * a: 2x4, b: 4). Prints the status of m_create; without a CUDA driver or
 * device that is the documented TFRT_UNAVAILABLE error and the program exits
 * cleanly. With a GPU it runs the model and prints the outputs. */
#include "m.h"
#include "tfrt/cuda.h"

#include <stdio.h>

static int report(const char *what, tfrt_status st) {
  if (!st) {
    printf("%s: ok\n", what);
    return 0;
  }
  printf("%s: error %d: %s\n", what, (int)tfrt_status_code(st),
         tfrt_status_message(st));
  tfrt_status_free(st);
  return 1;
}

int main(void) {
  const tfrt_model_desc *desc = m_descriptor();
  printf("flags: %u\n", desc->flags);
  /* A CUDA descriptor is refused by the CPU entry point. */
  tfrt_instance *cpu = NULL;
  report("cpu create", tfrt_model_create(desc, &cpu));

  tfrt_instance *inst = NULL;
  if (report("create", m_create(&inst)))
    return 0;
  float a[8] = {-1, 2, -3, 4, 5, -6, 7, -8};
  float b[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  float y[8], z[8];
  int64_t da[2] = {2, 4}, db[1] = {4}, bad[2] = {2, 5};
  tfrt_tensor in[2] = {{a, TFRT_DTYPE_FLOAT32, 2, da},
                       {b, TFRT_DTYPE_FLOAT32, 1, db}};
  tfrt_tensor out[2] = {{y, TFRT_DTYPE_FLOAT32, 2, da},
                        {z, TFRT_DTYPE_FLOAT32, 2, da}};
  for (int rep = 0; rep < 2; ++rep)
    report("run", m_run(inst, in, 2, out, 2));
  /* Device time of the last run from the instance's CUDA events. */
  float kernels_ms = -1, with_copies_ms = -1;
  if (!report("times",
              tfrt_cuda_last_run_times(inst, &kernels_ms, &with_copies_ms)))
    printf("device times: %s\n", kernels_ms >= 0 && with_copies_ms >= kernels_ms
                                     ? "plausible"
                                     : "implausible");
  printf("y:");
  for (int i = 0; i < 8; ++i)
    printf(" %g", y[i]);
  printf("\nz:");
  for (int i = 0; i < 8; ++i)
    printf(" %g", z[i]);
  printf("\n");
  tfrt_tensor shp[2] = {in[0], in[1]};
  shp[0].dims = bad;
  report("shape mismatch", m_run(inst, shp, 2, out, 2));
  /* A second instance shares the loaded kernels. */
  tfrt_instance *second = NULL;
  report("second create", m_create(&second));
  report("second run", m_run(second, in, 2, out, 2));
  report("destroy", m_destroy(inst));
  report("second destroy", m_destroy(second));
  return 0;
}
