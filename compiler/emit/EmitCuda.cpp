//===- EmitCuda.cpp - the model ABI of --target=cuda objects --------------===//
//
// See EmitCuda.h. The symbols added here are internal; only the NAME_* API
// stays global, and the object refers to runtime-lib's tfrt_cuda_* symbols.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/EmitCuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

using namespace mlir;

namespace {
llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// The functions listed in `llvm.global_ctors`/`llvm.global_dtors` (by
/// priority), removing the variable.
std::vector<llvm::Function *> takeStructors(llvm::Module &m, const char *var) {
  std::vector<std::pair<uint64_t, llvm::Function *>> fns;
  llvm::GlobalVariable *gv = m.getNamedGlobal(var);
  if (!gv)
    return {};
  if (auto *arr = dyn_cast_or_null<llvm::ConstantArray>(
          gv->hasInitializer() ? gv->getInitializer() : nullptr))
    for (llvm::Value *op : arr->operands())
      if (auto *s = dyn_cast<llvm::ConstantStruct>(op))
        if (auto *fn = dyn_cast<llvm::Function>(
                s->getOperand(1)->stripPointerCasts()))
          fns.push_back(
              {cast<llvm::ConstantInt>(s->getOperand(0))->getZExtValue(), fn});
  gv->eraseFromParent();
  std::stable_sort(fns.begin(), fns.end(),
                   [](auto &a, auto &b) { return a.first < b.first; });
  std::vector<llvm::Function *> out;
  for (auto &p : fns)
    out.push_back(p.second);
  return out;
}

llvm::Function *callAll(llvm::Module &m, const std::string &name,
                        ArrayRef<llvm::Function *> fns) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false);
  auto *fn = llvm::Function::Create(fnTy, llvm::GlobalValue::InternalLinkage,
                                    name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  for (llvm::Function *f : fns)
    b.CreateCall(f);
  b.CreateRetVoid();
  return fn;
}

/// Replaces the body of the API function `fnName` by a tail call of
/// `target(prefix..., args...)`.
llvm::Error forwardTo(llvm::Module &m, const std::string &fnName,
                      const char *target, ArrayRef<llvm::Value *> prefix) {
  llvm::Function *fn = m.getFunction(fnName);
  if (!fn)
    return makeError("internal error: " + fnName + " missing");
  fn->deleteBody();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
  SmallVector<llvm::Type *> params;
  SmallVector<llvm::Value *> args;
  for (llvm::Value *v : prefix) {
    params.push_back(v->getType());
    args.push_back(v);
  }
  for (llvm::Argument &a : fn->args()) {
    params.push_back(a.getType());
    args.push_back(&a);
  }
  llvm::FunctionCallee callee = m.getOrInsertFunction(
      target, llvm::FunctionType::get(fn->getReturnType(), params, false));
  llvm::CallInst *call = b.CreateCall(callee, args);
  call->setTailCall();
  b.CreateRet(call);
  return llvm::Error::success();
}
} // namespace

std::optional<tfrt::CudaAbiInfo> tfrt::collectCudaAbiInfo(ModuleOp module) {
  auto archs = module->getAttrOfType<StringAttr>("tfrt.cuda.archs");
  if (!archs)
    return std::nullopt;
  CudaAbiInfo info;
  info.archs = archs.str();
  module.walk([&](Operation *op) {
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.cuda.weights_offset"))
      info.weightsOffset = a.getInt();
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.cuda.weights_size"))
      info.weightsSize = a.getInt();
    if (auto a =
            op->getAttrOfType<IntegerAttr>("tfrt.cuda.device_workspace_size"))
      info.deviceWorkspaceSize = a.getInt();
  });
  return info;
}

void tfrt::registerCudaTranslations(ModuleOp module) {
  DialectRegistry registry;
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  module.getContext()->appendDialectRegistry(registry);
}

