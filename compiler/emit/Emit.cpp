//===- Emit.cpp - LLVM IR, the model ABI and in-process codegen -----------===//
//
// Translates the LLVM-dialect module to LLVM IR, adds the model's ABI (the
// constant tfrt_model_desc, an entry trampoline that unpacks the input and
// output pointer arrays, and the exported `<name>_*` functions that forward to
// runtime-lib), internalizes everything else, optimises with the new pass
// manager and emits an object, assembly or IR with a TargetMachine.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/Emit.h"
#include "compiler/emit/EmitCuda.h"
#include "compiler/emit/LoopHints.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <chrono>
#include <cstring>

using namespace mlir;

namespace {
llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Seconds since `start`, and `start` moved to now.
double lap(std::chrono::steady_clock::time_point &start) {
  auto now = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(now - start).count();
  start = now;
  return s;
}
} // namespace

int32_t tfrt::dtypeCode(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF64())
    return 11;
  if (t.isF16())
    return 10;
  if (t.isBF16())
    return 16;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 1:
      return 9;
    case 8:
      return u ? 2 : 3;
    case 16:
      return u ? 4 : 5;
    case 32:
      return u ? 12 : 6;
    case 64:
      return u ? 13 : 7;
    default:
      return 0;
    }
  }
  return 0;
}

const char *tfrt::dtypeName(int32_t code) {
  switch (code) {
  case 1:
    return "float32";
  case 2:
    return "uint8";
  case 3:
    return "int8";
  case 4:
    return "uint16";
  case 5:
    return "int16";
  case 6:
    return "int32";
  case 7:
    return "int64";
  case 9:
    return "bool";
  case 10:
    return "float16";
  case 11:
    return "float64";
  case 12:
    return "uint32";
  case 13:
    return "uint64";
  case 16:
    return "bfloat16";
  default:
    return "invalid";
  }
}

llvm::Expected<tfrt::ModelSignature> tfrt::extractSignature(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return makeError("the model has no entry function 'main'");
  ModelSignature sig;
  auto describe = [&](Type t, Attribute nameAttr, const std::string &dflt,
                      std::vector<TensorSignature> &out) -> llvm::Error {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return makeError("model " + dflt + " does not have a static shape");
    TensorSignature s;
    auto name = dyn_cast_or_null<StringAttr>(nameAttr);
    s.name = name ? name.str() : dflt;
    s.dtype = dtypeCode(tensor.getElementType());
    if (!s.dtype) {
      std::string ts;
      llvm::raw_string_ostream(ts) << tensor.getElementType();
      return makeError("model " + dflt + " ('" + s.name +
                       "') has unsupported element type " + ts);
    }
    s.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    out.push_back(std::move(s));
    return llvm::Error::success();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto err = describe(func.getArgumentTypes()[i],
                            func.getArgAttr(i, "graph.name"),
                            "input" + std::to_string(i), sig.inputs))
      return std::move(err);
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto err = describe(func.getResultTypes()[i],
                            func.getResultAttr(i, "graph.name"),
                            "output" + std::to_string(i), sig.outputs))
      return std::move(err);
  return sig;
}

std::optional<tfrt::ProfileTable> tfrt::extractProfile(ModuleOp module) {
  auto attr = module->getAttrOfType<DictionaryAttr>("tfrt.profile");
  if (!attr)
    return std::nullopt;
  ProfileTable table;
  if (auto n = attr.getAs<IntegerAttr>("launches"))
    table.numLaunches = n.getInt();
  auto strings = [](DictionaryAttr d, StringRef key) {
    std::vector<std::string> out;
    if (auto a = d.getAs<ArrayAttr>(key))
      for (Attribute e : a)
        if (auto str = dyn_cast<StringAttr>(e))
          out.push_back(str.str());
    return out;
  };
  if (auto entries = attr.getAs<ArrayAttr>("entries"))
    for (Attribute a : entries) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        continue;
      ProfileEntry e;
      auto kind = d.getAs<StringAttr>("kind");
      e.kind = !kind                         ? ProfileEntry::Inline
               : kind.getValue() == "launch" ? ProfileEntry::Launch
               : kind.getValue() == "kernel" ? ProfileEntry::Kernel
                                             : ProfileEntry::Inline;
      e.nodes = strings(d, "nodes");
      e.ops = strings(d, "ops");
      if (auto f = d.getAs<IntegerAttr>("flops"))
        e.flops = f.getInt();
      if (auto n = d.getAs<IntegerAttr>("iterations"))
        e.iterations = n.getInt();
      if (auto l = d.getAs<FlatSymbolRefAttr>("launch"))
        e.launch = l.getValue().str();
      else if (auto l = d.getAs<StringAttr>("launch"))
        e.launch = l.str();
      table.entries.push_back(std::move(e));
    }
  return table;
}

