//===- ParallelCodegen.cpp - LLVM optimisation and codegen on threads -----===//
//
// See ParallelCodegen.h. The plan: every function and global gets a home
// partition, or is copied into each partition that refers to it (small
// local constants and helpers). Partition 0 holds the compute function and
// the ABI; the parallel loops' chunk/body pairs are spread over the
// partitions by size (largest first, onto the lightest partition). Each
// partition is cloned from the module, written as bitcode and read back on
// its worker thread into a context of its own, so that the threads share
// nothing. `ld.lld -r` joins the objects and an in-process objcopy makes the
// hidden cross-partition symbols local.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/ParallelCodegen.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Binary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <chrono>
#include <functional>
#include <pthread.h>

using namespace llvm;

namespace {
Error makeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

double lap(std::chrono::steady_clock::time_point &start) {
  auto now = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(now - start).count();
  start = now;
  return s;
}

/// Local helpers of at most this many instructions, and local constants of
/// at most this many bytes, are copied into each partition that uses them.
constexpr uint64_t kCopyInstructions = 300;
constexpr uint64_t kCopyBytes = 65536;

/// The middle end and, with a file type, machine code for one module.
Error runOne(Module &m, TargetMachine &tm, const tfrt::CodegenOptions &opts,
             std::string &out, double &optSeconds, double &cgSeconds) {
  auto clock = std::chrono::steady_clock::now();
  // LLVM's middle end runs at most its O2 pipeline: on PP-OCR cls, O3
  // (larger unroll thresholds, more aggressive inlining and loop passes)
  // tripled the time spent here with no measurable speed-up of the
  // generated code (docs/performance.md). Machine code generation keeps the
  // TargetMachine's level.
  auto transformer =
      mlir::makeOptimizingTransformer(std::min(opts.optLevel, 2u), 0, &tm);
  if (auto e = transformer(&m))
    return e;
  optSeconds = lap(clock);
  if (!opts.fileType)
    return Error::success();
  SmallVector<char, 0> buffer;
  raw_svector_ostream bos(buffer);
  legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, bos, nullptr, *opts.fileType))
    return makeError("the target cannot emit this file type");
  pm.run(m);
  out.assign(buffer.begin(), buffer.end());
  cgSeconds = lap(clock);
  return Error::success();
}

using GlobalSet = SmallSetVector<const GlobalValue *, 16>;

/// The globals that constant `c` refers to, through constant expressions
/// and aggregates.
void constantRefs(const Constant *c, GlobalSet &out,
                  SmallPtrSetImpl<const Constant *> &seen) {
  if (auto *gv = dyn_cast<GlobalValue>(c)) {
    out.insert(gv);
    return;
  }
  if (isa<ConstantData>(c) || !seen.insert(c).second)
    return;
  for (const Use &u : c->operands())
    if (auto *op = dyn_cast<Constant>(u.get()))
      constantRefs(op, out, seen);
}

/// The globals that a definition refers to.
GlobalSet definitionRefs(const GlobalValue *gv) {
  GlobalSet out;
  SmallPtrSet<const Constant *, 32> seen;
  if (auto *f = dyn_cast<Function>(gv)) {
    for (const Instruction &inst : instructions(*f))
      for (const Use &u : inst.operands())
        if (auto *c = dyn_cast<Constant>(u.get()))
          constantRefs(c, out, seen);
  } else if (auto *v = dyn_cast<GlobalVariable>(gv)) {
    if (v->hasInitializer())
      constantRefs(v->getInitializer(), out, seen);
  }
  return out;
}

/// Where each definition goes.
struct Plan {
  unsigned partitions = 1;
  /// The home partition of a definition that is not copied.
  DenseMap<const GlobalValue *, unsigned> home;
  /// Definitions copied into every partition that refers to them.
  SmallPtrSet<const GlobalValue *, 32> copied;
  /// Per partition: what its definitions refer to, transitively through
  /// what it defines.
  std::vector<GlobalSet> refs;

  bool defines(unsigned p, const GlobalValue *gv) const {
    if (copied.contains(gv))
      return refs[p].contains(gv);
    auto it = home.find(gv);
    return it != home.end() && it->second == p;
  }
};

