/* Links a model compiled from add_relu.mlir (NAME=m, a: 2x4, b: 4) and
 * exercises the generated C API: a correct run, then every run-time misuse,
 * each of which must come back as an error status with a message. */
#include "m.h"

#include <stdio.h>
#include <string.h>

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
  tfrt_instance *inst = NULL;
  if (report("create", m_create(&inst)))
    return 1;
  float a[8] = {-1, 2, -3, 4, 5, -6, 7, -8};
  float b[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  float y[8], z[8];
  int64_t da[2] = {2, 4}, db[1] = {4}, bad[2] = {2, 5};
  tfrt_tensor in[2] = {{a, TFRT_DTYPE_FLOAT32, 2, da},
                       {b, TFRT_DTYPE_FLOAT32, 1, db}};
  tfrt_tensor out[2] = {{y, TFRT_DTYPE_FLOAT32, 2, da},
                        {z, TFRT_DTYPE_FLOAT32, 2, da}};
  report("run", m_run(inst, in, 2, out, 2));
  printf("y:");
  for (int i = 0; i < 8; ++i)
    printf(" %g", y[i]);
  printf("\nz:");
  for (int i = 0; i < 8; ++i)
    printf(" %g", z[i]);
  printf("\n");

  report("wrong input count", m_run(inst, in, 1, out, 2));
  tfrt_tensor nul[2] = {in[0], in[1]};
  nul[1].data = NULL;
  report("null buffer", m_run(inst, nul, 2, out, 2));
  tfrt_tensor shp[2] = {in[0], in[1]};
  shp[0].dims = bad;
  report("shape mismatch", m_run(inst, shp, 2, out, 2));
  tfrt_tensor dt[2] = {in[0], in[1]};
  dt[0].dtype = TFRT_DTYPE_INT64;
  report("dtype mismatch", m_run(inst, dt, 2, out, 2));
  report("null instance", m_run(NULL, in, 2, out, 2));

  tfrt_tensor_desc d;
  report("input_info 1", m_input_info(1, &d));
  printf("input 1: %s dtype=%d rank=%d dim0=%lld\n", d.name, (int)d.dtype,
         (int)d.rank, (long long)d.dims[0]);
  report("input_info 7", m_input_info(7, &d));
  report("destroy", m_destroy(inst));
  return 0;
}
