//===- Passes.td - graph-level passes ------------------------*- tablegen -*-===//
//
// Passes on the graph dialect: shape specialisation with interleaved constant
// folding.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_GRAPH_PASSES
#define TFRT_PASSES_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def SpecializeShapes : Pass<"tfrt-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "Fix input shapes, infer every shape and fold shape subgraphs";
  let description = [{
    Sets the argument types of the model's entry function from
    `input-shapes` (`NAME=D0xD1x...`, NAME being the argument's
    `graph.name` attribute or `argN`), then walks every function in order:
    each graph op's result types are re-inferred from its (now more precise)
    operands and the op is folded when its operands are constants, so that
    shape-computing subgraphs (`graph.shape` -> `graph.slice` ->
    `graph.concat` -> `graph.reshape`) become constants. Function result types
    are updated last. With `require-static`, any tensor left with an unknown
    dimension is an error naming the op and its node.

    Before:
    ```mlir
    func.func @main(%x: tensor<?x4xf32>) -> tensor<*xf32> {
      %s = graph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
      %r = graph.reshape %x, %s {allowzero = false} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<*xf32>
      return %r : tensor<*xf32>
    }
    ```
    After `tfrt-specialize-shapes{input-shapes=arg0=2x4}`:
    ```mlir
    func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %r = graph.reshape %x, %cst {allowzero = false} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
      return %r : tensor<2x4xf32>
    }
    ```
  }];
  let options = [
    ListOption<"inputShapes", "input-shapes", "std::string",
               "NAME=D0xD1x... shapes of the entry function's inputs">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: the only public function)">,
    Option<"requireStatic", "require-static", "bool", /*default=*/"false",
           "Fail when a shape stays unknown">,
  ];
  let dependentDialects = ["::tfrt::graph::GraphDialect"];
}

