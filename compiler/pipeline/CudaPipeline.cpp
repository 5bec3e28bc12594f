//===- CudaPipeline.cpp - the --target=cuda back half ---------------------===//
//
// linalg on memrefs (bufferized, workspace planned) -> parallel loops -> one
// gpu.launch per loop nest -> outlined kernels -> NVVM -> fat binary, and the
// host function -> LLVM dialect calling mgpu* (implemented by runtime-lib's
// CUDA layer under the names tfrt_cuda_mgpu*, see compiler/emit/EmitCuda.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/CudaPipeline.h"

#include "passes/CodegenCUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace {
void addUpstream(OpPassManager &pm, llvm::StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") +
                             pipeline);
}
} // namespace

llvm::ArrayRef<llvm::StringRef> tfrt::supportedCudaArchs() {
  static const llvm::StringRef archs[] = {"sm_80", "sm_89", "sm_90"};
  return archs;
}

namespace {
/// linalg on memrefs -> one gpu.launch per op (not outlined yet).
void buildKernelFormation(OpPassManager &pm,
                          const tfrt::CudaPipelineOptions &cuda) {
  // One parallel loop nest per linalg op, output-contiguous dim last.
  addUpstream(pm, "func.func(linalg-generalize-named-ops)");
  pm.addNestedPass<func::FuncOp>(tfrt::createParallelDimsFirst());
  addUpstream(pm,
              "func.func(convert-linalg-to-parallel-loops),canonicalize,cse");
  tfrt::MapToGpuOptions map;
  map.blockSize = cuda.blockSize;
  pm.addNestedPass<func::FuncOp>(tfrt::createMapToGpu(map));
}
} // namespace

void tfrt::buildCudaEmulationPipeline(OpPassManager &pm,
                                      const PipelineOptions &opts,
                                      const CudaPipelineOptions &cuda) {
  buildKernelFormation(pm, cuda);
  pm.addNestedPass<func::FuncOp>(createEmulateLaunches());
  addUpstream(pm, "canonicalize,cse");
  buildLlvmPipeline(pm, opts);
}

void tfrt::buildCudaPipeline(OpPassManager &pm, const PipelineOptions &opts,
                             const CudaPipelineOptions &cuda) {
  (void)opts;
  // Weights become views of the device workspace.
  pm.addPass(createExternalizeConstants());
  buildKernelFormation(pm, cuda);
  addUpstream(
      pm,
      "gpu-kernel-outlining,tfrt-cuda-merge-kernel-modules,canonicalize,cse");
  // Kernels take the function's buffers as bare pointers (views are
  // recomputed inside them), matching the host's bare-pointer convention.
  // Device code: exact f32 math (libdevice), no approximations.
  addUpstream(
      pm,
      "gpu.module(expand-strided-metadata,lower-affine,"
      "convert-scf-to-cf,"
      "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},canonicalize,cse,"
      "reconcile-unrealized-casts)");
  SerializeOptions ser;
  ser.chips.assign(cuda.archs.begin(), cuda.archs.end());
  ser.cudaPath = cuda.cudaPath;
  ser.dumpDir = cuda.dumpDir;
  ser.optLevel = 3;
  pm.addPass(createSerialize(ser));
  // Host code: launches only (all buffers are device memory).
  addUpstream(pm, "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
                  "canonicalize,cse,"
                  "gpu-to-llvm{use-bare-pointers-for-host=1 "
                  "use-bare-pointers-for-kernels=1},"
                  "finalize-memref-to-llvm,convert-arith-to-llvm,"
                  "convert-index-to-llvm,convert-cf-to-llvm,"
                  "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
                  "convert-ub-to-llvm,reconcile-unrealized-casts,canonicalize");
}

namespace {
struct CudaPipelineCliOptions
    : public PassPipelineOptions<CudaPipelineCliOptions> {
  ListOption<std::string> archs{*this, "gpu-arch",
                                llvm::cl::desc("sm_80,sm_89,sm_90")};
  Option<std::string> cudaPath{*this, "cuda-path",
                               llvm::cl::desc("CUDA toolkit root"),
                               llvm::cl::init("/usr/local/cuda")};
  Option<std::string> dumpDir{*this, "dump-dir",
                              llvm::cl::desc("write PTX/cubin/fatbin here")};
};
} // namespace

void tfrt::registerCudaPipeline() {
  PassPipelineRegistration<CudaPipelineCliOptions>(
      "tfrt-cuda-pipeline",
      "The --target=cuda back end from bufferized memrefs to LLVM",
      [](OpPassManager &pm, const CudaPipelineCliOptions &o) {
        CudaPipelineOptions cuda;
        if (!o.archs.empty())
          cuda.archs.assign(o.archs.begin(), o.archs.end());
        cuda.cudaPath = o.cudaPath;
        cuda.dumpDir = o.dumpDir;
        buildCudaPipeline(pm, PipelineOptions(), cuda);
      });
}
