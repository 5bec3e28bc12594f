//===- RuntimeTest.cpp - unit tests for the runtime-lib C ABI -------------===//
//
// Exercises runtime-lib through its public C header with a hand-written model
// descriptor whose entry adds two float32 [2,3] inputs into one output and
// records the workspace pointer it was given. Covers statuses, dtype helpers,
// instance lifetime, every validation error of tfrt_model_create and
// tfrt_model_run, workspace size/alignment and concurrent instances.
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

/// HugeWorkspaceIsOutOfMemory expects a failed allocation to return NULL;
/// the address and thread sanitizers would report it instead unless told
/// otherwise. Unused in normal builds.
extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1";
}
extern "C" const char *__tsan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

//===----------------------------------------------------------------------===//
// A fake compiled model: out = a + b over float32 [2,3].
//===----------------------------------------------------------------------===//

constexpr uint64_t kWorkspaceSize = 96;
constexpr uint64_t kWorkspaceAlignment = 64;

const int64_t kDims[] = {2, 3};
const tfrt_tensor_desc kInputs[] = {
    {"a", TFRT_DTYPE_FLOAT32, 2, kDims},
    {"b", TFRT_DTYPE_FLOAT32, 2, kDims},
};
const tfrt_tensor_desc kOutputs[] = {
    {"sum", TFRT_DTYPE_FLOAT32, 2, kDims},
};

/// The workspace pointer of the last run on this thread (set by addEntry).
thread_local void *tLastWorkspace = nullptr;

/// Entry of the fake model: stages a + b in the workspace, copies it to the
/// output and records the workspace pointer it was given.
/// Sum of the indices the last run's parallel loop visited (see addEntry).
std::atomic<int64_t> gLoopSum{0};

void addIndices(void * /*ctx*/, int64_t begin, int64_t end) {
  int64_t sum = 0;
  for (int64_t i = begin; i < end; ++i)
    sum += i;
  gLoopSum.fetch_add(sum);
}

void addEntry(void *const *inputs, void *const *outputs, void *workspace,
              tfrt_run_context *run) {
  // A parallel loop as generated code runs it.
  gLoopSum.store(0);
  tfrt_run_parallel_for(run, 1000, addIndices, nullptr);
  const float *a = static_cast<const float *>(inputs[0]);
  const float *b = static_cast<const float *>(inputs[1]);
  float *out = static_cast<float *>(outputs[0]);
  float *scratch = static_cast<float *>(workspace);
  for (int i = 0; i < 6; ++i)
    scratch[i] = a[i] + b[i];
  std::memcpy(out, scratch, 6 * sizeof(float));
  tLastWorkspace = workspace;
}

tfrt_model_desc makeDesc() {
  tfrt_model_desc desc{};
  desc.abi_version = TFRT_MODEL_ABI_VERSION;
  desc.num_inputs = 2;
  desc.num_outputs = 1;
  desc.flags = 0;
  desc.name = "fakeadd";
  desc.inputs = kInputs;
  desc.outputs = kOutputs;
  desc.workspace_size = kWorkspaceSize;
  desc.workspace_alignment = kWorkspaceAlignment;
  desc.entry = addEntry;
  return desc;
}

const tfrt_model_desc kDesc = makeDesc();

/// Owns a status for the duration of a test expression.
struct Status {
  explicit Status(tfrt_status status) : status(status) {}
  ~Status() { tfrt_status_free(status); }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  tfrt_code code() const { return tfrt_status_code(status); }
  std::string message() const { return tfrt_status_message(status); }
  bool ok() const { return status == nullptr; }
  tfrt_status status;
};

/// Buffers and tensors for one call of the fake model.
struct Call {
  Call() {
    for (int i = 0; i < 6; ++i) {
      a[i] = float(i);
      b[i] = float(10 * i);
    }
    inputs[0] = {a, TFRT_DTYPE_FLOAT32, 2, dims};
    inputs[1] = {b, TFRT_DTYPE_FLOAT32, 2, dims};
    outputs[0] = {out, TFRT_DTYPE_FLOAT32, 2, dims};
  }
  tfrt_status run(tfrt_instance *instance) {
    return tfrt_model_run(instance, inputs, 2, outputs, 1);
  }
  float a[6], b[6], out[6] = {};
  int64_t dims[2] = {2, 3};
  tfrt_tensor inputs[2];
  tfrt_tensor outputs[1];
};

/// Creates an instance of `desc` and destroys it at scope exit.
struct Instance {
  explicit Instance(const tfrt_model_desc *desc = &kDesc) {
    Status status(tfrt_model_create(desc, &instance));
    EXPECT_TRUE(status.ok()) << status.message();
  }
  ~Instance() { Status(tfrt_model_destroy(instance)); }
  tfrt_instance *instance = nullptr;
};

