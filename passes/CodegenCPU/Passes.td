//===- Passes.td - CPU code generation passes ----------------*- tablegen -*-===//
//
// Passes that shape code for CPU targets.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_PASSES
#define TFRT_PASSES_CODEGENCPU_PASSES

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"tfrt-approximate-math"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    Rewrites f32 `math.exp`, `math.log`, `math.tanh`, `math.erf`, ... (scalar
    and vector) into polynomial approximations accurate to a few ulp, so that
    generated code vectorises and does not call libm for them. Ops on other
    element types are left for the libm lowering.

    Before:
    ```mlir
    %y = math.tanh %x : f32
    ```
    After: a branch-free sequence of `arith` ops and clamps (no call).

    Four rewrites of its own come first, where MLIR's patterns lose
    accuracy: `math.sin`/`math.cos` reduce their argument by pi/2 exactly
    for every f32, in f64 (|x| times 2/pi in seven 28-bit parts, each
    exact product taken modulo 4 and summed with two-sum; upstream's single
    rounded f32 constant was off by 4e-7 at |x| = 6, 6e-6 at |x| = 100, and
    gave 0 and 1 for |x| >= 1.7e7; an f64 Cody-Waite reduction used before
    held to |x| = 1e9, gave 6e-5 at 1e12 and +-0.707 beyond 1e19; the exact
    reduction costs about 2.4x the time of that one), then minimax
    polynomials on [-pi/4, pi/4] in f32 and the quadrant's sign and swap; `math.atan` reduces |x| by
    tan(pi/8) and tan(3 pi/8) (upstream was 4e-6 relative at x = 0.66); and
    `math.log`/`math.log2` scale subnormal arguments by 2^24 and correct the
    result (the polynomial clamps to the smallest normal float: log(1e-45)
    gave -87.34, not -103.28); `math.exp` raises arguments below -87 by 32
    and scales the result by exp(-32), so that results below the smallest
    normal float come out subnormal instead of 0 (exp(-100) = 3.8e-44).
    `test/integration/math/check_math.py` checks 23 ops against float64
    math within max(1e-6 relative, one ulp), subnormal results included.

    With `wide-vectors` (default on), every `func.func` that had such f32
    ops (exp, exp2, expm1, log, log1p, log2, tanh, erf, erfc, sin, cos,
    atan, atan2, asin, acos) gets `passthrough = [["prefer-vector-width",
    "512"]]` unless it asks for a width already, which becomes
    that LLVM function attribute: LLVM's loop vectorizer otherwise prefers
    256-bit vectors on AVX-512 cores, and the polynomials are compute-bound
    (an exp pass over 40 x 6625 floats, rec's softmax, took about 20% less
    time with 512 bits). LLVM clamps the width to what the target has;
    tfrt-compile turns the option on only for targets with 512-bit vectors.
  }];
  let options = [
    Option<"wideVectors", "wide-vectors", "bool", /*default=*/"true",
           "Give functions with f32 transcendentals LLVM's "
           "prefer-vector-width=512">,
  ];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def InterchangeLoops : Pass<"tfrt-interchange-loops", "mlir::func::FuncOp"> {
  let summary = "Make the output's contiguous dimension the innermost loop, and its layout the loop order";
  let description = [{
    A lowered reduction (matmul, convolution, pooling) iterates its parallel
    dimensions first and its reduction dimensions innermost, so the innermost
    loop runs over a few kernel taps with strided accesses. This pass permutes
    the iterators of each `linalg.generic` that has reduction iterators so that
    the parallel dimension indexing the innermost (contiguous) dimension of
    the output becomes the innermost loop, provided an input is also
    contiguous along it. The inner loop then walks unit-stride memory in both
    the output and an input, which LLVM's loop vectorizer turns into SIMD
    code. Reductions along the output-irrelevant innermost axis (softmax sums)
    are left alone.

    Before (conv): iterators (n, g, oc, oh, ow, ic, kh, kw).
    After: (n, g, oc, oh, ic, kh, kw, ow).

    An all-parallel generic with one init written through a permutation
    other than the identity, whose last result is already the innermost
    loop (a copy or nearest upsampling from NCHW into the rows-outer
    [N, H, C, W] input of a convolution), gets its loops in the output's
    dimension order, so that the output map becomes the identity and the
    stores walk memory in order instead of jumping a whole [C, W] row
    plane per row (PP-OCRv4 det's three upsamplings into its last 3x3
    conv's input: 0.42-0.70x the time, docs/performance.md).

    Before (upsampling into [N, H, C, W]): iterators (n, c, h, w), output
    map (n, h, c, w). After: iterators (n, h, c, w), output map identity.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def SplitRepeatedDims : Pass<"tfrt-split-repeated-dims", "mlir::func::FuncOp"> {
  let summary = "Iterate a dimension read at `w floordiv f` as (w / f, f)";
  let description = [{
    On buffers: an all-parallel `linalg.generic` with one init written
    through a permutation, some input of which is read at `w floordiv f`
    along the loop `w` of the output's contiguous dimension (a nearest
    resize by an integer factor, fused into its elementwise consumers by the
    graph lowering and tfrt-fuse-elementwise), gets the loop `w` split into
    `(w', j)` with `w = f * w' + j` (`w'` in `w`'s place, `j` a new last
    loop): operands read at `w` are viewed as
    `[..., W / f, f]` (`memref.expand_shape`) and read at `(w', j)`, operands
    read at `w floordiv f` are read at `w'`. After the loop lowering `j` is
    the innermost loop of `f` iterations, which LLVM unrolls, so that the
    `w'` loop vectorizes with contiguous reads of the repeated input and
    interleaved ones of the others, instead of a gather per vector. Only
    operands that use `w` as their last index, plainly or divided by the
    same `f`, qualify; `w`'s extent must be a multiple of `f` and the body
    must not read `linalg.index` of `w`.

    Before: `linalg.generic` over `memref<1x96x40x40xf32>` reading
    `memref<1x96x20x20xf32>` at `(d0, d1, d2 floordiv 2, d3 floordiv 2)`.
    After: loops `(d0, d1, d2, d3, d4)` with that input read at
    `(d0, d1, d2 floordiv 2, d3)` and the output and other inputs viewed as
    `memref<1x96x40x20x2xf32>` at `(d0, d1, d2, d3, d4)`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def VectorizeMatmul : Pass<"tfrt-vectorize-matmul", "mlir::func::FuncOp"> {
  let summary = "Tile linalg.matmul for cache and registers and vectorize it";
  let description = [{
    On tensors: every f32 `linalg.matmul` with static shapes whose N is a
    multiple of 16 and whose M is divisible by 8, 6, 4, 3 or 2 is
    tiled for the caches (M up to 64 rows in multiples of the register rows,
    N up to 256, K whole up to 512 and otherwise in power-of-two blocks of
    at most 256), then to a register tile of 8 (else 6, 4, 3, 2) rows x
    32 (else 16) columns x 1 that becomes one `vector.contract` (AVX-512 at
    8x32: 16 accumulators of 16 lanes). Run
    `loop-invariant-subset-hoisting` afterwards so the accumulator tile is
    carried in registers across the K loop, and `tfrt-lower-vectors` after
    bufferization. A single-row product (a batch-1 fully connected layer,
    N a multiple of 16) runs as 1-D vectors instead: blocks of up to 8 x 16
    columns whose 16-lane accumulators add, for each k, the broadcast x[0,
    k] times row k of the block (independent chains; the 1 x 32 register
    tile's `vector<1x1>` x `vector<1x32>` contraction would send
    tfrt-lower-vectors' unit-dimension patterns into an endless rewrite).
    Other matmuls are left to the loop lowering.

    Register tiles by target (`vector-bits`, `vector-registers`,
    passes/CodegenCPU/RegisterTile.h): the accumulators of an R x C tile
    take R * C / (vector-bits / 32) registers, at most 16, with one row of
    the right operand (C / lanes registers) and a broadcast beside them; R
    is the first of 8, 6, 4, 3, 2 within that bound, and of the widths 32
    and 16 the one whose tile holds more accumulators: 8 x 32 on AVX-512,
    6 x 16 (12 of 16 ymm) or 2 x 32 on AVX2, where 8 x 32 would need 32
    registers and spilled on every step, 2 x 16 on SSE, 2 x 32 on NEON. The
    packed paths keep 32-column panels with 8 rows on AVX-512 and the
    bound's rows elsewhere; a single-row product's blocks are vectors of
    vector-bits / 32 lanes.

    Packed right operand (`pack-min-rows`): when N is a multiple of 1024
    (a row stride of a multiple of 4 KiB, which maps a 32-column panel of
    the row-major operand onto two L1 sets) and M, with all the
    `scf.forall` chunks the matmul was split into, has at least
    `pack-min-rows` rows (and M % 8 == 0), the right operand is first
    copied into panels `[N/32][K][32]` and the 8x32 register tile reads 32
    contiguous floats per k. A constant right operand (weights) is packed
    at compile time into a new constant; otherwise the copy runs once
    before the parallel loop (itself as up to 8 parallel chunks) into a
    tensor that bufferization and `tfrt-plan-workspace` place in the
    workspace. When the init is a `linalg.fill` (also through the shared
    output of the enclosing `scf.forall`), the accumulators of the first K
    block start from the fill value and the fill disappears.

    Constant right operands with unaligned rows (`const-pack-min-bytes`):
    weights [K, W] whose row length W is not a multiple of 16 floats (each
    32-column read then straddles three cache lines) and that are at least
    that big are packed at compile time into panels `[W / 32, K, 32]`, and
    a matmul on the whole constant or on a slice of it at a column offset
    that is a multiple of 32 (a constant, or the induction variable of the
    `scf.forall` that split N into chunks) reads the panels `offset / 32`
    on with the 8x32 register tile. Static slices of the constant that
    other ops still read (the columns past the last whole panel, split off
    by tfrt-split-matmul-columns) become small constants of their own, so
    the unpacked weights are not kept as well (PP-OCRv4 rec's final
    40 x 120 x 6625 classifier). Such weights come from memory on every
    run: while a block of columns runs, its row tiles prefetch the next
    block's panels, each row tile its share of the K rows (rec's classifier
    inside rec: 71% -> 85% of peak).

    Seeded accumulators (`seed-init`): when K stays whole (K <= 512) and
    the init is a `linalg.fill` or the broadcast of a rank-1 tensor along
    the rows (a bias), directly, through the collapse of a `[1, C, H, W]`
    output (tfrt-vectorize-conv's 1x1 convs) and/or through the shared
    output of the enclosing `scf.forall` (whose chunks may split the
    channels or the map's rows: each row starts from the same value either
    way), and nothing else reads it, the
    accumulators start from a broadcast of the fill value or a broadcasting
    `vector.transfer_read` of the bias elements, and the fill/broadcast
    pass over the output disappears (its destination becomes the init).
    When the widest tile does not divide N but the narrower one does (N =
    400, det's 1x1 convs on 20x20 maps, which tfrt-split-matmul-columns
    leaves whole for this), the widest tiles cover the first multiple of
    their width and one column of narrower tiles the rest, seeded and
    through the epilogue alike. A seeded matmul with K <= 64 and at least
    2K rows (few input, many output channels: the output is most of its
    traffic) runs blocks of up to 1024 columns instead of 256, so that each
    row's block streams out in runs of 4 KiB (det's Conv.46, 12 -> 96 on
    160x160: 0.81 -> 0.66 ms inside the model).
    Epilogues (`epilogues`): when such a seeded matmul's result (or its
    expand back into a 1x1 conv's [1, M, H, W] output) has one user, an
    elementwise `linalg.generic` in the same block (tfrt-async-tile-loops
    splits it along with the conv) that reads the product and writes its
    own init through identity maps without reading that init, whose other
    inputs are scalars, per-row (per-channel) values, tensors of its own
    shape or, on a [1, M, H, W] product whose W is a multiple of the tile's
    columns, nearest-neighbour upsamplings read through
    `(d0, d1, d2 floordiv f, d3 floordiv g)` (each tile row reads
    columns / g elements, each repeated g times by a broadcast and a shape
    cast), and whose body is arith/math on scalars, the body runs on each
    accumulator tile before it is stored (a division by a constant as a
    multiplication by its reciprocal; `contract` fast-math flags so that
    LLVM may form FMAs) and the tile goes straight into the consumer's
    destination, which replaces the consumer: at (row, col / W, col % W)
    when W is a multiple of the tile's columns (a consumer that writes the
    [1, H, M, W] rows-outer input of a following windowed conv through
    `(d0, d2, d1, d3)`, at (0, col / W, row, col % W)); otherwise through
    [M, H*W] views when the destination's planes are contiguous; otherwise
    (the interior of a padded tensor, no inputs of the output's shape) with
    an `scf.index_switch` on the tile's start column whose cases write the
    tiles that pass a row's end as static row pieces.
    Seeded matmuls with long rows (N >= 4096) and few of them (K <= 64),
    det's 1x1 convs with few input channels on large maps, stream K rows
    of the right operand at once: the first register rows of each cache
    tile that reads its columns first (every tile with the rows outermost,
    the first tile of rows of each block of columns with the columns
    outermost) prefetch, for each k, the columns `prefetch-ahead` further
    on in row k (`memref.prefetch` on a read-only `bufferization.to_buffer`
    of the operand); the rows after them find the columns in cache.

    Before: `linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>)`.
    After: `scf.for` nests over 8x32 tiles with a `vector.contract` of
    `vector<8x1xf32>` and `vector<1x32xf32>` into `vector<8x32xf32>`.
  }];
  let options = [
    Option<"packMinRows", "pack-min-rows", "int64_t", /*default=*/"256",
           "Pack the right operand into [N/32][K][32] panels for matmuls "
           "whose N is a multiple of 1024 with at least this many rows, "
           "counting all parallel chunks (0: never)">,
    Option<"seedInit", "seed-init", "bool", /*default=*/"true",
           "When K stays whole and the init is a fill or a bias broadcast "
           "along the rows that only this matmul reads, start the "
           "accumulators from it and drop that pass over the output">,
    Option<"constPackMinBytes", "const-pack-min-bytes", "int64_t",
           /*default=*/"1048576",
           "Pack a constant right operand [K, W] whose rows are not whole "
           "cache lines (W % 16 != 0) and that has at least this many bytes "
           "into [W / 32, K, 32] panels at compile time, also for a matmul "
           "on a 32-aligned column slice of it (0: never)">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Apply the elementwise consumer of a seeded matmul (in the same "
           "block) to each register tile before it is stored">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report each fused epilogue as a remark on the matmul (a fusion report)">,
    Option<"prefetchAhead", "prefetch-ahead", "int64_t", /*default=*/"64",
           "Seeded matmuls with N >= 4096 and K <= 64: prefetch the right "
           "operand's row k this many columns ahead of the first register "
           "rows' tiles (0: no prefetch)">,
    Option<"prefetchKAhead", "prefetch-k-ahead", "int64_t",
           /*default=*/"16",
           "Seeded matmuls that do not prefetch ahead along the columns "
           "and whose right operand exceeds 64 KiB: each K step of a "
           "register tile prefetches the tile's columns this many rows "
           "further down (0: no prefetch)">,    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Width of the target's vector registers in bits (512: AVX-512, "
           "256: AVX2, 128: NEON or SSE); with vector-registers it bounds "
           "the register tile's accumulator rows">,
    Option<"vectorRegisters", "vector-registers", "int64_t",
           /*default=*/"32",
           "The target's vector registers (32 on AVX-512 and NEON, 16 on "
           "AVX2 and SSE): the accumulators take at most 16, with one row of "
           "the streamed operand and a broadcast beside them">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numEpilogues", "num-epilogues",
              "Elementwise consumers applied to the register tiles">,
  ];
}

def SplitConvPhases : Pass<"tfrt-split-conv-phases", "mlir::func::FuncOp"> {
  let summary = "Turn stride-2 convolutions into stride-1 ones on even/odd columns";
  let description = [{
    A 2-D dense convolution generic of the graph lowering with stride 2 and
    dilation 1 along the output columns (f32, static shapes) reads its input
    columns at `2 * ow + kw`, which tfrt-vectorize-conv cannot load as
    vectors. This pass splits the input's even and odd columns into separate
    channels, `in'[n, p * C + c, r, j] = in[n, c, r, 2 * j + p]`, and the
    weight taps likewise, `w'[m, p * C + c, kh, q] = w[m, c, kh, 2 * q + p]`
    (zero where `2 * q + p` is past the kernel), so that the convolution
    reads `in'` at `ow + q` with stride 1: `[M, C, KH, KW]` becomes
    `[M, 2C, KH, ceil(KW / 2)]` (a 3-wide kernel does 4 taps instead of 3).
    The split copies are strided `tensor.extract_slice`s inserted into
    zero-filled tensors; when the input is a zero `tensor.pad` of the
    spatial dims, the slices are taken from the unpadded input and placed at
    the padding's offsets, and only the rows and columns they do not cover
    are zeroed (det's stem: no padded copy of the 640x640 input, no fill of
    the whole split tensor; 0.78 -> 0.57 ms before its conv). Only
    convolutions that tfrt-vectorize-conv then
    has a register tile for (output channels divisible by 8, 6 or 4, output
    columns by 32, 16 or 8) are split, and not the image stems that it
    computes from the unpadded input (3x3, at most 4 input channels, see
    there). Run it before
    `tfrt-async-tile-loops`: the copies then happen once, outside the
    parallel chunks.

    Before: `linalg.generic` reading `tensor<1x3x641x641xf32>` at
    `(n, c, oh * 2 + kh, ow * 2 + kw)` with weight `tensor<16x3x3x3xf32>`.
    After: the same generic reading `tensor<1x6x641x321xf32>` at
    `(n, c, oh * 2 + kh, ow + kw)` with weight `tensor<16x6x3x2xf32>`.

    With `rows-outer` (default on), a stride-1 dense convolution with a
    window larger than 1x1 that tfrt-vectorize-conv has a register tile for
    then reads its input in the rows-outer layout `[N, H, C, W]`, at
    `(n, oh + kh, c, ow + kw)`: a register tile's window (a few input rows
    of all channels) is a few contiguous `[C, W]` blocks instead of rows
    scattered over C planes. When the input is a zero `tensor.pad` of the
    spatial dims, that padding becomes the re-layout: a zero fill of the
    padded `[N, H, C, W]` tensor and one transposing copy of the unpadded
    input into its interior (parallel, so tfrt-async-tile-loops splits it).
    Where the unpadded input (or each channel slice of a concat of
    `tensor.insert_slice`s over a `tensor.empty`) is the result of a
    `linalg.generic` that does not read its init and that nothing else
    reads, that generic writes the interior itself through an output map
    with c and h swapped, and there is no copy (det: the 13 MiB inputs of
    its two 160x160 neck convs, 0.55-0.65 ms each).
  }];
  let options = [
    Option<"rowsOuter", "rows-outer", "bool", /*default=*/"true",
           "Re-lay stride-1 windowed conv inputs out as [N, H, C, W]">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseConvTransposePairs
    : Pass<"tfrt-fuse-conv-transpose-pairs", "mlir::func::FuncOp"> {
  let summary = "Run two upsampling ConvTransposes over bands of input rows";
  let description = [{
    On tensors, before the async tiling: the graph lowering's generic of a
    2-D ConvTranspose whose kernel equals its stride (batch 1; its init a
    fill or a per-channel broadcast), followed by an elementwise generic on
    its result (per-channel or scalar other inputs; on the 6-D result or on
    its `[N, M, OH, OW]` image, then rebuilt on the 6-D shape as
    tfrt-async-tile-loops does), whose image's only consumer is a second
    such ConvTranspose (optionally with such an epilogue), is rewritten as
    one `scf.forall` of at most `max-chunks` chunks of the first one's
    input rows. Each chunk loops over bands of `band-rows` input rows (the
    largest divisor of the rows up to it): the first ConvTranspose and its
    epilogue write the band's output rows of all channels into a band-sized
    tensor, and the second one and its epilogue read it and write the
    `KH1 * KH2 * band-rows` rows of the result. The ops inside are the
    original ones on slices (their inits recomputed on the band), so
    tfrt-vectorize-conv-transpose vectorizes both with their epilogues;
    bufferization gives the band tensor one buffer per chunk. The first
    one's result, which the second otherwise reads back from memory (the
    DB text detectors' head, PP-OCRv4 det: 24 x 320 x 320, 9.8 MB between
    ConvTranspose.0 and ConvTranspose.2), stays in the core's cache. Pairs
    whose intermediate has fewer than `min-bytes` bytes are left alone.

    Before: ConvTranspose 24 -> 24 (2x2, stride 2) -> bias, BatchNorm,
    ReLU -> ConvTranspose 24 -> 1 (2x2, stride 2) -> sigmoid on
    `tensor<1x24x160x160xf32>` into `tensor<1x1x640x640xf32>`.
    After: `scf.forall` of 4 chunks of 40 input rows, each an `scf.for`
    over bands of 2 rows holding the four ops on
    `tensor<1x24x2x2x160x2xf32>` and `tensor<1x1x4x2x320x2xf32>`.
  }];
  let options = [
    Option<"bandRows", "band-rows", "int64_t", /*default=*/"2",
           "Input rows of the first ConvTranspose per band (the largest "
           "divisor of its rows up to it)">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"4",
           "Parallel chunks of bands">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1048576",
           "Least bytes of the first ConvTranspose's result for a pair to be "
           "fused">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numPairs", "num-pairs", "ConvTranspose pairs fused over bands">,
  ];
}

def FuseConvBands : Pass<"tfrt-fuse-conv-bands", "mlir::func::FuncOp"> {
  let summary = "Run a depthwise conv and the 1x1 conv that reads it over bands of rows";
  let description = [{
    On tensors, after `tfrt-winograd-conv` and before the async tiling: a
    `linalg.depthwise_conv_2d_nchw_chw` (batch 1, dilation 1, on its padded
    input, stride 1 or, with `max-stride=2`, 2: det's stride-2 chains ran no
    faster fused), optionally followed by an elementwise generic that
    reads only its result and per-channel or scalar values, whose only
    consumer is a 1x1 stride-1 dense conv generic (NCHW, at most
    `max-channels` input channels), optionally followed by an elementwise
    generic (its other inputs per-channel values, scalars, or tensors of the
    output's shape), is rewritten as one `scf.forall` of at most
    `max-chunks` chunks of output rows. Each chunk loops over bands of
    `band-rows` rows (the largest divisor of the rows up to it): the
    depthwise conv and its epilogue compute the band's rows of all channels
    into a band-sized tensor, and the 1x1 conv and its epilogue read it and
    write the band of the output. The ops inside are the original ones on
    slices (their inits, a fill or the graph lowering's bias broadcast,
    recomputed on the band), so the vectorizing passes treat them as they
    treat the async tiling's chunks; bufferization gives the band tensor
    one buffer per chunk (`buffer-loop-hoisting` moves it out of the band
    loop). The depthwise output, which the 1x1 conv otherwise reads back
    from memory (det's 16 x 320 x 320 maps: 6.5 MB), stays in the core's
    cache. Chains whose depthwise output has fewer than `min-bytes` bytes
    are left alone.

    With `tails` (default on), a stride-1 chain whose last result goes into
    the interior of a zero-bordered tensor (tfrt-pad-in-place's padding:
    fills of the border of an allocation) that only a 3x3 stride-2
    depthwise conv reads, which reads no row below the interior and whose
    band reads no more rows than the 1x1 conv has, takes that conv (with
    its init and epilogue) along: the bands are then the
    second depthwise conv's output rows; each computes the 2 * band + 1
    rows of the 1x1 conv that its windows read (the first band: the rows
    below the padding, with zero rows above) into a band-sized tensor with
    zero borders, and the second depthwise conv reads it from the cache
    instead of the 1x1 conv's whole output from memory (det: 32 x 320 x
    320, 13 MB, between its Conv.2 and Conv.3). One row of the 1x1 and
    first depthwise conv per band is computed twice (the rows that
    neighbouring bands' windows share).

    Before: depthwise conv -> hard-swish -> 1x1 conv -> epilogue on
    `tensor<1x16x320x320xf32>` and `tensor<1x32x320x320xf32>`.
    After: `scf.forall` of 4 chunks of 80 rows, each an `scf.for` over 20
    bands of 4 rows holding the four ops on `tensor<1x16x4x320xf32>` and
    `tensor<1x32x4x320xf32>`.
  }];
  let options = [
    Option<"bandRows", "band-rows", "int64_t", /*default=*/"4",
           "Output rows per band (the largest divisor of the rows up to it)">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"4",
           "Parallel chunks of bands">,
    Option<"maxChannels", "max-channels", "int64_t", /*default=*/"64",
           "Most input channels of the 1x1 conv (wider ones are compute-bound "
           "already)">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1048576",
           "Least bytes of the depthwise output for a chain to be fused">,
    Option<"maxStride", "max-stride", "int64_t", /*default=*/"1",
           "Largest stride of the depthwise conv (1 or 2)">,
    Option<"tails", "tails", "bool", /*default=*/"true",
           "Take along a 3x3 stride-2 depthwise conv that reads the chain's "
           "zero-padded result">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numChains", "num-chains", "Depthwise and 1x1 conv chains fused over bands">,
    Statistic<"numTails", "num-tails", "Chains that took a stride-2 depthwise conv along">,
  ];
}

def WinogradConv : Pass<"tfrt-winograd-conv", "mlir::func::FuncOp"> {
  let summary = "Run 3x3 stride-1 convolutions as Winograd F(2x2, 3x3) or F(4x4, 3x3)";
  let description = [{
    On tensors, after `tfrt-split-conv-phases` and before the async tiling:
    a dense 3x3 convolution generic with stride and dilation 1 on a padded
    input, rows-outer `[1, H + 2, C, W + 2]` (read at `(0, oh + kh, c, ow +
    kw)`) or NCHW `[1, C, H + 2, W + 2]`, with constant weights `[M, C, 3,
    3]`, at least `min-channels` input channels and M a multiple of 8, is
    replaced by Winograd's minimal filtering F(m x m, 3x3): each m x m tile
    of outputs comes from its (m + 2) x (m + 2) input patch d as
    `A^T [(G g G^T) . (B^T d B)] A`. F(2x2, 3x3) takes 16 multiplications
    per tile and input channel instead of 36; with `max-tile=4`, F(4x4,
    3x3) takes 36 instead of 144 where the shape allows it (else F(2x2)),
    with larger rounding errors (its transforms scale by up to 8 and 5).

    The weights are transformed here (`U = G g G^T`, a constant `[M, C,
    points]`). The output rows go into an `scf.forall` of at most
    `max-chunks` chunks (each with its own scratch: one workspace slot per
    chunk, 247 KB for C = 96, M = 24 at F(2x2)), and each chunk into blocks
    of 2 tile rows x 16 tiles: for every channel, the input transform of the
    block's 32 patches (vectors of 16 tiles; the m phases of the columns
    split by `vector.deinterleave`, m * 16 floats read from m t and from
    m t + 2, each row read also prefetching two lines of the next block's
    columns) into `V[points, C | 1, 32]` (an odd number of 128-byte rows
    per point, so that one channel's points do not share L1 sets); the
    products `M[p, m, t] = sum_c U[m,
    c, p] V[p, c, t]` as 8 x 32 register tiles (`vector.contract`, which
    tfrt-pack-weight-tiles, tfrt-unroll-accumulator-loops and
    tfrt-lower-vectors treat as the matmul tiles); and the output transform,
    whose m columns per tile are put back in order by `vector.interleave`.
    A row whose tiles are not a multiple of 16 ends with a block whose input
    and output accesses are masked; a size is taken only where that block
    computes at most a quarter more tiles than the row has (det's 96->24
    conv on 40x40, 20 tiles per row at F(2x2), stays direct: it ran 1.08x
    slower). Output rows must be a multiple of 2m, columns of m. The
    outputs start from the conv's init: from the scalar or bias element
    when that init is a fill or the graph lowering's bias broadcast (the
    init is then not computed), else read. Rounding differs from the direct
    sum: on det's 96->24 convs on 160x160 (random inputs and weights) the
    largest difference to ONNX Runtime was 1.1e-5 at F(2x2), 2.0e-4 at
    F(4x4), against outputs up to about 12. The pipeline runs it only for
    targets with 32 vector registers of 512 bits (the products' 8 x 32
    tile).

    Before: `linalg.generic` reading `tensor<1x162x96x162xf32>` at `(d0, d2
    + d5, d4, d3 + d6)` with a constant `tensor<24x96x3x3xf32>`, into
    `tensor<1x24x160x160xf32>`.
    After: `scf.forall` of 4 chunks, each `scf.for` over blocks around the
    three phases.
  }];
  let options = [
    Option<"minChannels", "min-channels", "int64_t", /*default=*/"32",
           "Input channels from which a conv is transformed">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"4",
           "Parallel chunks of output rows (each has its own scratch)">,
    Option<"maxTile", "max-tile", "int64_t", /*default=*/"2",
           "The largest output tile: 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3) "
           "where it fits, else F(2x2, 3x3): fewer multiplications, larger "
           "rounding errors)">,
    Option<"blockBytes", "block-bytes", "int64_t", /*default=*/"524288",
           "Most bytes of a block's transformed input (16 x C x 32 floats); "
           "convolutions with more input channels stay direct">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numConvs", "num-convs", "Convolutions run as Winograd F(m x m, 3x3)">,
    Statistic<"numF4", "num-f4", "Of them, as F(4x4, 3x3)">,
  ];
}

def VectorizeConv : Pass<"tfrt-vectorize-conv", "mlir::func::FuncOp"> {
  let summary = "Register-tile dense NCHW convolutions and vectorize them";
  let description = [{
    On tensors: every f32 2-D dense convolution `linalg.generic` of the graph
    lowering (loops `(n, m, oh, ow, c, kh, kw)`, input read at
    `(n, c, oh * sh + kh * dh, ow + kw * dw)`, weight `(m, c, kh, kw)`,
    output `(n, m, oh, ow)`, body `out + in * w`; stride 1 along the output
    columns) with static shapes is tiled once to its register tile: 8 (else
    6 or 4) output channels x 32 (else 16 or 8) output columns, 4 (else 2
    or 1) input channels and one kernel tap. The loops run `(n, oh, ow, m,
    c, kh, kw)`: the output-channel tiles are the innermost parallel loop,
    so they reuse the input rows of one output tile from the cache. The unit
    dimensions `n, oh, kh, kw` of the tile are folded away (rank-reducing
    slices), which turns the window access into a plain dim and the tile
    into the contraction `out[m, ow] += w[m, c] * in[c, ow]`: a
    `linalg.matmul` on the slices, vectorized into one `vector.contract` of
    `vector<8x4xf32>` and `vector<4x32xf32>` into `vector<8x32xf32>`, which
    `tfrt-lower-vectors` turns into broadcasts and FMAs (AVX-512: 16 zmm
    accumulators). Run `loop-invariant-subset-hoisting` afterwards so the
    accumulators stay in registers across the `c, kh, kw` loops.
    Convolutions whose shapes no register tile divides keep the loop
    lowering. On the rows-outer input `[N, H, C, W]` of
    tfrt-split-conv-phases (read at `(n, oh * sh + kh * dh, c, ...)`) the
    channel loop is innermost instead, `(n, oh, ow, m, kh, kw, c)`, in steps
    of 8 (else 4, 2, 1): each step contracts `vector<8x8xf32>` weights with
    8 consecutive `[C, W]` rows of one input row.

    Channel blocks (`channel-block`, default 16): on the rows-outer input
    the input channels are first tiled into blocks (the largest multiple of
    the register tile's channel step that divides C and is at most the
    option) when a register tile's weights for all channels exceed 16 KiB,
    the block loop outermost, with the output carried between
    blocks; the tiles of one block then find its weights and input rows in
    L1 (24 x 16 x 3 x 3 weights are 14 KiB, where all 96 channels' are
    83 KiB). Over flat rows (below) the 32-column tiles sweep the blocks the
    same way, their accumulators read back from the scratch after the first
    block; the overlapping tail tiles run after all blocks over all
    channels from zero. Measured in one process alternating the objects
    (det's 96->24 3x3 convs on a Xeon, 1 thread): 160x160 0.92x, 80x80
    0.95x, 40x40 0.90x the time of one sweep.

    Register rows by target (`vector-bits`, `vector-registers`, as in
    tfrt-vectorize-matmul): the output channels of a tile are the first of
    8, 6, 4 whose accumulators fit (RegisterTile.h), or 3 or 2 where not
    even 4 rows do: 8 x 32 on AVX-512, 3 x 32 (or 6 x 16) on AVX2, 2 x 32
    on NEON. Image stems take 8 channels x 32 columns on AVX-512 and 4 x 16
    on AVX2 and NEON (the three tap vectors of an input row stay in
    registers beside the accumulators), 4 x 8 on SSE.

    A 1x1 convolution with stride 1 and batch 1 instead becomes a
    `linalg.matmul` of the collapsed weight `[M, C]` and input `[C, H*W]`
    into the collapsed output, for `tfrt-vectorize-matmul` (which runs next).
    This happens here and not in the graph lowering because elementwise
    fusion would propagate the collapse/expand reshapes through a matmul
    emitted there and turn it back into a generic. On a 1x1 map (a
    squeeze-excitation layer: one output column) with constant weights the
    product is turned around: `in[1, C] x w^T[C, M]` with the weights
    transposed at compile time, a single row of M independent outputs
    (PP-OCRv4 rec's four SE convs: 152-164 -> 52 us per run on a Xeon).

    Before: `linalg.generic` over `tensor<1x96x162x162xf32>`,
    `tensor<24x96x3x3xf32>` into `tensor<1x24x160x160xf32>`.
    After: `scf.for` nests (oh, ow step 32, m step 8, c step 4, kh, kw) around
    a `vector.contract` into `vector<8x32xf32>`.

    With `flat-rows` (default on), a stride-1, dilation-1 windowed
    convolution on NCHW input (batch 1) whose output width is not a multiple
    of 32 (det's 20-, 40- and 80-wide maps, where the column tile would be 8
    or 16 wide or missing) runs over its flattened padded rows instead: with
    the input `[C, H * Wp]` (Wp the input width), output position
    `p = oh * Wp + ow` reads input `p + kh * Wp + kw` for every `ow < Wp`,
    so the window is a 1-D shift and every tile is 32 columns wide. The
    `Wp - OW` extra columns per row are computed into a scratch `[M, OH *
    Wp]` tensor and dropped when it is added to the conv's init (one
    elementwise pass over the output). The positions `[0, OH * Wp - KW + 1)`
    are covered by 32-column tiles and one or two 16-column tiles at the
    end, the last moved back to end at the last position (tiles may
    overlap: each computes its sums from zero), so no read leaves the input;
    an 8-column tile (a half-width vector, which costs an FMA slot as a
    full one does) only when there are fewer than 16 positions.

    Before: `linalg.generic` over `tensor<1x96x22x22xf32>`,
    `tensor<24x96x3x3xf32>` into `tensor<1x24x20x20xf32>`.
    After: `scf.for` (32-column tiles of the 438 positions) and `scf.for`
    (m step 8) around `c step 4, kh, kw` loops of `vector.contract` into
    `vector<8x32xf32>`, two 16-column tiles for the tail, then
    `tensor.expand_shape` to `[24, 20, 22]`, a slice `[24, 20, 20]` and an
    elementwise add onto the init.

    An image stem (a 3x3 convolution with stride 2, at most 4 input
    channels, output channels a multiple of 8 and output columns a multiple
    of 32, batch 1, on a zero `tensor.pad` adding one column on the left, or
    on a row slice of it in a parallel chunk) is computed directly from the
    unpadded input: loops over output rows, 32-column tiles and 8 output
    channels carry 8 `vector<32xf32>` accumulators, which start from the
    init's fill value or bias when it is one (as in
    tfrt-vectorize-depthwise; that pass over the output disappears) and
    from the init otherwise. For every
    input channel and kernel row, 64 input columns from `2 * ow` are read
    once and split with `vector.shuffle` into their even lanes (tap kw = 1)
    and odd lanes (kw = 2); tap kw = 0 is the odd lanes of the 64 columns
    from `2 * ow - 2`, or, in the first column tile, the odd lanes shifted
    one lane behind the left padding's zero. Each tap is 8 broadcast weights
    and 8 `vector.fma`. Kernel rows that fall into the top or bottom padding
    are skipped through the kernel-row loop's bounds, columns past the right
    edge read as zeros (masked reads). While a row computes, the input rows
    of the next output row are prefetched (`memref.prefetch` on a read-only
    `bufferization.to_buffer` of the input). Against
    tfrt-split-conv-phases' phase split (which leaves stems alone), a
    3-channel stem does 27 taps instead of 36 and neither splits nor pads
    its input: det's stem 1.4-1.8 ms over four launches -> 0.57-0.81 ms in
    one. With `epilogues` (default on), when the stem's accumulators start
    from its init's fill or bias and its only user is an elementwise
    consumer in the same block (tfrt-async-tile-loops splits the two
    together) that applyEpilogueDirect can apply along the output columns,
    each register tile's vectors pass through the consumer's body and go to
    its destination: a stem with a Relu or HardSwish writes its output once
    instead of twice (a 3 -> 16 stem on 640x640 with a HardSwish: 0.60 ->
    0.48 ms in one launch instead of two).
  }];
  let options = [
    Option<"flatRows", "flat-rows", "bool", /*default=*/"true",
           "Run windowed convs whose output width is not a multiple of 32 "
           "over the flattened padded rows">,
    Option<"channelBlock", "channel-block", "int64_t", /*default=*/"16",
           "Input channels per block of a windowed conv on the rows-outer "
           "input or over flat rows (the largest multiple of the register "
           "tile's channel step that divides C and is at most this, when "
           "the tile's weights for all channels exceed 16 KiB; 0: all "
           "channels in one sweep)">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Apply the elementwise consumer of an image stem whose "
           "accumulators start from a fill or bias (in the same block) to "
           "each register tile before it is written">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report each fused epilogue as a remark on the stem (a fusion "
           "report)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Width of the target's vector registers in bits (512: AVX-512, "
           "256: AVX2, 128: NEON or SSE); with vector-registers it bounds "
           "the register tile's accumulator rows">,
    Option<"vectorRegisters", "vector-registers", "int64_t",
           /*default=*/"32",
           "The target's vector registers (32 on AVX-512 and NEON, 16 on "
           "AVX2 and SSE): the accumulators take at most 16, with one row of "
           "the streamed operand and a broadcast beside them">,
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numEpilogues", "num-epilogues",
              "Elementwise consumers applied to the stem's register tiles">,
  ];
}

def LowerVectors : Pass<"tfrt-lower-vectors", "mlir::func::FuncOp"> {
  let summary = "Lower vector contractions and transfers to FMA-friendly forms";
  let description = [{
    After bufferization: `vector.contract` becomes outer products (broadcast
    + FMA per reduction step), multi-reductions, transposes, broadcasts and
    shape casts get their portable lowerings, leading unit dimensions are
    dropped and transfers are lowered to rank-1 loads and stores, ready for
    `convert-vector-to-scf` and `convert-vector-to-llvm`.

    Before: `vector.contract {kind = add} %a, %b, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>`.
    After: eight `vector.fma` of a broadcast element of `%a` and a row of `%b`.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def VectorizeConvTranspose
    : Pass<"tfrt-vectorize-conv-transpose", "mlir::func::FuncOp"> {
  let summary = "Vectorize transposed convolutions whose kernel equals the stride";
  let description = [{
    On tensors: the graph lowering's generic of a 2-D ConvTranspose whose
    kernel equals its stride (loops `(n, m, ih, kh, c, iw, kw)`, input
    `(n, c, ih, iw)`, weight `(c, m, kh, kw)`, output `(n, m, ih, kh, iw,
    kw)`, body `out + in * w`; f32, static shapes, a kernel 1 or 2 wide and
    input rows a multiple of `lanes`) is replaced by `scf.for` loops over
    `(n, ih, m)` (output channels inner: an input row is read from the cache
    by all of them) and blocks of up to five `lanes`-wide input vectors (the
    most of 5, 4, 3 or 2 that divides the row and fits). Every tap `(kh,
    kw)` of every vector has its own accumulator (at most
    `max-accumulators`: 16 by default; tfrt-compile gives 20 to targets
    with 32 vector registers, 12 to AVX2's 16), so
    each input channel step is one read per vector, one broadcast weight per
    tap and one `vector.fma` per accumulator. The two column taps of a
    vector are interleaved by one `vector.shuffle` into `2 * lanes`
    contiguous outputs of row `(ih, kh)`, written once. The accumulators
    start from the init's fill value or per-channel bias when it is one (as
    in tfrt-vectorize-depthwise; the init is then not computed), else the
    sum is added to the init as read. Left to the loop lowering, the kw = 2
    innermost loop ran scalar (det's ConvTranspose.0: 28% of peak). With
    `copy-rows` and at least 4 output channels, when the input's channel
    planes put more than 12 of a column's lines into one L1 set (planes a
    multiple of 4 KiB apart, as det's 160x160 maps), each input row of all
    channels is first copied into a `[C, IW + 16]` tensor that the output
    channels then read (det's ConvTranspose.0 as a one-node model: 0.873
    paired; inside det 0.80 -> 0.75 ms).
    With `epilogues` (default on), when the accumulators start from such an
    init and the op's only user is an elementwise consumer on its 6-D
    result in the same block (reading it and writing its own init through
    identity maps, not reading that init; other inputs scalars, per-channel
    values or tensors of the same shape; tfrt-async-tile-loops rebuilds a
    consumer of the collapsed [N, M, OH, OW] result on the 6-D shape and
    splits it along with the op), the consumer's body runs on each
    interleaved output row vector before it is written into the consumer's
    destination (viewed as rows when its trailing dims are contiguous), and
    the consumer's pass goes (det: the bias, BatchNorm and ReLU after
    ConvTranspose.0, the sigmoid after ConvTranspose.2).

    Before: `linalg.generic` over `tensor<1x24x160x160xf32>`,
    `tensor<24x1x2x2xf32>` into `tensor<1x1x160x2x160x2xf32>`.
    After: `scf.for` n, ih, m, iw step 64 around an `scf.for` over the 24
    input channels carrying 16 `vector<16xf32>`, then four shuffles to
    `vector<32xf32>` written into the `[1, 1, 160, 2, 320]` rows.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of one vector">,
    Option<"maxAccumulators", "max-accumulators", "int64_t",
           /*default=*/"16",
           "Vector accumulators a step may keep in registers (tfrt-compile: 20 "
           "of AVX-512's 32 zmm; 12 of AVX2's 16 ymm): taps x input vectors "
           "per step; "
           "kernels with more taps keep the loop lowering">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Apply the elementwise consumer of a ConvTranspose whose "
           "accumulators start from a fill or bias (in the same block) to "
           "each output row vector before it is written">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report each fused epilogue as a remark on the ConvTranspose (a fusion report)">,
    Option<"copyRows", "copy-rows", "bool", /*default=*/"true",
           "With at least 4 output channels, copy each input row of all "
           "channels into a scratch with staggered rows first when the "
           "input's channel planes put more than 12 of a column's lines "
           "into one L1 set">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numEpilogues", "num-epilogues",
              "Elementwise consumers applied to the output row vectors">,
  ];
}

def VectorizeDepthwise : Pass<"tfrt-vectorize-depthwise", "mlir::func::FuncOp"> {
  let summary = "Vectorize depthwise convolutions along the output columns";
  let description = [{
    On tensors: every f32 `linalg.depthwise_conv_2d_nchw_chw` with static
    shapes (the graph lowering's form of a depthwise conv, input padded) is
    replaced by `scf.for` loops over `(n, c, oh)` around `rows` output rows
    (2 by default; one where `rows` does not divide the output rows, for
    strided convs on input planes of 64 KiB or more, and for convs strided
    along the columns whose rows run in groups of five vectors): each row's
    columns are vectors of `lanes` (16: one zmm) and a tail vector of
    the remainder; up to five vectors of each row are computed together
    (their accumulators stay in registers; with two rows, each accumulator's
    chain of FMAs has another row's beside it, so that the FMA latency no
    longer bounds a row of five vectors) and each kernel tap is one input-row
    read per vector (stride 1: an unaligned load at the tap's offset;
    stride s: `s` times as many lanes, of which a `vector.shuffle` keeps
    every s-th; taps share such reads, and on a padded input a tap whose
    lanes reach one column past the row's first read takes them from it
    and that column from a one-element read: a 3x3 stride-2 kernel row
    is one 2-vector read and one element) and one `vector.fma` with the
    tap's broadcast weight. The
    accumulators are written once per row segment. They start from the
    op's init, read per segment, unless that init is a `linalg.fill` or the
    graph lowering's broadcast of a [C] bias (also as the shared output of
    the async tiling's `scf.forall`): then they start from the broadcast
    scalar or bias element and the init is neither computed nor read.
    Strides up to 4 and any dilation; reads that the input's padding does
    not cover are masked (not in bounds).
    With `unpadded` (default on), an input that is a zero `tensor.pad` of
    the spatial dims (one that tfrt-pad-in-place could not give to its
    producer, e.g. because the unpadded tensor has other users: det's
    stride-2 depthwise convs) is read through: the loops read the pad's
    source, the first and last output rows whose taps fall above or below
    it (at most 4 rows in all) are emitted one by one without those taps,
    and a vector that starts left of it reads from column 0 with zeros
    shuffled in; past its right end reads are masked. The padded copy goes
    (det's Conv.7 and Conv.11: a 0.5-0.7 ms and a 0.3-0.4 ms copy per run).
    With left padding, the first group of a row's vectors is emitted at
    constant columns ahead of the loop over the other groups.
    With `epilogues` (default on), when the accumulators start from such
    an init and the op's only user is an elementwise consumer in the same
    block (an all-parallel `linalg.generic` of the same shape reading it and
    writing its own init through identity maps and not reading that init;
    other inputs scalars, per-channel values or tensors of the same shape;
    tfrt-async-tile-loops splits it along with the op), the consumer's body
    runs on each accumulator vector before it is written, into the
    consumer's destination, and the consumer's own pass over the output
    goes (the folded BatchNorm and HardSwish after det's depthwise convs).
    Kernels of more than 16 taps (5x5: the 25 weight broadcasts already
    hold most vector registers, and the epilogue's values beside the
    accumulators made det's 5x5 depthwise convs spill and run 10-30%
    slower) write their accumulators into the consumer's destination and
    run the body over each channel's plane once its rows are done, a
    second loop over the rows that reads each vector back from L1 and
    writes it in place (det's 5x5 depthwise convs on 40x40 with their
    HardSwish: 0.79-0.90 of the two passes at one thread; at two threads
    the separate pass, writing lines the other core had read, took up to
    8x as long).

    Before: `linalg.depthwise_conv_2d_nchw_chw {strides = dense<1>}
    ins(%x, %w : tensor<1x8x18x34xf32>, tensor<8x3x3xf32>)
    outs(%b : tensor<1x8x16x32xf32>)`.
    After: `scf.for` n, c, oh around two `vector<16xf32>` accumulators,
    nine `vector.transfer_read` + `vector.fma` per accumulator.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of one vector">,
    Option<"unpadded", "unpadded", "bool", /*default=*/"true",
           "Read the source of a zero tensor.pad of the input directly: taps "
           "outside it are skipped (rows) or read as zeros (columns), and "
           "the padded copy goes where nothing else uses it">,
    Option<"rows", "rows", "int64_t", /*default=*/"2",
           "Output rows computed together (1 to 8) when they divide the "
           "output rows: each tap's broadcast weight feeds the accumulators "
           "of all of them">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Apply the elementwise consumer of a depthwise conv whose "
           "accumulators start from a fill or bias (in the same block) to "
           "each accumulator vector before it is written">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report each fused epilogue as a remark on the convolution (a fusion report)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numEpilogues", "num-epilogues",
              "Elementwise consumers applied to the accumulator vectors">,
  ];
}

def VectorizeSoftmax : Pass<"tfrt-vectorize-softmax", "mlir::func::FuncOp"> {
  let summary = "Softmax over the last axis as three vector passes per row";
  let description = [{
    On tensors: the five static f32 generics that `graph.softmax` over the
    last axis lowers to (the row maximum into an init, `exp(x - max)`, the
    row sum into an init, `1 / sum`, the product), each intermediate read
    only inside the chain, become one loop over the rows whose body makes
    three passes over its row (at least `lanes` elements) while it is in
    L1: the maximum, `exp(x - max)` written to the output and summed, and
    the output scaled by `1 / sum`. Each pass reads `lanes * unroll`
    elements at a time, then whole `lanes`-vectors, then one masked
    vector. With enough rows the loop is an `scf.forall` of up to
    `max-chunks` equal chunks of rows of at least `min-chunk-elements`
    elements each (the row count split evenly), which tfrt-async-outline
    runs in parallel. The five generics made five passes over the tensor,
    three of them separate parallel loops; the sums are reassociated. An
    elementwise generic that computes the softmax's input for it alone
    (a classifier's bias, an attention mask; inputs read along increasing
    loops) is computed as the rows read it, and its pass over the tensor
    goes too.

    Before: PP-OCRv4 rec's `softmax` of its 1x40x6625 classifier output
    plus the classifier's bias, six `linalg.generic`s. After: an
    `scf.forall` of 4 chunks of 10 rows,
    each row 103 wide (64-float) and 1 whole vector per pass and one
    masked vector for the last element.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of one vector">,
    Option<"unroll", "unroll", "int64_t", /*default=*/"4",
           "vectors per step of the main loops">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"4",
           "Most parallel chunks of rows">,
    Option<"minChunkElements", "min-chunk-elements", "int64_t",
           /*default=*/"32768",
           "Fewest elements in a chunk of rows (below: one loop)">,
  ];
  let statistics = [
    Statistic<"numSoftmax", "num-softmax", "Softmax chains rewritten">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def VectorizeReductions : Pass<"tfrt-vectorize-reductions", "mlir::func::FuncOp"> {
  let summary = "Sums, maxima and minima over trailing dimensions with vector accumulators";
  let description = [{
    On tensors: a static f32 `linalg.generic` with one input read through
    the identity map, one init read through the projection on its leading
    (parallel) dimensions, only reduction loops after them and the body
    `out + in` (GlobalAveragePool, ReduceSum and ReduceMean over the last
    axes before their division) or `maximumf`, `minimumf`, `maxnumf`,
    `minnumf` of `in` and `out` (Softmax's row maximum, ReduceMax/Min) is
    replaced by an `scf.for` over the output elements. Each output's input
    row (the trailing dimensions, collapsed; at least `lanes` elements) is
    combined `lanes * unroll` elements at a time into a wide vector
    accumulator (starting at 0, -inf for maxima, +inf for minima; LLVM
    splits it into `unroll` independent registers), then the rest as whole
    `lanes`-vectors and scalars; the parts are combined with a
    `vector.reduction` of the same kind and then with the init element.
    Sums are reassociated (the order differs from the scalar chain the
    generic lowers to); maxima and minima are exact in any order. The
    scalar chain is bound by the latency of one operation per element.

    Before: `linalg.generic` (d0, d1, d2, d3) -> (d0, d1), reduction over
    d2, d3 of a tensor<1x96x160x160xf32>, body `arith.addf %in, %out`.
    After: `scf.for` over 96 rows, each 400 `vector.transfer_read` of
    vector<64xf32> into one accumulator, a `vector.reduction <add>` and a
    `tensor.insert`.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of one vector">,
    Option<"unroll", "unroll", "int64_t", /*default=*/"4",
           "independent vector accumulators of the main loop">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def FuseElementwise : Pass<"tfrt-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Elementwise fusion that never recomputes a producer";
  let description = [{
    The patterns of upstream `linalg-fuse-elementwise-ops` (producer into
    consumer generic, reshape propagation by expansion, constant folding,
    the same canonicalizations, top-down) with one more condition on each
    fusion: a producer is not folded into an op with reduction loops that
    reads it through a map leaving loops out. Such a consumer is a
    convolution or a matrix product, and the producer (a batch norm, a hard
    swish, the SE scale of the previous layer) would be evaluated once per
    multiply-accumulate instead of once per element; it also keeps the
    contraction's body `out + in * w` that the vectorizing passes match.
    Nor is a producer that computes something (not only a broadcast or a
    copy) folded into an elementwise op of at least 65536 iterations that
    reads it through such a map: a per-channel hard sigmoid (a
    squeeze-excitation scale) would run once per element of the feature
    map instead of once per channel. Below that size the separate small
    loop costs more than the recomputation (PP-OCR cls ran 4% slower).
    Fusion into elementwise ops otherwise, and into reductions that read
    each element once (softmax, layer norm), is unchanged.

    Before: a hard-swish generic feeding a 1x1 convolution generic.
    After: both stay; the convolution's body remains a multiply-add.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Report the linalg ops before and after fusion as a remark on "
           "the function (a fusion report)">,
  ];
  let statistics = [
    Statistic<"numBefore", "linalg-ops-before", "linalg ops before fusion">,
    Statistic<"numAfter", "linalg-ops-after", "linalg ops after fusion">,
  ];
}

def UnrollAccumulatorLoops
    : Pass<"tfrt-unroll-accumulator-loops", "mlir::func::FuncOp"> {
  let summary = "Unroll the reduction loops of the register tiles";
  let description = [{
    Every `scf.for` with a static trip count whose iter_args are all
    vectors and whose flat body (no nested regions, at most 64 ops) holds
    exactly one `vector.contract` accumulating into an iter_arg, i.e. the
    K loop of a `tfrt-vectorize-matmul` register tile after
    `loop-invariant-subset-hoisting`, takes `factor` steps per iteration
    (`scf` loop unrolling), with the factor halved until it divides the
    trip count, so that no remainder loop is needed. LLVM leaves these loops
    rolled (16 FMAs, 2 loads and 8 broadcasts exceed its thresholds), and
    their loop instructions then compete with the FMAs for the ports:
    unrolled by 4, GEMM 1024^3 ran faster in 5 of 6 interleaved pairs and
    det's 192-channel 1x1 convs 5-8% faster (docs/performance.md).

    Before: `scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = ...) ->
    (vector<8x32xf32>) { ... vector.contract ... }`.
    After: the same loop with step 4 and four reads and contractions per
    iteration, chained through the accumulator.
  }];
  let options = [
    Option<"factor", "factor", "int64_t", /*default=*/"4",
           "Steps per iteration (a power of two is used: the largest that "
           "is at most this and divides the trip count; 1: no unrolling)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def SeedConvTiles : Pass<"tfrt-seed-conv-tiles", "mlir::func::FuncOp"> {
  let summary = "Start conv register tiles from the bias instead of a filled output";
  let description = [{
    On tensors, after `tfrt-vectorize-conv` and the accumulator hoisting:
    a register tile's accumulator read (an in-bounds, unmasked
    `vector.transfer_read` of a vector<M x N> f32 tile of the channel and
    column dims, 1 and 3, of a static rank-4 tensor, that is the initial
    value of a loop carrying vectors only, whose result is written back to
    the same place) whose output tensor comes through the iter_args of
    enclosing `scf.for` loops from a per-channel init (a `linalg.fill` or
    the graph lowering's broadcast of a [C] bias, also as the shared output
    of the async tiling's `scf.forall`; `ChannelInit.h`) starts from that
    value instead: a broadcast of the scalar, or a read of the bias
    elements of its channels broadcast along the columns. When the
    outermost of those loops does not move the tile (the input-channel
    blocks of the rows-outer tiles), only its first iteration starts from
    the bias (`scf.if`); the later blocks read the partial sums as before.
    The init is then neither computed nor read: the pass over the output
    that wrote the bias goes (PP-OCRv4 det's 96->24 3x3 convs on 160x160:
    one 2.5 MB launch each).

    When such a conv's final value (the loops' result, or the result of the
    `scf.forall` whose chunks they compute) has one user, an all-parallel
    `linalg.generic` reading just it through identity maps into an init it
    does not read, whose body is unary float arithmetic on it and scalar
    constants (a ReLU), the tiles of the last input-channel block apply
    that body to their accumulators before they write them, and the
    consumer's own pass over the output goes (det's Relu.10 after Conv.61).

    Before: `%acc = vector.transfer_read %out[%c0, %m, %oh, %ow]` with
    `%out` from a bias broadcast through the loops' iter_args.
    After: `%acc = scf.if (%cb == 0) { bias[%m..] broadcast } else {
    vector.transfer_read %out[...] }`, and the loops start from the bias
    generic's own init.
  }];
  let statistics = [
    Statistic<"numSeeded", "seeded-tiles",
              "register tiles that start from their fill value or bias">,
    Statistic<"numEpilogues", "tile-epilogues",
              "register tiles that apply their elementwise consumer">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def PrefetchConvRows : Pass<"tfrt-prefetch-conv-rows", "mlir::func::FuncOp"> {
  let summary = "Prefetch the next input row of windowed conv register tiles";
  let description = [{
    On tensors, after `tfrt-vectorize-conv` and the accumulator hoisting:
    every in-bounds, unmasked `vector.transfer_read` of a K x N f32 tile
    of the minor [C, W] dimensions of a static rank-4 tensor (the
    rows-outer [N, H, C, W] input of a windowed convolution) that is the
    right operand of a `vector.contract`, at a row `oh + kh` and a column
    `ow + kw` computed by `affine.apply` from the induction variables of
    two enclosing tap loops (`scf.for` from 0, step 1), gets K
    `memref.prefetch`es (read, locality 3) of the same K channels
    `rows-ahead` rows further down (clamped to the last row), at column
    `ow + 16 * kw` (one 64-byte line per column tap, clamped to the tile's
    last column and to the row's last 16 columns), on a read-only
    `bufferization.to_buffer` of the tensor with a dynamic layout.
    The hardware prefetchers do not follow the reads of a tile, which jump
    a whole row of the input per channel, so without this every new input
    row of a row of output tiles comes from L2 or L3: the 3x3 96->24 conv
    of PP-OCRv4 det on 160x160 ran 0.91x as long with it in a C model of
    the kernel (docs/performance.md).

    Before: `%x = vector.transfer_read %in[%c0, %r, %c, %col]` with
    `%r = affine.apply (oh + kh)`, `%col = affine.apply (ow + kw)`.
    After: the same, preceded by K `memref.prefetch %buf[%c0, %r1, %c + i,
    %col1], read, locality<3>, data`.
  }];
  let options = [
    Option<"rowsAhead", "rows-ahead", "int64_t", /*default=*/"1",
           "How many rows below the tap's input row to prefetch (0: no "
           "prefetches)">,
  ];
  let statistics = [
    Statistic<"numPrefetched", "prefetched-reads",
              "register-tile input reads given row prefetches">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def PackWeightTiles : Pass<"tfrt-pack-weight-tiles", "mlir::func::FuncOp"> {
  let summary = "Pack weight constants in the order the register tiles read them";
  let description = [{
    On tensors, after the vectorizing passes: a `vector.transfer_read` of
    an R x L f32 tile (R >= 2, in bounds, no mask) whose vector dimensions
    run along dimensions 0 and 1 of an `arith.constant` of shape
    [D0, D1, D2, ...] (directly, or through unit-stride
    `tensor.extract_slice`s and `tensor.collapse_shape`s of unit
    dimensions) reads instead a constant packed at compile time as
    [D0 / R, D2, ..., D1, R], at [row / R, i2, ..., i1, 0] with the
    permutation (.., d1', d0') -> (d0', d1'). Such reads are the left
    operands of the register tiles of `tfrt-vectorize-conv` (8 output
    channels x 8 or 4 input channels at one tap of an OIHW weight) and
    `tfrt-vectorize-matmul` on 1x1 conv weights (8 or 6 rows x 1 column):
    unpacked, the R elements of one step lie a whole weight row apart
    (3456 bytes for det's 96-channel 3x3 convs), so every step of the K
    loop touches R cache lines and the weights of one register tile sweep
    27 KB of L1 per tap; packed, one step reads R contiguous floats.

    Applies only where the row index is provably a multiple of R (loop
    induction variables with such bounds and steps, sums and products of
    them) and D0 is divisible by R; tiles whose L elements are contiguous
    already (D2... all 1 and L > 1) stay. One packed constant serves all
    reads of the same constant with the same R; the original constant goes
    once nothing else reads it.

    Before: `vector.transfer_read %w[%m, %c, %kh, %kw] ... permutation_map =
    (d0, d1, d2, d3) -> (d0, d1) : tensor<24x96x3x3xf32>, vector<8x8xf32>`.
    After: `vector.transfer_read %packed[%m / 8, %kh, %kw, %c, 0] ...
    permutation_map = (d0, d1, d2, d3, d4) -> (d4, d3) :
    tensor<3x3x3x96x8xf32>, vector<8x8xf32>`.
  }];
  let statistics = [
    Statistic<"numPacked", "packed-constants", "weight constants packed">,
    Statistic<"numReads", "packed-reads", "tile reads moved onto them">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def SplitMatmulColumns : Pass<"tfrt-split-matmul-columns", "mlir::func::FuncOp"> {
  let summary = "Split a matmul's columns into vector-width multiples and the rest";
  let description = [{
    On tensors, before `tfrt-vectorize-matmul`: an f32 `linalg.matmul` with
    static shapes whose column count N is above `lanes` and not a multiple
    of it becomes a `linalg.matmul` over the first N - N % lanes columns
    (slices of the right operand and of the init, which the register
    tiling of `tfrt-vectorize-matmul` then covers) and a contraction
    `linalg.generic` (m, n, k) over the remaining columns, whose loop
    lowering `tfrt-interchange-loops` turns into a unit-stride innermost
    loop over those columns; both are inserted back into the init. Left
    whole, such a matmul lowers to scalar loops with K innermost, reading
    the right operand with a stride of N (rec's neck: 1x1 convolutions on
    40 columns).

    Before: `linalg.matmul ins(%a, %b : tensor<120x480xf32>, tensor<480x40xf32>)`.
    After: `linalg.matmul` on `tensor<480x32xf32>` into `tensor<120x32xf32>`,
    a generic on `tensor<480x8xf32>` into `tensor<120x8xf32>`, two
    `tensor.insert_slice`.

    Columns that are a multiple of `lanes` but not of `tile` (the widest
    register tile of `tfrt-vectorize-matmul`, which otherwise picks the
    narrower one for the whole matmul) are split the same way: a matmul over
    the first multiple of `tile` and one over the remaining `lanes`-wide
    columns. det's 1x1 convolutions on 20x20 maps (N = 400) then run 12
    tiles of 32 columns and one of 16 instead of 25 tiles of 16 (8x16
    register tiles need a broadcast per FMA).

    Not when such a matmul's init is one that `tfrt-vectorize-matmul`
    seeds its register tiles from (`keep-seeded`: a `linalg.fill` or a
    bias broadcast along the rows that only the matmul reads, K <= 512):
    the split would hand each part a column slice of that init, which
    neither part could seed from, so the broadcast would stay a pass of its
    own and the matmul's elementwise consumer a second one. That pass
    instead covers the columns past the last multiple of `tile` with
    `lanes`-wide tiles itself.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "column multiple the vectorized matmul covers">,
    Option<"tile", "tile", "int64_t", /*default=*/"32",
           "widest register tile: columns past its last multiple become a "
           "separate matmul">,
    Option<"keepSeeded", "keep-seeded", "bool", /*default=*/"true",
           "Leave whole a matmul whose columns are a multiple of lanes, "
           "with K <= 512 and a per-row init that only it reads (a fill or "
           "a bias broadcast): tfrt-vectorize-matmul seeds its tiles from "
           "that init and covers the last columns with narrower tiles">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // TFRT_PASSES_CODEGENCPU_PASSES
