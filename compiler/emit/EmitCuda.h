//===- EmitCuda.h - the model ABI of --target=cuda objects ------*- C++ -*-===//
//
// A CUDA model object has the same NAME_* API and tfrt_model_desc as a CPU
// one (flags = TFRT_MODEL_FLAG_CUDA), plus a tfrt_cuda_model_desc
// (runtime-lib/include/tfrt/cuda.h) with the weights, the kernel loader and
// the device workspace size; NAME_create/run/destroy forward to
// tfrt_cuda_model_*. The fat binary that gpu-to-llvm embeds is loaded by
// runtime-lib during create instead of from a global constructor, and the
// mgpu* calls are renamed tfrt_cuda_mgpu* (implemented by runtime-lib).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_EMIT_EMITCUDA_H
#define TFRT_COMPILER_EMIT_EMITCUDA_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace tfrt {

/// What the CUDA pipeline recorded on the module (tfrt.cuda.* attributes).
struct CudaAbiInfo {
  std::string archs;
  uint64_t weightsOffset = 0, weightsSize = 0, deviceWorkspaceSize = 0;
};

/// The info of a module produced by buildCudaPipeline, or nullopt for a CPU
/// module.
std::optional<CudaAbiInfo> collectCudaAbiInfo(mlir::ModuleOp module);

/// Registers the GPU/NVVM LLVM IR translations on `module`'s context.
void registerCudaTranslations(mlir::ModuleOp module);

/// Before the model ABI is added: renames mgpu* to tfrt_cuda_mgpu* and turns
/// the kernel-loading global constructors/destructors into the internal
/// functions `<name>_cuda_load` / `<name>_cuda_unload`.
llvm::Error prepareCudaModule(llvm::Module &m, const std::string &name);

/// After the model ABI is added: the CUDA descriptor, the CUDA flag in the
/// model descriptor and NAME_create/run/destroy forwarding to runtime-lib's
/// tfrt_cuda_model_*.
llvm::Error finishCudaModule(llvm::Module &m, const std::string &name,
                             const CudaAbiInfo &info);

} // namespace tfrt

#endif // TFRT_COMPILER_EMIT_EMITCUDA_H
