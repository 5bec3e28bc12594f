/*===- test/integration/ppocr/main.c - run a compiled model from C --------===*
 *
 * A generic driver for a model compiled with `tfrt-compile --emit=obj`: it
 * includes the generated header NAME.h and calls NAME_create / NAME_run /
 * NAME_destroy. Every input and output must be float32.
 *
 * Build (NAME is the --name given to tfrt-compile, OUTDIR its -o):
 *   clang-22 -DTFRT_MODEL=NAME -I runtime-lib/include -I OUTDIR main.c \
 *       OUTDIR/NAME.o build/lib/libtfrt_runtime.a -lm -lstdc++ -o run_model
 * Use:
 *   run_model IN_0.raw ... IN_n.raw OUT_0.raw ... OUT_m.raw
 * where each IN file holds exactly the raw little-endian float32 data of the
 * model's input (dense, row-major) and each OUT file receives an output.
 * Exit status 0 on success, 1 with "error: ..." on stderr otherwise.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef TFRT_MODEL
#error "define TFRT_MODEL to the model's NAME (-DTFRT_MODEL=NAME)"
#endif

#define TFRT_STR2(x) #x
#define TFRT_HEADER(x) TFRT_STR2(x.h)
#define TFRT_CAT2(a, b) a##b
#define TFRT_CAT(a, b) TFRT_CAT2(a, b)

#include TFRT_HEADER(TFRT_MODEL)

#define MODEL_CREATE TFRT_CAT(TFRT_MODEL, _create)
#define MODEL_RUN TFRT_CAT(TFRT_MODEL, _run)
#define MODEL_DESTROY TFRT_CAT(TFRT_MODEL, _destroy)
#define MODEL_DESCRIPTOR TFRT_CAT(TFRT_MODEL, _descriptor)

static int fail_status(const char *what, tfrt_status st) {
  fprintf(stderr, "error: %s: %s (code %d)\n", what, tfrt_status_message(st),
          (int)tfrt_status_code(st));
  tfrt_status_free(st);
  return 1;
}

static size_t element_count(const tfrt_tensor_desc *d) {
  size_t n = 1;
  for (int32_t i = 0; i < d->rank; ++i)
    n *= (size_t)d->dims[i];
  return n;
}

static void print_desc(const char *kind, const tfrt_tensor_desc *d) {
  printf("%s %s: %s [", kind, d->name, tfrt_dtype_name(d->dtype));
  for (int32_t i = 0; i < d->rank; ++i)
    printf("%s%lld", i ? "x" : "", (long long)d->dims[i]);
  printf("]\n");
}

static int read_raw(const char *path, void *data, size_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "error: cannot open %s\n", path);
    return 1;
  }
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != bytes || extra) {
    fprintf(stderr, "error: %s: expected exactly %zu bytes of float32 data\n",
            path, bytes);
    return 1;
  }
  return 0;
}

static int write_raw(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "error: cannot create %s\n", path);
    return 1;
  }
  size_t put = fwrite(data, 1, bytes, f);
  int closed = fclose(f);
  if (put != bytes || closed != 0) {
    fprintf(stderr, "error: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const tfrt_model_desc *desc = MODEL_DESCRIPTOR();
  if (!desc) {
    fprintf(stderr, "error: the model has no descriptor\n");
    return 1;
  }
  size_t n_in = desc->num_inputs, n_out = desc->num_outputs;
  if ((size_t)argc != 1 + n_in + n_out) {
    fprintf(stderr,
            "usage: %s IN_0.raw..IN_%zu.raw OUT_0.raw..OUT_%zu.raw "
            "(model %s: %zu inputs, %zu outputs)\n",
            argv[0], n_in ? n_in - 1 : 0, n_out ? n_out - 1 : 0, desc->name,
            n_in, n_out);
    return 1;
  }

  tfrt_tensor *inputs = calloc(n_in ? n_in : 1, sizeof(tfrt_tensor));
  tfrt_tensor *outputs = calloc(n_out ? n_out : 1, sizeof(tfrt_tensor));
  if (!inputs || !outputs) {
    fprintf(stderr, "error: out of memory\n");
    return 1;
  }
  int rc = 1;
  tfrt_instance *inst = NULL;

  for (size_t i = 0; i < n_in + n_out; ++i) {
    int is_input = i < n_in;
    const tfrt_tensor_desc *d =
        is_input ? &desc->inputs[i] : &desc->outputs[i - n_in];
    tfrt_tensor *t = is_input ? &inputs[i] : &outputs[i - n_in];
    print_desc(is_input ? "input" : "output", d);
    if (d->dtype != TFRT_DTYPE_FLOAT32) {
      fprintf(stderr, "error: %s '%s' is %s; this driver handles float32 only\n",
              is_input ? "input" : "output", d->name, tfrt_dtype_name(d->dtype));
      goto done;
    }
    size_t bytes = element_count(d) * sizeof(float);
    t->data = malloc(bytes ? bytes : 1);
    t->dtype = d->dtype;
    t->rank = d->rank;
    t->dims = d->dims;
    if (!t->data) {
      fprintf(stderr, "error: out of memory\n");
      goto done;
    }
    if (is_input && read_raw(argv[1 + i], t->data, bytes))
      goto done;
  }

  tfrt_status st = MODEL_CREATE(&inst);
  if (st) {
    rc = fail_status("create", st);
    inst = NULL;
    goto done;
  }
  st = MODEL_RUN(inst, inputs, n_in, outputs, n_out);
  if (st) {
    rc = fail_status("run", st);
    goto done;
  }
  for (size_t o = 0; o < n_out; ++o) {
    size_t bytes = element_count(&desc->outputs[o]) * sizeof(float);
    if (write_raw(argv[1 + n_in + o], outputs[o].data, bytes))
      goto done;
  }
  rc = 0;

done:
  if (inst) {
    tfrt_status st2 = MODEL_DESTROY(inst);
    if (st2)
      rc = fail_status("destroy", st2);
  }
  for (size_t i = 0; i < n_in; ++i)
    free(inputs[i].data);
  for (size_t o = 0; o < n_out; ++o)
    free(outputs[o].data);
  free(inputs);
  free(outputs);
  return rc;
}
