//===- LowerChecks.cpp - run-time checks as reports to the runtime --------===//
//
// Implements tfrt-lower-checks (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlanning/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tfrt {
#define GEN_PASS_DEF_LOWERCHECKS
#include "passes/MemoryPlanning/Passes.h.inc"
} // namespace tfrt

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kReport = "tfrt_run_report_error";

struct LowerChecksPass : public tfrt::impl::LowerChecksBase<LowerChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp a) { asserts.push_back(a); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    OpBuilder top(ctx);
    top.setInsertionPointToStart(module.getBody());
    if (!module.lookupSymbol<func::FuncOp>(kReport)) {
      auto decl =
          func::FuncOp::create(top, module.getLoc(), kReport,
                               FunctionType::get(ctx, {ptrTy, ptrTy}, {}));
      decl.setPrivate();
    }
    DenseMap<Operation *, Value> runArgs;
    unsigned index = 0;
    for (cf::AssertOp a : asserts) {
      auto func = a->getParentOfType<func::FuncOp>();
      if (!func || !tfrt::isEntryFunction(func)) {
        a.emitError("run-time check outside the model's entry function");
        return signalPassFailure();
      }
      Value &run = runArgs[func];
      if (!run && !(run = tfrt::runContextArgument(func)))
        return signalPassFailure();
      // The message: a constant NUL-terminated string of the module.
      std::string text = a.getMsg().str();
      text.push_back('\0');
      auto type =
          LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
      std::string name = "tfrt_check_message_" + std::to_string(index++);
      LLVM::GlobalOp::create(top, a.getLoc(), type, /*isConstant=*/true,
                             LLVM::Linkage::Internal, name,
                             top.getStringAttr(text));
      OpBuilder b(a);
      Location loc = a.getLoc();
      Value failed = arith::XOrIOp::create(
          b, loc, a.getArg(),
          arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      scf::IfOp::create(b, loc, failed, [&](OpBuilder &nb, Location l) {
        Value msg = LLVM::AddressOfOp::create(nb, l, ptrTy, name);
        func::CallOp::create(nb, l, kReport, TypeRange{}, ValueRange{run, msg});
        scf::YieldOp::create(nb, l);
      });
      a.erase();
      ++numChecks;
    }
  }
};
} // namespace
