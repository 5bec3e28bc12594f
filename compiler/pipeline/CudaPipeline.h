//===- CudaPipeline.h - the --target=cuda back half -------------*- C++ -*-===//
//
// After the shared graph, linalg and bufferize phases, --target=cuda replaces
// the CPU LLVM phase by buildCudaPipeline: constants move into the device
// workspace, linalg ops become one GPU kernel each, kernels are compiled to a
// fat binary (cubin per arch + PTX) and the host side becomes LLVM dialect
// that calls the runtime's CUDA layer through MLIR's mgpu* ABI.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_PIPELINE_CUDAPIPELINE_H
#define TFRT_COMPILER_PIPELINE_CUDAPIPELINE_H

#include "compiler/pipeline/Pipeline.h"

namespace tfrt {

/// Options of the CUDA back end.
struct CudaPipelineOptions {
  /// sm_80, sm_89, sm_90 (one cubin each; PTX of the newest).
  std::vector<std::string> archs{"sm_90"};
  /// CUDA toolkit root: bin/ptxas, bin/fatbinary, nvvm/libdevice.
  std::string cudaPath = "/usr/local/cuda";
  /// When set, PTX, cubins and the fat binary are also written here.
  std::string dumpDir;
  /// Threads per block of the elementwise/one-thread-per-output kernels.
  int64_t blockSize = 256;
};

/// The chips tfrt-compile accepts for --gpu-arch.
llvm::ArrayRef<llvm::StringRef> supportedCudaArchs();

/// Bufferized module -> LLVM dialect host code with an embedded fat binary.
void buildCudaPipeline(mlir::OpPassManager &pm, const PipelineOptions &opts,
                       const CudaPipelineOptions &cuda);

/// Testing aid (`--target=cuda-emulate`): the same kernel formation, with
/// the launches run as CPU loops, then the CPU LLVM phase (weights stay host
/// globals). Checks the GPU mapping numerically without a GPU.
void buildCudaEmulationPipeline(mlir::OpPassManager &pm,
                                const PipelineOptions &opts,
                                const CudaPipelineOptions &cuda);

/// Registers `tfrt-cuda-pipeline` (the part above) for tfrt-opt.
void registerCudaPipeline();

} // namespace tfrt

#endif // TFRT_COMPILER_PIPELINE_CUDAPIPELINE_H
