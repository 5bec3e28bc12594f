//===- Emit.h - artifacts: object code, header, metadata --------*- C++ -*-===//
//
// The last phase of tfrt-compile: the LLVM-dialect module becomes LLVM IR,
// gets the model's C ABI (descriptor, entry trampoline, prefixed API
// functions), is optimised and compiled to an object in process with an LLVM
// TargetMachine; the C header and the metadata JSON are produced beside it,
// and `.a`/`.so` packaging wraps the object.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_EMIT_EMIT_H
#define TFRT_COMPILER_EMIT_EMIT_H

#include "compiler/emit/ParallelCodegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tfrt {

/// One model input or output as the ABI describes it.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; ///< a tfrt_dtype (ONNX TensorProto code)
  llvm::SmallVector<int64_t> shape;
};

/// The model's inputs and outputs, in order.
struct ModelSignature {
  std::vector<TensorSignature> inputs, outputs;
};

/// Reads the signature of the graph-level entry function `main` (static
/// shapes, `graph.name` argument/result attributes).
llvm::Expected<ModelSignature> extractSignature(mlir::ModuleOp module);

/// The tfrt_dtype code of an MLIR element type, or 0 when unsupported.
int32_t dtypeCode(mlir::Type elementType);
/// "float32", "int64", ... for a tfrt_dtype code.
const char *dtypeName(int32_t code);

/// What the target is and how hard to optimise.
struct TargetOptions {
  std::string triple; ///< empty: the host
  std::string cpu;    ///< empty or "native": the host CPU
  std::string features;
  unsigned optLevel = 3;
  /// Threads (module partitions) for LLVM optimisation and code generation;
  /// 1 compiles the module whole (ParallelCodegen.h).
  unsigned codegenThreads = 1;
  /// Modules smaller than this many LLVM instructions are compiled whole;
  /// unset: ParallelCodegen's default.
  std::optional<uint64_t> splitMinInstructions;
  /// Loops of the inline code (the compute function, which runs between
  /// pool launches) that run more than this many times, or an unknown
  /// number of times, are kept rolled by LLVM's unroller (LoopHints.h);
  /// 0: LLVM's unroller decides for every loop.
  unsigned inlineUnrollLimit = 8;
  /// Loops of any function with more LLVM instructions than this (nested
  /// loops included) are kept rolled by LLVM's unroller (LoopHints.h);
  /// 0: no limit.
  unsigned unrollMaxLoopSize = 200;
};

/// A target's vector registers: their width in bits and how many there are.
struct VectorUnitInfo {
  int64_t bits = 512;
  int64_t registers = 32;
};

/// The vector registers of the target `target` stands for (the host's when
/// no triple and CPU are given): x86 with AVX-512 512 bits x 32, with AVX
/// (AVX2) 256 x 16, otherwise 128 x 16; AArch64 128 x 32; other targets
/// 128 x 16.
llvm::Expected<VectorUnitInfo> targetVectorUnit(const TargetOptions &target);

/// The target actually used, resolved from TargetOptions.
struct ResolvedTarget {
  std::string triple, cpu, features;
  /// Seconds spent translating to LLVM IR (for --time-phases).
  double translateSeconds = 0;
  /// LLVM optimisation and code generation: partitions, seconds per step,
  /// why the module was compiled whole.
  CodegenStats codegen;
};

enum class OutputKind { Object, Assembly, LlvmIr };

/// One entry of a profiling build's table (tfrt/profile.h): a launch, a
/// kernel left inline, or (the last entry) the rest of the inline code.
struct ProfileEntry {
  enum Kind { Launch = 0, Kernel = 1, Inline = 2 } kind = Inline;
  std::vector<std::string> nodes, ops;
  int64_t flops = 0;
  int64_t iterations = 0;
  /// The launch function, for launches.
  std::string launch;
};

/// The table tfrt-async-outline{profile=1} describes in the module's
/// `tfrt.profile` attribute, in entry order.
struct ProfileTable {
  int64_t numLaunches = 0;
  std::vector<ProfileEntry> entries;
};

/// Reads the module's `tfrt.profile` attribute; nullopt without one.
std::optional<ProfileTable> extractProfile(mlir::ModuleOp module);

/// Lowers `llvmDialectModule` (output of the LLVM phase) to the requested
/// form, adding the descriptor and the `<name>_*` API functions, making
/// everything else internal. With `profile` (a profiling build) the launches
/// call tfrt_run_parallel_for_profiled and the descriptor carries the table.
llvm::Expected<std::string>
emitModelCode(mlir::ModuleOp llvmDialectModule, const std::string &name,
              const ModelSignature &sig, const TargetOptions &target,
              OutputKind kind, ResolvedTarget &resolved,
              const ProfileTable *profile = nullptr);

/// The generated C header (with a small C++ wrapper class).
std::string emitHeader(const std::string &name, const ModelSignature &sig,
                       uint64_t workspaceBytes, const std::string &modelFile);

/// The metadata JSON.
std::string emitMetadata(const std::string &name, const ModelSignature &sig,
                         uint64_t workspaceBytes, uint64_t workspaceAlignment,
                         const ResolvedTarget &target, unsigned optLevel,
                         const std::string &modelFile,
                         const std::string &modelSha256,
                         const std::string &artifact,
                         const ProfileTable *profile = nullptr);

/// A deterministic GNU archive holding `object` as `<name>.o`.
llvm::Expected<std::string> makeArchive(const std::string &name,
                                        const std::string &object);

/// Links `object` and the runtime archive into a shared library exporting
/// only `<name>_*` and the runtime's `tfrt_*` API.
llvm::Expected<std::string> makeSharedLibrary(const std::string &name,
                                              const std::string &object,
                                              const std::string &runtimeLib,
                                              const std::string &linker);

/// The tfrt-compile version string.
const char *compilerVersion();

} // namespace tfrt

#endif // TFRT_COMPILER_EMIT_EMIT_H