/// Plans `threads` partitions of `m`, or returns std::nullopt when the
/// module has constructs that the split does not handle (aliases, ifuncs,
/// comdats, appending globals) or nothing to spread.
std::optional<Plan> planPartitions(Module &m, unsigned threads,
                                   StringRef computeSymbol) {
  if (!m.alias_empty() || !m.ifunc_empty())
    return std::nullopt;
  for (const GlobalVariable &v : m.globals())
    if (v.hasAppendingLinkage() || v.hasComdat())
      return std::nullopt;
  for (const Function &f : m)
    if (f.hasComdat())
      return std::nullopt;

  Plan plan;
  // The parallel loops' chunk trampolines with their bodies.
  std::string prefix = (computeSymbol + "_par").str();
  StringMap<SmallVector<const Function *, 2>> groups;
  StringMap<uint64_t> groupSize;
  uint64_t fixedSize = 0;
  for (const Function &f : m) {
    if (f.isDeclaration())
      continue;
    StringRef name = f.getName();
    if (name.starts_with(prefix) &&
        (name.ends_with("_chunk") || name.ends_with("_body"))) {
      StringRef key = name.rsplit('_').first;
      groups[key].push_back(&f);
      groupSize[key] += f.getInstructionCount();
      continue;
    }
    if (f.hasLocalLinkage() && name != computeSymbol &&
        f.getInstructionCount() <= kCopyInstructions) {
      plan.copied.insert(&f);
      continue;
    }
    plan.home[&f] = 0;
    fixedSize += f.getInstructionCount();
  }
  if (groups.empty())
    return std::nullopt;
  for (const GlobalVariable &v : m.globals()) {
    if (v.isDeclaration())
      continue;
    uint64_t bytes = m.getDataLayout().getTypeAllocSize(v.getValueType());
    if (v.hasLocalLinkage() && v.isConstant() && bytes <= kCopyBytes)
      plan.copied.insert(&v);
    else if (!v.hasLocalLinkage())
      plan.home[&v] = 0;
    // Other locals (large or mutable) get the first partition that uses
    // them, below.
  }

  // Largest group first onto the lightest partition.
  SmallVector<std::pair<uint64_t, StringRef>> order;
  for (auto &g : groupSize)
    order.push_back({g.second, g.first()});
  llvm::sort(order, [](auto &a, auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  unsigned n = std::min<unsigned>(threads, order.size() + 1);
  std::vector<uint64_t> load(n, 0);
  load[0] = fixedSize;
  for (auto &[size, key] : order) {
    unsigned p = std::min_element(load.begin(), load.end()) - load.begin();
    load[p] += size;
    for (const Function *f : groups[key])
      plan.home[f] = p;
  }
  // Drop partitions that received nothing (renumbering the rest).
  SmallVector<unsigned> renumber(n, 0);
  unsigned used = 0;
  for (unsigned p = 0; p < n; ++p)
    if (p == 0 || load[p] > 0)
      renumber[p] = used++;
  for (auto &h : plan.home)
    h.second = renumber[h.second];
  plan.partitions = used;
  if (used < 2)
    return std::nullopt;

  // What each partition refers to: its home definitions' references, plus
  // those of what it copies, and of the large locals it becomes home to.
  DenseMap<const GlobalValue *, GlobalSet> refCache;
  auto refsOf = [&](const GlobalValue *gv) -> const GlobalSet & {
    auto it = refCache.find(gv);
    if (it == refCache.end())
      it = refCache.try_emplace(gv, definitionRefs(gv)).first;
    return it->second;
  };
  plan.refs.resize(used);
  for (unsigned p = 0; p < used; ++p) {
    SmallVector<const GlobalValue *> work;
    for (const Function &f : m)
      if (!f.isDeclaration() && !plan.copied.contains(&f) &&
          plan.home.lookup(&f) == p)
        work.push_back(&f);
    for (const GlobalVariable &v : m.globals())
      if (plan.home.count(&v) && plan.home.lookup(&v) == p)
        work.push_back(&v);
    while (!work.empty()) {
      const GlobalValue *gv = work.pop_back_val();
      for (const GlobalValue *r : refsOf(gv)) {
        if (!plan.refs[p].insert(r) || r->isDeclaration())
          continue;
        if (plan.copied.contains(r)) {
          work.push_back(r);
        } else if (!plan.home.count(r)) {
          plan.home[r] = p;
          work.push_back(r);
        }
      }
    }
  }
  // Locals nobody refers to stay in partition 0 (the optimiser drops them).
  for (const GlobalVariable &v : m.globals())
    if (!v.isDeclaration() && !plan.copied.contains(&v) && !plan.home.count(&v))
      plan.home[&v] = 0;
  return plan;
}

/// Makes the locals that one partition defines and another refers to
/// hidden globals, so that the partitions link; the merge makes them local
/// again.
void exposeCrossReferences(Module &m, const Plan &plan) {
  auto expose = [&](GlobalValue &gv) {
    if (!gv.hasLocalLinkage() || plan.copied.contains(&gv))
      return;
    unsigned h = plan.home.lookup(&gv);
    bool crosses = false;
    for (unsigned p = 0; p < plan.partitions && !crosses; ++p)
      crosses = p != h && plan.refs[p].contains(&gv);
    if (!crosses)
      return;
    if (!gv.hasName())
      gv.setName("tfrt.part");
    gv.setLinkage(GlobalValue::ExternalLinkage);
    gv.setVisibility(GlobalValue::HiddenVisibility);
    gv.setDSOLocal(true);
  };
  for (Function &f : m)
    if (!f.isDeclaration())
      expose(f);
  for (GlobalVariable &v : m.globals())
    if (!v.isDeclaration())
      expose(v);
}

/// Turns every definition of `m` that partition `p` does not hold into a
/// declaration.
void keepOnly(Module &m, const Plan &plan, unsigned p) {
  for (Function &f : m)
    if (!f.isDeclaration() && !plan.defines(p, &f)) {
      f.deleteBody();
      f.setLinkage(GlobalValue::ExternalLinkage);
      f.setComdat(nullptr);
    }
  for (GlobalVariable &v : m.globals())
    if (!v.isDeclaration() && !plan.defines(p, &v)) {
      v.setInitializer(nullptr);
      v.setLinkage(GlobalValue::ExternalLinkage);
      v.setComdat(nullptr);
    }
}

/// Joins relocatable objects with `ld.lld -r` and makes hidden symbols local.
Expected<std::string> mergeObjects(ArrayRef<std::string> objects,
                                   const std::string &linker) {
  SmallString<128> dir;
  if (auto ec = sys::fs::createUniqueDirectory("tfrt-parts", dir))
    return makeError("cannot create a temporary directory: " + ec.message());
  scope_exit cleanup([&] { (void)sys::fs::remove_directories(dir); });
  std::vector<std::string> paths;
  for (auto [i, obj] : llvm::enumerate(objects)) {
    std::string path = (dir + "/part" + Twine(i) + ".o").str();
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (ec)
      return makeError("cannot write " + path + ": " + ec.message());
    os << obj;
    paths.push_back(path);
  }
  std::string outPath = (dir + "/merged.o").str();
  std::string errPath = (dir + "/merge.err").str();
  SmallVector<StringRef> args = {linker, "-r", "-o", outPath};
  for (const std::string &p : paths)
    args.push_back(p);
  std::optional<StringRef> redirects[] = {std::nullopt, errPath, errPath};
  std::string errMsg;
  int rc =
      sys::ExecuteAndWait(linker, args, std::nullopt, redirects, 0, 0, &errMsg);
  if (rc != 0) {
    std::string log;
    if (auto b = MemoryBuffer::getFile(errPath))
      log = (*b)->getBuffer().str();
    return makeError("merging the partition objects with " + linker +
                     " failed" + (errMsg.empty() ? "" : ": " + errMsg) +
                     (log.empty() ? "" : "\n" + log));
  }
  auto merged = MemoryBuffer::getFile(outPath);
  if (!merged)
    return makeError("cannot read " + outPath + ": " +
                     merged.getError().message());
  auto bin = object::createBinary((*merged)->getMemBufferRef());
  if (!bin)
    return bin.takeError();
  objcopy::ConfigManager config;
  config.ELF.LocalizeHidden = true;
  SmallVector<char, 0> out;
  raw_svector_ostream os(out);
  if (auto e = objcopy::executeObjcopyOnBinary(config, **bin, os))
    return std::move(e);
  return std::string(out.begin(), out.end());
}
} // namespace

std::string tfrt::findMergeLinker() {
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (auto p = sys::findProgramByName(name))
      return *p;
#ifdef TFRT_LLVM_TOOLS_DIR
  SmallString<128> p(TFRT_LLVM_TOOLS_DIR);
  sys::path::append(p, "ld.lld");
  if (sys::fs::can_execute(p))
    return p.str().str();
#endif
  return "";
}

Expected<std::string> tfrt::optimizeAndCompile(Module &m,
                                               const TargetMachineFactory &tmf,
                                               const CodegenOptions &opts,
                                               CodegenStats &stats) {
  auto clock = std::chrono::steady_clock::now();
  uint64_t size = m.getInstructionCount();
  std::optional<Plan> plan;
  if (opts.threads <= 1)
    stats.whole = "one thread";
  else if (opts.fileType != CodeGenFileType::ObjectFile)
    stats.whole = "assembly or LLVM IR output";
  else if (!m.getTargetTriple().isOSBinFormatELF())
    stats.whole = "not an ELF target";
  else if (opts.mergeLinker.empty())
    stats.whole = "no ld.lld found to merge partitions";
  else if (size < opts.minInstructions)
    stats.whole = (Twine(size) +
                   " LLVM instructions, under the split "
                   "threshold of " +
                   Twine(opts.minInstructions))
                      .str();
  else if (!(plan = planPartitions(m, opts.threads, opts.computeSymbol)))
    stats.whole = "no parallel loops to spread over partitions";
  if (!plan) {
    std::unique_ptr<TargetMachine> tm = tmf();
    if (!tm)
      return makeError("cannot create a target machine");
    std::string out;
    if (auto e = runOne(m, *tm, opts, out, stats.optimizeSeconds,
                        stats.codegenSeconds))
      return std::move(e);
    stats.partitions = 1;
    return out;
  }

  exposeCrossReferences(m, *plan);
  unsigned n = plan->partitions;
  // Partitions 1.. are cloned and serialised for their threads; partition
  // 0 (the compute function, the ABI and most weights) is what remains of
  // `m` itself, compiled on this thread in its context.
  std::vector<SmallVector<char, 0>> bitcode(n);
  for (unsigned p = 1; p < n; ++p) {
    ValueToValueMapTy vmap;
    std::unique_ptr<Module> part = CloneModule(
        m, vmap, [&](const GlobalValue *gv) { return plan->defines(p, gv); });
    raw_svector_ostream os(bitcode[p]);
    WriteBitcodeToFile(*part, os);
  }
  keepOnly(m, *plan, 0);
  stats.splitSeconds = lap(clock);
  stats.partitions = n;

  std::vector<std::string> objects(n), errors(n);
  std::vector<double> optSeconds(n, 0), cgSeconds(n, 0);
  auto compile = [&](unsigned p, Module &part) {
    std::unique_ptr<TargetMachine> tm = tmf();
    if (!tm) {
      errors[p] = "cannot create a target machine";
      return;
    }
    if (auto e =
            runOne(part, *tm, opts, objects[p], optSeconds[p], cgSeconds[p]))
      errors[p] = toString(std::move(e));
  };
  auto work = [&](unsigned p) {
    LLVMContext ctx;
    auto part = parseBitcodeFile(
        MemoryBufferRef(StringRef(bitcode[p].data(), bitcode[p].size()),
                        "partition"),
        ctx);
    if (!part) {
      errors[p] = toString(part.takeError());
      return;
    }
    compile(p, **part);
  };
  // Threads through pthread_create, whose failure (a process at its thread
  // limit) is a return value: such partitions run on this thread after the
  // first one. std::thread would terminate the process without exceptions.
  struct Job {
    const std::function<void(unsigned)> *work;
    unsigned partition;
  };
  std::function<void(unsigned)> workFn = work;
  std::vector<Job> jobs(n);
  std::vector<pthread_t> threads;
  std::vector<unsigned> onThisThread;
  for (unsigned p = 1; p < n; ++p) {
    jobs[p] = Job{&workFn, p};
    pthread_t t;
    auto entry = [](void *arg) -> void * {
      auto *job = static_cast<Job *>(arg);
      (*job->work)(job->partition);
      return nullptr;
    };
    if (pthread_create(&t, nullptr, entry, &jobs[p]) == 0)
      threads.push_back(t);
    else
      onThisThread.push_back(p);
  }
  compile(0, m);
  for (unsigned p : onThisThread)
    work(p);
  for (pthread_t t : threads)
    pthread_join(t, nullptr);
  double parallel = lap(clock);
  for (unsigned p = 0; p < n; ++p)
    if (!errors[p].empty())
      return makeError("partition " + Twine(p) + ": " + errors[p]);
  stats.optimizeSeconds = *llvm::max_element(optSeconds);
  stats.codegenSeconds = std::max(0.0, parallel - stats.optimizeSeconds);

  auto merged = mergeObjects(objects, opts.mergeLinker);
  stats.mergeSeconds = lap(clock);
  return merged;
}
