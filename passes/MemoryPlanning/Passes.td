//===- Passes.td - buffer ABI and memory planning ------------*- tablegen -*-===//
//
// Passes that give the model its buffer ABI (caller-owned input and output
// buffers) and place every intermediate buffer into one static workspace.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_MEMORYPLANNING_PASSES
#define TFRT_PASSES_MEMORYPLANNING_PASSES

include "mlir/Pass/PassBase.td"

def EntryAbi : Pass<"tfrt-entry-abi", "mlir::ModuleOp"> {
  let summary = "Turn the tensor entry function into the caller-buffer ABI";
  let description = [{
    Rewrites the entry function `@main(tensor...) -> (tensor...)` into
    `@<symbol>(memref inputs..., memref outputs...)`: inputs are read through
    `bufferization.to_tensor ... restrict`, and each returned tensor is
    written into its output buffer with
    `bufferization.materialize_in_destination ... restrict writable`, so that
    one-shot bufferization computes results directly into the caller's
    buffers. Arguments keep their `graph.name` and get `tfrt.io = "input"` or
    `"output"`. All shapes must be static. Tensors without elements have
    nothing to read or write; their buffers become opaque `memref<0xi8>`.
    A result that is a `tensor.collapse_shape` or `tensor.expand_shape` of
    another tensor is materialised as that tensor into the inverse reshape
    of its output buffer, so that its producer can write the caller's
    buffer directly (tfrt-outputs-in-place does not look through
    reshapes).

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32>
    ```
    After `tfrt-entry-abi{symbol=m_compute}`:
    ```mlir
    func.func @m_compute(%x: memref<4xf32>, %y: memref<4xf32>) {
      %t = bufferization.to_tensor %x restrict : memref<4xf32> to tensor<4xf32>
      ...
      bufferization.materialize_in_destination %r in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "The tensor entry function">,
    Option<"symbol", "symbol", "std::string", /*default=*/"\"\"",
           "New name of the function (default: keep the name)">,
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PadInPlace : Pass<"tfrt-pad-in-place", "mlir::func::FuncOp"> {
  let summary = "Let the producer of a padded tensor write its interior";
  let description = [{
    On tensors: a `tensor.pad` with static sizes and a constant padding value
    whose source is the result of a linalg op that does not read its init
    (an elementwise op, a conv's activation epilogue) and has no other use
    than as an input of all-parallel linalg ops (which then read it in the
    padded buffer's interior: det's FPN maps, upsampled beside their 3x3
    conv; not convolutions, whose 1x1 form needs a contiguous input)
    becomes: a `bufferization.alloc_tensor` of the padded shape (not a
    `tensor.empty`, which CSE would merge with another pad's of the same
    shape, and bufferization then copy whole) whose border slabs (low and
    high, per padded dim) are filled with the padding value, that op writing
    the interior slice of it, and the result inserted back at the same place.
    When the source op accumulates into its init (a convolution) and that
    init is the result of a linalg op that does not read its own init (the
    bias broadcast or a fill) and has no other use, that op writes the
    interior and the accumulation follows in place (det: its stem conv
    straight into the padded input of the depthwise conv after it).
    One-shot bufferization then keeps all of it in the padded buffer: the
    copy of the unpadded tensor into it, and the buffer for it, disappear
    (det: the inputs of its depthwise convs, up to 13 MiB each). Pads of
    other values are left alone (tfrt-lower-copies still makes their copy
    fill only the border).

    Before:
    ```mlir
    %a = linalg.generic ... outs(%e : tensor<1x8x16x16xf32>)
    %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] { tensor.yield %zero }
    ```
    After:
    ```mlir
    %b = bufferization.alloc_tensor() : tensor<1x8x18x18xf32>
    // four linalg.fill on border slices, inserted into %b
    %i = tensor.extract_slice %b4[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
    %a = linalg.generic ... outs(%i : tensor<1x8x16x16xf32>)
    %p = tensor.insert_slice %a into %b4[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1]
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def OutputsInPlace : Pass<"tfrt-outputs-in-place", "mlir::func::FuncOp"> {
  let summary = "Let the producers of the entry's results write the caller's "
                "buffers";
  let description = [{
    On the entry function after `tfrt-entry-abi`: for each
    `bufferization.materialize_in_destination %v in restrict writable %out`
    into a caller's buffer, follows `%v` back through the values whose
    buffer it will share when it bufferizes in place (the tied init of a
    destination-style op such as a linalg op, `tensor.insert_slice` or
    `vector.transfer_write`, the shared output of an `scf.forall`, the init
    of an `scf.for` result) to a `tensor.empty`, and makes the op that used
    the empty start from `bufferization.to_tensor %out restrict writable`
    instead (created where the empty was). One-shot bufferization then
    computes the result in the caller's buffer and the copy into it goes.

    This is what upstream `eliminate-empty-tensors` does for these ops, without
    the one-shot analysis of the whole module that it runs first (on PP-OCR
    cls as much work as the bufferization's own analysis). It is sound
    without that analysis: the empty's contents were undefined, and where
    writing the caller's buffer in place would conflict with a later read,
    bufferization copies as it would for any tensor. Results reached through
    other ops (reshapes, `scf.if`, block arguments) are left to that copy.

    Before:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic ... outs(%e : tensor<4xf32>) -> tensor<4xf32>
    bufferization.materialize_in_destination %r in restrict writable %y
    ```
    After:
    ```mlir
    %t = bufferization.to_tensor %y restrict writable
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic ... outs(%t : tensor<4xf32>) -> tensor<4xf32>
    bufferization.materialize_in_destination %r in writable %y
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PlanWorkspace : Pass<"tfrt-plan-workspace", "mlir::func::FuncOp"> {
  let summary = "Place every allocation in one static workspace argument";
  let description = [{
    After bufferization, replaces each `memref.alloc` of a static shape in a
    function marked by `tfrt-entry-abi` (arguments with `tfrt.io`) with a
    `memref.view` into a new trailing `memref<Nxi8>` argument (marked
    `tfrt.io = "workspace"`), and drops the matching deallocations. Offsets
    come from a liveness analysis over the function's top-level ops: buffers
    whose live ranges overlap never share bytes; others may. The total size
    is recorded as `tfrt.workspace_size` on the function, so that no run
    allocates. A dynamically sized allocation is an error.

    An allocation in the body of a top-level `scf.forall` with static bounds
    (scratch of one parallel chunk, such as tfrt-vectorize-conv's flattened
    rows) gets one aligned slot per iteration, all live over the loop; its
    view's offset is the base plus the iteration's slot times the slot size.
    Allocations in any other nested region are an error.

    Before:
    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    ```
    After:
    ```mlir
    %c0 = arith.constant 0 : index
    %a = memref.view %ws[%c0][] : memref<64xi8> to memref<16xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every buffer in the workspace">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerCopies : Pass<"tfrt-lower-copies", "mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy into linalg.copy (parallel chunks for big ones)";
  let description = [{
    `memref.copy` between strided buffers lowers to a call into MLIR's C
    runner utilities, which generated objects must not depend on. This pass
    rewrites every `memref.copy` into an equivalent `linalg.copy`, which
    lowers to plain loops. A copy of a buffer onto itself (the same value
    as source and target, or `memref.expand_shape`/`memref.collapse_shape`
    views of the same value: what bufferizing an in-place
    `tensor.insert_slice` leaves, e.g. for each border slab of a padded
    input, or for each chunk of a 1x1 conv written through the collapse of
    its output slice) is erased.

    Before:
    ```mlir
    memref.copy %a, %b : memref<4xf32, strided<[2]>> to memref<4xf32>
    ```
    After:
    ```mlir
    linalg.copy ins(%a : memref<4xf32, strided<[2]>>) outs(%b : memref<4xf32>)
    ```

    With `min-bytes` > 0 (the CPU pipeline with parallel loops), a copy at
    the top level of the entry function that moves at least `min-bytes`
    bytes becomes an `scf.forall` of equal chunks (slices along one dim the
    copy covers whole, each moving at least `chunk-bytes`, at most
    `max-chunks` of them; one chunk when no dim divides well). Then
    tfrt-async-outline makes it a pool launch: the chunks run in parallel,
    and even a one-chunk launch gets its buffers as separate noalias
    pointers, so that LLVM vectorizes the copy loops (inline, every
    temporary is a view of the one workspace pointer).

    With `fuse-fills`, such a copy into a unit-stride subview of a buffer
    whose previous writer (nothing else touching the buffer in between) is
    a top-level fill of the whole buffer with one value (`linalg.fill`, or
    the `linalg.map` that bufferizing `tensor.pad` makes) absorbs that
    fill: each chunk fills only the part of the buffer around the copied
    box (the border of a padded convolution input) and copies its slice of
    the box, and the fill is erased. A padded input is then written once
    instead of twice, and in parallel chunks instead of serially.

    Before (`min-bytes=1 fuse-fills=1`):
    ```mlir
    linalg.fill ins(%z : f32) outs(%p : memref<1x8x10x10xf32>)
    %box = memref.subview %p[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1]
    memref.copy %x, %box
    ```
    After (`chunk-bytes=4096`):
    ```mlir
    scf.forall (%i) in (2) {
      // rows 0 and 9, columns 0 and 9 of channels [4i, 4i + 4) of %p
      linalg.fill ins(%z : f32) outs(%top : memref<1x4x1x10xf32, ...>)
      ...
      linalg.copy ins(%xi : ...) outs(%boxi : ...)
    }
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"0",
           "When positive, top-level copies of the entry function moving "
           "at least this many bytes (read and written) become an "
           "scf.forall of chunks">,
    Option<"chunkBytes", "chunk-bytes", "int64_t", /*default=*/"524288",
           "The smallest number of bytes one chunk moves">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"64",
           "The largest number of chunks of one copy">,
    Option<"fuseFills", "fuse-fills", "bool", /*default=*/"false",
           "Fold a fill of the whole destination buffer that precedes the "
           "copy into its loop, filling only what the copy does not write">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numChunked", "num-chunked", "Copies made parallel loops">,
    Statistic<"numFused", "num-fused", "Fills folded into a copy loop">,
  ];
}

def LowerChecks : Pass<"tfrt-lower-checks", "mlir::ModuleOp"> {
  let summary = "Turn the entry's cf.assert checks into reports to the runtime";
  let description = [{
    Each `cf.assert %ok, "message"` in the model's entry function (the
    run-time checks of `tfrt-check-indices`) becomes `scf.if` on `!%ok`
    calling `tfrt_run_report_error(run, message)` of runtime-lib, with the
    message a constant string of the module: the run goes on, and
    `NAME_run` returns TFRT_INVALID_ARGUMENT with the run's first failed
    message. The run context is the entry's `!llvm.ptr {tfrt.run}`
    argument; where `tfrt-async-outline` did not add one (`--parallel=off`)
    this pass appends it (the emitter passes it through when the compute
    function takes one more argument than its tensors and workspace). A
    check outside the entry function is an error.

    Before:
    ```mlir
    cf.assert %ok, "node 'g' (Gather): an index is outside [-3, 3)"
    ```
    After:
    ```mlir
    llvm.mlir.global internal constant @tfrt_check_message_0("node 'g' ...\00")
    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      %m = llvm.mlir.addressof @tfrt_check_message_0 : !llvm.ptr
      func.call @tfrt_run_report_error(%run, %m) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    ```
  }];
  let statistics = [
    Statistic<"numChecks", "run-time-checks", "checks reported to the runtime">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TFRT_PASSES_MEMORYPLANNING_PASSES
