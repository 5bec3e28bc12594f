//===- GraphOps.td - the tfrt graph dialect -----------------*- tablegen -*-===//
//
// The graph dialect holds imported models: tensor values, one op per model
// operator with ONNX-compatible semantics (the opset-17 form of each op; the
// importers convert older forms on the way in), numpy broadcasting, and static
// shape inference through InferTypeOpInterface. Locations carry the model's
// node names. Everything later in the pipeline starts from this form.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_GRAPH_OPS
#define TFRT_GRAPH_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::tfrt::graph";
  let summary = "Imported model graphs with ONNX-compatible tensor semantics";
  let description = [{
    Ops of this dialect take and return ranked or unranked tensors. Result
    types are inferred from operand types and attributes (and from constant
    operands where ONNX passes shapes as tensors, e.g. `graph.reshape`), so a
    graph whose inputs have static shapes becomes fully static after
    `tfrt-specialize-shapes`. Attributes are stored in the attribute
    dictionary (not properties) so that importers can infer types before
    creating an op.
  }];
  let hasConstantMaterializer = 1;
  let usePropertiesForAttributes = 0;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic,
         !listconcat(traits, [Pure, InferTypeOpAdaptorWithIsCompatible])>;

// A signless 64-bit integer attribute read back as a signed value (axes may
// be negative); upstream's I64Attr returns uint64_t.
def Graph_I64Attr : SignlessIntegerAttrBase<I64, "64-bit signless integer attribute"> {
  let returnType = [{ int64_t }];
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

// Tensor of any element type the compiler can hold.
def Graph_Tensor : TensorOf<[AnyType]>;
def Graph_IntTensor : TensorOf<[AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class Graph_BinaryOp<string mnemonic, string onnxName, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let summary = "elementwise " # onnxName # " with numpy broadcasting";
  let description = [{
    Computes `lhs }] # onnxName # [{ rhs` elementwise. Operand shapes are
    broadcast numpy-style (right-aligned; a dimension of 1 stretches). Both
    operands have the same element type.

    Example:
    ```mlir
    %0 = graph.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Graph_AddOp : Graph_BinaryOp<"add", "Add", [Commutative]>;
def Graph_SubOp : Graph_BinaryOp<"sub", "Sub">;
def Graph_MulOp : Graph_BinaryOp<"mul", "Mul", [Commutative]>;
def Graph_DivOp : Graph_BinaryOp<"div", "Div">;
def Graph_PowOp : Graph_BinaryOp<"pow", "Pow"> {
  let description = [{
    Raises `lhs` to the power `rhs` elementwise with numpy broadcasting. The
    result has the element type of `lhs`; `rhs` may have another numeric type.

    Example:
    ```mlir
    %0 = graph.pow %x, %e : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
}

class Graph_UnaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let summary = what;
  let description = [{
    Applies }] # what # [{ to every element; the result has the operand's
    type.

    Example:
    ```mlir
    %0 = graph.}] # mnemonic # [{ %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ReluOp : Graph_UnaryOp<"relu", "max(x, 0)">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "the hyperbolic tangent">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "the exponential">;
def Graph_LogOp : Graph_UnaryOp<"log", "the natural logarithm">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "the square root">;
def Graph_NegOp : Graph_UnaryOp<"neg", "negation">;
def Graph_AbsOp : Graph_UnaryOp<"abs", "the absolute value">;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))">;
def Graph_IdentityOp : Graph_UnaryOp<"identity", "the identity"> {
  let hasFolder = 1;
}

def Graph_HardSigmoidOp : Graph_Op<"hard_sigmoid"> {
  let summary = "max(0, min(1, alpha * x + beta))";
  let description = [{
    ONNX HardSigmoid.

    Example:
    ```mlir
    %0 = graph.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, F32Attr:$alpha, F32Attr:$beta);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ClipOp : Graph_Op<"clip"> {
  let summary = "clamps values into [min, max]";
  let description = [{
    ONNX Clip (opset 11+ form): `min` and `max` are scalar tensors of the
    input's element type. The importer materializes a missing bound as the
    element type's lowest/highest value, so both are always present.

    Example:
    ```mlir
    %0 = graph.clip %x, %lo, %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$min,
                   Graph_Tensor:$max);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $min `,` $max attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_Op<"cast"> {
  let summary = "converts elements to another type";
  let description = [{
    ONNX Cast: converts each element to the element type `to` (float to int
    truncates toward zero; to bool is `x != 0`).

    Example:
    ```mlir
    %0 = graph.cast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, TypeAttr:$to);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"matmul"> {
  let summary = "numpy matmul";
  let description = [{
    ONNX MatMul: 1-D operands are promoted (and the added dimension removed
    from the result), leading batch dimensions broadcast.

    Example:
    ```mlir
    %0 = graph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_GemmOp : Graph_Op<"gemm"> {
  let summary = "alpha * op(A) * op(B) + beta * C";
  let description = [{
    ONNX Gemm on 2-D `a` and `b` (transposed when `trans_a`/`trans_b`), with
    an optional `c` that broadcasts to the [M, N] result.

    Example:
    ```mlir
    %0 = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
        : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$a, Graph_Tensor:$b, Optional<Graph_Tensor>:$c,
                   F32Attr:$alpha, F32Attr:$beta, BoolAttr:$trans_a,
                   BoolAttr:$trans_b);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
}

def Graph_ConvOp : Graph_Op<"conv"> {
  let summary = "N-D grouped convolution in NC[D]HW layout";
  let description = [{
    ONNX Conv with every attribute explicit: `strides`, `dilations` (one per
    spatial dimension), `pads` (begins then ends) and `group`. `auto_pad` and
    a missing `kernel_shape` are resolved by the importer. The weight is
    [M, C/group, k...]; the optional bias is [M].

    Example:
    ```mlir
    %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                   Optional<Graph_Tensor>:$bias, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   Graph_I64Attr:$group);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_BatchNormOp : Graph_Op<"batch_norm"> {
  let summary = "inference-mode batch normalization";
  let description = [{
    ONNX BatchNormalization in inference mode over channel dimension 1:
    `(x - mean) / sqrt(var + epsilon) * scale + bias`.

    Example:
    ```mlir
    %0 = graph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                   Graph_Tensor:$bias, Graph_Tensor:$mean, Graph_Tensor:$variance,
                   F32Attr:$epsilon);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

def Graph_MaxPoolOp : Graph_Op<"max_pool"> {
  let summary = "N-D max pooling in NC[D]HW layout";
  let description = [{
    ONNX MaxPool with explicit `kernel_shape`, `strides`, `pads` (begins then
    ends), `dilations` and `ceil_mode`. Padding never wins the maximum.

    Example:
    ```mlir
    %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                            pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_AveragePoolOp : Graph_Op<"average_pool"> {
  let summary = "N-D average pooling in NC[D]HW layout";
  let description = [{
    ONNX AveragePool with explicit `kernel_shape`, `strides`, `pads`,
    `dilations`, `ceil_mode` and `count_include_pad` (whether padded elements
    count in the divisor).

    Example:
    ```mlir
    %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                                pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>,
                                ceil_mode = false, count_include_pad = false}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   BoolAttr:$count_include_pad);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GlobalAveragePoolOp : Graph_Op<"global_average_pool"> {
  let summary = "mean over all spatial dimensions";
  let description = [{
    ONNX GlobalAveragePool: [N, C, d...] -> [N, C, 1...].

    Example:
    ```mlir
    %0 = graph.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SoftmaxOp : Graph_Op<"softmax"> {
  let summary = "softmax along one axis";
  let description = [{
    ONNX Softmax (opset 13 semantics: normalizes along `axis` only; the
    importer rewrites the older "flatten to 2-D" semantics into reshapes).

    Example:
    ```mlir
    %0 = graph.softmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape"> {
  let summary = "reshape to a shape given as a tensor";
  let description = [{
    ONNX Reshape: `shape` is a 1-D i64 tensor; 0 copies the input dimension
    (unless `allowzero`), -1 is inferred. The result is static only when
    `shape` is a constant (after shape specialisation and folding).

    Example:
    ```mlir
    %s = graph.constant dense<[2, -1]> : tensor<2xi64>
    %0 = graph.reshape %x, %s {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$shape,
                   BoolAttr:$allowzero);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_FlattenOp : Graph_Op<"flatten"> {
  let summary = "flattens to 2-D at an axis";
  let description = [{
    ONNX Flatten: [d0..d(axis-1)] and [d(axis)..] become the two dimensions.

    Example:
    ```mlir
    %0 = graph.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose"> {
  let summary = "permutes dimensions";
  let description = [{
    ONNX Transpose: result dimension i is input dimension `perm[i]`.

    Example:
    ```mlir
    %0 = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ConcatOp : Graph_Op<"concat"> {
  let summary = "concatenates along an axis";
  let description = [{
    ONNX Concat: all inputs have the same rank and element type and agree on
    every dimension but `axis`.

    Example:
    ```mlir
    %0 = graph.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_Op<"slice"> {
  let summary = "strided slice with starts/ends/axes/steps tensors";
  let description = [{
    ONNX Slice (opset 10+ form; the importer turns opset-1 attributes into
    constants and materializes default `axes` (0, 1, ...) and `steps` (1s),
    so all five operands are always present). Out-of-range starts/ends are
    clamped; negative steps walk backwards.

    Example:
    ```mlir
    %0 = graph.slice %x, %starts, %ends, %axes, %steps
        : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$starts,
                   Graph_IntTensor:$ends, Graph_IntTensor:$axes,
                   Graph_IntTensor:$steps);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $starts `,` $ends `,` $axes `,` $steps attr-dict
    `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Graph_SqueezeOp : Graph_Op<"squeeze"> {
  let summary = "removes unit dimensions";
  let description = [{
    ONNX Squeeze (opset 13 form, axes as an optional constant tensor; without
    axes every unit dimension is removed).

    Example:
    ```mlir
    %0 = graph.squeeze %x, %axes : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_IntTensor>:$axes);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input (`,` $axes^)? attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_UnsqueezeOp : Graph_Op<"unsqueeze"> {
  let summary = "inserts unit dimensions";
  let description = [{
    ONNX Unsqueeze (opset 13 form): `axes` (a constant tensor) name positions
    in the result.

    Example:
    ```mlir
    %0 = graph.unsqueeze %x, %axes : (tensor<3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$axes);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $axes attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_ShapeOp : Graph_Op<"shape"> {
  let summary = "the input's shape as a 1-D i64 tensor";
  let description = [{
    ONNX Shape with optional `start`/`end` (opset 15). Folds to a constant
    when the input shape is static.

    Example:
    ```mlir
    %0 = graph.shape %x : (tensor<1x3x48x192xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<Graph_I64Attr>:$start,
                   OptionalAttr<Graph_I64Attr>:$end);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_GatherOp : Graph_Op<"gather"> {
  let summary = "gathers slices along an axis";
  let description = [{
    ONNX Gather: result shape is data.shape[:axis] + indices.shape +
    data.shape[axis+1:]; negative indices count from the end.

    Example:
    ```mlir
    %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$indices, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike]> {
  let summary = "a constant tensor (weights, shapes)";
  let description = [{
    Holds a dense (or dense resource) elements attribute.

    Example:
    ```mlir
    %0 = graph.constant dense<[1, 3]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // TFRT_GRAPH_OPS
