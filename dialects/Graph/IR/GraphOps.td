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

def Graph_ReluOp : Graph_UnaryOp<"relu", "max(x, 0)"> {
  // Exact ops fold constants (trip counts computed from Range's operands).
  let hasFolder = 1;
}
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "the hyperbolic tangent">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "the exponential">;
def Graph_LogOp : Graph_UnaryOp<"log", "the natural logarithm">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "the square root">;
def Graph_NegOp : Graph_UnaryOp<"neg", "negation"> {
  // Folds constants: shape arithmetic such as ONNX's expanded
  // LayerNormalization negates a constant axis.
  let hasFolder = 1;
}
def Graph_AbsOp : Graph_UnaryOp<"abs", "the absolute value"> {
  let hasFolder = 1;
}
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))">;
def Graph_IdentityOp : Graph_UnaryOp<"identity", "the identity"> {
  let hasFolder = 1;
}

// Binary elementwise ops without folders (same element type on both sides).
class Graph_ElementwiseOp<string mnemonic, string what, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let summary = what # " with numpy broadcasting";
  let description = [{
    Computes }] # what # [{ elementwise; operand shapes broadcast
    numpy-style and both operands have the same element type. Comparisons
    return `i1`; the others the operands' type.

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
}

def Graph_MaxOp : Graph_ElementwiseOp<"max", "the maximum (ONNX Max, pairwise)", [Commutative]>;
def Graph_MinOp : Graph_ElementwiseOp<"min", "the minimum (ONNX Min, pairwise)", [Commutative]>;
def Graph_AndOp : Graph_ElementwiseOp<"and", "logical and of i1", [Commutative]>;
def Graph_OrOp : Graph_ElementwiseOp<"or", "logical or of i1", [Commutative]>;
def Graph_XorOp : Graph_ElementwiseOp<"xor", "logical xor of i1", [Commutative]>;
def Graph_PReluOp : Graph_ElementwiseOp<"prelu", "x < 0 ? slope * x : x (ONNX PRelu; lhs is x, rhs the slope)">;
def Graph_EqualOp : Graph_ElementwiseOp<"equal", "lhs == rhs", [Commutative]>;
def Graph_LessOp : Graph_ElementwiseOp<"less", "lhs < rhs">;
def Graph_LessOrEqualOp : Graph_ElementwiseOp<"less_or_equal", "lhs <= rhs">;
def Graph_GreaterOp : Graph_ElementwiseOp<"greater", "lhs > rhs">;
def Graph_GreaterOrEqualOp : Graph_ElementwiseOp<"greater_or_equal", "lhs >= rhs">;

