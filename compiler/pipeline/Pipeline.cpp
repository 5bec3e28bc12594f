//===- Pipeline.cpp - the compilation pipeline ----------------------------===//
//
// Populates pass managers for each phase of tfrt-compile from an explicit
// PipelineOptions. Our passes are created directly with their options;
// upstream passes are appended from textual pipeline strings built here.
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/Pipeline.h"

#include "passes/Async/Passes.h"
#include "passes/CodegenCPU/Passes.h"
#include "passes/CodegenCPU/RegisterTile.h"
#include "passes/Conversion/Passes.h"
#include "passes/Graph/Passes.h"
#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace {
/// Appends an upstream textual pipeline; these strings are fixed by us, so a
/// parse failure is a programming error.
void addUpstream(OpPassManager &pm, llvm::StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error(llvm::Twine("invalid built-in pipeline: ") +
                             pipeline);
}
} // namespace

std::optional<tfrt::Phase> tfrt::parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("graph", Phase::Graph)
      .Case("linalg", Phase::Linalg)
      .Case("bufferized", Phase::Bufferized)
      .Case("llvm", Phase::Llvm)
      .Default(std::nullopt);
}

void tfrt::buildGraphPipeline(OpPassManager &pm, const PipelineOptions &opts) {
  graph::SpecializeShapesOptions o;
  o.inputShapes.assign(opts.inputShapes.begin(), opts.inputShapes.end());
  o.requireStatic = true;
  pm.addPass(graph::createSpecializeShapes(o));
  if (opts.optLevel >= 1)
    pm.addNestedPass<func::FuncOp>(graph::createSimplifyGraph());
  if (opts.flushDenormals)
    pm.addNestedPass<func::FuncOp>(graph::createFlushDenormals());
  if (opts.optLevel >= 1)
    pm.addNestedPass<func::FuncOp>(graph::createHoistShrinkingOps());
  if (opts.profile)
    pm.addNestedPass<func::FuncOp>(createProfileTagOps());
}

