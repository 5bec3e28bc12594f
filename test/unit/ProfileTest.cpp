//===- ProfileTest.cpp - unit tests of profiling builds' runtime side -----===//
//
// A hand-written profiled model (what `tfrt-compile --profile` emits: a
// descriptor with TFRT_MODEL_FLAG_PROFILE and a table, launches through
// tfrt_run_parallel_for_profiled and tfrt_profile_mark after an inline
// kernel) run through runtime-lib's C ABI: every entry is counted once per
// run with and without a pool and for asynchronous runs, instances count
// their own runs, reset, and the errors of tfrt/profile.h.
//
//===----------------------------------------------------------------------===//

#include "tfrt/profile.h"
#include "tfrt/async.h"
#include "tfrt/runtime.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int64_t kSize = 64;
const int64_t kDims[] = {kSize};
const tfrt_tensor_desc kInputs[] = {{"x", TFRT_DTYPE_FLOAT32, 1, kDims}};
const tfrt_tensor_desc kOutputs[] = {{"y", TFRT_DTYPE_FLOAT32, 1, kDims}};

struct Buffers {
  const float *in;
  float *out;
};

void doubleChunk(void *ctx, int64_t begin, int64_t end) {
  auto *b = static_cast<Buffers *>(ctx);
  for (int64_t i = begin * 8; i < end * 8; ++i)
    b->out[i] = 2 * b->in[i];
}

void addOneChunk(void *ctx, int64_t begin, int64_t end) {
  auto *b = static_cast<Buffers *>(ctx);
  for (int64_t i = begin * 8; i < end * 8; ++i)
    b->out[i] += 1;
}

/// y = 2 * x * 3 + 1: launch 0, an inline kernel (entry 1), launch 2.
void profiledEntry(void *const *inputs, void *const *outputs, void *,
                   tfrt_run_context *run) {
  Buffers b{static_cast<const float *>(inputs[0]),
            static_cast<float *>(outputs[0])};
  tfrt_run_parallel_for_profiled(run, kSize / 8, doubleChunk, &b, 0);
  for (int64_t i = 0; i < kSize; ++i)
    b.out[i] *= 3;
  tfrt_profile_mark(run, 1);
  tfrt_run_parallel_for_profiled(run, kSize / 8, addOneChunk, &b, 2);
}

const tfrt_profile_entry_desc kEntries[] = {
    {"double", "mul", kSize, TFRT_PROFILE_LAUNCH, kSize / 8},
    {"triple", "mul", kSize, TFRT_PROFILE_KERNEL, 0},
    {"add_one", "add", kSize, TFRT_PROFILE_LAUNCH, kSize / 8},
    {"", "", 0, TFRT_PROFILE_INLINE, 0},
};
const tfrt_profile_desc kProfile = {4, 2, kEntries};
const tfrt_profiled_model_desc kProfiled = {
    {TFRT_MODEL_ABI_VERSION, 1, 1, TFRT_MODEL_FLAG_PROFILE, "prof", kInputs,
     kOutputs, 0, 64, profiledEntry},
    &kProfile};
/// The same model compiled without --profile: no flag, no table; its launches
/// would call tfrt_run_parallel_for, which the profiled calls fall back to.
const tfrt_model_desc kPlain = {
    TFRT_MODEL_ABI_VERSION, 1, 1, 0, "plain", kInputs, kOutputs, 0, 64,
    profiledEntry};

struct Io {
  std::vector<float> x = std::vector<float>(kSize),
                     y = std::vector<float>(kSize);
  tfrt_tensor in, out;
  Io() {
    for (int64_t i = 0; i < kSize; ++i)
      x[i] = float(i);
    in = {x.data(), TFRT_DTYPE_FLOAT32, 1, kDims};
    out = {y.data(), TFRT_DTYPE_FLOAT32, 1, kDims};
  }
  bool correct() const {
    for (int64_t i = 0; i < kSize; ++i)
      if (y[i] != 6 * x[i] + 1)
        return false;
    return true;
  }
};

tfrt_instance *create(const tfrt_model_desc *desc) {
  tfrt_instance *instance = nullptr;
  tfrt_status status = tfrt_model_create(desc, &instance);
  EXPECT_EQ(status, nullptr) << tfrt_status_message(status);
  tfrt_status_free(status);
  return instance;
}

/// Every entry called `runs` times, and the times add up.
void expectCounted(tfrt_instance *instance, uint64_t runs) {
  tfrt_profile_counter counters[4];
  uint64_t counted = 0, runNs = 0;
  ASSERT_EQ(tfrt_model_profile(instance, counters, 4, &counted, &runNs),
            nullptr);
  EXPECT_EQ(counted, runs);
  uint64_t sum = 0;
  for (const tfrt_profile_counter &c : counters) {
    EXPECT_EQ(c.calls, runs);
    sum += c.nanoseconds;
  }
  EXPECT_LE(sum, runNs);
  if (runs)
    EXPECT_GT(runNs, 0u);
}