def Graph_ModOp : Graph_Op<"mod"> {
  let summary = "remainder with numpy broadcasting";
  let description = [{
    ONNX Mod: with `fmod` the result has the sign of the dividend (C fmod),
    otherwise of the divisor (Python %). Integer division by zero yields 0.

    Example:
    ```mlir
    %0 = graph.mod %a, %b {fmod = false} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs, BoolAttr:$fmod);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_BitShiftOp : Graph_Op<"bit_shift"> {
  let summary = "logical shift of unsigned integers";
  let description = [{
    ONNX BitShift: `lhs << rhs` (`left`) or `lhs >> rhs`, broadcasting.

    Example:
    ```mlir
    %0 = graph.bit_shift %a, %b {left = true} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs, BoolAttr:$left);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_WhereOp : Graph_Op<"where"> {
  let summary = "condition ? x : y with numpy broadcasting";
  let description = [{
    ONNX Where: the three operands broadcast together.

    Example:
    ```mlir
    %0 = graph.where %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$condition, Graph_Tensor:$x, Graph_Tensor:$y);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$condition `,` $x `,` $y attr-dict `:` functional-type(operands, results)";
}

def Graph_FloorOp : Graph_UnaryOp<"floor", "floor"> {
  let hasFolder = 1;
}
def Graph_CeilOp : Graph_UnaryOp<"ceil", "ceil"> {
  let hasFolder = 1;
}
def Graph_RoundOp : Graph_UnaryOp<"round", "rounding half to even">;
def Graph_SignOp : Graph_UnaryOp<"sign", "the sign (-1, 0, 1)">;
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "1 / x">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "the error function">;
def Graph_SinOp : Graph_UnaryOp<"sin", "the sine">;
def Graph_CosOp : Graph_UnaryOp<"cos", "the cosine">;
def Graph_TanOp : Graph_UnaryOp<"tan", "the tangent">;
def Graph_AsinOp : Graph_UnaryOp<"asin", "the arcsine">;
def Graph_AcosOp : Graph_UnaryOp<"acos", "the arccosine">;
def Graph_AtanOp : Graph_UnaryOp<"atan", "the arctangent">;
def Graph_SinhOp : Graph_UnaryOp<"sinh", "the hyperbolic sine">;
def Graph_CoshOp : Graph_UnaryOp<"cosh", "the hyperbolic cosine">;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", "the inverse hyperbolic sine">;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", "the inverse hyperbolic cosine">;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", "the inverse hyperbolic tangent">;
def Graph_SoftplusOp : Graph_UnaryOp<"softplus", "log(1 + exp(x))">;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", "x / (1 + |x|)">;
def Graph_NotOp : Graph_UnaryOp<"not", "logical not (i1)">;
def Graph_IsNaNOp : Graph_UnaryOp<"is_nan", "x != x (result i1)">;

def Graph_IsInfOp : Graph_Op<"is_inf"> {
  let summary = "whether an element is infinite (result i1)";
  let description = [{
    ONNX IsInf: +inf counts when `detect_positive`, -inf when
    `detect_negative`.

    Example:
    ```mlir
    %0 = graph.is_inf %x {detect_negative = true, detect_positive = true} : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, BoolAttr:$detect_negative,
                   BoolAttr:$detect_positive);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

// Elementwise activations with float parameters `alpha` and `beta`.
class Graph_ActivationOp<string mnemonic, string what>
    : Graph_Op<mnemonic> {
  let summary = what;
  let description = [{
    ONNX activation: }] # what # [{. Parameters the op does not use are 0.

    Example:
    ```mlir
    %0 = graph.}] # mnemonic # [{ %x {alpha = 0.1 : f32, beta = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, F32Attr:$alpha, F32Attr:$beta);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_LeakyReluOp : Graph_ActivationOp<"leaky_relu", "x < 0 ? alpha * x : x">;
def Graph_EluOp : Graph_ActivationOp<"elu", "x < 0 ? alpha * (exp(x) - 1) : x">;
def Graph_SeluOp : Graph_ActivationOp<"selu", "beta * (x <= 0 ? alpha * (exp(x) - 1) : x) (beta is ONNX gamma)">;
def Graph_CeluOp : Graph_ActivationOp<"celu", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))">;
def Graph_ThresholdedReluOp : Graph_ActivationOp<"thresholded_relu", "x > alpha ? x : 0">;
def Graph_ShrinkOp : Graph_ActivationOp<"shrink", "x < -alpha ? x + beta : x > alpha ? x - beta : 0 (alpha is ONNX lambd, beta bias)">;

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

def Graph_LogSoftmaxOp : Graph_Op<"log_softmax"> {
  let summary = "log of softmax along one axis";
  let description = [{
    ONNX LogSoftmax (opset 13 semantics; older forms are rewritten by the
    importer like softmax).

    Example:
    ```mlir
    %0 = graph.log_softmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_HardmaxOp : Graph_Op<"hardmax"> {
  let summary = "one-hot of the first maximum along one axis";
  let description = [{
    ONNX Hardmax (opset 13 semantics).

    Example:
    ```mlir
    %0 = graph.hardmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

class Graph_ReduceOp<string mnemonic, string what> : Graph_Op<mnemonic> {
  let summary = what # " over `axes`";
  let description = [{
    ONNX Reduce op: reduces the listed (non-negative, distinct) `axes`;
    `keepdims` keeps them as dimensions of size 1. The importer resolves
    axes given as attributes or inputs and `noop_with_empty_axes`; an empty
    list here reduces nothing.

    Example:
    ```mlir
    %0 = graph.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes,
                   BoolAttr:$keepdims);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "maximum">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "minimum">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "product">;
def Graph_ReduceL1Op : Graph_ReduceOp<"reduce_l1", "sum of absolute values">;
def Graph_ReduceL2Op : Graph_ReduceOp<"reduce_l2", "square root of the sum of squares">;
def Graph_ReduceLogSumOp : Graph_ReduceOp<"reduce_log_sum", "log of the sum">;
def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"reduce_log_sum_exp", "log of the sum of exponentials">;
def Graph_ReduceSumSquareOp : Graph_ReduceOp<"reduce_sum_square", "sum of squares">;

class Graph_ArgOp<string mnemonic, string what> : Graph_Op<mnemonic> {
  let summary = "index of the " # what # " along an axis (i64)";
  let description = [{
    ONNX ArgMax/ArgMin: the first index (last with `select_last_index`) of
    the extreme value along `axis`; `keepdims` keeps the axis with size 1.

    Example:
    ```mlir
    %0 = graph.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis,
                   BoolAttr:$keepdims, BoolAttr:$select_last_index);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ArgMaxOp : Graph_ArgOp<"arg_max", "maximum">;
def Graph_ArgMinOp : Graph_ArgOp<"arg_min", "minimum">;

def Graph_ResizeOp : Graph_Op<"resize"> {
  let summary = "N-D resize (nearest, linear, cubic)";
  let description = [{
    ONNX Resize with the scales resolved: `scales` has one factor per
    dimension; the result has `sizes` when present, else floor(in * scale).
    `mode` is nearest, linear or cubic; `coordinate_transformation_mode` is
    half_pixel, pytorch_half_pixel, align_corners, asymmetric,
    tf_half_pixel_for_nn or tf_crop_and_resize (with `roi`: starts then ends,
    normalized); `nearest_mode` is round_prefer_floor, round_prefer_ceil,
    floor or ceil. Opset-10 Resize becomes asymmetric with floor rounding.

    Example:
    ```mlir
    %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>, roi = array<f64>,
                          mode = "nearest", coordinate_transformation_mode = "asymmetric",
                          nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                          exclude_outside = false, extrapolation_value = 0.0 : f32}
        : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseF64ArrayAttr:$scales,
                   OptionalAttr<DenseI64ArrayAttr>:$sizes,
                   DenseF64ArrayAttr:$roi, StrAttr:$mode,
                   StrAttr:$coordinate_transformation_mode,
                   StrAttr:$nearest_mode, F32Attr:$cubic_coeff_a,
                   BoolAttr:$exclude_outside, F32Attr:$extrapolation_value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ConvTransposeOp : Graph_Op<"conv_transpose"> {
  let summary = "N-D grouped transposed convolution in NC[D]HW layout";
  let description = [{
    ONNX ConvTranspose with explicit `strides`, `pads` (begins then ends),
    `dilations`, `output_padding` (added at the end of each spatial
    dimension) and `group`; the importer resolves `output_shape` and
    `auto_pad` into pads and output padding. The weight is [C, M/group, k...];
    output size = stride * (in - 1) + output_padding + (k - 1) * dilation + 1
    - pad_begin - pad_end.

    Example:
    ```mlir
    %0 = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                      dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
                                      group = 1 : i64}
        : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>) -> tensor<1x2x16x16xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                   Optional<Graph_Tensor>:$bias, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$output_padding, Graph_I64Attr:$group);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
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

def Graph_ExpandOp : Graph_Op<"expand"> {
  let summary = "broadcasts to a shape given as a tensor";
  let description = [{
    ONNX Expand: the result shape is the numpy broadcast of the input shape
    and `shape` (a constant 1-D integer tensor once shapes are specialised).

    Example:
    ```mlir
    %0 = graph.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$shape);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Graph_TileOp : Graph_Op<"tile"> {
  let summary = "repeats the input along every dimension";
  let description = [{
    ONNX Tile: `repeats` is a constant 1-D integer tensor with one count per
    dimension.

    Example:
    ```mlir
    %0 = graph.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$repeats);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` functional-type(operands, results)";
}

def Graph_PadOp : Graph_Op<"pad"> {
  let summary = "pads (or crops, with negative pads) every dimension";
  let description = [{
    ONNX Pad with the pads resolved into `pads` (begins then ends, one pair
    per dimension) and `mode` constant, reflect, edge or wrap (periodic, over
    what the negative pads of the dimension leave); `value` is a scalar
    tensor of the input's element type (used by constant mode).

    Example:
    ```mlir
    %0 = graph.pad %x, %v {mode = "constant", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$value,
                   DenseI64ArrayAttr:$pads, StrAttr:$mode);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $value attr-dict `:` functional-type(operands, results)";
}

def Graph_CumSumOp : Graph_Op<"cumsum"> {
  let summary = "cumulative sum along an axis";
  let description = [{
    ONNX CumSum with the axis resolved into an attribute; `exclusive` leaves
    the current element out, `reverse` sums from the end.

    Example:
    ```mlir
    %0 = graph.cumsum %x {axis = 0 : i64, exclusive = false, reverse = false} : (tensor<5xf32>) -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$axis,
                   BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements"> {
  let summary = "gathers single elements along an axis";
  let description = [{
    ONNX GatherElements: the result has the indices' shape;
    out[i][j] = input[index[i][j]][j] for axis 0. Negative indices count from
    the end.

    Example:
    ```mlir
    %0 = graph.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$indices,
                   Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_GatherNDOp : Graph_Op<"gather_nd"> {
  let summary = "gathers slices by index tuples";
  let description = [{
    ONNX GatherND: the last dimension of `indices` holds index tuples into
    the dimensions after the `batch_dims` leading (shared) ones.

    Example:
    ```mlir
    %0 = graph.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$indices,
                   Graph_I64Attr:$batch_dims);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_TriluOp : Graph_Op<"trilu"> {
  let summary = "upper or lower triangle of the last two dimensions";
  let description = [{
    ONNX Trilu: `k` (a one-element integer tensor, possibly computed at run
    time; the importer materializes the default 0) offsets the diagonal.

    Example:
    ```mlir
    %0 = graph.trilu %x, %k {upper = true} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$k, BoolAttr:$upper);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $k attr-dict `:` functional-type(operands, results)";
}

def Graph_OneHotOp : Graph_Op<"one_hot"> {
  let summary = "one-hot encoding";
  let description = [{
    ONNX OneHot with `depth` resolved into an attribute; `values` is
    [off, on]; a new dimension of size `depth` is inserted at `axis`.
    Negative indices count from depth.

    Example:
    ```mlir
    %0 = graph.one_hot %i, %v {axis = -1 : i64, depth = 4 : i64} : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$indices, Graph_Tensor:$values,
                   Graph_I64Attr:$depth, Graph_I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$indices `,` $values attr-dict `:` functional-type(operands, results)";
}

def Graph_BatchNormTrainingOp : Graph_Op<"batch_norm_training"> {
  let summary = "training-mode batch normalization";
  let description = [{
    ONNX BatchNormalization with training_mode = 1: normalizes with the
    batch statistics (mean and biased variance over all dimensions but 1)
    and also returns the updated running statistics
    `mean * momentum + batch_mean * (1 - momentum)` (likewise the variance).

    Example:
    ```mlir
    %y, %rm, %rv = graph.batch_norm_training %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32}
        : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
          -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                   Graph_Tensor:$bias, Graph_Tensor:$mean, Graph_Tensor:$variance,
                   F32Attr:$epsilon, F32Attr:$momentum);
  let results = (outs Graph_Tensor:$result, Graph_Tensor:$running_mean,
                 Graph_Tensor:$running_var);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Graph_MaxPoolWithIndicesOp : Graph_Op<"max_pool_with_indices"> {
  let summary = "max pooling that also returns the flat index of each maximum";
  let description = [{
    ONNX MaxPool with its Indices output: like graph.max_pool, plus the i64
    index of the (first) maximum into the flattened input, row-major
    (`storage_order` = 0) or with the spatial dimensions column-major (1).

    Example:
    ```mlir
    %0, %1 = graph.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                            pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false,
                            storage_order = 0 : i64}
        : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   Graph_I64Attr:$storage_order);
  let results = (outs Graph_Tensor:$result, Graph_Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_TopKOp : Graph_Op<"top_k"> {
  let summary = "the k largest (smallest) elements along an axis and their indices";
  let description = [{
    ONNX TopK with `k` resolved into an attribute. Results are sorted (ties:
    the lower index first); indices are i64.

    Example:
    ```mlir
    %v, %i = graph.top_k %x {axis = -1 : i64, k = 2 : i64, largest = true}
        : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_I64Attr:$k, Graph_I64Attr:$axis,
                   BoolAttr:$largest);
  let results = (outs Graph_Tensor:$values, Graph_Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ScatterElementsOp : Graph_Op<"scatter_elements"> {
  let summary = "writes updates at per-element indices along an axis";
  let description = [{
    ONNX ScatterElements: a copy of `input` where
    out[..., indices[u], ...] (axis position) = updates[u]; `reduction` is
    none (the last duplicate wins), add, mul, max or min.

    Example:
    ```mlir
    %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"}
        : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$indices,
                   Graph_Tensor:$updates, Graph_I64Attr:$axis, StrAttr:$reduction);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
}

def Graph_ScatterNDOp : Graph_Op<"scatter_nd"> {
  let summary = "writes update slices at index tuples";
  let description = [{
    ONNX ScatterND: a copy of `input` with the slices addressed by the index
    tuples in the last dimension of `indices` replaced (none), added to (add),
    multiplied by (mul) or combined by maximum (max) or minimum (min) with
    `updates`, whose shape is indices.shape[:-1] + input.shape[len:] for
    tuples of length len.

    Example:
    ```mlir
    %0 = graph.scatter_nd %x, %i, %u {reduction = "none"}
        : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IntTensor:$indices,
                   Graph_Tensor:$updates, StrAttr:$reduction);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
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
