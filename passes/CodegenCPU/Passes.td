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
  }];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def InterchangeLoops : Pass<"tfrt-interchange-loops", "mlir::func::FuncOp"> {
  let summary = "Make the output's contiguous dimension the innermost loop";
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
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TFRT_PASSES_CODEGENCPU_PASSES
