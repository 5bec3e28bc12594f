//===- Passes.h - dialect conversions ---------------------------*- C++ -*-===//
//
// Declarations of the conversion passes (generated from Passes.td) and the
// pattern population entry points they use.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CONVERSION_PASSES_H
#define TFRT_PASSES_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tfrt {

#define GEN_PASS_DECL
#include "passes/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Conversion/Passes.h.inc"

/// Adds the graph -> linalg/tensor/arith/math conversion patterns; with
/// `scatterLoops`, scatters become `scf.for` nests over their updates
/// (linear in them) instead of reductions over output x updates.
void populateGraphToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                   bool scatterLoops = false);

/// Adds the depthwise graph.conv -> linalg.depthwise_conv_2d_nchw_chw pattern
/// (benefit 2, ahead of the general conv lowering; part of the above).
void populateDepthwiseConvPatterns(mlir::RewritePatternSet &patterns);

/// Adds the graph.matmul (N-D x 2-D, f32) -> linalg.matmul over collapsed
/// rows pattern (benefit 2, ahead of the general matmul lowering).
void populateMatMulRowsPatterns(mlir::RewritePatternSet &patterns);

/// Adds the kernel == stride graph.conv_transpose -> block contraction
/// pattern (benefit 2, ahead of the general conv_transpose lowering).
void populateConvTransposeBlocksPatterns(mlir::RewritePatternSet &patterns);

} // namespace tfrt

#endif // TFRT_PASSES_CONVERSION_PASSES_H
