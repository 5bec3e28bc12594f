//===- tfrt-compile.cpp - the ahead-of-time model compiler ----------------===//
//
// tfrt-compile MODEL --name NAME -o OUT [--emit=obj|lib|shared|mlir|llvm|asm]
//   [--input-shape NAME=D0xD1x...]... [--mcpu=CPU] [--mattr=F] [-O0..3]
//
// Imports an ONNX, JSON or MLIR model, runs the pipeline phases and writes the
// artifacts. All artifacts are produced in memory first and written only when
// everything succeeded, so a failed compilation leaves no output behind.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/Emit.h"
#include "compiler/frontend/Frontend.h"
#include "compiler/init/InitAll.h"
#include "compiler/pipeline/CudaPipeline.h"
#include "compiler/pipeline/Pipeline.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("tfrt-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model file>"),
                               cl::cat(category));
cl::opt<std::string> formatOpt("format",
                               cl::desc("onnx|json|mlir (default: from the "
                                        "file extension)"),
                               cl::cat(category));
cl::opt<std::string> nameOpt("name",
                             cl::desc("Symbol prefix and file stem of the "
                                      "artifacts (a C identifier)"),
                             cl::cat(category));
cl::opt<std::string> outputOpt("o",
                               cl::desc("Output directory, or the path of the "
                                        "main artifact ('-' for stdout with "
                                        "--emit=mlir|llvm|asm)"),
                               cl::init("."), cl::cat(category));
cl::opt<std::string> emitOpt("emit",
                             cl::desc("obj (default), lib (.a), shared (.so), "
                                      "mlir, llvm, asm"),
                             cl::init("obj"), cl::cat(category));
cl::list<std::string> inputShapes("input-shape",
                                  cl::desc("NAME=D0xD1x... fixes an input's "
                                           "shape (repeatable)"),
                                  cl::cat(category));
cl::opt<std::string> compileTo("compile-to",
                               cl::desc("With --emit=mlir: stop after graph, "
                                        "linalg, bufferized or llvm"),
                               cl::init("llvm"), cl::cat(category));
cl::opt<std::string> mcpu("mcpu", cl::desc("Target CPU (default: the host)"),
                          cl::init("native"), cl::cat(category));
cl::opt<std::string> mattr("mattr", cl::desc("Target features (+avx2,...)"),
                           cl::cat(category));
cl::opt<std::string> targetTriple("target-triple",
                                  cl::desc("Target triple (default: host)"),
                                  cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("Optimisation level 0-3"), cl::Prefix,
                           cl::init(3), cl::cat(category));
cl::opt<std::string> runtimeLibOpt("runtime-lib",
                                   cl::desc("libtfrt_runtime.a to link into "
                                            "--emit=shared"),
                                   cl::cat(category));
cl::opt<std::string> linkerOpt("linker",
                               cl::desc("Linker driver for --emit=shared"),
                               cl::cat(category));
cl::opt<bool>
    timePhases("time-phases",
               cl::desc("Print the seconds each phase took to stderr"),
               cl::init(false), cl::cat(category));
cl::opt<std::string> targetOpt("target",
                               cl::desc("cpu (default), cuda (NVIDIA GPU "
                                        "kernels in the same object) or "
                                        "cuda-emulate (testing: the CUDA "
                                        "kernels as CPU loops)"),
                               cl::init("cpu"), cl::cat(category));
cl::opt<std::string> gpuArchOpt("gpu-arch",
                                cl::desc("--target=cuda: sm_80, sm_89, sm_90 "
                                         "(comma-separated for several)"),
                                cl::init("sm_90"), cl::cat(category));
cl::opt<std::string> cudaPathOpt("cuda-path",
                                 cl::desc("CUDA toolkit root (default: "
                                          "$CUDA_HOME or /usr/local/cuda)"),
                                 cl::cat(category));
cl::opt<std::string> gpuPrecisionOpt("gpu-precision",
                                     cl::desc("--target=cuda arithmetic: f32 "
                                              "(exact f32, the only one yet)"),
                                     cl::init("f32"), cl::cat(category));
cl::opt<std::string> gpuDumpDirOpt("gpu-dump-dir",
                                   cl::desc("Debug: also write the PTX, "
                                            "cubins and fat binary here"),
                                   cl::cat(category));