//===----------------------------------------------------------------------===//
// Statuses
//===----------------------------------------------------------------------===//

TEST(Status, NullIsOk) {
  EXPECT_EQ(tfrt_status_code(nullptr), TFRT_OK);
  EXPECT_STREQ(tfrt_status_message(nullptr), "");
  tfrt_status_free(nullptr); // must not crash
}

TEST(Status, CreateCopiesMessage) {
  std::string text = "something failed";
  tfrt_status status = tfrt_status_create(TFRT_INTERNAL, text.c_str());
  ASSERT_NE(status, nullptr);
  text[0] = 'X';
  EXPECT_EQ(tfrt_status_code(status), TFRT_INTERNAL);
  EXPECT_STREQ(tfrt_status_message(status), "something failed");
  EXPECT_NE(tfrt_status_message(status), text.c_str());
  tfrt_status_free(status);
}

TEST(Status, EveryErrorCodeRoundTrips) {
  for (tfrt_code code :
       {TFRT_INVALID_ARGUMENT, TFRT_OUT_OF_MEMORY, TFRT_FAILED_PRECONDITION,
        TFRT_UNAVAILABLE, TFRT_CANCELLED, TFRT_INTERNAL}) {
    Status status(tfrt_status_create(code, "m"));
    EXPECT_EQ(status.code(), code);
    EXPECT_EQ(status.message(), "m");
  }
}

TEST(Status, NullMessageIsEmpty) {
  Status status(tfrt_status_create(TFRT_CANCELLED, nullptr));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), TFRT_CANCELLED);
  EXPECT_EQ(status.message(), "");
}

TEST(Status, CreateWithOkCodeIsNull) {
  EXPECT_EQ(tfrt_status_create(TFRT_OK, "fine"), nullptr);
}

TEST(Status, LongMessage) {
  std::string text(100000, 'y');
  Status status(tfrt_status_create(TFRT_UNAVAILABLE, text.c_str()));
  EXPECT_EQ(status.message(), text);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

TEST(DType, SizesAndNames) {
  struct Expected {
    int32_t dtype;
    size_t size;
    const char *name;
  };
  const Expected table[] = {
      {TFRT_DTYPE_FLOAT32, 4, "float32"},   {TFRT_DTYPE_UINT8, 1, "uint8"},
      {TFRT_DTYPE_INT8, 1, "int8"},         {TFRT_DTYPE_UINT16, 2, "uint16"},
      {TFRT_DTYPE_INT16, 2, "int16"},       {TFRT_DTYPE_INT32, 4, "int32"},
      {TFRT_DTYPE_INT64, 8, "int64"},       {TFRT_DTYPE_BOOL, 1, "bool"},
      {TFRT_DTYPE_FLOAT16, 2, "float16"},   {TFRT_DTYPE_FLOAT64, 8, "float64"},
      {TFRT_DTYPE_UINT32, 4, "uint32"},     {TFRT_DTYPE_UINT64, 8, "uint64"},
      {TFRT_DTYPE_BFLOAT16, 2, "bfloat16"},
  };
  for (const Expected &e : table) {
    EXPECT_EQ(tfrt_dtype_size(e.dtype), e.size) << e.name;
    EXPECT_STREQ(tfrt_dtype_name(e.dtype), e.name);
  }
}

TEST(DType, UnknownCodes) {
  for (int32_t code : {0, 8, 14, 15, 17, -1, 1000}) {
    EXPECT_EQ(tfrt_dtype_size(code), 0u) << code;
    EXPECT_STREQ(tfrt_dtype_name(code), "invalid") << code;
  }
}

//===----------------------------------------------------------------------===//
// Instances
//===----------------------------------------------------------------------===//

TEST(Model, CreateRunDestroy) {
  tfrt_instance *instance = nullptr;
  Status created(tfrt_model_create(&kDesc, &instance));
  ASSERT_TRUE(created.ok()) << created.message();
  ASSERT_NE(instance, nullptr);
  EXPECT_EQ(tfrt_model_descriptor(instance), &kDesc);

  Call call;
  Status ran(call.run(instance));
  ASSERT_TRUE(ran.ok()) << ran.message();
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(call.out[i], float(11 * i));

  // Running again reuses the same instance.
  call.a[0] = 5;
  Status again(call.run(instance));
  ASSERT_TRUE(again.ok());
  EXPECT_FLOAT_EQ(call.out[0], 5.0f);

  EXPECT_EQ(tfrt_model_destroy(instance), nullptr);
}

TEST(Model, DestroyNullIsOk) {
  EXPECT_EQ(tfrt_model_destroy(nullptr), nullptr);
}

TEST(Model, DescriptorOfNullInstance) {
  EXPECT_EQ(tfrt_model_descriptor(nullptr), nullptr);
}

/// Runs the fake model with a workspace of `size` bytes aligned to
/// `alignment` and checks that the entry got one aligned to `expected`
/// whose whole planned size is writable.
void checkWorkspace(uint64_t size, uint64_t alignment, uint64_t expected) {
  tfrt_model_desc desc = kDesc;
  desc.workspace_size = size;
  desc.workspace_alignment = alignment;
  Instance instance(&desc);
  ASSERT_NE(instance.instance, nullptr);
  Call call;
  tLastWorkspace = nullptr;
  Status status(call.run(instance.instance));
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_NE(tLastWorkspace, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tLastWorkspace) % expected, 0u)
      << "size " << size << ", alignment " << alignment;
  std::memset(tLastWorkspace, 0xab, size_t(size));
}

