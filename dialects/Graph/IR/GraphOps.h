//===- GraphOps.h - the tfrt graph dialect ----------------------*- C++ -*-===//
//
// Declares the graph dialect and its ops (generated from GraphOps.td) and the
// shape helpers the importers and passes share.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_DIALECTS_GRAPH_IR_GRAPHOPS_H
#define TFRT_DIALECTS_GRAPH_IR_GRAPHOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>

#include "dialects/Graph/IR/GraphOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.h.inc"

namespace tfrt::graph {

/// Broadcasts two shapes numpy-style. Dynamic dims stay dynamic where the
/// result cannot be known. Fails (without a diagnostic) on a mismatch.
llvm::LogicalResult broadcastShapes(llvm::ArrayRef<int64_t> a,
                                    llvm::ArrayRef<int64_t> b,
                                    llvm::SmallVectorImpl<int64_t> &result);

/// Whether `actual` refines `inferred`: same element type and compatible
/// (ranked/unranked, static/dynamic) shapes.
bool isCompatibleTensorTypes(mlir::TypeRange inferred,
                             mlir::TypeRange actual);

/// Reads a constant integer tensor (any integer element type) into `values`.
llvm::LogicalResult getConstantInts(mlir::Value value,
                                    llvm::SmallVectorImpl<int64_t> &values);

/// Output size of one spatial dimension of a conv/pool window.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t dilation, int64_t padBegin, int64_t padEnd,
                         bool ceilMode);

/// What the negative pads (crops) `begin` and `end` of a pad leave of a
/// dimension of size `dim`: the period of a wrap pad.
inline int64_t padKeptSize(int64_t dim, int64_t begin, int64_t end) {
  return dim - std::max<int64_t>(0, -begin) - std::max<int64_t>(0, -end);
}

/// Resolved parameters of a static slice: per input dimension a start, step
/// and result size. Shared by inference, folding and lowering.
struct SliceParams {
  llvm::SmallVector<int64_t> start, step, size;
};

/// Resolves ONNX Slice operands (which must be constants) against `shape`,
/// clamping like ONNX. Fails (with a diagnostic when `loc` is set) on bad
/// parameters or when an operand is not constant.
mlir::FailureOr<SliceParams>
computeSliceParams(llvm::ArrayRef<int64_t> shape, mlir::Value starts,
                   mlir::Value ends, mlir::Value axes, mlir::Value steps,
                   std::optional<mlir::Location> loc);

/// The [begin, end) dimension range that ONNX Shape with optional
/// `start`/`end` selects from a tensor of `rank` (negative values count from
/// the end, then both are clamped to [0, rank]).
std::pair<int64_t, int64_t> shapeOpRange(int64_t rank,
                                         std::optional<int64_t> start,
                                         std::optional<int64_t> end);

/// Re-infers the result types of `op` from its operands and folds it when
/// possible. Used by the importers and by tfrt-specialize-shapes. Emits a
/// diagnostic and fails when inference finds an inconsistency.
llvm::LogicalResult refineResultTypes(mlir::Operation *op);

/// Creates the graph op `opName` with `operands` and `attributes`, its
/// result types inferred (a diagnostic at `loc` and null on inconsistent
/// shapes), and folds it right away when its operands are constants. Returns
/// the values that replace the op's results (constants when it folded).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
createInferred(mlir::OpBuilder &builder, mlir::Location loc,
               llvm::StringRef opName, mlir::ValueRange operands,
               llvm::ArrayRef<mlir::NamedAttribute> attributes);

/// Replaces `op` by its folded results when it folds; fails otherwise.
llvm::LogicalResult foldInPlace(mlir::Operation *op, mlir::OpBuilder &builder);

} // namespace tfrt::graph

#endif // TFRT_DIALECTS_GRAPH_IR_GRAPHOPS_H
