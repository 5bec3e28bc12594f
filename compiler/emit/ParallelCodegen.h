//===- ParallelCodegen.h - LLVM optimisation and codegen on threads -*- C++
//-*-===//
//
// The LLVM half of a compile (the middle-end pipeline and machine code
// generation) dominates tfrt-compile's time on small models. This splits a
// model's LLVM module into partitions that are optimised and compiled on
// their own threads, each in its own LLVMContext, and merges the objects
// back into one relocatable object whose only global symbols are the
// module's own.
//
// The split keeps together what the optimiser must see together: the entry
// (compute) function with the ABI functions and the launch stubs that it
// inlines, and each parallel loop's chunk trampoline with its body. Small
// constants and small helper functions are copied into every partition that
// uses them, so constant folding and inlining see them as before; the rest
// is defined once and referenced across partitions through hidden symbols,
// which the merge makes local again.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_EMIT_PARALLELCODEGEN_H
#define TFRT_COMPILER_EMIT_PARALLELCODEGEN_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <functional>
#include <memory>
#include <string>

namespace tfrt {

struct CodegenOptions {
  /// The middle end's level (0-3; LLVM's O2 at most is used, see Emit.cpp).
  unsigned optLevel = 2;
  /// Object, assembly or nothing (LLVM IR: optimise only).
  std::optional<llvm::CodeGenFileType> fileType =
      llvm::CodeGenFileType::ObjectFile;
  /// Partitions (threads) at most; 1 compiles the module whole.
  unsigned threads = 1;
  /// Modules with fewer LLVM instructions than this are compiled whole.
  uint64_t minInstructions = 20000;
  /// The symbol prefix of the compute function (`<prefix>_compute`).
  std::string computeSymbol;
  /// An `ld.lld` that merges the partitions' objects (`-r`); empty: none,
  /// the module is compiled whole.
  std::string mergeLinker;
};

struct CodegenStats {
  unsigned partitions = 1;
  /// Wall seconds: splitting (cloning and serialising the partitions), the
  /// middle end (the slowest partition), machine code (the rest of the
  /// parallel section) and the merge.
  double splitSeconds = 0, optimizeSeconds = 0, codegenSeconds = 0,
         mergeSeconds = 0;
  /// Why the module was compiled whole (empty when it was split).
  std::string whole;
};

using TargetMachineFactory =
    std::function<std::unique_ptr<llvm::TargetMachine>()>;

/// Optimises `m` and, unless `opts.fileType` is empty, compiles it to an
/// object or assembly. With `opts.threads` > 1, an object file type, an ELF
/// target, a merge linker and a module of at least `opts.minInstructions`
/// instructions, the work is split over threads as described above. `m` is
/// left optimised when compiled whole; in the split case it is left holding
/// the optimised first partition (the compute function and the ABI), the
/// other definitions reduced to declarations.
/// With no file type, returns an empty string (`m` holds the result).
llvm::Expected<std::string> optimizeAndCompile(llvm::Module &m,
                                               const TargetMachineFactory &tm,
                                               const CodegenOptions &opts,
                                               CodegenStats &stats);

/// The `ld.lld` that tfrt-compile merges partition objects with: on PATH
/// (ld.lld-22, ld.lld), else the one beside the LLVM it was built with, else
/// empty.
std::string findMergeLinker();

} // namespace tfrt

#endif // TFRT_COMPILER_EMIT_PARALLELCODEGEN_H