namespace {
/// TFRT_MODEL_ABI_VERSION of runtime-lib/include/tfrt/runtime.h.
constexpr uint32_t kModelAbiVersion = 2;

/// Defines the `<compute>_par<K>_launch` functions that tfrt-async-outline
/// declares: each packs its captures into a stack record and hands a
/// trampoline to tfrt_run_parallel_for (the run's pool and cancellation
/// flag), which calls
/// `<compute>_par<K>_body(begin, end, captures...)` on chunks of [0, n).
///
/// In a profiling build (`profile`), each launch calls
/// tfrt_run_parallel_for_profiled with its profile entry instead.
llvm::Error defineParallelLaunches(llvm::Module &m, llvm::StringRef compute,
                                   const tfrt::ProfileTable *profile) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *voidTy = llvm::Type::getVoidTy(ctx);
  std::string prefix = (compute + "_par").str();
  SmallVector<llvm::Function *> launches;
  for (llvm::Function &f : m.functions())
    if (f.isDeclaration() && f.getName().starts_with(prefix) &&
        f.getName().ends_with("_launch"))
      launches.push_back(&f);
  if (launches.empty())
    return llvm::Error::success();
  llvm::FunctionCallee parallelFor;
  llvm::StringMap<int64_t> entryOf;
  if (profile) {
    parallelFor = m.getOrInsertFunction(
        "tfrt_run_parallel_for_profiled",
        llvm::FunctionType::get(voidTy, {ptrTy, i64, ptrTy, ptrTy, i64},
                                false));
    for (auto [i, e] : llvm::enumerate(profile->entries))
      if (e.kind == tfrt::ProfileEntry::Launch)
        entryOf[e.launch] = i;
  } else {
    parallelFor = m.getOrInsertFunction(
        "tfrt_run_parallel_for",
        llvm::FunctionType::get(voidTy, {ptrTy, i64, ptrTy, ptrTy}, false));
  }
  for (llvm::Function *launch : launches) {
    llvm::StringRef base = launch->getName().drop_back(strlen("_launch"));
    llvm::Function *body = m.getFunction((base + "_body").str());
    llvm::FunctionType *lt = launch->getFunctionType();
    if (!body || body->isDeclaration() || lt->getNumParams() < 2 ||
        body->arg_size() != lt->getNumParams())
      return makeError("internal error: no body for " + launch->getName());
    // The record: one field per capture.
    SmallVector<llvm::Type *> fields(lt->param_begin() + 2, lt->param_end());
    auto *recordTy = llvm::StructType::get(ctx, fields);
    // Captured buffers are distinct roots (inputs, outputs, workspace).
    for (unsigned i = 2; i < body->arg_size(); ++i)
      if (body->getArg(i)->getType()->isPointerTy())
        body->addParamAttr(i, llvm::Attribute::NoAlias);

    // void trampoline(void *record, i64 begin, i64 end)
    auto *tramp = llvm::Function::Create(
        llvm::FunctionType::get(voidTy, {ptrTy, i64, i64}, false),
        llvm::GlobalValue::InternalLinkage, base + "_chunk", m);
    // The body is inlined into the trampoline: its vector-width preference
    // (tfrt-approximate-math `wide-vectors`) must hold there.
    if (body->hasFnAttribute("prefer-vector-width"))
      tramp->addFnAttr(body->getFnAttribute("prefer-vector-width"));
    {
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", tramp));
      SmallVector<llvm::Value *> args = {tramp->getArg(1), tramp->getArg(2)};
      for (auto [i, t] : llvm::enumerate(fields))
        args.push_back(b.CreateLoad(
            t, b.CreateStructGEP(recordTy, tramp->getArg(0), i)));
      b.CreateCall(body, args);
      b.CreateRetVoid();
    }
    launch->setLinkage(llvm::GlobalValue::InternalLinkage);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", launch));
    llvm::Value *record = b.CreateAlloca(recordTy);
    for (unsigned i = 0; i < fields.size(); ++i)
      b.CreateStore(launch->getArg(i + 2),
                    b.CreateStructGEP(recordTy, record, i));
    if (profile) {
      auto it = entryOf.find(launch->getName());
      if (it == entryOf.end())
        return makeError("internal error: " + launch->getName() +
                         " has no profile entry");
      b.CreateCall(parallelFor,
                   {launch->getArg(0), launch->getArg(1), tramp, record,
                    llvm::ConstantInt::get(i64, it->second)});
    } else {
      b.CreateCall(parallelFor,
                   {launch->getArg(0), launch->getArg(1), tramp, record});
    }
    b.CreateRetVoid();
  }
  return llvm::Error::success();
}

