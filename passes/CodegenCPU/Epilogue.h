//===- Epilogue.h - elementwise consumers applied to register tiles -------===//
//
// The elementwise consumer of a [M, N] product (a matmul, or a 1x1 conv
// seen as one through the collapse of its [1, M, H, W] output) applied to
// each register tile of accumulators before the tile is stored: the
// consumer's body runs on the vectors, its other inputs are read as
// vectors at the tile's position, and the tile goes straight into the
// consumer's destination. Used by tfrt-vectorize-matmul.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_EPILOGUE_H
#define TFRT_PASSES_CODEGENCPU_EPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace tfrt {

struct Epilogue {
  /// How the tile's (row, column) of the product address the consumer's
  /// operands.
  enum class Indexing {
    /// The consumer works on [M, N] (or on [1, M, H, W] viewed as [M, H*W]
    /// through collapses of its operands, which must then be contiguous).
    Rows,
    /// [1, M, H, W] addressed as (0, row, col / W, col % W): every register
    /// tile lies within one output row (W is a multiple of its width).
    Image,
    /// As Image, but W is not a multiple of the tile's width and the
    /// destination's rows are not contiguous (the interior of a padded
    /// tensor): a tile that passes the end of its row is written in row
    /// pieces, one `scf.index_switch` case per such start column. The
    /// consumer then has no inputs of its own shape.
    ImageSplit,
    /// The product is itself [N, C, ...] (a depthwise convolution's
    /// [N, C, H, W], a ConvTranspose's [N, M, IH, KH, IW, KW]) and a tile
    /// is a vector along the last dimension of the operands (or of views
    /// of them) at the given indices (applyEpilogueDirect); per-row inputs
    /// are per channel (dimension 1).
    Direct,
  };
  /// How one input of the consumer is read for a tile. Upsampled: a
  /// [1, M, H / f, W / g] tensor read through (0, m, h floordiv f,
  /// w floordiv g), a nearest-neighbour upsampling that elementwise fusion
  /// moved into the consumer (Image indexing only).
  enum class Input { Product, Scalar, PerRow, Whole, Upsampled };

  mlir::linalg::GenericOp generic;
  /// The expand of the product into the consumer's [1, M, H, W] shape.
  mlir::tensor::ExpandShapeOp expand;
  Indexing indexing = Indexing::Rows;
  int64_t width = 0;
  llvm::SmallVector<Input> inputs;
  /// Per input: the factors (f, g) of an Upsampled one, else (1, 1).
  llvm::SmallVector<std::pair<int64_t, int64_t>> upsample;
  /// The consumer writes [1, H, M, W] through (d0, d2, d1, d3) (the rows-
  /// outer input of a following windowed convolution, tfrt-pad-in-place):
  /// Image indexing, each tile written at (0, h, row, w).
  bool transposedDest = false;
};

/// Whether a consumer iterating over a [1, M, H, W] product writes its
/// result, of `resultShape`, as the [1, H, M, W] rows-outer input of a
/// following windowed conv through `initMap` = (d0, d2, d1, d3).
inline bool writesRowsOuter(mlir::AffineMap initMap,
                            llvm::ArrayRef<int64_t> resultShape,
                            llvm::ArrayRef<int64_t> productShape) {
  return productShape.size() == 4 && resultShape.size() == 4 &&
         initMap ==
             mlir::AffineMap::getPermutationMap(
                 llvm::ArrayRef<unsigned>{0, 2, 1, 3}, initMap.getContext()) &&
         resultShape[0] == productShape[0] &&
         resultShape[1] == productShape[2] &&
         resultShape[2] == productShape[1] && resultShape[3] == productShape[3];
}

