//===- TensorBytes.h - bytes of statically shaped tensors -----------------===//
//
// Shared by the passes that weigh tensors by their size (tfrt-async-schedule's
// live bytes, tfrt-hoist-shrinking-ops).
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_TENSORBYTES_H
#define TFRT_PASSES_TENSORBYTES_H

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cstdint>

namespace tfrt {

/// Bytes of a statically shaped tensor of int or float elements (at least
/// one byte per element); 0 for any other type.
inline int64_t staticTensorBytes(mlir::Type type) {
  auto t = mlir::dyn_cast<mlir::RankedTensorType>(type);
  if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
    return 0;
  return t.getNumElements() *
         std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
}

} // namespace tfrt

#endif // TFRT_PASSES_TENSORBYTES_H
