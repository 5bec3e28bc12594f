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

#endif // TFRT_PASSES_CODEGENCPU_PASSES
