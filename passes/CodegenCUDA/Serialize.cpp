//===- Serialize.cpp - gpu.module -> fat binary (cubins + PTX) ------------===//
//
// Implements tfrt-cuda-serialize. PTX comes from MLIR's NVVM target (LLVM's
// NVPTX backend, libdevice linked from the toolkit); the CUDA toolkit's ptxas
// assembles one cubin per chip and fatbinary packs them with the PTX of the
// newest chip into one image that cuModuleLoadData accepts.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace tfrt {
#define GEN_PASS_DEF_SERIALIZE
#include "passes/CodegenCUDA/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// "sm_90" -> "90"; empty when malformed.
std::string smNumber(llvm::StringRef chip) {
  if (!chip.consume_front("sm_") || chip.empty() ||
      !llvm::all_of(chip, llvm::isDigit))
    return "";
  return chip.str();
}

/// Temporary files removed when the object dies.
struct TempFiles {
  std::vector<std::string> paths;
  ~TempFiles() {
    for (const std::string &p : paths)
      (void)llvm::sys::fs::remove(p);
  }
  std::string make(llvm::StringRef prefix, llvm::StringRef suffix) {
    llvm::SmallString<128> p;
    if (llvm::sys::fs::createTemporaryFile(prefix, suffix, p))
      return "";
    paths.push_back(std::string(p));
    return std::string(p);
  }
};

bool writeFile(const std::string &path, llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << data;
  os.close();
  return !os.has_error();
}

/// Runs `program args...`; on failure returns its stderr in `diag`.
bool runTool(const std::string &program, ArrayRef<std::string> args,
             TempFiles &temps, std::string &diag) {
  std::string errFile = temps.make("tfrt-cuda-tool", "txt");
  SmallVector<llvm::StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, errFile,
                                                errFile};
  std::string execErr;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/600, 0, &execErr);
  if (rc == 0)
    return true;
  diag = execErr;
  if (auto buf = llvm::MemoryBuffer::getFile(errFile))
    diag += (*buf)->getBuffer().str();
  return false;
}

struct SerializePass : public tfrt::impl::SerializeBase<SerializePass> {
  using SerializeBase::SerializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gpuModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    if (chips.empty()) {
      module.emitError("tfrt-cuda-serialize: no target chips given");
      return signalPassFailure();
    }
    // The PTX of the newest chip goes into the fat binary for the JIT.
    std::string newest;
    for (const std::string &c : chips) {
      std::string n = smNumber(c);
      if (n.empty()) {
        module.emitError("tfrt-cuda-serialize: malformed chip '" + c +
                         "' (expected sm_NN)");
        return signalPassFailure();
      }
      if (newest.empty() || std::stoi(n) > std::stoi(smNumber(newest)))
        newest = c;
    }
    llvm::SmallString<256> ptxas(cudaPath), fatbinary(cudaPath);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    llvm::sys::path::append(fatbinary, "bin", "fatbinary");
    for (llvm::StringRef tool : {ptxas.str(), fatbinary.str()})
      if (!llvm::sys::fs::can_execute(tool)) {
        module.emitError("CUDA toolkit: '" + tool +
                         "' not found (set --cuda-path or CUDA_HOME)");
        return signalPassFailure();
      }

    if (!dumpDir.empty() && llvm::sys::fs::create_directories(dumpDir)) {
      module.emitError("cannot create '" + dumpDir + "'");
      return signalPassFailure();
    }
    OpBuilder b(&getContext());
    for (gpu::GPUModuleOp gm : gpuModules) {
      TempFiles temps;
      std::string name = gm.getSymName().str();
      SmallVector<std::string> fatArgs{"--64", "--create"};
      std::string fatFile = temps.make("tfrt-cuda-" + name, "fatbin");
      fatArgs.push_back(fatFile);
      for (const std::string &chip : chips) {
        auto target = NVVM::NVVMTargetAttr::get(&getContext(), optLevel,
                                                "nvptx64-nvidia-cuda", chip);
        gpu::TargetOptions opts(cudaPath, {}, "", "",
                                gpu::CompilationTarget::Assembly);
        std::optional<SmallVector<char, 0>> ptx =
            cast<gpu::TargetAttrInterface>(target).serializeToObject(gm, opts);
        if (!ptx) {
          gm.emitError("PTX generation for " + chip + " failed");
          return signalPassFailure();
        }
        llvm::StringRef ptxText(ptx->data(), ptx->size());
        ptxText = ptxText.rtrim('\0');
        std::string ptxFile = temps.make("tfrt-cuda-" + name, "ptx");
        std::string cubinFile = temps.make("tfrt-cuda-" + name, "cubin");
        if (ptxFile.empty() || cubinFile.empty() ||
            !writeFile(ptxFile, ptxText)) {
          gm.emitError("cannot write temporary files");
          return signalPassFailure();
        }
        std::string diag;
        if (!runTool(std::string(ptxas),
                     {"-arch=" + chip, "-O" + std::to_string(optLevel),
                      ptxFile, "-o", cubinFile},
                     temps, diag)) {
          gm.emitError("ptxas failed for " + chip + ": " + diag);
          return signalPassFailure();
        }
        std::string sm = smNumber(chip);
        fatArgs.push_back("--image3=kind=elf,sm=" + sm + ",file=" + cubinFile);
        if (chip == newest)
          fatArgs.push_back("--image3=kind=ptx,sm=" + sm + ",file=" + ptxFile);
        if (!dumpDir.empty()) {
          llvm::SmallString<256> p(dumpDir);
          llvm::sys::path::append(p, name + "." + chip + ".ptx");
          (void)writeFile(std::string(p), ptxText);
          llvm::sys::path::replace_extension(p, "cubin");
          (void)llvm::sys::fs::copy_file(cubinFile, p);
        }
      }
      std::string diag;
      if (!runTool(std::string(fatbinary), fatArgs, temps, diag)) {
        gm.emitError("fatbinary failed: " + diag);
        return signalPassFailure();
      }
      auto fat = llvm::MemoryBuffer::getFile(fatFile, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (!fat) {
        gm.emitError("cannot read the fat binary");
        return signalPassFailure();
      }
      if (!dumpDir.empty()) {
        llvm::SmallString<256> p(dumpDir);
        llvm::sys::path::append(p, name + ".fatbin");
        (void)writeFile(std::string(p), (*fat)->getBuffer());
      }
      auto target = NVVM::NVVMTargetAttr::get(&getContext(), optLevel,
                                              "nvptx64-nvidia-cuda", newest);
      auto object = gpu::ObjectAttr::get(
          &getContext(), target, gpu::CompilationTarget::Fatbin,
          b.getStringAttr((*fat)->getBuffer()), nullptr, nullptr);
      b.setInsertionPoint(gm);
      gpu::BinaryOp::create(b, gm.getLoc(), name, Attribute(),
                            ArrayRef<Attribute>{object});
      gm.erase();
    }
    module->setAttr("tfrt.cuda.archs",
                    b.getStringAttr(llvm::join(chips, ",")));
  }
};
} // namespace