/// Adds the descriptor, the entry trampoline and the API functions.
llvm::Error addModelAbi(llvm::Module &m, const std::string &name,
                        const tfrt::ModelSignature &sig, uint64_t wsBytes,
                        uint64_t wsAlign, const tfrt::ProfileTable *profile) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Function *compute = m.getFunction(name + "_compute");
  if (!compute)
    return makeError("internal error: compute function missing");
  size_t numIn = sig.inputs.size(), numOut = sig.outputs.size();
  // inputs, outputs, workspace and (after tfrt-async-outline) the run
  // context.
  bool takesRunContext = compute->arg_size() == numIn + numOut + 2;
  if (compute->arg_size() != numIn + numOut + 1 && !takesRunContext)
    return makeError("internal error: compute function has " +
                     llvm::Twine(compute->arg_size()) + " arguments, expected " +
                     llvm::Twine(numIn + numOut + 1));

  // Inputs, outputs and the workspace are distinct buffers (the runtime's
  // contract), which lets LLVM vectorize without run-time alias checks.
  for (llvm::Argument &arg : compute->args())
    arg.addAttr(llvm::Attribute::NoAlias);

  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *voidTy = llvm::Type::getVoidTy(ctx);

  if (auto e = defineParallelLaunches(m, compute->getName(), profile))
    return e;

  // void <name>_entry(void *const *in, void *const *out, void *ws,
  //                   tfrt_run_context *run)
  auto *entryTy =
      llvm::FunctionType::get(voidTy, {ptrTy, ptrTy, ptrTy, ptrTy}, false);
  auto *entry = llvm::Function::Create(entryTy, llvm::GlobalValue::InternalLinkage,
                                       name + "_entry", m);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
    SmallVector<llvm::Value *> args;
    for (size_t i = 0; i < numIn; ++i)
      args.push_back(b.CreateLoad(
          ptrTy, b.CreateConstInBoundsGEP1_64(ptrTy, entry->getArg(0), i)));
    for (size_t i = 0; i < numOut; ++i)
      args.push_back(b.CreateLoad(
          ptrTy, b.CreateConstInBoundsGEP1_64(ptrTy, entry->getArg(1), i)));
    args.push_back(entry->getArg(2));
    if (takesRunContext)
      args.push_back(entry->getArg(3));
    b.CreateCall(compute, args);
    b.CreateRetVoid();
  }

  auto cstring = [&](const std::string &s, const llvm::Twine &sym) {
    auto *init = llvm::ConstantDataArray::getString(ctx, s, true);
    auto *gv = new llvm::GlobalVariable(m, init->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        init, sym);
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return gv;
  };
  // struct tfrt_tensor_desc { const char *name; i32 dtype; i32 rank; const i64 *dims; }
  auto *descTy = llvm::StructType::get(ctx, {ptrTy, i32, i32, ptrTy});
  auto tensorDescs = [&](const std::vector<tfrt::TensorSignature> &v,
                         const char *kind) -> llvm::Constant * {
    SmallVector<llvm::Constant *> elems;
    for (auto [i, t] : llvm::enumerate(v)) {
      std::string base = name + "_" + kind + std::to_string(i);
      llvm::Constant *dims = llvm::ConstantPointerNull::get(ptrTy);
      if (!t.shape.empty()) {
        SmallVector<uint64_t> d(t.shape.begin(), t.shape.end());
        auto *init = llvm::ConstantDataArray::get(ctx, d);
        dims = new llvm::GlobalVariable(m, init->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        init, base + "_dims");
      } else {
        // Rank 0: point at a valid empty array anyway.
        auto *init = llvm::ConstantDataArray::get(ctx, ArrayRef<uint64_t>{0});
        dims = new llvm::GlobalVariable(m, init->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        init, base + "_dims");
      }
      elems.push_back(llvm::ConstantStruct::get(
          descTy, {cstring(t.name, base + "_name"),
                   llvm::ConstantInt::get(i32, t.dtype),
                   llvm::ConstantInt::get(i32, t.shape.size()), dims}));
    }
    auto *arrTy = llvm::ArrayType::get(descTy, elems.size());
    return new llvm::GlobalVariable(m, arrTy, true,
                                    llvm::GlobalValue::PrivateLinkage,
                                    llvm::ConstantArray::get(arrTy, elems),
                                    name + "_" + kind + "s");
  };
  llvm::Constant *inputs = tensorDescs(sig.inputs, "input");
  llvm::Constant *outputs = tensorDescs(sig.outputs, "output");
  // struct tfrt_model_desc (see runtime-lib/include/tfrt/runtime.h)
  auto *modelTy = llvm::StructType::get(
      ctx, {i32, i32, i32, i32, ptrTy, ptrTy, ptrTy, i64, i64, ptrTy});
  llvm::Constant *model = llvm::ConstantStruct::get(
      modelTy,
      {llvm::ConstantInt::get(i32, kModelAbiVersion),
       llvm::ConstantInt::get(i32, numIn), llvm::ConstantInt::get(i32, numOut),
       llvm::ConstantInt::get(i32, profile ? 2 /* TFRT_MODEL_FLAG_PROFILE */
                                           : 0),
       cstring(name, name + "_model_name"), inputs, outputs,
       llvm::ConstantInt::get(i64, wsBytes),
       llvm::ConstantInt::get(i64, wsAlign), entry});
  if (profile) {
    // struct tfrt_profiled_model_desc { tfrt_model_desc model;
    //   const tfrt_profile_desc *profile; } (tfrt/profile.h)
    // struct tfrt_profile_entry_desc { const char *nodes, *ops; u64 flops;
    //   u32 kind, iterations; }
    auto *entryTy = llvm::StructType::get(ctx, {ptrTy, ptrTy, i64, i32, i32});
    SmallVector<llvm::Constant *> entries;
    for (auto [i, e] : llvm::enumerate(profile->entries)) {
      std::string base = name + "_profile" + std::to_string(i);
      entries.push_back(llvm::ConstantStruct::get(
          entryTy, {cstring(llvm::join(e.nodes, ","), base + "_nodes"),
                    cstring(llvm::join(e.ops, ","), base + "_ops"),
                    llvm::ConstantInt::get(i64, e.flops),
                    llvm::ConstantInt::get(i32, e.kind),
                    llvm::ConstantInt::get(i32, e.iterations)}));
    }
    auto *arrTy = llvm::ArrayType::get(entryTy, entries.size());
    auto *table = new llvm::GlobalVariable(
        m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(arrTy, entries), name + "_profile_entries");
    // struct tfrt_profile_desc { u32 num_entries, num_launches;
    //   const tfrt_profile_entry_desc *entries; }
    auto *profileTy = llvm::StructType::get(ctx, {i32, i32, ptrTy});
    auto *profileDesc = new llvm::GlobalVariable(
        m, profileTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantStruct::get(
            profileTy,
            {llvm::ConstantInt::get(i32, profile->entries.size()),
             llvm::ConstantInt::get(i32, profile->numLaunches), table}),
        name + "_profile");
    auto *profiledTy = llvm::StructType::get(ctx, {modelTy, ptrTy});
    model = llvm::ConstantStruct::get(profiledTy, {model, profileDesc});
  }
  auto *desc = new llvm::GlobalVariable(m, model->getType(), true,
                                        llvm::GlobalValue::InternalLinkage,
                                        model, name + "_desc");
  desc->setAlignment(llvm::Align(8));

  // Exported API: thin forwards into runtime-lib.
  auto forward = [&](const std::string &apiName, llvm::Type *ret,
                     ArrayRef<llvm::Type *> params, const char *target,
                     bool prependDesc) {
    auto *fnTy = llvm::FunctionType::get(ret, params, false);
    auto *fn = llvm::Function::Create(fnTy, llvm::GlobalValue::ExternalLinkage,
                                      name + "_" + apiName, m);
    fn->setVisibility(llvm::GlobalValue::DefaultVisibility);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    if (!target) {
      b.CreateRet(desc);
      return;
    }
    SmallVector<llvm::Type *> calleeParams;
    SmallVector<llvm::Value *> args;
    if (prependDesc) {
      calleeParams.push_back(ptrTy);
      args.push_back(desc);
    }
    for (llvm::Argument &a : fn->args()) {
      calleeParams.push_back(a.getType());
      args.push_back(&a);
    }
    llvm::FunctionCallee callee = m.getOrInsertFunction(
        target, llvm::FunctionType::get(ret, calleeParams, false));
    llvm::CallInst *call = b.CreateCall(callee, args);
    call->setTailCall();
    b.CreateRet(call);
  };
  forward("descriptor", ptrTy, {}, nullptr, false);
  forward("create", ptrTy, {ptrTy}, "tfrt_model_create", true);
  forward("run", ptrTy, {ptrTy, ptrTy, i64, ptrTy, i64}, "tfrt_model_run",
          false);
  forward("destroy", ptrTy, {ptrTy}, "tfrt_model_destroy", false);
  forward("set_pool", ptrTy, {ptrTy, ptrTy}, "tfrt_model_set_pool", false);
  forward("run_async", ptrTy,
          {ptrTy, ptrTy, i64, ptrTy, i64, ptrTy, ptrTy, ptrTy},
          "tfrt_model_run_async", false);
  forward("input_info", ptrTy, {i64, ptrTy}, "tfrt_model_input_info", true);
  forward("output_info", ptrTy, {i64, ptrTy}, "tfrt_model_output_info", true);

  // Only the API keeps external linkage.
  llvm::StringSet<> api;
  for (const char *s : {"descriptor", "create", "run", "destroy", "set_pool",
                        "run_async", "input_info", "output_info"})
    api.insert(name + "_" + s);
  for (llvm::Function &f : m.functions())
    if (!f.isDeclaration() && !api.contains(f.getName()))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration() && !g.hasLocalLinkage())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  return llvm::Error::success();
}
/// The target a TargetOptions stands for: the host's triple, CPU and
/// features when they are not given, and a machine for it.
struct TargetChoice {
  const llvm::Target *target = nullptr;
  llvm::Triple triple;
  std::string cpu, features;
  unsigned optLevel = 3;
  llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive;
  /// A machine for the target (null when LLVM cannot make one).
  std::unique_ptr<llvm::TargetMachine> create() const {
    return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
        triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
        std::nullopt, level));
  }
};