TEST(Profile, TableOfTheDescriptor) {
  EXPECT_EQ(tfrt_model_profile_desc(&kProfiled.model), &kProfile);
  EXPECT_EQ(tfrt_model_profile_desc(&kPlain), nullptr);
  EXPECT_EQ(tfrt_model_profile_desc(nullptr), nullptr);
}

TEST(Profile, EveryEntryOncePerRunWithAndWithoutPool) {
  tfrt_instance *instance = create(&kProfiled.model);
  ASSERT_NE(instance, nullptr);
  Io io;
  expectCounted(instance, 0);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(tfrt_model_run(instance, &io.in, 1, &io.out, 1), nullptr);
    EXPECT_TRUE(io.correct());
  }
  expectCounted(instance, 5);

  ASSERT_EQ(tfrt_model_profile_reset(instance), nullptr);
  expectCounted(instance, 0);
  tfrt_pool *pool = nullptr;
  ASSERT_EQ(tfrt_pool_create(2, &pool), nullptr);
  ASSERT_EQ(tfrt_model_set_pool(instance, pool), nullptr);
  for (int i = 0; i < 7; ++i) {
    ASSERT_EQ(tfrt_model_run(instance, &io.in, 1, &io.out, 1), nullptr);
    EXPECT_TRUE(io.correct());
  }
  expectCounted(instance, 7);
  tfrt_model_destroy(instance);
  tfrt_pool_destroy(pool);
}

TEST(Profile, AsynchronousRunsAndConcurrentInstances) {
  tfrt_pool *pool = nullptr;
  ASSERT_EQ(tfrt_pool_create(2, &pool), nullptr);
  // Two instances, each run asynchronously from its own thread on one pool:
  // each counts its own runs.
  auto runMany = [pool](tfrt_instance *instance, int runs) {
    Io io;
    for (int i = 0; i < runs; ++i) {
      std::mutex mutex;
      std::condition_variable cv;
      bool done = false;
      struct Done {
        std::mutex *mutex;
        std::condition_variable *cv;
        bool *done;
      } state{&mutex, &cv, &done};
      auto callback = [](void *user, tfrt_status status) {
        EXPECT_EQ(status, nullptr);
        tfrt_status_free(status);
        auto *s = static_cast<Done *>(user);
        std::lock_guard<std::mutex> lock(*s->mutex);
        *s->done = true;
        s->cv->notify_one();
      };
      ASSERT_EQ(tfrt_model_run_async(instance, &io.in, 1, &io.out, 1, pool,
                                     callback, &state),
                nullptr);
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait(lock, [&] { return done; });
      EXPECT_TRUE(io.correct());
    }
  };
  tfrt_instance *a = create(&kProfiled.model);
  tfrt_instance *b = create(&kProfiled.model);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::thread ta(runMany, a, 6), tb(runMany, b, 9);
  ta.join();
  tb.join();
  expectCounted(a, 6);
  expectCounted(b, 9);
  tfrt_model_destroy(a);
  tfrt_model_destroy(b);
  tfrt_pool_destroy(pool);
}

TEST(Profile, Errors) {
  tfrt_profile_counter counters[4];
  tfrt_status status =
      tfrt_model_profile(nullptr, counters, 4, nullptr, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
  EXPECT_EQ(tfrt_status_code(status = tfrt_model_profile_reset(nullptr)),
            TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);

  // A model without --profile runs (its profiled calls only run the loops)
  // and has no counters.
  tfrt_instance *plain = create(&kPlain);
  ASSERT_NE(plain, nullptr);
  Io io;
  ASSERT_EQ(tfrt_model_run(plain, &io.in, 1, &io.out, 1), nullptr);
  EXPECT_TRUE(io.correct());
  status = tfrt_model_profile(plain, counters, 4, nullptr, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tfrt_status_message(status)).find("without --profile"),
            std::string::npos);
  tfrt_status_free(status);
  tfrt_model_destroy(plain);

  // The counter array must match the table.
  tfrt_instance *instance = create(&kProfiled.model);
  ASSERT_NE(instance, nullptr);
  status = tfrt_model_profile(instance, counters, 3, nullptr, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
  tfrt_model_destroy(instance);

  // Malformed tables are refused at create.
  const tfrt_profile_desc noRest = {2, 2, kEntries};
  const tfrt_profiled_model_desc bad = {kProfiled.model, &noRest};
  tfrt_instance *out = nullptr;
  status = tfrt_model_create(&bad.model, &out);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  tfrt_status_free(status);
  const tfrt_profiled_model_desc none = {kProfiled.model, nullptr};
  status = tfrt_model_create(&none.model, &out);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
}

} // namespace
