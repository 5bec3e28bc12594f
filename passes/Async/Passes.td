//===- Passes.td - async lowering passes ----------------------*- tablegen -*-===//
//
// Passes that turn independent work into tasks that runtime-lib's thread
// pool runs concurrently: big loops become parallel chunks.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_ASYNC_PASSES
#define TFRT_PASSES_ASYNC_PASSES

include "mlir/Pass/PassBase.td"

def AsyncTileLoops : Pass<"tfrt-async-tile-loops", "mlir::func::FuncOp"> {
  let summary = "Split expensive linalg ops into parallel chunks (scf.forall)";
  let description = [{
    The cost model of the async lowering (passes/Async/CostModel.h): every
    top-level linalg op of a function on tensors with static loop ranges
    gets an estimated cost (the product of its loop ranges times the ops of
    its body, transcendental math ops counting 16; with `cost-per-byte`,
    at least the bytes its operands move times that, so that memory-bound
    loops such as fills, copies and elementwise chains, which do little
    arithmetic per byte, split by their traffic). Ops costing at least `min-cost` are tiled along their
    first parallel loop whose range has a divisor giving at least two chunks
    of at least `min-chunk-cost` each; the chunks (at most `max-chunks`, the
    tile size always divides the range so that every chunk has the same
    static shape, and is a multiple of every `f` in a `d floordiv f`,
    `d ceildiv f` or `d mod f` of the loop's dimension in the op's maps,
    such as a nearest-neighbour upsampling fused into an elementwise op,
    because the chunks keep the maps on slice-relative indices) become the
    iterations of an `scf.forall`. Cheaper ops, and
    whole small models, stay sequential: dispatching a chunk to another
    thread costs a few microseconds. A `linalg.matmul` is split along M into
    chunks of a multiple of 8 rows (at least 32 rows, or half of M) so that
    tfrt-vectorize-matmul's register and cache tiling still apply inside
    each chunk, or, when M allows no such chunks, along N into multiples of
    32 columns. Every chunk of rows streams the whole right operand through
    the caches, so when that operand is larger than `matmul-reuse-bytes`
    (more than stays in one core's L2 between chunks) a chunk has at least
    `matmul-reuse-rows` rows (or half of M): GEMM 1024^3 becomes 8 chunks of
    128 rows instead of 32 of 32, and reads its 4 MiB right operand from L3
    8 times instead of 32 (1 thread, Xeon with 2 MiB L2: 16.0-18.0 -> 14.4-16.5 ms). The 2-D dense convolution generic of the graph lowering
    (loops `(n, m, oh, ow, c, kh, kw)`) is split along output rows first, so
    that every chunk keeps all output channels for tfrt-vectorize-conv's
    register tile; a 1x1 one (a matmul for tfrt-vectorize-conv) along
    output channels like a matmul along M; when its output width is not a
    multiple of 32 (tfrt-vectorize-conv then runs it over flattened rows),
    every chunk gets at least 320 output positions. The generic of a ConvTranspose
    whose kernel equals its stride (loops `(n, m, ih, kh, c, iw, kw)`) is
    split along input rows: chunks of output channels would each read all
    of the input.
    With `epilogues` (default on), the elementwise consumer of a matmul, a
    1x1 conv, a depthwise conv, a ConvTranspose or an image stem (the 3x3
    stride-2 conv on at most 4 channels that tfrt-vectorize-conv computes
    from its unpadded input; split along output rows) (its result's only user: an all-parallel `linalg.generic` that
    reads it and writes its own init through identity maps, such as a
    folded BatchNorm's activation; after a 1x1 conv also one
    that writes the `[N, OH, M, OW]` rows-outer input of a following
    windowed conv through `(d0, d2, d1, d3)`) is split the way the producer
    would be (when the chunks suit the consumer's maps too),
    and the producer, with the fill or bias broadcast of its init, is
    computed inside each chunk (`scf::tileConsumerAndFuseProducersUsingSCF`):
    tfrt-vectorize-matmul, -depthwise, -conv-transpose and -conv can then apply
    the consumer to each register tile before it is stored, instead of a
    second pass over the output. A consumer that reads a ConvTranspose's
    6-D `[N, M, IH, KH, IW, KW]` result through its collapse into
    `[N, M, OH, OW]` is first rebuilt on the 6-D shape (its init and its
    inputs of the output's shape expanded; the collapse follows it).

    Before:
    ```mlir
    %r = linalg.generic ... ins(%a : tensor<64x4096xf32>) outs(%e : ...)
    ```
    After (`max-chunks=8`):
    ```mlir
    %r = scf.forall (%i) = (0) to (64) step (8) shared_outs(%o = %e) -> ... {
      %s = tensor.extract_slice %a[%i, 0] [8, 4096] [1, 1]
      %t = linalg.generic ... ins(%s : tensor<8x4096xf32>) ...
      scf.forall.in_parallel { tensor.parallel_insert_slice %t into %o[...] }
    }
    ```
  }];
  let options = [
    Option<"minCost", "min-cost", "int64_t", /*default=*/"16777216",
           "Ops with a smaller estimated cost stay sequential">,
    Option<"minChunkCost", "min-chunk-cost", "int64_t", /*default=*/"2097152",
           "The smallest estimated cost of one chunk">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"64",
           "The largest number of chunks of one op">,
    Option<"costPerByte", "cost-per-byte", "int64_t", /*default=*/"0",
           "When positive, an op costs at least the bytes it moves times "
           "this (memory-bound loops: fills, copies, elementwise chains)">,
    Option<"matmulReuseBytes", "matmul-reuse-bytes", "int64_t",
           /*default=*/"1048576",
           "A linalg.matmul whose right operand is larger than this many "
           "bytes splits along M into chunks of at least matmul-reuse-rows "
           "rows (0: never)">,
    Option<"matmulReuseRows", "matmul-reuse-rows", "int64_t",
           /*default=*/"128",
           "The fewest rows of such a matmul's chunk (a multiple of 8)">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Split the elementwise consumer of a matmul, 1x1, depthwise or "
           "transposed conv or an image stem along "
           "with it, computing the producer (and the fill or broadcast of "
           "its init) inside each chunk">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
  let statistics = [
    Statistic<"numSplit", "num-split", "Ops split into parallel chunks">,
    Statistic<"numEpilogues", "num-epilogues",
              "Elementwise consumers split along with their matmul or 1x1 "
              "conv">,
  ];
}

def AsyncSchedule : Pass<"tfrt-async-schedule", "mlir::func::FuncOp"> {
  let summary = "Interleave independent branches (ops sorted by data-flow level)";
  let description = [{
    Runs on tensors, before bufferization. Reorders the top-level ops of a
    function by their level in the data-flow graph (0 for ops without
    producers in the function, else one more than their deepest producer),
    keeping program order among ops of one level. Independent branches that
    the model lists one after the other (all of branch A, then all of B)
    then alternate A1, B1, A2, B2, ..., so that their ops become neighbours
    that tfrt-async-group-tasks can run as concurrent tasks, and
    bufferization and memory planning see the order the tasks will run in.
    Ops with regions, side effects or results used inside other regions'
    ops keep a valid order because every use still follows its definition.
    The order only changes when it can pay: when at least two linalg ops of
    one level cost `min-task-cost` or more (the cost of
    tfrt-async-tile-loops); otherwise producer-consumer neighbours stay
    together for locality. It is also kept when the new order would raise
    the peak of simultaneously live tensor bytes by more than a quarter
    (breadth-first orders keep more feature maps alive, and memory planning
    follows this order).
  }];
  let options = [
    Option<"minTaskCost", "min-task-cost", "int64_t", /*default=*/"1048576",
           "Ops cheaper than this cannot become concurrent tasks">,
  ];
}

def AsyncGroupTasks : Pass<"tfrt-async-group-tasks", "mlir::func::FuncOp"> {
  let summary = "Group neighbouring independent ops into concurrent tasks";
  let description = [{
    Runs on buffers, before tfrt-plan-workspace. Computes what every
    top-level op of the entry function reads and writes (buffers traced
    through view-like ops to their allocation or function argument; an op
    whose effects are unknown is a barrier) and its estimated cost. A task
    group is a run of neighbouring expensive ops (cost >= `min-task-cost`,
    or an scf.forall made by tfrt-async-tile-loops) in which no op reads or
    writes a buffer another one writes; cheap ops between them stay where
    they are provided they are independent of the group, otherwise they end
    it. Every member gets `tfrt.task_group = <id>`: tfrt-plan-workspace
    treats a group as one point in time (its buffers may all be live at
    once, so none shares bytes with another member's), and
    tfrt-async-outline runs a group as one pool launch whose iterations are
    the members' chunks (a plain op is one chunk), so independent branches
    run concurrently. With `max-members` a group closes when it is full
    (`max-members=1`: every expensive op is a launch of its own, as in
    profiling builds, whose per-launch timing then covers one kernel).
  }];
  let options = [
    Option<"minTaskCost", "min-task-cost", "int64_t", /*default=*/"1048576",
           "Ops cheaper than this never form a task of their own">,
    Option<"kernelMinCost", "kernel-min-cost", "int64_t", /*default=*/"0",
           "When positive, every other top-level kernel (an op with a "
           "region) of at least this cost becomes a one-member group, so "
           "that tfrt-async-outline gives it a body function whose buffers "
           "are separate noalias pointers">,
    Option<"maxMembers", "max-members", "int64_t", /*default=*/"0",
           "When positive, a group closes once it has this many members "
           "(profiling builds use 1, so that each kernel is its own launch "
           "and is timed alone)">,
  ];
  let statistics = [
    Statistic<"numGroups", "num-groups", "Task groups of two or more ops">,
    Statistic<"numGrouped", "num-grouped", "Ops in task groups of two or more">,
    Statistic<"numKernels", "num-kernels",
              "Kernels outlined on their own (kernel-min-cost)">,
  ];
}

def AsyncOutline : Pass<"tfrt-async-outline", "mlir::ModuleOp"> {
  let summary = "Outline parallel loops into chunk functions run by the pool";
  let description = [{
    Runs on bufferized code. The entry function (the one whose arguments
    carry `tfrt.io`, see tfrt-entry-abi) gets a trailing
    `!llvm.ptr {tfrt.run}` argument: the run context of runtime-lib
    (`tfrt_run_context *`: the run's thread pool and cancellation flag; may
    be null). Every top-level `scf.forall` of it (no results, one
    induction variable) becomes

    - a function `<entry>_par<K>_body(%begin: index, %end: index,
      captures...)` running iterations [begin, end) of the loop sequentially
      (captured memrefs are function arguments or workspace views with an
      identity layout; view-like ops and constants are cloned into the body),
    - a declaration `<entry>_par<K>_launch(%pool, %n, captures...)` called in
      place of the loop.

    The object emitter defines each `_launch` function: it packs the
    captures into a stack record and calls
    `tfrt_run_parallel_for(run, n, trampoline, record)`, whose trampoline
    unpacks them and calls the body (without a pool the loop runs on the
    caller; after tfrt_model_cancel chunks not started are skipped).
    Symbols stay private to the model's object.

    Before:
    ```mlir
    scf.forall (%i) in (8) { ... uses %buf ... }
    ```
    After:
    ```mlir
    call @m_compute_par0_launch(%run, %c8, %buf)
    ```
  }];
  let options = [
    Option<"profile", "profile", "bool", /*default=*/"false",
           "Profiling build (tfrt-compile --profile): describe every launch "
           "and every kernel left inline, in program order, then the rest of "
           "the inline code, in a `tfrt.profile` attribute of the module; "
           "every inline kernel gets a call of "
           "tfrt_profile_mark(run, entry) after it. A "
           "kernel's FLOPs are split between the entries whose ops carry "
           "its location, in proportion to their floating-point work "
           "(a conv's main loops and its tail loops each get their share, "
           "its initialisation or a copy none)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numOutlined", "num-outlined",
              "Parallel loops outlined into pool launches">,
  ];
}

def ProfileTagOps : Pass<"tfrt-profile-tag-ops", "mlir::func::FuncOp"> {
  let summary = "Record each graph op's type in its location (profiling builds)";
  let description = [{
    Runs on the graph dialect, for `tfrt-compile --profile`. Every graph op
    but constants gets its op name (without the dialect prefix, e.g. `conv`,
    `hard_swish`) as the metadata of a fused location around its own, which
    the ops it is lowered to inherit. tfrt-async-outline reads it back to
    describe what each launch runs; nothing else changes.

    Before: `graph.relu %x loc("node_3")`
    After: `graph.relu %x loc(fused<"relu">["node_3"])`
  }];
}

def ProfileCountFlops : Pass<"tfrt-profile-count-flops", "mlir::func::FuncOp"> {
  let summary = "Record each linalg op's floating-point operations in its location";
  let description = [{
    Runs on linalg on tensors after fusion, for `tfrt-compile --profile`.
    Every linalg op with static loop ranges gets a fused location around its
    own whose metadata is `{tfrt.kernel = ID, tfrt.flops = N}`: a number
    unique in the function and its floating-point operations, the product of
    its loop ranges times the floating-point arith and math ops of its body
    (`math.fma` counts 2, every other one 1, transcendental functions
    included). In an op with reduction loops (convolution, matmul, pooling)
    only the ops on the accumulator and the ops feeding them directly count,
    so a multiply-accumulate counts exactly 2 per MAC: elementwise producers
    that fusion moved into the body are recomputed per iteration and are not
    useful work. Tiling, vectorisation and
    bufferization keep locations, so tfrt-async-outline can sum the FLOPs of
    the kernels a launch runs, each kernel once.
  }];
}

#endif // TFRT_PASSES_ASYNC_PASSES