llvm::Expected<TargetChoice> chooseTarget(const tfrt::TargetOptions &target) {
  // Registering twice is harmless (the registry keeps the first).
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  TargetChoice choice;
  std::string tripleStr = target.triple.empty()
                              ? llvm::sys::getDefaultTargetTriple()
                              : target.triple;
  choice.triple = llvm::Triple(llvm::Triple::normalize(tripleStr));
  std::string err;
  choice.target = llvm::TargetRegistry::lookupTarget(choice.triple, err);
  if (!choice.target)
    return makeError("unknown target '" + tripleStr + "': " + err);
  bool host =
      target.triple.empty() ||
      choice.triple == llvm::Triple(llvm::sys::getDefaultTargetTriple());
  choice.cpu = target.cpu;
  choice.features = target.features;
  if (choice.cpu.empty() || choice.cpu == "native") {
    if (host) {
      choice.cpu = llvm::sys::getHostCPUName().str();
      if (choice.features.empty()) {
        SmallVector<std::string> fs;
        for (auto &f : llvm::sys::getHostCPUFeatures())
          fs.push_back((f.second ? "+" : "-") + f.first().str());
        llvm::sort(fs);
        choice.features = llvm::join(fs, ",");
      }
    } else {
      choice.cpu = "generic";
    }
  }
  if (!choice.target->hasTargetMachine())
    return makeError("target '" + tripleStr + "' cannot generate code");
  // A CPU or feature the target does not know is the user's error: LLVM
  // would only warn, once per target machine, and for some CPUs abort in
  // code generation (x86-64 without a 64-bit CPU).
  std::unique_ptr<llvm::MCSubtargetInfo> known(
      choice.target->createMCSubtargetInfo(choice.triple, "", ""));
  if (known) {
    if (!target.cpu.empty() && target.cpu != "native" &&
        !known->isCPUStringValid(choice.cpu))
      return makeError("unknown CPU '" + choice.cpu + "' for target '" +
                       choice.triple.str() + "' (--mcpu)");
    SmallVector<StringRef> given;
    StringRef(target.features).split(given, ',', -1, /*KeepEmpty=*/false);
    for (StringRef f : given) {
      StringRef name = f.trim();
      if (name.starts_with("+") || name.starts_with("-"))
        name = name.drop_front();
      if (!llvm::any_of(known->getAllProcessorFeatures(),
                        [&](const llvm::SubtargetFeatureKV &kv) {
                          return name == kv.Key;
                        }))
        return makeError("unknown feature '" + name + "' for target '" +
                         choice.triple.str() + "' (--mattr)");
    }
  }
  choice.optLevel = std::min(target.optLevel, 3u);
  choice.level = choice.optLevel == 0   ? llvm::CodeGenOptLevel::None
                 : choice.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                 : choice.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                        : llvm::CodeGenOptLevel::Aggressive;
  return choice;
}
} // namespace