TEST(Model, WorkspaceIsAlignedAndSized) {
  for (uint64_t alignment : {1u, 2u, 8u, 16u, 64u, 256u, 4096u})
    for (uint64_t size : {uint64_t(24), uint64_t(1000), uint64_t(1) << 20})
      checkWorkspace(size, alignment, alignment);
}

TEST(Model, LargeWorkspaceStartsOnA2MiBBoundary) {
  // 4 MiB and more: whole 2 MiB (huge) pages, whatever the model asked for.
  for (uint64_t size : {uint64_t(4) << 20, (uint64_t(9) << 20) + 24})
    checkWorkspace(size, 64, uint64_t(2) << 20);
}

TEST(Model, ZeroWorkspace) {
  tfrt_model_desc desc = kDesc;
  desc.workspace_size = 0;
  desc.workspace_alignment = 1;
  desc.entry = [](void *const *inputs, void *const *outputs, void *workspace,
                  tfrt_run_context * /*run*/) {
    tLastWorkspace = workspace;
    const float *a = static_cast<const float *>(inputs[0]);
    const float *b = static_cast<const float *>(inputs[1]);
    float *out = static_cast<float *>(outputs[0]);
    for (int i = 0; i < 6; ++i)
      out[i] = a[i] + b[i];
  };
  Instance instance(&desc);
  ASSERT_NE(instance.instance, nullptr);
  Call call;
  tLastWorkspace = &call;
  Status status(call.run(instance.instance));
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(tLastWorkspace, nullptr);
  EXPECT_FLOAT_EQ(call.out[5], 55.0f);
}

TEST(Model, InstancesHaveDistinctWorkspaces) {
  Instance first, second;
  ASSERT_NE(first.instance, nullptr);
  ASSERT_NE(second.instance, nullptr);
  Call call;
  Status run1(call.run(first.instance));
  char *workspace1 = static_cast<char *>(tLastWorkspace);
  Status run2(call.run(second.instance));
  char *workspace2 = static_cast<char *>(tLastWorkspace);
  Status run3(call.run(first.instance));
  char *workspace1Again = static_cast<char *>(tLastWorkspace);
  ASSERT_TRUE(run1.ok() && run2.ok() && run3.ok());
  ASSERT_NE(workspace1, nullptr);
  EXPECT_NE(workspace1, workspace2);
  EXPECT_EQ(workspace1, workspace1Again)
      << "the workspace is allocated once per instance";
  // The arenas must not overlap.
  EXPECT_TRUE(workspace1 + kWorkspaceSize <= workspace2 ||
              workspace2 + kWorkspaceSize <= workspace1);
}

//===----------------------------------------------------------------------===//
// tfrt_model_create validation
//===----------------------------------------------------------------------===//

