//===- EntryAbi.cpp - caller-buffer ABI for the entry function ------------===//
//
// Implements tfrt-entry-abi: the tensor-valued entry function becomes a
// function over caller-provided memrefs (inputs, then outputs), so that
// bufferization writes results straight into the caller's output buffers.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace tfrt {
#define GEN_PASS_DEF_ENTRYABI
#include "passes/MemoryPlanning/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
struct EntryAbiPass : public tfrt::impl::EntryAbiBase<EntryAbiPass> {
  using EntryAbiBase::EntryAbiBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal()) {
      module.emitError("entry function '") << entry << "' not found";
      return signalPassFailure();
    }
    if (failed(rewrite(func)))
      return signalPassFailure();
  }

  /// The buffer type of a static tensor. A tensor without elements has no
  /// data to read or write: its buffer is an opaque `memref<0xi8>`.
  static MemRefType bufferTypeFor(Location loc, Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape()) {
      emitError(loc) << "entry function needs static tensor types, got " << t;
      return {};
    }
    if (tensor.getNumElements() == 0)
      return MemRefType::get({0}, IntegerType::get(t.getContext(), 8));
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  }

  /// For `value` a static reshape of a tensor `src`, `src` and the reshape
  /// of the buffer `out` (identity layout) that has its shape, created at
  /// `b`'s insertion point.
  static std::optional<std::pair<Value, Value>>
  peelReshape(OpBuilder &b, Value value, Value out) {
    auto outType = cast<MemRefType>(out.getType());
    if (!outType.getLayout().isIdentity())
      return std::nullopt;
    if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>()) {
      RankedTensorType src = collapse.getSrcType();
      if (!src.hasStaticShape())
        return std::nullopt;
      Value expanded = memref::ExpandShapeOp::create(
          b, collapse.getLoc(), src.getShape(), out,
          collapse.getReassociationIndices());
      return std::make_pair(collapse.getSrc(), expanded);
    }
    if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>()) {
      if (!expand.getSrcType().hasStaticShape())
        return std::nullopt;
      Value collapsed = memref::CollapseShapeOp::create(
          b, expand.getLoc(), out, expand.getReassociationIndices());
      return std::make_pair(expand.getSrc(), collapsed);
    }
    return std::nullopt;
  }

  static bool isEmpty(Type t) {
    return cast<RankedTensorType>(t).getNumElements() == 0;
  }

  LogicalResult rewrite(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    unsigned numIn = func.getNumArguments();
    unsigned numOut = func.getNumResults();

    SmallVector<Type> argTypes;
    for (Type t : func.getArgumentTypes()) {
      MemRefType m = bufferTypeFor(func.getLoc(), t);
      if (!m)
        return failure();
      argTypes.push_back(m);
    }
    for (Type t : func.getResultTypes()) {
      MemRefType m = bufferTypeFor(func.getLoc(), t);
      if (!m)
        return failure();
      argTypes.push_back(m);
    }

    // Collect names before the signature changes.
    SmallVector<Attribute> inNames, outNames;
    for (unsigned i = 0; i < numIn; ++i) {
      Attribute n = func.getArgAttr(i, "graph.name");
      inNames.push_back(n ? n : StringAttr::get(ctx, "input" + Twine(i)));
    }
    for (unsigned i = 0; i < numOut; ++i) {
      Attribute n = func.getResultAttr(i, "graph.name");
      outNames.push_back(n ? n : StringAttr::get(ctx, "output" + Twine(i)));
    }

    OpBuilder b(ctx);
    b.setInsertionPointToStart(&body);
    for (unsigned i = 0; i < numIn; ++i) {
      BlockArgument old = body.getArgument(i);
      auto tensorType = cast<RankedTensorType>(func.getArgumentTypes()[i]);
      old.setType(argTypes[i]);
      if (isEmpty(tensorType)) {
        Value empty = tensor::EmptyOp::create(b, func.getLoc(),
                                              tensorType.getShape(),
                                              tensorType.getElementType());
        old.replaceAllUsesWith(empty);
        continue;
      }
      auto toTensor = bufferization::ToTensorOp::create(
          b, func.getLoc(), tensorType, old,
          /*restrict=*/true, /*writable=*/false);
      old.replaceAllUsesExcept(toTensor.getResult(), toTensor);
    }
    SmallVector<Value> outArgs;
    for (unsigned i = 0; i < numOut; ++i)
      outArgs.push_back(body.addArgument(argTypes[numIn + i], func.getLoc()));

    for (auto [value, out] : llvm::zip(ret.getOperands(), outArgs)) {
      if (isEmpty(value.getType()))
        continue;
      // A result that is a reshape of another tensor is materialised by
      // writing that tensor into the same reshape of the caller's buffer,
      // so that the producer can write there (tfrt-outputs-in-place
      // stops at reshapes, and the result would be copied out).
      b.setInsertionPointAfterValue(out);
      while (auto shaped = peelReshape(b, value, out)) {
        value = shaped->first;
        out = shaped->second;
      }
      b.setInsertionPoint(ret);
      auto m = bufferization::MaterializeInDestinationOp::create(
          b, ret.getLoc(), TypeRange{}, value, out);
      m.setRestrict(true);
      m.setWritable(true);
    }
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();

    func.setType(FunctionType::get(ctx, argTypes, {}));
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned i = 0; i < numIn + numOut; ++i) {
      bool isIn = i < numIn;
      NamedAttribute attrs[] = {
          b.getNamedAttr("graph.name", isIn ? inNames[i] : outNames[i - numIn]),
          b.getNamedAttr("tfrt.io", b.getStringAttr(isIn ? "input" : "output"))};
      argAttrs.push_back(b.getDictionaryAttr(attrs));
    }
    func.setAllArgAttrs(argAttrs);
    func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    if (!symbol.empty())
      func.setSymName(symbol);
    return success();
  }
};
} // namespace
