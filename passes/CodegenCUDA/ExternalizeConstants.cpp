//===- ExternalizeConstants.cpp - weights into the device workspace -------===//
//
// Implements tfrt-cuda-externalize-constants: constant memref.globals read by
// the entry function are packed into one byte array (@tfrt_weights) and read
// through views of the workspace argument, behind the planned scratch bytes.
//
//===----------------------------------------------------------------------===//

#include "passes/CodegenCUDA/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace tfrt {
#define GEN_PASS_DEF_EXTERNALIZECONSTANTS
#include "passes/CodegenCUDA/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
/// The bytes of a constant's initial value as the host lays them out, or
/// failure for initialisers we cannot flatten.
LogicalResult constantBytes(memref::GlobalOp global,
                            std::vector<char> &bytes) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(
      global.getInitialValue().value_or(Attribute()));
  if (!dense)
    return failure();
  Type elem = dense.getElementType();
  if (!elem.isIntOrFloat())
    return failure();
  int64_t n = dense.getNumElements();
  if (elem.getIntOrFloatBitWidth() == 1) {
    // i1 is stored as one byte per element in memory.
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
    return success();
  }
  if (elem.getIntOrFloatBitWidth() % 8)
    return failure();
  size_t width = elem.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    for (int64_t i = 0; i < n; ++i)
      bytes.insert(bytes.end(), raw.begin(), raw.begin() + width);
  } else {
    bytes.insert(bytes.end(), raw.begin(), raw.end());
  }
  return success();
}

/// The index of the argument marked `tfrt.io = "workspace"`, if any.
std::optional<unsigned> workspaceArg(func::FuncOp func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto io = func.getArgAttrOfType<StringAttr>(i, "tfrt.io"))
      if (io.getValue() == "workspace")
        return i;
  return std::nullopt;
}

struct ExternalizeConstantsPass
    : public tfrt::impl::ExternalizeConstantsBase<ExternalizeConstantsPass> {
  using ExternalizeConstantsBase::ExternalizeConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      module.emitError("tfrt-cuda-externalize-constants: alignment must be a "
                       "power of two");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    if (symbols.lookup("tfrt_weights")) {
      module.emitError("the module already has a symbol 'tfrt_weights'");
      return signalPassFailure();
    }
    std::vector<char> blob;
    bool seenEntry = false;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      std::optional<unsigned> wsIndex = workspaceArg(func);
      if (func.isExternal() || !wsIndex)
        continue;
      if (seenEntry) {
        func.emitError("more than one entry function with a workspace");
        return signalPassFailure();
      }
      seenEntry = true;
      int64_t wsBytes = 0;
      if (auto a = func->getAttrOfType<IntegerAttr>("tfrt.workspace_size"))
        wsBytes = a.getInt();
      int64_t base = llvm::alignTo(wsBytes, alignment);

      // Offsets of the constants, in first-use order.
      llvm::MapVector<StringAttr, int64_t> offsets;
      SmallVector<memref::GetGlobalOp> uses;
      WalkResult walk = func.walk([&](memref::GetGlobalOp get) {
        auto global = symbols.lookup<memref::GlobalOp>(get.getName());
        if (!global || !global.getConstant())
          return WalkResult::advance();
        uses.push_back(get);
        if (offsets.count(global.getSymNameAttr()))
          return WalkResult::advance();
        blob.resize(llvm::alignTo(blob.size(), alignment), 0);
        int64_t offset = blob.size();
        if (failed(constantBytes(global, blob))) {
          global.emitError("cannot place this constant in the device "
                           "workspace (unsupported initial value)");
          return WalkResult::interrupt();
        }
        offsets[global.getSymNameAttr()] = offset;
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      int64_t deviceBytes = base + int64_t(blob.size());

      BlockArgument ws = func.getArgument(*wsIndex);
      auto wsType = MemRefType::get({deviceBytes},
                                    IntegerType::get(&getContext(), 8));
      ws.setType(wsType);
      SmallVector<Type> argTypes(func.getArgumentTypes());
      argTypes[*wsIndex] = wsType;
      func.setFunctionType(FunctionType::get(&getContext(), argTypes,
                                             func.getResultTypes()));

      OpBuilder b(&getContext());
      for (memref::GetGlobalOp get : uses) {
        b.setInsertionPoint(get);
        int64_t offset = base + offsets.lookup(get.getNameAttr().getAttr());
        Value off = arith::ConstantIndexOp::create(b, get.getLoc(), offset);
        Value view = memref::ViewOp::create(b, get.getLoc(), get.getType(), ws,
                                            off, ValueRange());
        get.replaceAllUsesWith(view);
        get.erase();
      }
      for (auto &[name, offset] : offsets)
        if (Operation *g = symbols.lookup(name.getValue()))
          if (SymbolTable::symbolKnownUseEmpty(g, module))
            g->erase();

      b.setInsertionPoint(func);
      auto i64 = b.getI64Type();
      func->setAttr("tfrt.cuda.weights_offset", b.getIntegerAttr(i64, base));
      func->setAttr("tfrt.cuda.weights_size",
                    b.getIntegerAttr(i64, int64_t(blob.size())));
      func->setAttr("tfrt.cuda.device_workspace_size",
                    b.getIntegerAttr(i64, deviceBytes));
      if (!blob.empty()) {
        auto blobType = RankedTensorType::get({int64_t(blob.size())},
                                              b.getI8Type());
        auto init = DenseElementsAttr::getFromRawBuffer(blobType, blob);
        auto global = memref::GlobalOp::create(
            b, func.getLoc(), "tfrt_weights", /*sym_visibility=*/nullptr,
            MemRefType::get({int64_t(blob.size())}, b.getI8Type()), init,
            /*constant=*/true, b.getI64IntegerAttr(alignment));
        (void)global;
      }
    }
  }
};
} // namespace