TEST(ModelCreate, NullArguments) {
  tfrt_instance *instance = reinterpret_cast<tfrt_instance *>(0x1);
  Status nullDesc(tfrt_model_create(nullptr, &instance));
  EXPECT_EQ(nullDesc.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(instance, nullptr);
  EXPECT_NE(nullDesc.message().find("descriptor"), std::string::npos);

  Status nullOut(tfrt_model_create(&kDesc, nullptr));
  EXPECT_EQ(nullOut.code(), TFRT_INVALID_ARGUMENT);
}

TEST(ModelCreate, BadAbiVersion) {
  tfrt_model_desc desc = kDesc;
  desc.abi_version = TFRT_MODEL_ABI_VERSION + 1;
  tfrt_instance *instance = nullptr;
  Status status(tfrt_model_create(&desc, &instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(instance, nullptr);
  EXPECT_NE(status.message().find("ABI version 2"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("fakeadd"), std::string::npos);
}

TEST(ModelCreate, AlignmentMustBeAPowerOfTwo) {
  for (uint64_t alignment : {0u, 3u, 12u, 100u}) {
    tfrt_model_desc desc = kDesc;
    desc.workspace_alignment = alignment;
    tfrt_instance *instance = nullptr;
    Status status(tfrt_model_create(&desc, &instance));
    EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT) << alignment;
    EXPECT_NE(status.message().find("power of two"), std::string::npos);
    EXPECT_EQ(instance, nullptr);
  }
}

TEST(ModelCreate, NullEntry) {
  tfrt_model_desc desc = kDesc;
  desc.entry = nullptr;
  tfrt_instance *instance = nullptr;
  Status status(tfrt_model_create(&desc, &instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("entry"), std::string::npos);
}

TEST(ModelCreate, MalformedTensorDescriptions) {
  const int64_t negative[] = {2, -1};
  const tfrt_tensor_desc badDtype[] = {{"a", 99, 2, kDims}, kInputs[1]};
  const tfrt_tensor_desc nullDims[] = {{"a", TFRT_DTYPE_FLOAT32, 2, nullptr},
                                       kInputs[1]};
  const tfrt_tensor_desc negRank[] = {{"a", TFRT_DTYPE_FLOAT32, -1, kDims},
                                      kInputs[1]};
  const tfrt_tensor_desc negDim[] = {{"a", TFRT_DTYPE_FLOAT32, 2, negative},
                                     kInputs[1]};
  for (const tfrt_tensor_desc *inputs :
       {badDtype, nullDims, negRank, negDim,
        static_cast<const tfrt_tensor_desc *>(nullptr)}) {
    tfrt_model_desc desc = kDesc;
    desc.inputs = inputs;
    tfrt_instance *instance = nullptr;
    Status status(tfrt_model_create(&desc, &instance));
    EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
    EXPECT_EQ(instance, nullptr);
  }
}

TEST(ModelCreate, HugeWorkspaceIsOutOfMemory) {
  tfrt_model_desc desc = kDesc;
  desc.workspace_size = UINT64_MAX / 2;
  tfrt_instance *instance = nullptr;
  Status status(tfrt_model_create(&desc, &instance));
  EXPECT_EQ(status.code(), TFRT_OUT_OF_MEMORY) << status.message();
  EXPECT_EQ(instance, nullptr);
}

//===----------------------------------------------------------------------===//
// tfrt_model_run validation
//===----------------------------------------------------------------------===//

TEST(ModelRun, NullInstance) {
  Call call;
  Status status(call.run(nullptr));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("null instance"), std::string::npos);
}

TEST(ModelRun, WrongInputCount) {
  Instance instance;
  Call call;
  Status status(
      tfrt_model_run(instance.instance, call.inputs, 1, call.outputs, 1));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), "model 'fakeadd': expected 2 inputs, got 1");
}

TEST(ModelRun, WrongOutputCount) {
  Instance instance;
  Call call;
  Status status(
      tfrt_model_run(instance.instance, call.inputs, 2, call.outputs, 0));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), "model 'fakeadd': expected 1 outputs, got 0");
}