llvm::Error tfrt::prepareCudaModule(llvm::Module &m, const std::string &name) {
  for (llvm::Function &f : m.functions())
    if (f.isDeclaration() && f.getName().starts_with("mgpu"))
      f.setName("tfrt_cuda_" + f.getName().str());
  std::vector<llvm::Function *> ctors = takeStructors(m, "llvm.global_ctors");
  std::vector<llvm::Function *> dtors = takeStructors(m, "llvm.global_dtors");
  callAll(m, name + "_cuda_load", ctors);
  // Unload in reverse order of loading.
  std::reverse(dtors.begin(), dtors.end());
  callAll(m, name + "_cuda_unload", dtors);
  return llvm::Error::success();
}

llvm::Error tfrt::finishCudaModule(llvm::Module &m, const std::string &name,
                                   const CudaAbiInfo &info) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);

  llvm::GlobalVariable *desc = m.getNamedGlobal(name + "_desc");
  if (!desc || !desc->hasInitializer())
    return makeError("internal error: model descriptor missing");
  // flags = TFRT_MODEL_FLAG_CUDA
  auto *init = cast<llvm::ConstantStruct>(desc->getInitializer());
  SmallVector<llvm::Constant *> fields;
  for (unsigned i = 0; i < init->getNumOperands(); ++i)
    fields.push_back(init->getOperand(i));
  fields[3] = llvm::ConstantInt::get(i32, 1);
  desc->setInitializer(llvm::ConstantStruct::get(init->getType(), fields));

  llvm::Constant *weights = llvm::ConstantPointerNull::get(ptrTy);
  if (llvm::GlobalVariable *w = m.getNamedGlobal("tfrt_weights")) {
    w->setLinkage(llvm::GlobalValue::InternalLinkage);
    w->setName(name + "_weights");
    weights = w;
  } else if (info.weightsSize) {
    return makeError("internal error: weights missing");
  }
  auto *archsInit = llvm::ConstantDataArray::getString(ctx, info.archs, true);
  auto *archs = new llvm::GlobalVariable(m, archsInit->getType(), true,
                                         llvm::GlobalValue::PrivateLinkage,
                                         archsInit, name + "_cuda_archs");
  auto *count = new llvm::GlobalVariable(
      m, i64, false, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantInt::get(i64, 0), name + "_cuda_load_count");
  llvm::Function *load = m.getFunction(name + "_cuda_load");
  llvm::Function *unload = m.getFunction(name + "_cuda_unload");
  if (!load || !unload)
    return makeError("internal error: kernel loader missing");
  // struct tfrt_cuda_model_desc (runtime-lib/include/tfrt/cuda.h)
  auto *cudaTy = llvm::StructType::get(
      ctx, {i32, i32, ptrTy, ptrTy, i64, i64, i64, ptrTy, ptrTy, ptrTy});
  auto *cudaDesc = new llvm::GlobalVariable(
      m, cudaTy, true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantStruct::get(
          cudaTy, {llvm::ConstantInt::get(i32, 1), llvm::ConstantInt::get(i32, 0),
                   archs, weights, llvm::ConstantInt::get(i64, info.weightsSize),
                   llvm::ConstantInt::get(i64, info.weightsOffset),
                   llvm::ConstantInt::get(i64, info.deviceWorkspaceSize), load,
                   unload, count}),
      name + "_cuda_desc");
  cudaDesc->setAlignment(llvm::Align(8));

  if (auto e = forwardTo(m, name + "_create", "tfrt_cuda_model_create",
                         {desc, cudaDesc}))
    return e;
  if (auto e = forwardTo(m, name + "_run", "tfrt_cuda_model_run", {}))
    return e;
  if (auto e = forwardTo(m, name + "_destroy", "tfrt_cuda_model_destroy", {}))
    return e;
  for (const char *old : {"tfrt_model_create", "tfrt_model_run",
                          "tfrt_model_destroy"})
    if (llvm::Function *f = m.getFunction(old))
      if (f->use_empty())
        f->eraseFromParent();
  return llvm::Error::success();
}