llvm::Expected<tfrt::VectorUnitInfo>
tfrt::targetVectorUnit(const TargetOptions &target) {
  auto choice = chooseTarget(target);
  if (!choice)
    return choice.takeError();
  // The subtarget alone: no machine is needed to read its features.
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      choice->target->createMCSubtargetInfo(choice->triple, choice->cpu,
                                            choice->features));
  if (!sti)
    return makeError("cannot describe the subtarget of '" +
                     choice->triple.str() + "' (cpu '" + choice->cpu + "')");
  if (choice->triple.isX86()) {
    if (sti->checkFeatures("+avx512f"))
      return VectorUnitInfo{512, 32};
    if (sti->checkFeatures("+avx"))
      return VectorUnitInfo{256, 16};
    return VectorUnitInfo{128, 16};
  }
  if (choice->triple.isAArch64())
    return VectorUnitInfo{128, 32};
  return VectorUnitInfo{128, 16};
}

llvm::Expected<std::string>
tfrt::emitModelCode(ModuleOp module, const std::string &name,
                    const ModelSignature &sig, const TargetOptions &target,
                    OutputKind kind, ResolvedTarget &resolved,
                    const ProfileTable *profile) {
  // Workspace facts recorded by tfrt-plan-workspace on the compute function.
  uint64_t wsBytes = 0, wsAlign = 64;
  module.walk([&](Operation *op) {
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.workspace_size"))
      wsBytes = a.getInt();
    if (auto a = op->getAttrOfType<IntegerAttr>("tfrt.workspace_alignment"))
      wsAlign = a.getInt();
  });

  // Our argument annotations (graph.name, tfrt.io) have served their purpose
  // and have no LLVM meaning.
  module.walk([](Operation *op) {
    if (op->hasAttr("arg_attrs"))
      op->removeAttr("arg_attrs");
  });
  // The caller read the profile table (extractProfile) if it wants one.
  module->removeAttr("tfrt.profile");
  auto clock = std::chrono::steady_clock::now();
  // --target=cuda modules carry tfrt.cuda.* facts and a gpu.binary.
  std::optional<CudaAbiInfo> cuda = collectCudaAbiInfo(module);
  if (cuda)
    registerCudaTranslations(module);
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(module, llvmCtx, name);
  if (!m)
    return makeError("translation to LLVM IR failed");

  auto choice = chooseTarget(target);
  if (!choice)
    return choice.takeError();
  std::unique_ptr<llvm::TargetMachine> tm = choice->create();
  if (!tm)
    return makeError("cannot create a target machine for '" +
                     choice->triple.str() + "' (cpu '" + choice->cpu + "')");
  const llvm::Triple &triple = choice->triple;
  const std::string &cpu = choice->cpu, &features = choice->features;
  unsigned optLevel = choice->optLevel;
  resolved.triple = triple.str();
  resolved.cpu = cpu;
  resolved.features = features;

  m->setTargetTriple(triple);
  m->setDataLayout(tm->createDataLayout());
  if (cuda)
    if (auto e = prepareCudaModule(*m, name))
      return std::move(e);
  if (auto e = addModelAbi(*m, name, sig, wsBytes, wsAlign, profile))
    return std::move(e);
  if (cuda)
    if (auto e = finishCudaModule(*m, name, *cuda))
      return std::move(e);
  if (target.inlineUnrollLimit > 0)
    if (llvm::Function *compute = m->getFunction(name + "_compute"))
      limitUnrolling(*compute, target.inlineUnrollLimit);
  for (llvm::Function &f : m->functions())
    keepLargeLoopsRolled(f, target.unrollMaxLoopSize);
  for (llvm::Function &f : m->functions())
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", cpu);
      if (!features.empty())
        f.addFnAttr("target-features", features);
    }
  std::string verifyErr;
  llvm::raw_string_ostream vs(verifyErr);
  if (llvm::verifyModule(*m, &vs))
    return makeError("internal error: invalid LLVM IR: " + verifyErr);

  resolved.translateSeconds = lap(clock);
  CodegenOptions cg;
  cg.optLevel = optLevel;
  if (kind == OutputKind::LlvmIr)
    cg.fileType = std::nullopt;
  else
    cg.fileType = kind == OutputKind::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  // CUDA modules carry a device binary and its registration: kept whole.
  cg.threads = cuda ? 1 : std::max(1u, target.codegenThreads);
  cg.computeSymbol = name + "_compute";
  if (cg.threads > 1)
    cg.mergeLinker = findMergeLinker();
  if (target.splitMinInstructions)
    cg.minInstructions = *target.splitMinInstructions;
  TargetMachineFactory factory = [&]() { return choice->create(); };
  auto code = optimizeAndCompile(*m, factory, cg, resolved.codegen);
  if (!code)
    return code.takeError();
  if (cuda && target.codegenThreads > 1)
    resolved.codegen.whole = "a CUDA module";
  if (kind == OutputKind::LlvmIr) {
    std::string out;
    llvm::raw_string_ostream os(out);
    m->print(os, nullptr);
    return out;
  }
  return code;
}
