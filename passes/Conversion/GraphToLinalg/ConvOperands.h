//===- ConvOperands.h - operand checks of the 2-D conv lowerings ----------===//
//
// Shared by the DepthwiseConv and ConvTransposeBlocks patterns of
// tfrt-lower-graph-to-linalg.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CONVERSION_GRAPHTOLINALG_CONVOPERANDS_H
#define TFRT_PASSES_CONVERSION_GRAPHTOLINALG_CONVOPERANDS_H

#include "mlir/IR/BuiltinTypes.h"

namespace tfrt {

/// The input, weight and result types of a 2-D convolution when all three
/// are rank-4 f32 tensors of static shape; nulls otherwise.
struct StaticF32Conv2D {
  mlir::RankedTensorType input, weight, result;
  explicit operator bool() const { return input && weight && result; }
};

inline StaticF32Conv2D matchStaticF32Conv2D(mlir::Type input, mlir::Type weight,
                                            mlir::Type result) {
  auto ok = [](mlir::Type t) {
    auto r = llvm::dyn_cast<mlir::RankedTensorType>(t);
    return r && r.hasStaticShape() && r.getRank() == 4 &&
                   r.getElementType().isF32()
               ? r
               : mlir::RankedTensorType();
  };
  StaticF32Conv2D m{ok(input), ok(weight), ok(result)};
  return m ? m : StaticF32Conv2D{};
}

} // namespace tfrt

#endif // TFRT_PASSES_CONVERSION_GRAPHTOLINALG_CONVOPERANDS_H