void tfrt::buildLinalgPipeline(OpPassManager &pm, const PipelineOptions &opts) {
  // Gather/scatter indices: constants checked now, the others at run time
  // (CPU targets: the check's reduction must run on the host).
  if (opts.cpuKernels)
    pm.addNestedPass<func::FuncOp>(graph::createCheckIndices());
  // Scatters as loops over their updates on CPU targets (host code); the
  // CUDA pipeline maps only linalg ops onto the device.
  LowerGraphToLinalgOptions lower;
  lower.scatterLoops = opts.cpuKernels;
  pm.addNestedPass<func::FuncOp>(createLowerGraphToLinalg(lower));
  addUpstream(pm, "canonicalize,cse");
  if (opts.optLevel >= 1) {
    FuseElementwiseOptions fuse;
    fuse.remarks = opts.fusionRemarks;
    pm.addNestedPass<func::FuncOp>(createFuseElementwise(fuse));
    addUpstream(pm, "canonicalize,cse");
  }
  if (opts.profile)
    pm.addNestedPass<func::FuncOp>(createProfileCountFlops());
  if (opts.optLevel >= 1 && opts.cpuKernels) {
    // Before the async tiling: its rows become parallel chunks of their own.
    VectorizeSoftmaxOptions softmax;
    softmax.lanes =
        codegen::VectorUnit{opts.vectorBits, opts.vectorRegisters}.lanes();
    pm.addNestedPass<func::FuncOp>(createVectorizeSoftmax(softmax));
    pm.addNestedPass<func::FuncOp>(createSplitConvPhases());
    pm.addNestedPass<func::FuncOp>(createPadInPlace());
    // The products' 8 x 32 register tiles need 16 of 32 zmm registers.
    if (opts.winograd && opts.vectorBits >= 512 && opts.vectorRegisters >= 32) {
      WinogradConvOptions winograd;
      winograd.maxTile = opts.winogradTile;
      pm.addNestedPass<func::FuncOp>(createWinogradConv(winograd));
    }
    if (opts.fuseConvBands) {
      FuseConvBandsOptions bands;
      bands.tails = opts.fuseConvBandTails;
      pm.addNestedPass<func::FuncOp>(createFuseConvBands(bands));
    }
    if (opts.fuseConvTransposePairs)
      pm.addNestedPass<func::FuncOp>(createFuseConvTransposePairs());
  }
  if (opts.cpuKernels && opts.parallelLoops) {
    AsyncScheduleOptions schedule;
    schedule.minTaskCost = opts.parallelMinTaskCost;
    pm.addNestedPass<func::FuncOp>(createAsyncSchedule(schedule));
    AsyncTileLoopsOptions tile;
    tile.minCost = opts.parallelMinCost;
    tile.minChunkCost = opts.parallelMinChunkCost;
    tile.maxChunks = opts.parallelMaxChunks;
    tile.costPerByte = 1;
    tile.epilogues = opts.fuseEpilogues;
    pm.addNestedPass<func::FuncOp>(createAsyncTileLoops(tile));
  }
  if (opts.optLevel >= 1 && opts.cpuKernels) {
    // 1-D kernels take vectors of the target's width.
    int64_t lanes =
        codegen::VectorUnit{opts.vectorBits, opts.vectorRegisters}.lanes();
    VectorizeConvOptions conv;
    conv.vectorBits = opts.vectorBits;
    conv.vectorRegisters = opts.vectorRegisters;
    conv.epilogues = opts.fuseEpilogues;
    conv.remarks = opts.fusionRemarks;
    pm.addNestedPass<func::FuncOp>(createVectorizeConv(conv));
    pm.addNestedPass<func::FuncOp>(createSplitMatmulColumns());
    VectorizeMatmulOptions matmul;
    matmul.epilogues = opts.fuseEpilogues;
    matmul.remarks = opts.fusionRemarks;
    matmul.vectorBits = opts.vectorBits;
    matmul.vectorRegisters = opts.vectorRegisters;
    pm.addNestedPass<func::FuncOp>(createVectorizeMatmul(matmul));
    VectorizeDepthwiseOptions depthwise;
    depthwise.epilogues = opts.fuseEpilogues;
    depthwise.remarks = opts.fusionRemarks;
    depthwise.lanes = lanes;
    pm.addNestedPass<func::FuncOp>(createVectorizeDepthwise(depthwise));
    VectorizeConvTransposeOptions convTranspose;
    convTranspose.epilogues = opts.fuseEpilogues;
    convTranspose.remarks = opts.fusionRemarks;
    convTranspose.lanes = lanes;
    // 20 of 32 registers: five input vectors of four taps each, their
    // reads and a broadcast weight; 12 of AVX2's 16.
    convTranspose.maxAccumulators =
        std::min<int64_t>(20, std::max<int64_t>(1, opts.vectorRegisters - 4));
    pm.addNestedPass<func::FuncOp>(createVectorizeConvTranspose(convTranspose));
    VectorizeReductionsOptions reductions;
    reductions.lanes = lanes;
    pm.addNestedPass<func::FuncOp>(createVectorizeReductions(reductions));
    addUpstream(pm, "canonicalize,cse,loop-invariant-subset-hoisting,"
                    "canonicalize");
    pm.addNestedPass<func::FuncOp>(createSeedConvTiles());
    pm.addNestedPass<func::FuncOp>(createPackWeightTiles());
    pm.addNestedPass<func::FuncOp>(createUnrollAccumulatorLoops());
    PrefetchConvRowsOptions prefetch;
    prefetch.rowsAhead = opts.convPrefetchRows;
    pm.addNestedPass<func::FuncOp>(createPrefetchConvRows(prefetch));
    addUpstream(pm, "canonicalize,cse");
  }
}