cl::opt<std::string> parallelOpt(
    "parallel",
    cl::desc("on (default): split expensive loops into chunks that the "
             "instance's thread pool runs in parallel (a cost model keeps "
             "cheap ones sequential); off: single-threaded code"),
    cl::init("on"), cl::cat(category));
cl::opt<int64_t> parallelMinCostOpt(
    "parallel-min-cost",
    cl::desc("Cost-model threshold (loop iterations x scalar ops) below "
             "which an op stays sequential (default 16777216); chunks cost at "
             "least 1/8 of it, task-group members at least 1/16"),
    cl::init(16777216), cl::cat(category));
cl::opt<bool> profileOpt(
    "profile",
    cl::desc("Profiling build: the model times every pool launch and the "
             "inline code between launches (calls and wall time per "
             "instance; tfrt/profile.h, tfrt-run --profile); the table of "
             "what each launch runs (nodes, op types, FLOPs) is in the "
             "object and the metadata JSON"),
    cl::init(false), cl::cat(category));
cl::opt<bool> flushDenormalsOpt(
    "flush-denormals",
    cl::desc("Replace subnormal f32 weights (below 2^-126) by zeros of the "
             "same sign, which x86 cores otherwise read through a slow "
             "microcode assist (default on; =false keeps them)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseEpiloguesOpt(
    "fuse-epilogues",
    cl::desc("Apply the elementwise ops after a 1x1 conv or MatMul to its "
             "register tiles before they are stored, instead of a second "
             "pass over the output (default on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fusionReportOpt(
    "fusion-report",
    cl::desc("Print a fusion report to stderr as remarks: the linalg ops "
             "before and after elementwise fusion, and every epilogue that "
             "runs on a kernel's register tiles, with its nodes"),
    cl::init(false), cl::cat(category));
cl::opt<unsigned> codegenThreadsOpt(
    "codegen-threads",
    cl::desc("Threads for LLVM optimisation and machine code generation: "
             "the module is split into up to N partitions compiled in "
             "parallel and merged into one object with ld.lld (default 0: "
             "the machine's hardware threads, at most 8; 1: the module "
             "whole, and MLIR's passes on the calling thread too; "
             "--emit=llvm|asm and --target=cuda compile it whole)"),
    cl::init(0), cl::cat(category));
cl::opt<uint64_t> codegenSplitMinOpt(
    "codegen-split-min",
    cl::desc("With --codegen-threads: modules of fewer LLVM instructions "
             "are compiled whole (default 20000)"),
    cl::init(20000), cl::cat(category));
cl::opt<unsigned> inlineUnrollLimitOpt(
    "inline-unroll-limit",
    cl::desc("LLVM's unroller keeps the loops of the inline code (what runs "
             "between pool launches) that run more than N times, or an "
             "unknown number of times, rolled: its kernels are unrolled "
             "already, and on PP-OCR cls this took a fifth off the compile "
             "time at the same speed (default 8; 0: LLVM decides for every "
             "loop)"),
    cl::init(8), cl::cat(category));
cl::opt<unsigned> unrollMaxLoopSizeOpt(
    "unroll-max-loop-size",
    cl::desc("LLVM's unroller keeps every loop of more than N LLVM "
             "instructions (its nested loops included) rolled without "
             "costing it: such loops hold register tiles our passes "
             "unrolled already; PP-OCR cls compiles with 11% fewer "
             "instructions to the same object (default 200; 0: no limit)"),
    cl::init(200), cl::cat(category));
cl::opt<unsigned> convPrefetchRowsOpt(
    "conv-prefetch-rows",
    cl::desc("Register tiles of windowed convolutions on the rows-outer "
             "input prefetch, with each tap's input rows, the rows N further "
             "down (default 1; 0: no prefetches)"),
    cl::init(1), cl::cat(category));
cl::opt<bool> winogradOpt(
    "winograd",
    cl::desc("Run 3x3 stride-1 convolutions with at least 32 input channels "
             "as Winograd F(2x2, 3x3) on targets with 32 512-bit vector "
             "registers (default on; =false: direct register tiles)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseConvBandsOpt(
    "fuse-conv-bands",
    cl::desc("Run a depthwise convolution and the 1x1 convolution with at "
             "most 64 input channels that reads it together over bands of a "
             "few rows, the depthwise output staying in cache (default on; "
             "=false: one pass over memory each)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseConvBandTailsOpt(
    "fuse-conv-band-tails",
    cl::desc("With --fuse-conv-bands: a 3x3 stride-2 depthwise convolution "
             "that reads the 1x1 convolution's padded result joins the bands, "
             "the 1x1 output staying in cache too (default on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> fuseConvTransposePairsOpt(
    "fuse-conv-transpose-pairs",
    cl::desc("Run a ConvTranspose whose kernel equals its stride and a "
             "second one that reads its result together over bands of input "
             "rows, the intermediate staying in cache (default on; =false: "
             "one pass over memory each)"),
    cl::init(true), cl::cat(category));
cl::opt<unsigned> winogradTileOpt(
    "winograd-tile",
    cl::desc("With --winograd: the output tile, 2 (F(2x2, 3x3), default) or "
             "4 (F(4x4, 3x3) where the shape allows: 2.25 instead of 4 "
             "multiplications per output and input channel, rounding errors "
             "about ten times larger)"),
    cl::init(2), cl::cat(category));
cl::opt<bool> listOps("list-ops",
                      cl::desc("Print the supported ONNX operators and exit"),
                      cl::cat(category));

/// --time-phases: seconds per phase, printed to stderr as
/// `time-phases: NAME SECONDS` lines and a total.
struct PhaseTimer {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  double total = 0;
  void record(llvm::StringRef phase, double seconds) {
    total += seconds;
    if (timePhases)
      llvm::errs() << llvm::format("time-phases: %-10s %8.3f s\n",
                                   phase.str().c_str(), seconds);
  }
  /// Records the time since the previous lap under `phase`.
  void lap(llvm::StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    record(phase, std::chrono::duration<double>(now - start).count());
    start = now;
  }
  ~PhaseTimer() {
    if (timePhases)
      llvm::errs() << llvm::format("time-phases: %-10s %8.3f s\n", "total",
                                   total);
  }
};

/// Prints diagnostics as `error: FILE[:LINE:COL]: [node 'N': ]message`.
void printDiagnostic(Diagnostic &diag) {
  std::string file, node;
  unsigned line = 0, col = 0;
  diag.getLocation()->walk([&](Location loc) {
    if (auto n = dyn_cast<NameLoc>(loc)) {
      if (node.empty())
        node = n.getName().str();
    } else if (auto f = dyn_cast<FileLineColLoc>(loc)) {
      if (file.empty()) {
        file = f.getFilename().str();
        line = f.getLine();
        col = f.getColumn();
      }
    }
    return WalkResult::advance();
  });
  llvm::raw_ostream &os = llvm::errs();
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  }
  if (file.empty())
    file = inputFile;
  os << file;
  if (line)
    os << ":" << line << ":" << col;
  os << ": ";
  std::string msg = diag.str();
  if (!node.empty() && msg.find("'" + node + "'") == std::string::npos)
    os << "node '" << node << "': ";
  os << msg << "\n";
  for (Diagnostic &n : diag.getNotes())
    printDiagnostic(n);
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "error: " << msg << "\n";
  return 1;
}

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string defaultName(llvm::StringRef path) {
  std::string s;
  for (char c : llvm::sys::path::stem(path))
    s += llvm::isAlnum(c) ? c : '_';
  if (s.empty() || llvm::isDigit(s[0]))
    s = "m_" + s;
  return s;
}

/// Where libtfrt_runtime.a lives relative to this executable.
std::string findRuntimeLib(const char *argv0) {
  std::string exe =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&findRuntimeLib);
  llvm::SmallString<256> real;
  if (!exe.empty() && !llvm::sys::fs::real_path(exe, real))
    exe = std::string(real);
  llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(p, "..", "lib", "libtfrt_runtime.a");
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

/// Writes all `files` (path -> contents) or none.
bool writeAll(const std::vector<std::pair<std::string, std::string>> &files) {
  std::vector<std::string> temps;
  auto cleanup = [&] {
    for (const std::string &t : temps)
      (void)llvm::sys::fs::remove(t);
  };
  for (const auto &[path, contents] : files) {
    std::string tmp = path + ".tmp";
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      llvm::errs() << "error: cannot write '" << path << "': " << ec.message()
                   << "\n";
      cleanup();
      return false;
    }
    temps.push_back(tmp);
    os << contents;
    os.close();
    if (os.has_error()) {
      llvm::errs() << "error: cannot write '" << path << "'\n";
      os.clear_error();
      cleanup();
      return false;
    }
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (auto ec = llvm::sys::fs::rename(temps[i], files[i].first)) {
      llvm::errs() << "error: cannot create '" << files[i].first
                   << "': " << ec.message() << "\n";
      for (size_t j = 0; j < i; ++j)
        (void)llvm::sys::fs::remove(files[j].first);
      cleanup();
      return false;
    }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tfrt-compile " << tfrt::compilerVersion() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "tfrt-compile: ahead-of-time model compiler\n");

  if (listOps) {
    for (const std::string &op : tfrt::supportedOnnxOps())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (inputFile.empty())
    return fail("no model file given (see --help)");
  if (!llvm::sys::fs::exists(inputFile))
    return fail("'" + inputFile + "': no such file");

  // Format.
  std::optional<tfrt::ModelFormat> format;
  if (!formatOpt.empty()) {
    format = llvm::StringSwitch<std::optional<tfrt::ModelFormat>>(formatOpt)
                 .Case("onnx", tfrt::ModelFormat::Onnx)
                 .Case("json", tfrt::ModelFormat::Json)
                 .Case("mlir", tfrt::ModelFormat::Mlir)
                 .Default(std::nullopt);
    if (!format)
      return fail("unknown --format '" + formatOpt +
                  "' (expected onnx, json or mlir)");
  } else {
    format = tfrt::formatFromExtension(inputFile);
    if (!format)
      return fail("cannot tell the format of '" + inputFile +
                  "' from its extension; pass --format=onnx|json|mlir");
  }

  // Emit kind and name.
  llvm::StringRef emit = emitOpt;
  if (!llvm::is_contained({"obj", "lib", "shared", "mlir", "llvm", "asm"},
                          emit))
    return fail("unknown --emit '" + emitOpt +
                "' (expected obj, lib, shared, mlir, llvm or asm)");
  std::string name = nameOpt.empty() ? defaultName(inputFile) : nameOpt;
  if (!isIdentifier(name))
    return fail("--name '" + name + "' is not a C identifier");
  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel) + ": expected -O0 to -O3");
  if (codegenThreadsOpt > 256)
    return fail("--codegen-threads=" + llvm::Twine(codegenThreadsOpt) +
                ": expected 0 (the hardware threads, at most 8) to 256");
  if (emit == "shared" && !targetTriple.empty() && linkerOpt.empty() &&
      llvm::Triple(llvm::Triple::normalize(targetTriple)) !=
          llvm::Triple(llvm::sys::getDefaultTargetTriple()))
    return fail("--emit=shared links with the host's linker; for "
                "--target-triple=" +
                targetTriple +
                " use --emit=obj or --emit=lib, or name a cross linker "
                "driver with --linker");
  // --target=cuda and its options.
  bool cuda = targetOpt == "cuda";
  // Testing aid: the CUDA kernel formation run as CPU loops (docs/gpu.md).
  bool cudaEmulate = targetOpt == "cuda-emulate";
  tfrt::CudaPipelineOptions cudaOpts;
  if (!cuda && !cudaEmulate && targetOpt != "cpu")
    return fail("unknown --target '" + targetOpt + "' (expected cpu or cuda)");
  for (cl::Option *o : std::initializer_list<cl::Option *>{
           &gpuArchOpt, &cudaPathOpt, &gpuPrecisionOpt, &gpuDumpDirOpt})
    if (!cuda && o->getNumOccurrences())
      return fail("--" + o->ArgStr + " needs --target=cuda");
  if (cuda) {
    if (!targetTriple.empty())
      return fail("--target-triple is for CPU targets; with --target=cuda "
                  "the host code is compiled for this machine");
    if (gpuPrecisionOpt != "f32")
      return fail("--gpu-precision=" + gpuPrecisionOpt +
                  " is not supported: only f32 (exact f32 arithmetic) for now");
    cudaOpts.archs.clear();
    llvm::SmallVector<llvm::StringRef> archs;
    llvm::StringRef(gpuArchOpt).split(archs, ',', -1, false);
    for (llvm::StringRef a : archs) {
      a = a.trim();
      if (!llvm::is_contained(tfrt::supportedCudaArchs(), a))
        return fail("unsupported --gpu-arch '" + a +
                    "' (expected sm_80, sm_89 or sm_90, comma-separated)");
      if (!llvm::is_contained(cudaOpts.archs, a.str()))
        cudaOpts.archs.push_back(a.str());
    }
    if (cudaOpts.archs.empty())
      return fail("--gpu-arch is empty (expected sm_80, sm_89 or sm_90)");
    const char *home = getenv("CUDA_HOME");
    cudaOpts.cudaPath = !cudaPathOpt.empty() ? std::string(cudaPathOpt)
                        : home && *home      ? std::string(home)
                                             : std::string("/usr/local/cuda");
    for (const char *tool :
         {"bin/ptxas", "bin/fatbinary", "nvvm/libdevice/libdevice.10.bc"}) {
      llvm::SmallString<256> p(cudaOpts.cudaPath);
      llvm::sys::path::append(p, tool);
      if (!llvm::sys::fs::exists(p))
        return fail("CUDA toolkit: '" + p +
                    "' not found (install the CUDA toolkit, or pass "
                    "--cuda-path or set CUDA_HOME to its root)");
    }
    cudaOpts.dumpDir = gpuDumpDirOpt;
    if (!cudaOpts.dumpDir.empty())
      if (auto ec = llvm::sys::fs::create_directories(cudaOpts.dumpDir))
        return fail("cannot create '" + cudaOpts.dumpDir +
                    "': " + ec.message());
  }
  std::optional<tfrt::Phase> phase = tfrt::parsePhase(compileTo);
  if (!phase)
    return fail("unknown --compile-to '" + compileTo +
                "' (expected graph, linalg, bufferized or llvm)");

  // Input shapes.
  tfrt::ImportOptions importOpts;
  importOpts.fileName = inputFile;
  for (const std::string &spec : inputShapes) {
    auto [n, dims] = llvm::StringRef(spec).split('=');
    llvm::SmallVector<int64_t> d;
    if (!llvm::StringRef(spec).contains('=') || n.empty() ||
        failed(tfrt::graph::parseDims(dims, d)))
      return fail("malformed --input-shape '" + spec +
                  "': expected NAME=D0xD1x... (e.g. x=1x3x224x224)");
    importOpts.inputShapes.push_back({n.str(), d});
  }

  // Import.
  DialectRegistry registry;
  tfrt::registerAllDialects(registry);
  // The pipeline appends upstream passes by name.
  tfrt::registerAllPasses();
  // --codegen-threads=1 compiles on the calling thread alone: MLIR's pass
  // manager then runs function passes one after another too.
  MLIRContext ctx(registry, codegenThreadsOpt == 1
                                ? MLIRContext::Threading::DISABLED
                                : MLIRContext::Threading::ENABLED);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &d) {
    printDiagnostic(d);
    return success();
  });
  PhaseTimer timer;
  OwningOpRef<ModuleOp> module;
  if (*format == tfrt::ModelFormat::Mlir) {
    llvm::SourceMgr sm;
    std::string err;
    auto buf = openInputFile(inputFile, &err);
    if (!buf)
      return fail(err);
    sm.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sm, &ctx);
    if (!module)
      return 1;
  } else {
    auto imported = tfrt::importModel(ctx, *format, importOpts);
    if (failed(imported))
      return 1;
    module = std::move(*imported);
  }

  // Graph phase: shapes (MLIR input gets its --input-shape here).
  tfrt::PipelineOptions popts;
  popts.modelName = name;
  popts.optLevel = optLevel;
  if (cuda)
    popts.workspaceAlignment = 256; // cudaMalloc's alignment
  // CUDA maps the linalg ops to kernels itself: no CPU tiling/vectorisation.
  if (cuda || cudaEmulate)
    popts.cpuKernels = false;
  if (parallelOpt != "on" && parallelOpt != "off")
    return fail("--parallel must be 'on' or 'off', got '" + parallelOpt + "'");
  if (parallelMinCostOpt < 1)
    return fail("--parallel-min-cost must be positive");
  if (winogradTileOpt != 2 && winogradTileOpt != 4)
    return fail("--winograd-tile must be 2 or 4, got " +
                std::to_string(winogradTileOpt));
  popts.parallelLoops = parallelOpt == "on";
  if (profileOpt && (cuda || cudaEmulate))
    return fail("--profile is for CPU targets (it times the pool launches)");
  if (profileOpt && !popts.parallelLoops)
    return fail("--profile times the launches of the async lowering; it "
                "needs --parallel=on");
  popts.profile = profileOpt;
  popts.flushDenormals = flushDenormalsOpt;
  popts.fuseEpilogues = fuseEpiloguesOpt;
  popts.convPrefetchRows = convPrefetchRowsOpt;
  popts.winograd = winogradOpt;
  popts.fuseConvBands = fuseConvBandsOpt;
  popts.fuseConvBandTails = fuseConvBandTailsOpt;
  popts.fuseConvTransposePairs = fuseConvTransposePairsOpt;
  popts.winogradTile = winogradTileOpt;
  popts.fusionRemarks = fusionReportOpt;
  popts.parallelMinCost = parallelMinCostOpt;
  popts.parallelMinChunkCost = std::max<int64_t>(1, parallelMinCostOpt / 8);
  popts.parallelMinTaskCost = std::max<int64_t>(1, parallelMinCostOpt / 16);
  if (*format == tfrt::ModelFormat::Mlir)
    popts.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  tfrt::TargetOptions topts;
  topts.triple = targetTriple;
  topts.cpu = mcpu;
  topts.features = mattr;
  topts.optLevel = optLevel;
  topts.codegenThreads =
      codegenThreadsOpt
          ? codegenThreadsOpt
          : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  topts.splitMinInstructions = codegenSplitMinOpt;
  topts.inlineUnrollLimit = inlineUnrollLimitOpt;
  topts.unrollMaxLoopSize = unrollMaxLoopSizeOpt;
  // The register tiles follow the target's vector registers (--mcpu,
  // --mattr, --target-triple; the host by default).
  if (!cuda && !cudaEmulate) {
    auto unit = tfrt::targetVectorUnit(topts);
    if (!unit)
      return fail(llvm::toString(unit.takeError()));
    popts.vectorBits = unit->bits;
    popts.vectorRegisters = unit->registers;
  }
  {
    PassManager pm(&ctx);
    timer.lap("import");
    tfrt::buildGraphPipeline(pm, popts);
    if (failed(pm.run(*module)))
      return 1;
    timer.lap("graph");
  }
  if (emit == "mlir" && *phase == tfrt::Phase::Graph) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (outputOpt == "-") {
      llvm::outs() << text;
      return 0;
    }
  }
  auto sig = tfrt::extractSignature(*module);
  if (!sig)
    return fail(llvm::toString(sig.takeError()));

  // Remaining phases, one pass manager each (so that each can be timed).
  {
    using Builder = void (*)(OpPassManager &, const tfrt::PipelineOptions &);
    const std::pair<tfrt::Phase, Builder> phases[] = {
        {tfrt::Phase::Linalg, tfrt::buildLinalgPipeline},
        {tfrt::Phase::Bufferized, tfrt::buildBufferizePipeline},
        {tfrt::Phase::Llvm, tfrt::buildLlvmPipeline}};
    const char *names[] = {"linalg", "bufferize", "llvm"};
    for (auto [i, p] : llvm::enumerate(phases)) {
      if (static_cast<int>(p.first) > static_cast<int>(*phase))
        break;
      PassManager pm(&ctx);
      if (cuda && p.first == tfrt::Phase::Llvm)
        tfrt::buildCudaPipeline(pm, popts, cudaOpts);
      else if (cudaEmulate && p.first == tfrt::Phase::Llvm)
        tfrt::buildCudaEmulationPipeline(pm, popts, cudaOpts);
      else
        p.second(pm, popts);
      if (failed(pm.run(*module)))
        return 1;
      timer.lap(names[i]);
    }
  }

  // Decide the output paths.
  bool toStdout = outputOpt == "-";
  std::string dir, mainPath;
  llvm::StringRef ext = llvm::StringSwitch<llvm::StringRef>(emit)
                            .Case("obj", ".o")
                            .Case("lib", ".a")
                            .Case("shared", ".so")
                            .Case("mlir", ".mlir")
                            .Case("llvm", ".ll")
                            .Default(".s");
  if (toStdout) {
    if (emit == "obj" || emit == "lib" || emit == "shared")
      return fail("-o - is only allowed with --emit=mlir, llvm or asm");
  } else if (llvm::sys::fs::is_directory(outputOpt) ||
             llvm::StringRef(outputOpt).ends_with("/") ||
             llvm::sys::path::extension(outputOpt) != ext) {
    // A directory (created when missing) unless the path names a file with
    // the artifact's extension.
    dir = outputOpt;
    if (auto ec = llvm::sys::fs::create_directories(dir))
      return fail("cannot create '" + dir + "': " + ec.message());
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name + ext);
    mainPath = std::string(p);
  } else {
    mainPath = outputOpt;
    dir = llvm::sys::path::parent_path(mainPath).str();
    if (!dir.empty() && !llvm::sys::fs::is_directory(dir))
      return fail("output directory '" + dir + "' does not exist");
  }
  auto sidePath = [&](llvm::StringRef newExt) {
    llvm::SmallString<256> p(mainPath);
    llvm::sys::path::replace_extension(p, newExt);
    return std::string(p);
  };

  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (toStdout) {
      llvm::outs() << text;
      return 0;
    }
    return writeAll({{mainPath, text}}) ? 0 : 1;
  }

  tfrt::OutputKind kind = emit == "llvm"  ? tfrt::OutputKind::LlvmIr
                          : emit == "asm" ? tfrt::OutputKind::Assembly
                                          : tfrt::OutputKind::Object;
  tfrt::ResolvedTarget resolved;
  std::optional<tfrt::ProfileTable> profile = tfrt::extractProfile(*module);
  auto code = tfrt::emitModelCode(*module, name, *sig, topts, kind, resolved,
                                  profile ? &*profile : nullptr);
  if (!code)
    return fail(llvm::toString(code.takeError()));
  timer.record("translate", resolved.translateSeconds);
  const tfrt::CodegenStats &cg = resolved.codegen;
  if (cg.partitions > 1)
    timer.record("split", cg.splitSeconds);
  timer.record("llvm-opt", cg.optimizeSeconds);
  timer.record("codegen", cg.codegenSeconds);
  if (cg.partitions > 1) {
    timer.record("merge", cg.mergeSeconds);
    if (timePhases)
      llvm::errs() << "time-phases: " << cg.partitions
                   << " partitions compiled in parallel\n";
  } else if (timePhases) {
    llvm::errs() << "time-phases: compiled whole (" << cg.whole << ")\n";
  }
  timer.start = std::chrono::steady_clock::now();
  if (toStdout) {
    llvm::outs() << *code;
    return 0;
  }
  if (emit == "llvm" || emit == "asm")
    return writeAll({{mainPath, *code}}) ? 0 : 1;

  std::string artifact = *code;
  if (emit == "lib") {
    auto a = tfrt::makeArchive(name, *code);
    if (!a)
      return fail(llvm::toString(a.takeError()));
    artifact = std::move(*a);
  } else if (emit == "shared") {
    std::string rt =
        runtimeLibOpt.empty() ? findRuntimeLib(argv[0]) : runtimeLibOpt;
    auto so = tfrt::makeSharedLibrary(name, *code, rt, linkerOpt);
    if (!so)
      return fail(llvm::toString(so.takeError()));
    artifact = std::move(*so);
  }
  if (emit == "lib" || emit == "shared")
    timer.lap(emit == "lib" ? "archive" : "link");

  uint64_t wsBytes = 0, wsAlign = 64;
  module->walk([&](Operation *op) {
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.workspace_size"))
      wsBytes = a.getInt();
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.workspace_alignment"))
      wsAlign = a.getInt();
  });
  std::string sha;
  if (auto buf = llvm::MemoryBuffer::getFile(inputFile)) {
    auto digest =
        llvm::SHA256::hash(llvm::arrayRefFromStringRef((*buf)->getBuffer()));
    sha = llvm::toHex(digest, /*LowerCase=*/true);
  }
  std::string header = tfrt::emitHeader(
      name, *sig, wsBytes, llvm::sys::path::filename(inputFile).str());
  std::string meta = tfrt::emitMetadata(
      name, *sig, wsBytes, wsAlign, resolved, optLevel, inputFile, sha,
      llvm::sys::path::filename(mainPath).str(), profile ? &*profile : nullptr);
  return writeAll({{mainPath, artifact},
                   {sidePath(".h"), header},
                   {sidePath(".json"), meta}})
             ? 0
             : 1;
}