TEST(ModelRun, NullArrays) {
  Instance instance;
  Call call;
  Status inputs(tfrt_model_run(instance.instance, nullptr, 2, call.outputs, 1));
  EXPECT_EQ(inputs.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(inputs.message().find("null inputs array"), std::string::npos);
  Status outputs(tfrt_model_run(instance.instance, call.inputs, 2, nullptr, 1));
  EXPECT_EQ(outputs.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(outputs.message().find("null outputs array"), std::string::npos);
}

TEST(ModelRun, NullData) {
  Instance instance;
  Call call;
  call.inputs[1].data = nullptr;
  Status input(call.run(instance.instance));
  EXPECT_EQ(input.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(input.message(), "input 1 ('b'): null data pointer");

  Call call2;
  call2.outputs[0].data = nullptr;
  Status output(call2.run(instance.instance));
  EXPECT_EQ(output.message(), "output 0 ('sum'): null data pointer");
}

TEST(ModelRun, WrongDtype) {
  Instance instance;
  Call call;
  call.inputs[0].dtype = TFRT_DTYPE_INT64;
  Status status(call.run(instance.instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "input 'a': dtype int64 does not match the model's float32");
}

TEST(ModelRun, WrongRank) {
  Instance instance;
  Call call;
  int64_t dims3[] = {2, 3, 1};
  call.outputs[0].rank = 3;
  call.outputs[0].dims = dims3;
  Status status(call.run(instance.instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "output 'sum': rank 3 does not match the model's rank 2 (shape "
            "[2,3,1] vs the model's [2,3])");
}

TEST(ModelRun, WrongDims) {
  Instance instance;
  Call call;
  int64_t dims[] = {2, 4};
  call.inputs[1].dims = dims;
  Status status(call.run(instance.instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "input 'b': shape [2,4] does not match the model's [2,3]");
}

TEST(ModelRun, NullDims) {
  Instance instance;
  Call call;
  call.inputs[0].dims = nullptr;
  Status status(call.run(instance.instance));
  EXPECT_EQ(status.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("null dims"), std::string::npos);
}

TEST(ModelRun, FailedValidationRunsNothing) {
  Instance instance;
  Call call;
  int64_t dims[] = {3, 2};
  call.inputs[0].dims = dims;
  for (float &value : call.out)
    value = -1.0f;
  Status status(call.run(instance.instance));
  EXPECT_FALSE(status.ok());
  for (float value : call.out)
    EXPECT_EQ(value, -1.0f);
}

//===----------------------------------------------------------------------===//
// Tensor info
//===----------------------------------------------------------------------===//

TEST(ModelInfo, InputsAndOutputs) {
  tfrt_tensor_desc info{};
  Status in(tfrt_model_input_info(&kDesc, 1, &info));
  ASSERT_TRUE(in.ok());
  EXPECT_STREQ(info.name, "b");
  EXPECT_EQ(info.dtype, TFRT_DTYPE_FLOAT32);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[1], 3);
  Status out(tfrt_model_output_info(&kDesc, 0, &info));
  ASSERT_TRUE(out.ok());
  EXPECT_STREQ(info.name, "sum");
}

TEST(ModelInfo, IndexOutOfRange) {
  tfrt_tensor_desc info{};
  Status in(tfrt_model_input_info(&kDesc, 2, &info));
  EXPECT_EQ(in.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(in.message().find("out of range"), std::string::npos);
  Status out(tfrt_model_output_info(&kDesc, 1, &info));
  EXPECT_EQ(out.code(), TFRT_INVALID_ARGUMENT);
  Status huge(tfrt_model_output_info(&kDesc, SIZE_MAX, &info));
  EXPECT_EQ(huge.code(), TFRT_INVALID_ARGUMENT);
}

TEST(ModelInfo, NullArguments) {
  tfrt_tensor_desc info{};
  Status nullDesc(tfrt_model_input_info(nullptr, 0, &info));
  EXPECT_EQ(nullDesc.code(), TFRT_INVALID_ARGUMENT);
  Status nullOut(tfrt_model_output_info(&kDesc, 0, nullptr));
  EXPECT_EQ(nullOut.code(), TFRT_INVALID_ARGUMENT);
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST(ModelConcurrency, InstancesRunInParallel) {
  constexpr int kThreads = 4;
  constexpr int kRuns = 10000;
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::atomic<int> done{0};
  void *workspaces[kThreads] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &ready, &done, &workspaces] {
      tfrt_instance *instance = nullptr;
      tfrt_status created = tfrt_model_create(&kDesc, &instance);
      // Start all threads' runs together to maximize overlap.
      ++ready;
      while (ready.load() < kThreads)
        std::this_thread::yield();
      if (created) {
        tfrt_status_free(created);
        ++failures;
        ++done;
        return;
      }
      Call call;
      for (int run = 0; run < kRuns; ++run) {
        for (int i = 0; i < 6; ++i) {
          call.a[i] = float(t * 1000 + run % 100);
          call.b[i] = float(i);
        }
        if (run % 100 == 7) {
          // Interleave validation failures: statuses are per call too.
          int64_t wrong[] = {2, 2};
          call.inputs[0].dims = wrong;
          Status status(call.run(instance));
          call.inputs[0].dims = call.dims;
          if (status.message() !=
              "input 'a': shape [2,2] does not match the model's [2,3]")
            ++failures;
          continue;
        }
        tfrt_status status = call.run(instance);
        if (status) {
          tfrt_status_free(status);
          ++failures;
          break;
        }
        for (int i = 0; i < 6; ++i)
          if (call.out[i] != float(t * 1000 + run % 100 + i))
            ++failures;
        if (run == 0)
          workspaces[t] = tLastWorkspace;
        else if (tLastWorkspace != workspaces[t])
          ++failures;
      }
      // Keep every instance alive until all threads are done, so that the
      // recorded workspaces were live at the same time.
      ++done;
      while (done.load() < kThreads)
        std::this_thread::yield();
      tfrt_model_destroy(instance);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (int i = 0; i < kThreads; ++i)
    for (int j = i + 1; j < kThreads; ++j)
      EXPECT_NE(workspaces[i], workspaces[j]);
}

} // namespace

//===----------------------------------------------------------------------===//
// Pools and asynchronous runs
//===----------------------------------------------------------------------===//

/// A pool for one test.
struct Pool {
  explicit Pool(int threads) {
    tfrt_status status = tfrt_pool_create(threads, &pool);
    EXPECT_EQ(status, nullptr);
    tfrt_status_free(status);
  }
  ~Pool() { tfrt_pool_destroy(pool); }
  tfrt_pool *pool = nullptr;
};

TEST(ModelPool, ParallelLoopsCoverTheRangeWithAndWithoutPool) {
  Pool pool(2);
  tfrt_instance *instance = nullptr;
  ASSERT_EQ(tfrt_model_create(&kDesc, &instance), nullptr);
  Call call;
  for (int round = 0; round < 200; ++round) {
    tfrt_pool *p = round % 2 ? pool.pool : nullptr;
    ASSERT_EQ(tfrt_model_set_pool(instance, p), nullptr);
    ASSERT_EQ(call.run(instance), nullptr);
    EXPECT_EQ(gLoopSum.load(), 999 * 1000 / 2);
  }
  tfrt_model_destroy(instance);
  Status null(tfrt_model_set_pool(nullptr, pool.pool));
  EXPECT_EQ(null.code(), TFRT_INVALID_ARGUMENT);
  // Generated code may run without any run context.
  gLoopSum.store(0);
  tfrt_run_parallel_for(nullptr, 10, addIndices, nullptr);
  EXPECT_EQ(gLoopSum.load(), 45);
}

/// A model whose entry launches single-iteration loops (a kernel on its
/// own, as every launch of PP-OCR cls): with a pool they run on the calling
/// thread, exactly as without one.
std::atomic<int> gForeignIterations{0};
std::atomic<int> gIterations{0};

void singleIterationEntry(void *const *, void *const *, void *,
                          tfrt_run_context *run) {
  std::thread::id caller = std::this_thread::get_id();
  for (int i = 0; i < 50; ++i)
    tfrt_run_parallel_for(
        run, 1,
        [](void *ctx, int64_t begin, int64_t end) {
          EXPECT_EQ(begin, 0);
          EXPECT_EQ(end, 1);
          ++gIterations;
          if (std::this_thread::get_id() !=
              *static_cast<std::thread::id *>(ctx))
            ++gForeignIterations;
        },
        &caller);
}

TEST(ModelPool, SingleIterationLaunchesRunOnTheCaller) {
  tfrt_model_desc desc = makeDesc();
  desc.entry = singleIterationEntry;
  Pool pool(2);
  tfrt_instance *instance = nullptr;
  ASSERT_EQ(tfrt_model_create(&desc, &instance), nullptr);
  ASSERT_EQ(tfrt_model_set_pool(instance, pool.pool), nullptr);
  Call call;
  gIterations = 0;
  gForeignIterations = 0;
  for (int round = 0; round < 20; ++round)
    ASSERT_EQ(call.run(instance), nullptr);
  EXPECT_EQ(gIterations.load(), 20 * 50);
  EXPECT_EQ(gForeignIterations.load(), 0);
  tfrt_model_destroy(instance);
}

/// A model whose entry cancels its own run between two parallel loops
/// (as another thread's tfrt_model_cancel would): the second loop must not
/// run and the run reports TFRT_CANCELLED.
tfrt_instance *gCancelTarget = nullptr;
std::atomic<int> gSecondLoopChunks{0};

void cancellingEntry(void *const *, void *const *, void *,
                     tfrt_run_context *run) {
  tfrt_run_parallel_for(
      run, 4,
      [](void *, int64_t, int64_t) {
        if (gCancelTarget)
          tfrt_status_free(tfrt_model_cancel(gCancelTarget));
      },
      nullptr);
  tfrt_run_parallel_for(
      run, 4, [](void *, int64_t b, int64_t e) { gSecondLoopChunks += e - b; },
      nullptr);
}

TEST(ModelCancel, CancelledRunSkipsLaterLoopsAndReportsIt) {
  tfrt_model_desc desc = makeDesc();
  desc.entry = cancellingEntry;
  Pool pool(2);
  for (tfrt_pool *p : {static_cast<tfrt_pool *>(nullptr), pool.pool}) {
    tfrt_instance *instance = nullptr;
    ASSERT_EQ(tfrt_model_create(&desc, &instance), nullptr);
    ASSERT_EQ(tfrt_model_set_pool(instance, p), nullptr);
    Call call;
    gCancelTarget = instance;
    gSecondLoopChunks = 0;
    Status cancelled(call.run(instance));
    EXPECT_EQ(cancelled.code(), TFRT_CANCELLED);
    EXPECT_NE(cancelled.message().find("cancelled"), std::string::npos);
    EXPECT_EQ(gSecondLoopChunks.load(), 0);
    // The next run starts uncancelled.
    gCancelTarget = nullptr;
    EXPECT_EQ(call.run(instance), nullptr);
    EXPECT_EQ(gSecondLoopChunks.load(), 4);
    // Asynchronous runs report it through their callback.
    gCancelTarget = instance;
    gSecondLoopChunks = 0;
    std::promise<tfrt_code> code;
    ASSERT_EQ(tfrt_model_run_async(
                  instance, call.inputs, 2, call.outputs, 1, pool.pool,
                  [](void *user, tfrt_status status) {
                    static_cast<std::promise<tfrt_code> *>(user)->set_value(
                        tfrt_status_code(status));
                    tfrt_status_free(status);
                  },
                  &code),
              nullptr);
    EXPECT_EQ(code.get_future().get(), TFRT_CANCELLED);
    EXPECT_EQ(gSecondLoopChunks.load(), 0);
    gCancelTarget = nullptr;
    tfrt_model_destroy(instance);
  }
  Status null(tfrt_model_cancel(nullptr));
  EXPECT_EQ(null.code(), TFRT_INVALID_ARGUMENT);
}

std::atomic<bool> gReportErrors{false};
std::atomic<int> gReportChunks{0};
const char kFirstCheck[] = "node 'g' (Gather): an index is outside [-3, 3)";
const char kSecondCheck[] = "node 'h' (GatherND): an index tuple is outside";

/// An entry whose checks fail in every chunk of a parallel loop (from
/// several threads at once when there is a pool), then in the inline code
/// after it: the run's status is one of the loop's messages, and the run
/// still completes.
void checkingEntry(void *const *, void *const *, void *,
                   tfrt_run_context *run) {
  tfrt_run_parallel_for(
      run, 64,
      [](void *ctx, int64_t b, int64_t e) {
        auto *r = static_cast<tfrt_run_context *>(ctx);
        for (int64_t i = b; i < e; ++i) {
          if (gReportErrors)
            tfrt_run_report_error(r, kFirstCheck);
          ++gReportChunks;
        }
      },
      run);
  if (gReportErrors)
    tfrt_run_report_error(run, kSecondCheck);
  // Reports without a run context or message are ignored.
  tfrt_run_report_error(nullptr, kSecondCheck);
  tfrt_run_report_error(run, nullptr);
}

TEST(ModelChecks, FailedCheckIsTheRunsStatusAndTheNextRunStartsClean) {
  tfrt_model_desc desc = makeDesc();
  desc.entry = checkingEntry;
  Pool pool(3);
  for (tfrt_pool *p : {static_cast<tfrt_pool *>(nullptr), pool.pool}) {
    tfrt_instance *instance = nullptr;
    ASSERT_EQ(tfrt_model_create(&desc, &instance), nullptr);
    ASSERT_EQ(tfrt_model_set_pool(instance, p), nullptr);
    Call call;
    for (int round = 0; round < 50; ++round) {
      gReportErrors = true;
      gReportChunks = 0;
      Status failed(call.run(instance));
      EXPECT_EQ(failed.code(), TFRT_INVALID_ARGUMENT);
      EXPECT_NE(failed.message().find(kFirstCheck), std::string::npos)
          << failed.message();
      EXPECT_NE(failed.message().find("model 'fakeadd'"), std::string::npos)
          << failed.message();
      // The run went on: every chunk ran.
      EXPECT_EQ(gReportChunks.load(), 64);
      gReportErrors = false;
      EXPECT_EQ(call.run(instance), nullptr);
    }
    // Asynchronous runs report it through their callback.
    gReportErrors = true;
    std::promise<std::string> message;
    ASSERT_EQ(tfrt_model_run_async(
                  instance, call.inputs, 2, call.outputs, 1, pool.pool,
                  [](void *user, tfrt_status status) {
                    static_cast<std::promise<std::string> *>(user)->set_value(
                        status ? tfrt_status_message(status) : "");
                    tfrt_status_free(status);
                  },
                  &message),
              nullptr);
    EXPECT_NE(message.get_future().get().find(kFirstCheck), std::string::npos);
    gReportErrors = false;
    tfrt_model_destroy(instance);
  }
}

/// Counts completions; waits for an expected number of them.
struct Completions {
  static void done(void *self, tfrt_status status) {
    auto *c = static_cast<Completions *>(self);
    std::lock_guard<std::mutex> lock(c->mutex);
    if (status) {
      ++c->errors;
      tfrt_status_free(status);
    }
    ++c->count;
    c->changed.notify_all();
  }
  void waitFor(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return count >= n; });
  }
  std::mutex mutex;
  std::condition_variable changed;
  int count = 0;
  int errors = 0;
};

TEST(ModelAsync, ManyRunsInFlightOnOnePool) {
  constexpr int kInstances = 16;
  constexpr int kRounds = 300;
  Pool pool(2);
  std::vector<tfrt_instance *> instances(kInstances, nullptr);
  std::vector<Call> calls(kInstances);
  for (tfrt_instance *&instance : instances)
    ASSERT_EQ(tfrt_model_create(&kDesc, &instance), nullptr);
  Completions completions;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (int k = 0; k < kInstances; ++k) {
      for (int i = 0; i < 6; ++i) {
        calls[k].a[i] = float(round * 100 + k);
        calls[k].b[i] = float(i);
      }
      tfrt_status status = tfrt_model_run_async(
          instances[k], calls[k].inputs, 2, calls[k].outputs, 1, pool.pool,
          Completions::done, &completions);
      if (status) {
        tfrt_status_free(status);
        ++failures;
        Completions::done(&completions, nullptr);
      }
    }
    completions.waitFor((round + 1) * kInstances);
    for (int k = 0; k < kInstances; ++k)
      for (int i = 0; i < 6; ++i)
        if (calls[k].out[i] != float(round * 100 + k + i))
          ++failures;
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(completions.errors, 0);
  for (tfrt_instance *instance : instances)
    tfrt_model_destroy(instance);
}

TEST(ModelAsync, InvalidCallFailsAtOnceWithoutCallback) {
  Pool pool(1);
  tfrt_instance *instance = nullptr;
  ASSERT_EQ(tfrt_model_create(&kDesc, &instance), nullptr);
  Completions completions;
  Call call;
  int64_t wrong[] = {3, 2};
  call.inputs[1].dims = wrong;
  Status shape(tfrt_model_run_async(instance, call.inputs, 2, call.outputs, 1,
                                    pool.pool, Completions::done,
                                    &completions));
  EXPECT_EQ(shape.code(), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(shape.message(),
            "input 'b': shape [3,2] does not match the model's [2,3]");
  call.inputs[1].dims = call.dims;
  Status noPool(tfrt_model_run_async(instance, call.inputs, 2, call.outputs,
                                     1, nullptr, Completions::done,
                                     &completions));
  EXPECT_EQ(noPool.code(), TFRT_INVALID_ARGUMENT);
  Status noDone(tfrt_model_run_async(instance, call.inputs, 2, call.outputs,
                                     1, pool.pool, nullptr, nullptr));
  EXPECT_EQ(noDone.code(), TFRT_INVALID_ARGUMENT);
  Status noInstance(tfrt_model_run_async(nullptr, call.inputs, 2,
                                         call.outputs, 1, pool.pool,
                                         Completions::done, &completions));
  EXPECT_EQ(noInstance.code(), TFRT_INVALID_ARGUMENT);
  tfrt_pool_quiesce(pool.pool);
  EXPECT_EQ(completions.count, 0);
  tfrt_model_destroy(instance);
}

TEST(ModelAsync, CallbackMayStartTheNextRun) {
  // A chain of runs of one instance, each started from the previous one's
  // completion on a pool thread.
  struct Chain {
    tfrt_instance *instance = nullptr;
    tfrt_pool *pool = nullptr;
    Call call;
    int remaining = 1000;
    int failures = 0;
    Completions finished;
    static void next(void *self, tfrt_status status) {
      auto *c = static_cast<Chain *>(self);
      if (status) {
        tfrt_status_free(status);
        ++c->failures;
      }
      for (int i = 0; i < 6; ++i)
        if (c->call.out[i] != c->call.a[i] + c->call.b[i])
          ++c->failures;
      if (--c->remaining == 0) {
        Completions::done(&c->finished, nullptr);
        return;
      }
      c->call.a[0] = float(c->remaining);
      if (tfrt_status s = tfrt_model_run_async(c->instance, c->call.inputs, 2,
                                               c->call.outputs, 1, c->pool,
                                               next, c)) {
        tfrt_status_free(s);
        ++c->failures;
        Completions::done(&c->finished, nullptr);
      }
    }
  };
  Pool pool(2);
  Chain chain;
  chain.pool = pool.pool;
  ASSERT_EQ(tfrt_model_create(&kDesc, &chain.instance), nullptr);
  ASSERT_EQ(tfrt_model_run_async(chain.instance, chain.call.inputs, 2,
                                 chain.call.outputs, 1, pool.pool, Chain::next,
                                 &chain),
            nullptr);
  chain.finished.waitFor(1);
  EXPECT_EQ(chain.failures, 0);
  EXPECT_EQ(chain.remaining, 0);
  tfrt_model_destroy(chain.instance);
}