void tfrt::buildBufferizePipeline(OpPassManager &pm,
                                  const PipelineOptions &opts) {
  EntryAbiOptions abi;
  abi.entry = "main";
  abi.symbol = opts.modelName + "_compute";
  pm.addPass(createEntryAbi(abi));
  pm.addNestedPass<func::FuncOp>(createOutputsInPlace());
  // A tensor.empty inside a sequential loop (tfrt-fuse-conv-bands' band)
  // becomes one buffer outside it.
  addUpstream(pm, "one-shot-bufferize,canonicalize,cse,"
                  "func.func(buffer-loop-hoisting)");
  if (opts.cpuKernels && opts.parallelLoops) {
    AsyncGroupTasksOptions groups;
    groups.minTaskCost = opts.parallelMinTaskCost;
    groups.kernelMinCost = opts.kernelMinCost;
    // A profiling build times launches: one kernel each.
    groups.maxMembers = opts.profile ? 1 : 0;
    pm.addNestedPass<func::FuncOp>(createAsyncGroupTasks(groups));
  }
  PlanWorkspaceOptions ws;
  ws.alignment = opts.workspaceAlignment;
  pm.addNestedPass<func::FuncOp>(createPlanWorkspace(ws));
  LowerCopiesOptions copies;
  if (opts.cpuKernels && opts.parallelLoops) {
    // Copies of 16 KiB and more become launches (vectorised with noalias
    // buffers), padded inputs fill only their border. One chunk each: on
    // the 2-vCPU (one SMT core) VM, det was 1-2 ms slower at 1 and at 2
    // threads with the copies split into chunks of 512 KiB.
    copies.minBytes = 16384;
    copies.chunkBytes = 524288;
    copies.maxChunks = 1;
    copies.fuseFills = true;
  }
  pm.addNestedPass<func::FuncOp>(createLowerCopies(copies));
  if (opts.cpuKernels && opts.parallelLoops) {
    AsyncOutlineOptions outline;
    outline.profile = opts.profile;
    pm.addPass(createAsyncOutline(outline));
  }
  // Failed run-time checks report to the runtime (after the outliner, which
  // adds the run context argument that the reports use).
  pm.addPass(createLowerChecks());
  // Parallel loops the outliner left (none expected) run sequentially.
  addUpstream(pm, "func.func(scf-forall-to-for)");
}

void tfrt::buildLlvmPipeline(OpPassManager &pm, const PipelineOptions &opts) {
  if (opts.optLevel >= 1) {
    pm.addNestedPass<func::FuncOp>(createSplitRepeatedDims());
    pm.addNestedPass<func::FuncOp>(createInterchangeLoops());
  }
  if (opts.optLevel >= 1)
    pm.addNestedPass<func::FuncOp>(createLowerVectors());
  addUpstream(pm, "func.func(convert-linalg-to-loops)");
  // 512-bit vectors for the expanded transcendentals only where the target
  // has them (below that, the attribute would ask for what LLVM's default
  // already gives).
  ApproximateMathOptions approximate;
  approximate.wideVectors = opts.vectorBits >= 512;
  pm.addNestedPass<func::FuncOp>(createApproximateMath(approximate));
  // What works function by function runs nested, so that the pass manager
  // spreads the outlined loop bodies and the compute function over threads
  // (about a quarter off this phase on cls with two); the output is the same
  // as with every pass on the module.
  addUpstream(pm, "convert-math-to-funcs,"
                  "func.func(convert-vector-to-scf,expand-strided-metadata,"
                  "lower-affine,convert-scf-to-cf,canonicalize,cse,"
                  "math-extend-to-supported-types,convert-math-to-llvm),"
                  "convert-math-to-libm,func.func(convert-vector-to-llvm),"
                  "finalize-memref-to-llvm,"
                  "func.func(convert-arith-to-llvm,convert-index-to-llvm),"
                  "convert-cf-to-llvm,"
                  "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
                  "convert-ub-to-llvm,reconcile-unrealized-casts,"
                  "llvm.func(canonicalize)");
}

void tfrt::buildPipeline(OpPassManager &pm, const PipelineOptions &opts,
                         Phase last) {
  buildGraphPipeline(pm, opts);
  if (last == Phase::Graph)
    return;
  buildLinalgPipeline(pm, opts);
  if (last == Phase::Linalg)
    return;
  buildBufferizePipeline(pm, opts);
  if (last == Phase::Bufferized)
    return;
  buildLlvmPipeline(pm, opts);
}

namespace {
struct CompilePipelineOptions
    : public PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> name{*this, "name", llvm::cl::desc("model prefix"),
                           llvm::cl::init("model")};
  Option<std::string> phase{*this, "compile-to",
                            llvm::cl::desc("graph|linalg|bufferized|llvm"),
                            llvm::cl::init("llvm")};
  ListOption<std::string> shapes{*this, "input-shapes",
                                 llvm::cl::desc("NAME=D0xD1x...")};
};
} // namespace

void tfrt::registerPipelines() {
  PassPipelineRegistration<CompilePipelineOptions>(
      "tfrt-compile-pipeline",
      "The whole tfrt-compile pipeline from the graph dialect to LLVM",
      [](OpPassManager &pm, const CompilePipelineOptions &o) {
        PipelineOptions opts;
        opts.modelName = o.name;
        opts.inputShapes.assign(o.shapes.begin(), o.shapes.end());
        buildPipeline(pm, opts, parsePhase(o.phase).value_or(Phase::Llvm));
      });
}
