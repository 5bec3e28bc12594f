//===- Pipeline.h - the compilation pipeline as library functions -*- C++ -*-===//
//
// The phases of tfrt-compile as functions that populate a pass manager from
// an explicit options struct (no global options). Tools and tests compose
// them; `--compile-to=<phase>` stops after a phase.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_PIPELINE_PIPELINE_H
#define TFRT_COMPILER_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>
#include <vector>

namespace tfrt {

/// Where compilation stops.
enum class Phase {
  Graph,      ///< graph dialect, shapes specialised and folded
  Linalg,     ///< linalg on tensors
  Bufferized, ///< memrefs with the caller-buffer ABI and the planned workspace
  Llvm,       ///< LLVM dialect
};

/// Parses "graph", "linalg", "bufferized" or "llvm".
std::optional<Phase> parsePhase(llvm::StringRef name);

/// Options of the pipeline; every pass option comes from here.
struct PipelineOptions {
  /// The model's symbol prefix; the compute function is `<name>_compute`.
  std::string modelName = "model";
  /// NAME=D0xD1x... shapes for tfrt-specialize-shapes (importers usually
  /// apply them already; MLIR input relies on this).
  std::vector<std::string> inputShapes;
  /// Workspace alignment in bytes.
  int64_t workspaceAlignment = 64;
  /// Middle-end optimisation level 0-3 (controls optional passes).
  unsigned optLevel = 3;
  /// Subnormal elements of f32 constants become signed zeros
  /// (tfrt-flush-denormals): x86 cores take a slow microcode assist on
  /// every instruction that reads one.
  bool flushDenormals = true;
  /// Apply the elementwise consumer of a 1x1 conv or matmul to its register
  /// tiles before they are stored (tfrt-async-tile-loops and
  /// tfrt-vectorize-matmul `epilogues`), instead of a second pass over the
  /// output.
  bool fuseEpilogues = true;
  /// Report fusion as remarks: the linalg ops before and after elementwise
  /// fusion, and every epilogue applied to a kernel's register tiles.
  bool fusionRemarks = false;
  /// The linalg phase prepares CPU kernels (tiling and vectorisation of
  /// matmuls); false when another target (CUDA) maps the linalg ops itself.
  bool cpuKernels = true;
  /// Async lowering of CPU code: expensive loops become chunks that the
  /// instance's thread pool runs in parallel (tfrt-async-tile-loops with
  /// these cost-model thresholds, then tfrt-async-outline). Off: the model
  /// always runs on the calling thread.
  bool parallelLoops = true;
  /// Cost model thresholds in estimated scalar ops (loop iterations x body
  /// ops): an op is split into chunks from parallelMinCost on, a chunk costs
  /// at least parallelMinChunkCost, an op joins a task group from
  /// parallelMinTaskCost on. Calibrated on the 2-vCPU VM: waking a parked
  /// worker costs tens of microseconds.
  int64_t parallelMinCost = 16777216;
  int64_t parallelMinChunkCost = 2097152;
  int64_t parallelMinTaskCost = 1048576;
  int64_t parallelMaxChunks = 64;
  /// Kernels of at least this cost that are neither split nor grouped still
  /// get a body function of their own (one-iteration launch), whose buffers
  /// are separate noalias pointers: LLVM then vectorises them without
  /// run-time alias checks (cls: about 9% faster). 0: off.
  int64_t kernelMinCost = 16384;
  /// A profiling build (tfrt-compile --profile): graph ops record their type
  /// and linalg ops their FLOPs in their locations, and tfrt-async-outline
  /// describes every launch in the module's `tfrt.profile` attribute, which
  /// the emitter turns into the profile table (tfrt/profile.h). Needs the
  /// async lowering (parallelLoops, cpuKernels).
  bool profile = false;
  /// The target's vector registers: width in bits and count (AVX-512: 512
  /// and 32, AVX2: 256 and 16, NEON: 128 and 32). They size the register
  /// tiles of the vectorizing passes and the lanes of their 1-D kernels
  /// (tfrt::targetVectorUnit derives them from the target).
  int64_t vectorBits = 512;
  int64_t vectorRegisters = 32;
  /// Windowed conv register tiles on the rows-outer input prefetch the input
  /// row this many rows below each tap's (tfrt-prefetch-conv-rows; 0: off).
  int64_t convPrefetchRows = 1;
  /// 3x3 stride-1 convolutions with enough input channels run as Winograd
  /// F(2x2, 3x3) (tfrt-winograd-conv; targets with 32 512-bit registers).
  bool winograd = true;
  /// Its largest output tile: 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3) where the
  /// shape allows).
  int64_t winogradTile = 2;
  /// A depthwise conv and the thin 1x1 conv reading it run together over
  /// bands of rows (tfrt-fuse-conv-bands).
  bool fuseConvBands = true;
  /// With it, a stride-2 depthwise conv reading the 1x1 conv's padded
  /// result joins the bands (tfrt-fuse-conv-bands `tails`).
  bool fuseConvBandTails = true;
  /// Run a non-overlapping ConvTranspose (with its epilogue) and a second
  /// one that reads its result over bands of input rows
  /// (tfrt-fuse-conv-transpose-pairs), the intermediate staying in cache.
  bool fuseConvTransposePairs = true;
};

/// Shape specialisation, inference and folding; fails on unknown shapes.
void buildGraphPipeline(mlir::OpPassManager &pm, const PipelineOptions &opts);

/// graph -> linalg on tensors, cleaned up.
void buildLinalgPipeline(mlir::OpPassManager &pm, const PipelineOptions &opts);

/// Caller-buffer ABI, one-shot bufferization and workspace planning.
void buildBufferizePipeline(mlir::OpPassManager &pm,
                            const PipelineOptions &opts);

/// Loops, math approximations and conversion to the LLVM dialect.
void buildLlvmPipeline(mlir::OpPassManager &pm, const PipelineOptions &opts);

/// All phases up to and including `last`.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &opts,
                   Phase last);

/// Registers `tfrt-compile-pipeline` (whole pipeline) for tfrt-opt.
void registerPipelines();

} // namespace tfrt

#endif // TFRT_COMPILER_PIPELINE_PIPELINE_H
