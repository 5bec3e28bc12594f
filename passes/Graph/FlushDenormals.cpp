//===- FlushDenormals.cpp - zero subnormal f32 weights --------------------===//
//
// Implements tfrt-flush-denormals: the subnormal elements of f32 constants
// (magnitude below 2^-126, not zero) become zeros of the same sign. On x86
// cores without denormals-are-zero every arithmetic instruction that reads
// such an operand takes a microcode assist of around a hundred cycles;
// trained weights (squeeze-excitation layers especially) can hold thousands
// of them. Each flushed element changes a product by less than 2^-126 times
// the other factor, far below the rounding error of any normal result.
//
//===----------------------------------------------------------------------===//

#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

namespace tfrt::graph {
#define GEN_PASS_DEF_FLUSHDENORMALS
#include "passes/Graph/Passes.h.inc"
} // namespace tfrt::graph

using namespace mlir;
using namespace tfrt::graph;

namespace {
struct FlushDenormalsPass
    : public tfrt::graph::impl::FlushDenormalsBase<FlushDenormalsPass> {
  void runOnOperation() override {
    getOperation().walk([&](ConstantOp c) {
      auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!attr || !attr.getElementType().isF32())
        return;
      auto values = attr.getValues<float>();
      auto subnormal = [](float f) {
        return std::fpclassify(f) == FP_SUBNORMAL;
      };
      if (llvm::none_of(values, subnormal))
        return;
      SmallVector<float> flushed(values.begin(), values.end());
      int64_t n = 0;
      for (float &f : flushed)
        if (subnormal(f)) {
          f = std::copysign(0.0f, f);
          ++n;
        }
      c.setValueAttr(DenseElementsAttr::get(attr.getType(),
                                            ArrayRef<float>(flushed)));
      numFlushed += n;
      ++numConstants;
    });
  }
};
} // namespace
