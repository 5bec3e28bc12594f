//===- Passes.td - CUDA code generation passes ---------------*- tablegen -*-===//
//
// Passes that map bufferized linalg onto GPU kernels and turn the kernels into
// an embedded fat binary for NVIDIA GPUs (--target=cuda).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCUDA_PASSES
#define TFRT_PASSES_CODEGENCUDA_PASSES

include "mlir/Pass/PassBase.td"

def ExternalizeConstants : Pass<"tfrt-cuda-externalize-constants",
                                "mlir::ModuleOp"> {
  let summary = "Move constant globals into the device workspace (weights)";
  let description = [{
    Kernels cannot read host globals. Every constant `memref.global` used by
    the entry function (the one whose last argument is the `tfrt.io =
    "workspace"` buffer) is packed into one byte array `@tfrt_weights` and
    each `memref.get_global` becomes a `memref.view` into the workspace
    argument at `workspace_size + offset`: the device workspace holds the
    planned scratch bytes followed by the weights, which the runtime uploads
    once per instance. The entry gets `tfrt.cuda.weights_offset` and
    `tfrt.cuda.device_workspace_size`; the workspace argument type grows to
    the device size.

    Before:
    ```mlir
    %w = memref.get_global @__constant_4xf32 : memref<4xf32>
    ```
    After:
    ```mlir
    %w = memref.view %ws[%c64][] : memref<80xi8> to memref<4xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "Byte alignment of the weights block and of every constant">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ParallelDimsFirst : Pass<"tfrt-cuda-parallel-dims-first",
                             "mlir::func::FuncOp"> {
  let summary = "Order generic iterators: parallel (by output position), then reductions";
  let description = [{
    Permutes the iterators of every `linalg.generic` so that its parallel
    dimensions come first, ordered as they index the (first) output, and the
    reduction dimensions last. After `convert-linalg-to-parallel-loops` each
    op is then one `scf.parallel` over the output (the output's contiguous
    dimension last, so consecutive GPU threads write consecutive elements)
    with the reductions as sequential loops inside: one thread per output
    element.

    Before (a reduction over the middle dim, `(d0, d1, d2)`):
    ```mlir
    linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2),
                                     (d0, d1, d2) -> (d0, d2)],
                    iterator_types = ["parallel", "reduction", "parallel"]} ...
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d2, d1),
                                     (d0, d1, d2) -> (d0, d1)],
                    iterator_types = ["parallel", "parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MapToGpu : Pass<"tfrt-cuda-map-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Turn top-level parallel loops into linearised gpu.launch ops";
  let description = [{
    Every top-level `scf.parallel` of a function becomes one `gpu.launch` with
    one thread per iteration: the iteration space is linearised (the last
    dimension fastest, i.e. on consecutive threads of threadIdx.x, so accesses
    along the contiguous dimension coalesce), split into blocks of
    `block-size` threads, and the indices are recovered with 32-bit
    divisions. Parallel loops nested inside become sequential `scf.for`
    loops. Remaining top-level ops that touch memory (for example the body
    of a rank-0 linalg op) run in a single-thread launch, since all buffers
    are device memory. View-like ops and constants stay on the host.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c300) step (%c1, %c1) {
      memref.store %v, %out[%i, %j] : memref<2x300xf32>
    }
    ```
    After (600 threads in blocks of 256):
    ```mlir
    gpu.launch blocks(%bx, ...) in (%gx = %c3, ...) threads(%tx, ...) in (%sx = %c256, ...) {
      %l = bx * 256 + tx                          // i32
      scf.if %l < 600 {
        %j = index_cast(%l % 300)  %i = index_cast(%l / 300)
        memref.store %v, %out[%i, %j] : memref<2x300xf32>
      }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block (a multiple of 32, at most 1024)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def EmulateLaunches : Pass<"tfrt-cuda-emulate-launches", "mlir::func::FuncOp"> {
  let summary = "Testing aid: run gpu.launch bodies as sequential CPU loops";
  let description = [{
    Replaces every (not yet outlined) `gpu.launch` by six nested `scf.for`
    loops over the block and thread indices, with the body inside. With it,
    `tfrt-compile --target=cuda-emulate` compiles the kernels formed by
    `tfrt-cuda-map-to-gpu` for the CPU, so their indexing can be checked
    against a reference without a GPU.

    Before: `gpu.launch blocks(%bx, ...) in (%gx = %c3, ...) threads(%tx,
    ...) in (%sx = %c4, ...) { body }`. After: `scf.for %bx = 0 to 3 { scf.for
    ... { scf.for %tx = 0 to 4 { ... body } } }` (six loops).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def MergeKernelModules : Pass<"tfrt-cuda-merge-kernel-modules",
                              "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` creates one `gpu.module` per kernel. This pass moves
    every kernel into the first module, renamed after its old module (unique
    symbols), and updates the `gpu.launch_func` ops, so the model has one fat
    binary, one ptxas run per arch and one module load.

    Before: `gpu.module @k { gpu.func @f_kernel }`, `gpu.module @k_0 {
    gpu.func @f_kernel }`, launches of `@k::@f_kernel` and `@k_0::@f_kernel`.
    After: `gpu.module @k { gpu.func @k, gpu.func @k_0 }`, launches of
    `@k::@k` and `@k::@k_0`.
  }];
}

def Serialize : Pass<"tfrt-cuda-serialize", "mlir::ModuleOp"> {
  let summary = "Compile gpu.modules (NVVM) to a fat binary: cubin per arch + PTX";
  let description = [{
    For every `gpu.module` (already in the NVVM/LLVM dialect) and every chip
    in `chips`, generates PTX with MLIR's NVVM target (libdevice linked from
    `cuda-path`), assembles it with `<cuda-path>/bin/ptxas -arch=<chip>` and
    packs all cubins plus the PTX of the newest chip (JIT-compiled by the
    driver on newer GPUs) with `<cuda-path>/bin/fatbinary`. The module is
    replaced by a `gpu.binary` holding the fat binary, which `gpu-to-llvm`
    and the LLVM translation embed in the host object. With `dump-dir`, the
    PTX, cubins and fat binary are also written there as
    `<module>.<chip>.ptx`, `<module>.<chip>.cubin` and `<module>.fatbin`.

    Before: `gpu.module @kernels { llvm.func @scale(...) attributes
    {nvvm.kernel} ... }`. After: `gpu.binary @kernels
    [#gpu.object<#nvvm.target<chip = "sm_90">, "<fat binary bytes>">]` and
    `tfrt.cuda.archs = "sm_80,sm_90"` on the module.
  }];
  let options = [
    ListOption<"chips", "chips", "std::string",
               "Target GPUs (sm_80, sm_89, sm_90)">,
    Option<"cudaPath", "cuda-path", "std::string", "\"/usr/local/cuda\"",
           "CUDA toolkit root (bin/ptxas, bin/fatbinary, nvvm/libdevice)">,
    Option<"dumpDir", "dump-dir", "std::string", "\"\"",
           "Also write the PTX, cubins and fat binary into this directory">,
    Option<"optLevel", "opt-level", "int", "3", "LLVM and ptxas optimisation level">,
  ];
}

#endif // TFRT_PASSES_CODEGENCUDA_PASSES
