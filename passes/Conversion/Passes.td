//===- Passes.td - dialect conversions -----------------------*- tablegen -*-===//
//
// Lowerings between dialects.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CONVERSION_PASSES
#define TFRT_PASSES_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerGraphToLinalg : Pass<"tfrt-lower-graph-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower graph ops on static tensors to linalg/tensor/arith/math";
  let description = [{
    Converts every graph op (which must have static shapes: run
    tfrt-specialize-shapes first) into linalg on tensors: elementwise ops with
    numpy broadcasting become one `linalg.generic` each, MatMul/Gemm become
    contractions, Conv/pooling become windowed generics over a padded input,
    reductions (softmax, global pooling) become reduction generics, and shape
    ops become `tensor` reshapes/slices. `graph.constant` becomes
    `arith.constant`. An op that cannot be lowered is an error naming it.

    Before:
    ```mlir
    %0 = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {indexing_maps = [...], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %z = arith.constant 0.0 : f32
        %m = arith.maximumf %in, %z : f32
        linalg.yield %m : f32
    } -> tensor<4xf32>
    ```

    With `scatter-loops` (the CPU pipeline sets it), ScatterElements and
    ScatterND become `scf.for` nests over their updates that carry the
    input and write each update (ScatterND: each index tuple's slice) into
    it in place: linear in the updates. Without it they are reduction
    generics over output x updates, which the CUDA pipeline maps onto
    threads as it maps every generic.
  }];
  let options = [
    Option<"scatterLoops", "scatter-loops", "bool", /*default=*/"false",
           "Lower scatters as loops over their updates (host code)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::func::FuncDialect", "::mlir::scf::SCFDialect"
  ];
}

#endif // TFRT_PASSES_CONVERSION_PASSES