def SimplifyGraph : Pass<"tfrt-simplify-graph", "mlir::func::FuncOp"> {
  let summary = "Fold batch normalisation and constant layout ops into weights";
  let description = [{
    Inference-time graph simplifications on static f32 graphs:

    * `graph.batch_norm` whose input is the only use of a `graph.conv` with
      constant weight (and constant or absent bias) and constant statistics
      is folded into the convolution: with `s = scale / sqrt(var + eps)`,
      `W'[m] = W[m] * s[m]` and `b'[m] = (b[m] - mean[m]) * s[m] + beta[m]`.
    * Any other `graph.batch_norm` with constant statistics becomes
      `graph.add(graph.mul(x, s), t)` with per-channel constants shaped to
      broadcast along dimension 1 (no square root or division at run time).
    * `graph.global_average_pool` of a pointwise `graph.conv` (kernel 1 in
      every spatial dimension, unit strides, no padding) pools the conv's
      input instead and applies the conv to the pooled [N, C, 1, ...]
      tensor: the mean of a per-position linear map is the map of the mean.
      A conv with other users stays; then the pooling moves only when the
      conv's input has at most as many channels as its output (it then
      reads no more than before).
    * `graph.add(c, graph.mul(c, s))` (in either operand order), where s
      has fewer elements than c (a broadcast scale such as a
      squeeze-excitation output) and the product has no other user,
      becomes `graph.mul(c, graph.add(s, 1))` with the sum on s's shape:
      c then has one user less, so that the op producing it can take the
      rest as its epilogue (about one rounding of difference).
    * `graph.transpose` of a constant becomes a constant.
    * `graph.identity` is removed.
    * Then affine ops by finite constants that broadcast along dimension 1
      only (one value, or one per channel): `graph.mul`, `graph.add` (either
      operand order), `graph.sub` and `graph.div` (constant on the right,
      not zero). A chain of them that is a `graph.conv`'s only user, with
      constant weight and bias, goes into the conv: `W'[m] = W[m] * s[m]`,
      `b'[m] = b[m] * s[m] + t[m]` (padding does not matter). The same
      for a `graph.conv_transpose` (weight `[C, M/group, k...]`): `W'[c, j]
      = W[c, j] * s[m]` for output channel `m = g * M/group + j` of input
      channel c's group g, and the bias as above (the DB text detectors'
      head: ConvTranspose, bias add, BatchNorm, ReLU). A chain
      whose values only the next op reads, ending in the input of a conv
      without padding, goes into that conv: with the input
      `x * s[c] + t[c]`, `W'[m, c, k] = W[m, c, k] * s[c]` and
      `b'[m] = b[m] + sum over c, k of W[m, c, k] * t[c]` (c ranging over
      the input channels of m's group). With padding the zeros at the
      border would not be affine values, so such chains stay; there a
      `graph.mul` or `graph.div` by a single-element constant of a
      `graph.mul` or `graph.div` by another that only it reads becomes one
      `graph.mul` by their product. PP-OCRv4's learnable affine blocks and
      HardSwish's division by 6 then leave the elementwise epilogues of
      its convolutions (det: 201 -> 101 elementwise ops).

    Before:
    ```mlir
    %c = graph.conv %x, %w {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %y = graph.batch_norm %c, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (...) -> tensor<1x4x8x8xf32>
    ```
    After:
    ```mlir
    %y = graph.conv %x, %w2, %b2 {...} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let dependentDialects = ["::tfrt::graph::GraphDialect"];
}

def FlushDenormals : Pass<"tfrt-flush-denormals", "mlir::func::FuncOp"> {
  let summary = "Replace subnormal elements of f32 constants by signed zeros";
  let description = [{
    Every element of a dense f32 `graph.constant` whose magnitude is below
    the smallest normal float (2^-126) and not zero becomes a zero of the
    same sign. On x86 cores running without denormals-are-zero, each
    arithmetic instruction that reads a subnormal operand takes a microcode
    assist of around a hundred cycles (Intel Xeon: PP-OCRv4 rec's
    squeeze-excitation 1x1 convs hold 31350 such weights and ran at 0.1
    GFLOP/s, 1.2 ms of a 16 ms model). A flushed weight changes each
    product it takes part in by less than 2^-126 times the other factor,
    far below the rounding error of any normal result. Dense resource
    constants are left alone. Run it after tfrt-simplify-graph, whose
    folded weights can be subnormal too.

    Before: `graph.constant dense<[1.0e-40, 5.0e-01]> : tensor<2xf32>`.
    After: `graph.constant dense<[0.0, 5.0e-01]> : tensor<2xf32>`.
  }];
  let dependentDialects = ["::tfrt::graph::GraphDialect"];
  let statistics = [
    Statistic<"numFlushed", "num-flushed", "Subnormal elements set to zero">,
    Statistic<"numConstants", "num-constants", "Constants that held any">,
  ];
}

def HoistShrinkingOps : Pass<"tfrt-hoist-shrinking-ops", "mlir::func::FuncOp"> {
  let summary = "Run ops that shrink a large tensor right after its producer";
  let description = [{
    Moves a pure top-level op up to right after the last op that defines
    one of its computed operands, together with the constants it reads
    that are defined after that op, when an operand from that op has
    `min-bytes` or more, the moved op's result at most half as many, and
    other computed ops lie between the two. The op then reads that operand
    while it is still in the cache instead of from memory after the rest
    of the graph has run, and only its smaller result lives longer.
    Feature pyramids read each backbone stage's output twice: the
    backbone's next op at once, and the neck's 1x1 conv long after
    (PP-OCRv4 det: 48 -> 12 channels on a 160x160 map, 4.9 MB in, 1.2 MB
    out). Later phases keep the new order: the lowering follows program
    order, and tfrt-async-schedule, where it sorts by data-flow level,
    finds the moved op one level after its producer.

    Before:
    ```mlir
    %a = graph.conv %x, ...      // 1x48x160x160
    %b = graph.conv %a, ...      // the backbone goes on from %a
    ...                          // the rest of the backbone
    %n = graph.conv %a, %w, %c   // 1x12x160x160: the neck
    ```
    After: `%n` right after `%a`.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"131072",
           "Operands smaller than this stay in cache anyway: their users stay">,
  ];
  let statistics = [
    Statistic<"numHoisted", "num-hoisted", "Ops moved up to their producer">,
  ];
}

def CheckIndices : Pass<"tfrt-check-indices", "mlir::func::FuncOp"> {
  let summary = "Check the indices of gathers and scatters: constants now, the others at run time";
  let description = [{
    ONNX makes an index outside [-d, d) (d the size of the dimension it
    addresses) an error. The lowering clamps every index into range, so
    that nothing is ever read or written out of bounds; this pass makes the
    error visible. For each `graph.gather`, `graph.gather_elements`,
    `graph.gather_nd`, `graph.scatter_elements` and `graph.scatter_nd`:

    * constant indices (after shape specialisation and folding) are checked
      now, and one out of range is an error naming the node, the element and
      the range;
    * other indices get a reduction over them (a `linalg.generic` ANDing
      `-d <= x < d` into a 0-d `i1`, per component for the ND ops) and a
      `cf.assert` with the message the run will report. `tfrt-lower-checks`
      turns the assert into a call of `tfrt_run_report_error`: the run goes
      on with the clamped indices and `NAME_run` returns
      TFRT_INVALID_ARGUMENT with that message.

    Ops marked `graph.speculative` are checked only when their branch is
    taken: the ONNX importer marks the ops of an If's two branches when the
    condition is a run-time value, because it computes both and selects the
    results with a `graph.where` on the 0-d condition, so that a branch not
    taken may index out of range without an error. Following the op's uses
    through other speculative ops to those selects gives the conditions
    under which its result matters (the then operand under the condition,
    the else operand under its negation, nested Ifs as conjunctions, several
    uses as a disjunction); the assert is `ok or not (that guard)`, placed
    after the last condition it reads. Constant indices out of range there
    are no compile-time error but such a run-time check. An op whose result
    is never selected gets no check; one whose guard would take more than 8
    conjunctions keeps the clamping only.

    The pipeline runs it for CPU targets, before `tfrt-lower-graph-to-linalg`
    (CUDA targets keep the clamping only: their reduction would run on the
    device, out of reach of the host's assert).

    Before:
    ```mlir
    %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
    ```
    After:
    ```mlir
    %ok = linalg.generic {... iterator_types = ["reduction"]} ins(%i : tensor<2xi64>) outs(%true : tensor<i1>) {
      ... -3 <= x && x < 3 ...
    } -> tensor<i1>
    %b = tensor.extract %ok[] : tensor<i1>
    cf.assert %b, "node 'g' (Gather): an index is outside [-3, 3)"
    %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numChecks", "run-time-checks",
              "gathers and scatters whose indices are checked at run time">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // TFRT_PASSES_GRAPH_PASSES
