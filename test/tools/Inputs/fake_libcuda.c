/* A stand-in for libcuda.so.1 that runs on the host, for testing
 * runtime-lib's CUDA layer without a GPU: device memory is host memory
 * (calloc), copies are memcpy, kernels are not executed (a launch prints its
 * name and grid). It prints the calls whose count the tests check.
 * FAKE_CUDA_NO_DEVICE=1 makes cuInit report CUDA_ERROR_NO_DEVICE;
 * FAKE_CUDA_NO_BINARY=1 makes cuModuleLoadData fail as on a GPU without a
 * matching cubin. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

CUresult cuInit(unsigned f) {
  (void)f;
  return getenv("FAKE_CUDA_NO_DEVICE") ? 100 : 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == 209 ? "no kernel image is available for execution on the device"
                : "fake error";
  return 0;
}
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return o == 0 ? 0 : 101; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
  (void)d;
  *v = a == 75 ? 9 : 0;
  return 0;
}
CUresult cuDeviceGetName(char *n, int l, int d) {
  (void)d;
  strncpy(n, "fake", (size_t)l);
  return 0;
}
static int ctxDepth;
CUresult cuDevicePrimaryCtxRetain(void **c, int d) {
  (void)d;
  *c = (void *)0x1;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
CUresult cuCtxPushCurrent_v2(void *c) { (void)c; ++ctxDepth; return 0; }
CUresult cuCtxPopCurrent_v2(void **c) {
  *c = (void *)0x1;
  --ctxDepth;
  return 0;
}
static int modules;
CUresult cuModuleLoadData(void **m, const void *image) {
  if (getenv("FAKE_CUDA_NO_BINARY"))
    return 209;
  printf("fake: cuModuleLoadData (fatbin magic %08x)\n", *(const unsigned *)image);
  *m = (void *)0x100;
  ++modules;
  return 0;
}
CUresult cuModuleUnload(void *m) {
  (void)m;
  printf("fake: cuModuleUnload\n");
  --modules;
  return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  (void)m;
  printf("fake: cuModuleGetFunction %s\n", name);
  *f = (void *)strdup(name);
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  *p = (CUdeviceptr)calloc(1, n);
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)p); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
  memcpy((void *)d, s, n);
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) {
  (void)st;
  memcpy((void *)d, s, n);
  return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) {
  (void)st;
  memcpy(d, (const void *)s, n);
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) {
  (void)st;
  memcpy((void *)d, (const void *)s, n);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void *s) {
  (void)d; (void)v; (void)n; (void)s;
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *s) {
  (void)d; (void)v; (void)n; (void)s;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)gy; (void)gz; (void)by; (void)bz; (void)smem; (void)extra;
  printf("fake: launch %s grid %u block %u stream %s params %s ctx %d\n",
         (const char *)f, gx, bx, stream ? "set" : "null",
         params ? "set" : "null", ctxDepth);
  return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) {
  (void)f;
  *s = malloc(1);
  return 0;
}
CUresult cuStreamDestroy_v2(void *s) { free(s); return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) {
  (void)s; (void)e; (void)f;
  return 0;
}
CUresult cuEventCreate(void **e, unsigned f) {
  (void)f;
  *e = malloc(1);
  return 0;
}
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
CUresult cuEventQuery(void *e) { (void)e; return 0; }
CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  (void)a; (void)b;
  *ms = 0.25f; /* a fixed stand-in: the fake runs no kernels */
  return 0;
}
