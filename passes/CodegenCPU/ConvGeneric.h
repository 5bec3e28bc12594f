//===- ConvGeneric.h - the dense conv generic of the graph lowering -------===//
//
// Matching of the 2-D dense NCHW convolution `linalg.generic` that
// tfrt-lower-graph-to-linalg emits, shared by tfrt-split-conv-phases and
// tfrt-vectorize-conv, and of its non-overlapping ConvTranspose generic
// (tfrt-vectorize-conv-transpose, tfrt-fuse-conv-transpose-pairs,
// tfrt-async-tile-loops).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_CONVGENERIC_H
#define TFRT_PASSES_CODEGENCPU_CONVGENERIC_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace tfrt::conv {

/// The loops of the conv generic: (n, m, oh, ow, c, kh, kw).
enum ConvLoop : unsigned { kN, kM, kOH, kOW, kC, kKH, kKW, kNumLoops };

/// Register tile candidates of tfrt-vectorize-conv, best first: output
/// channels (broadcast weights) and output columns (vectors of 16 lanes; 8
/// columns, half vectors, still beat the loop lowering on det's 40-wide
/// maps), and input channels per step (the contraction's reduction size).
inline constexpr int64_t kRegMs[] = {8, 6, 4};
inline constexpr int64_t kRegNs[] = {32, 16, 8};
inline constexpr int64_t kRegCs[] = {4, 2, 1};
/// Input channels per step on the rows-outer input, where the channel loop
/// is innermost (one kernel tap per channel sweep).
inline constexpr int64_t kRowsOuterRegCs[] = {8, 4, 2, 1};

/// The first of `candidates` that divides `n`, or 0.
inline int64_t firstDivisor(int64_t n, llvm::ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (n % c == 0)
      return c;
  return 0;
}

/// Whether `expr` (over `numDims` dims) becomes `expect` when every dim in
/// `zeroed` is replaced by 0.
bool reducesTo(mlir::AffineExpr expr, llvm::ArrayRef<unsigned> zeroed,
               mlir::AffineExpr expect, unsigned numDims);

/// Whether the body of `op` (two inputs, one init) is `out + in0 * in1`, in
/// either operand order.
bool isMulAddBody(mlir::linalg::GenericOp op);

/// Matches the dense 2-D NCHW conv generic:
///   in  (n, c, oh * sh + kh * dh, ow * sw + kw * dw)
///   w   (m, c, kh, kw)
///   out (n, m, oh, ow)
/// on f32 tensors of static shape, body `out + in * w`, with any row stride
/// and dilation and either sw = 1 (any dw) or sw = 2 and dw = 1. Returns sw.
/// The input may also be in the rows-outer layout [N, H, C, W] of
/// tfrt-split-conv-phases, read at (n, oh * sh + kh * dh, c, ...); then
/// `rowsOuter` (if given) is set.
std::optional<int64_t> convColumnStride(mlir::linalg::GenericOp op,
                                        bool *rowsOuter = nullptr);

/// Matches the graph lowering's generic of a 2-D ConvTranspose whose
/// kernel equals its stride (every output pixel takes one tap):
///   in  (n, c, ih, iw), w (c, m, kh, kw), out (n, m, ih, kh, iw, kw)
/// over loops (n, m, ih, kh, c, iw, kw), on static f32 tensors with body
/// `out + in * w`.
bool isConvTransposeGeneric(mlir::linalg::GenericOp op);

/// When the only user of ConvTranspose `op`'s 6-D result [N, M, IH, KH, IW,
/// KW] is a collapse into [N, M, IH * KH, IW * KW] whose only user (in the
/// same block) is an all-parallel generic reading it through the identity
/// and its other inputs through maps of the leading two dims and constants,
/// or the identity, rebuilds that generic on the 6-D shape: its init and
/// identity-read inputs are expanded, the collapse follows it. Returns the
/// rebuilt generic, and sets `replaced` (if given) to the erased one; null,
/// changing nothing, when the consumer does not match.
mlir::linalg::GenericOp
expandConvTransposeConsumer(mlir::RewriterBase &rewriter,
                            mlir::linalg::GenericOp op,
                            mlir::Operation **replaced = nullptr);

/// A zero `tensor.pad` of the spatial dims (H, W) of an NCHW tensor with
/// static amounts: its unpadded source and the rows and columns added
/// before it.
struct SpatialPad {
  mlir::tensor::PadOp pad;
  int64_t lowH = 0, lowW = 0;
};

/// Matches `x` defined by such a padding.
std::optional<SpatialPad> matchZeroSpatialPad(mlir::Value x);

/// Input channels up to which a stride-2 3x3 conv is an image stem (see
/// matchStemConv).
inline constexpr int64_t kMaxStemChannels = 4;

/// Where an image stem reads its input: the unpadded source [1, C, H, W] of
/// the zero padding, the rows and columns the padding adds before it, and
/// the padded row of the op's first input row (0 unless the op is a chunk of
/// tfrt-async-tile-loops, which reads a row slice of the padded tensor).
struct StemInput {
  mlir::Value source;
  int64_t lowH = 0;
  mlir::OpFoldResult rowOffset;
};

/// Matches an image stem: the dense conv generic (NCHW, batch 1) with a 3x3
/// window, stride 2 along rows and columns, dilation 1, at most
/// kMaxStemChannels input channels, output channels a multiple of 8 and
/// output columns a multiple of 32, whose input is a zero `tensor.pad` of
/// the spatial dims adding one column on the left (or a slice of its rows
/// at unit strides). tfrt-vectorize-conv computes it directly from the
/// unpadded input, and tfrt-split-conv-phases leaves it alone.
std::optional<StemInput> matchStemConv(mlir::linalg::GenericOp op);

} // namespace tfrt::conv

#endif // TFRT_PASSES_CODEGENCPU_CONVGENERIC_H
