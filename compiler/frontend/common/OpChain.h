//===- OpChain.h - short-circuiting graph op construction -------*- C++ -*-===//
//
// Private to compiler/frontend/common: a small builder for the long
// decompositions of the op-family files (SignalOps.cpp, ...). Every op is
// created through graph::createInferred (so constants fold right away); once
// one op fails, every later call returns a null Value without building
// anything, and the handler checks `failed()` once at the end instead of after
// every op.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_COMPILER_FRONTEND_COMMON_OPCHAIN_H
#define TFRT_COMPILER_FRONTEND_COMMON_OPCHAIN_H

#include "compiler/frontend/common/NodeImporterImpl.h"

namespace tfrt::frontend::detail {

class OpChain {
public:
  OpChain(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  bool failed() const { return bad; }
  MLIRContext *context() { return b.getContext(); }

  /// The graph op `name`; null once anything failed.
  Value op(StringRef name, ValueRange operands,
           ArrayRef<NamedAttribute> attrs = {}) {
    if (bad || llvm::any_of(operands, [](Value v) { return !v; })) {
      bad = true;
      return Value();
    }
    auto r = graph::createInferred(b, loc, name, operands, attrs);
    if (mlir::failed(r)) {
      bad = true;
      return Value();
    }
    return (*r)[0];
  }

  NamedAttribute attr(StringRef name, Attribute a) {
    return NamedAttribute(StringAttr::get(context(), name), a);
  }

  // Constants.
  Value constant(DenseElementsAttr value) {
    return graph::ConstantOp::create(b, loc, value.getType(),
                                     llvm::cast<ElementsAttr>(value));
  }
  Value constant(Type elem, ArrayRef<int64_t> shape, ArrayRef<double> values) {
    return constant(
        tensorFromDoubles(RankedTensorType::get(shape, elem), values));
  }
  Value scalar(Type elem, double v) { return constant(scalarOf(elem, v)); }
  /// A splat zero of `elem` in `shape`.
  Value zeros(Type elem, ArrayRef<int64_t> shape) {
    return constant(
        DenseElementsAttr::get(RankedTensorType::get(shape, elem),
                               ArrayRef<Attribute>(b.getZeroAttr(elem))));
  }
  Value i64s(ArrayRef<int64_t> values) {
    auto type =
        RankedTensorType::get({(int64_t)values.size()}, b.getIntegerType(64));
    return constant(DenseElementsAttr::get(type, values));
  }
  Value i64Tensor(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get(shape, b.getIntegerType(64));
    return constant(DenseElementsAttr::get(type, values));
  }
  /// 0, 1, ..., n - 1 of type `elem` (integer or float) in `shape`, whose
  /// dimensions multiply to n (e.g. [1, n] or [n, 1, 1]).
  Value iota(Type elem, ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    SmallVector<double> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = (double)i;
    return constant(elem, shape, values);
  }

  // Elementwise.
  Value add(Value x, Value y) { return op("graph.add", {x, y}); }
  Value sub(Value x, Value y) { return op("graph.sub", {x, y}); }
  Value mul(Value x, Value y) { return op("graph.mul", {x, y}); }
  Value div(Value x, Value y) { return op("graph.div", {x, y}); }
  Value max(Value x, Value y) { return op("graph.max", {x, y}); }
  Value min(Value x, Value y) { return op("graph.min", {x, y}); }
  Value where(Value c, Value x, Value y) {
    return op("graph.where", {c, x, y});
  }
  Value unary(StringRef name, Value x) { return op(name, {x}); }
  Value cmp(StringRef name, Value x, Value y) { return op(name, {x, y}); }
  Value logicalAnd(Value x, Value y) { return op("graph.and", {x, y}); }
  Value cast(Value x, Type to) {
    if (x && elementTypeOf(x) == to)
      return x;
    return op("graph.cast", {x}, {attr("to", TypeAttr::get(to))});
  }

  // Shapes.
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    return op("graph.reshape", {x, i64s(shape)},
              {attr("allowzero", b.getBoolAttr(true))});
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return op("graph.transpose", {x},
              {attr("perm", b.getDenseI64ArrayAttr(perm))});
  }
  Value expand(Value x, ArrayRef<int64_t> shape) {
    return op("graph.expand", {x, i64s(shape)});
  }
  Value concat(ValueRange xs, int64_t axis) {
    return op("graph.concat", xs, {attr("axis", b.getI64IntegerAttr(axis))});
  }
  /// x[start:end] along `axis`.
  Value slice(Value x, int64_t axis, int64_t start, int64_t end) {
    return op("graph.slice",
              {x, i64s({start}), i64s({end}), i64s({axis}), i64s({1})});
  }
  Value reduce(StringRef name, Value x, ArrayRef<int64_t> axes, bool keepdims) {
    return op(name, {x},
              {attr("axes", b.getDenseI64ArrayAttr(axes)),
               attr("keepdims", b.getBoolAttr(keepdims))});
  }

private:
  OpBuilder &b;
  Location loc;
  bool bad = false;
};

} // namespace tfrt::frontend::detail

#endif // TFRT_COMPILER_FRONTEND_COMMON_OPCHAIN_H