/// The consumer of `product` (the [M, N] result of a matmul, or the
/// [N, C, H, W] one of a depthwise convolution) that applyEpilogue (or
/// applyEpilogueDirect) can apply to register tiles of `tileColumns`
/// columns: the
/// only user of the product (or of its expand into [1, M, H, W]), in the
/// same block, an all-parallel `linalg.generic` with identity maps on the
/// product and on its init (or, for [1, M, H, W], the map (d0, d2, d1, d3)
/// onto a [1, H, M, W] init with Image indexing), that does not read its
/// init, whose body is
/// elementwise arith/math on f32 (and i1), and whose other inputs are f32
/// scalars (all-constant maps), per-row values (a map that yields the row
/// dimension, the channels of a 4-D consumer, and otherwise zeros or the
/// unit batch dimension), tensors of the consumer's shape read through
/// the identity, or (Image indexing, `tileColumns` a multiple of g)
/// nearest-neighbour upsamplings (Input::Upsampled).
std::optional<Epilogue> matchEpilogue(mlir::Value product, int64_t tileColumns);

/// The values a tile's epilogue reads and writes, prepared once at the
/// builder's insertion point (before the tile loops): the consumer's inputs
/// (collapsed where the indexing needs it) and the destination of the
/// tiles.
struct EpilogueOperands {
  llvm::SmallVector<mlir::Value> inputs;
  mlir::Value dest;
};
EpilogueOperands prepareEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                                 const Epilogue &e);

/// Applies the consumer to the accumulator tile `acc` (rows `row`..,
/// columns `col`.. of the product) and writes the result into `dest` (the
/// tile loops' iteration value of EpilogueOperands::dest); returns the
/// updated destination.
mlir::Value applyEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                          const Epilogue &e, const EpilogueOperands &operands,
                          mlir::Value acc, mlir::Value dest, mlir::Value row,
                          mlir::Value col);

/// Applies the consumer (Indexing::Direct) to the 1-D accumulator vector
/// `acc` at `at` = (n, c, h, w) of the [N, C, H, W] product, the vector
/// running along w, and writes it into `dest`; returns the updated
/// destination.
mlir::Value applyEpilogueDirect(mlir::OpBuilder &b, mlir::Location loc,
                                const Epilogue &e,
                                const EpilogueOperands &operands,
                                mlir::Value acc, mlir::Value dest,
                                mlir::ValueRange at);

/// Whether the consumer's destination and its inputs of its own shape keep
/// their dimensions from `from` on contiguous (so that a collapse of them
/// is a view of the buffer, not a copy).
bool epilogueViewsContiguous(const Epilogue &e, unsigned from);

/// Replaces the consumer by `result` (the tile loops' final destination)
/// and erases the product's expand and `producer`, the op that computed the
/// product. With `remarks`, first reports on `producer` that the consumer's
/// nodes (the names in its location) run on `kernel`'s register tiles (a
/// fusion report, tfrt-compile --fusion-report).
void finishEpilogue(mlir::RewriterBase &rewriter, const Epilogue &e,
                    mlir::Value result, mlir::Operation *producer,
                    llvm::StringRef kernel, bool remarks);

/// Whether `g`'s body can run on vectors (runBody): it does not read its
/// one init, its ops are elementwise arith/math ops on scalars or scalar
/// constants, values from outside it are scalars, and it yields one f32.
bool vectorizableBody(mlir::linalg::GenericOp g);

/// Runs `g`'s body (vectorizableBody) on vectors of `type`: `inputs` are
/// the vectors of its inputs (in order); scalars from outside the body
/// become splats, a division by a constant a product with its reciprocal,
/// and products and sums may contract into FMAs.
mlir::Value runBody(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::linalg::GenericOp g,
                    llvm::ArrayRef<mlir::Value> inputs, mlir::VectorType type);

/// The elementwise consumer that a kernel can apply to its results before
/// it writes them: the only user of the op's value `result`, an
/// all-parallel linalg.generic reading just it through an identity map into
/// an init of the same type it does not read, whose body is a chain of unary
/// float arithmetic on it and scalar constants (det's ReLU after its last
/// 3x3 conv). Null otherwise. Used by tfrt-seed-conv-tiles (the last
/// input-channel block's tiles) and tfrt-winograd-conv (the output
/// transform).
mlir::linalg::GenericOp unaryEpilogue(mlir::Value result);
/// `g`'s body (matched by unaryEpilogue) on the vector `acc`: its ops on
/// vectors, scalar constants broadcast.
mlir::Value applyUnaryEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::linalg::GenericOp g, mlir::Value acc);
} // namespace tfrt

#endif // TFRT_PASSES_CODEGENCPU_EPILOGUE_H
