//===- ThreadPoolTest.cpp - tfrt::ThreadPool, TaskGroup and the C ABI -----===//
//
// A million-task stress with an exact count, ParallelFor coverage over many
// (n, minChunk) pairs, three-level nested ParallelFor, blocking tasks that do
// not starve the workers, shutdown while busy, two pools at once,
// cancellation, the TFRT_NUM_THREADS variable, helping waits on workers and
// the tfrt/async.h C ABI. Sized to run in a few seconds on two cores.
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/thread_pool.h"

#include <gtest/gtest.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tfrt;

namespace {

TEST(ThreadPoolTest, RunsEveryTaskOnce) {
  ThreadPool pool(2);
  EXPECT_EQ(pool.NumThreads(), 2);
  std::atomic<int> count{0};
  for (int i = 0; i < 1000; ++i)
    pool.Schedule([&] { count.fetch_add(1, std::memory_order_relaxed); });
  pool.Quiesce();
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPoolTest, MillionTinyTasks) {
  constexpr int kTasks = 1000000;
  std::atomic<int64_t> count{0};
  {
    ThreadPool pool(2);
    // Half from an outside thread (injection queue), half fanned out by
    // workers into their own deques (stealing).
    for (int i = 0; i < kTasks / 2; ++i)
      pool.Schedule([&] { count.fetch_add(1, std::memory_order_relaxed); });
    constexpr int kSpawners = 100;
    for (int s = 0; s < kSpawners; ++s)
      pool.Schedule([&pool, &count] {
        for (int i = 0; i < kTasks / 2 / kSpawners; ++i)
          pool.Schedule(
              [&count] { count.fetch_add(1, std::memory_order_relaxed); });
      });
    pool.Quiesce();
    EXPECT_EQ(count.load(), kTasks);
  }
  EXPECT_EQ(count.load(), kTasks);
}

TEST(ThreadPoolTest, WorkerIdentity) {
  ThreadPool pool(3);
  EXPECT_FALSE(pool.IsWorkerThread());
  EXPECT_EQ(pool.CurrentWorkerIndex(), -1);
  std::atomic<int> bad{0};
  for (int i = 0; i < 100; ++i)
    pool.Schedule([&] {
      int index = pool.CurrentWorkerIndex();
      if (!pool.IsWorkerThread() || index < 0 || index >= 3)
        bad.fetch_add(1);
    });
  pool.Quiesce();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnce) {
  ThreadPool pool(2);
  const int64_t sizes[] = {0, 1, 2, 3, 7, 16, 63, 64, 65, 100, 1000, 4097};
  const int64_t chunks[] = {0, 1, 2, 3, 10, 64, 1000, 5000};
  for (int64_t n : sizes) {
    for (int64_t minChunk : chunks) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::atomic<int> badRange{0};
      pool.ParallelFor(n, minChunk, [&](int64_t begin, int64_t end) {
        int64_t effectiveMin = minChunk < 1 ? 1 : minChunk;
        if (begin < 0 || end > n || begin >= end ||
            (end - begin < effectiveMin && end != n))
          badRange.fetch_add(1);
        for (int64_t i = begin; i < end; ++i)
          hits[static_cast<size_t>(i)].fetch_add(1);
      });
      EXPECT_EQ(badRange.load(), 0) << "n=" << n << " minChunk=" << minChunk;
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
            << "n=" << n << " minChunk=" << minChunk << " i=" << i;
    }
  }
}

TEST(ThreadPoolTest, ParallelForEachRunsSingleIndexChunks) {
  ThreadPool pool(2);
  for (int64_t n : {0, 1, 2, 3, 16, 64, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int> badRange{0};
    pool.ParallelForEach(n, [&](int64_t begin, int64_t end) {
      if (begin < 0 || end != begin + 1 || end > n)
        badRange.fetch_add(1);
      hits[static_cast<size_t>(begin)].fetch_add(1);
    });
    EXPECT_EQ(badRange.load(), 0) << "n=" << n;
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "n=" << n;
  }
  // A cancelled token skips every chunk not yet started.
  CancellationToken cancel;
  cancel.Cancel();
  std::atomic<int> ran{0};
  pool.ParallelForEach(
      100, [&](int64_t, int64_t) { ran.fetch_add(1); }, &cancel);
  EXPECT_EQ(ran.load(), 0);
}

TEST(ThreadPoolTest, ParallelForHugeRangeDoesNotOverflow) {
  ThreadPool pool(2);
  // Only the range arithmetic is exercised: each call covers its bounds.
  const int64_t n = INT64_MAX;
  std::atomic<int64_t> calls{0};
  std::atomic<int> bad{0};
  std::atomic<int64_t> lastEnd{0};
  pool.ParallelFor(n, n / 3, [&](int64_t begin, int64_t end) {
    calls.fetch_add(1);
    if (begin < 0 || end <= begin || end > n)
      bad.fetch_add(1);
    if (end == n)
      lastEnd.store(end);
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(calls.load(), 4); // ceil(n / (n / 3)) chunks
  EXPECT_EQ(lastEnd.load(), n);
  // The same on the inline path (the only worker calls it).
  ThreadPool single(1);
  calls.store(0);
  lastEnd.store(0);
  single.Schedule([&] {
    single.ParallelFor(n, n / 3, [&](int64_t begin, int64_t end) {
      calls.fetch_add(1);
      if (begin < 0 || end <= begin || end > n)
        bad.fetch_add(1);
      if (end == n)
        lastEnd.store(end);
    });
  });
  single.Quiesce();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(lastEnd.load(), n);
}

TEST(ThreadPoolTest, ParallelForFromWorkerAndOutsideThreads) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&] {
      for (int r = 0; r < 20; ++r)
        pool.ParallelFor(1000, 10, [&](int64_t begin, int64_t end) {
          int64_t local = 0;
          for (int64_t i = begin; i < end; ++i)
            local += i;
          sum.fetch_add(local);
        });
    });
  for (auto &caller : callers)
    caller.join();
  EXPECT_EQ(sum.load(), 3 * 20 * (999 * 1000 / 2));
}

TEST(ThreadPoolTest, NestedParallelForThreeLevels) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    constexpr int64_t kA = 8, kB = 8, kC = 64;
    std::vector<std::atomic<int>> hits(kA * kB * kC);
    pool.ParallelFor(kA, 1, [&](int64_t a0, int64_t a1) {
      for (int64_t a = a0; a < a1; ++a)
        pool.ParallelFor(kB, 1, [&](int64_t b0, int64_t b1) {
          for (int64_t b = b0; b < b1; ++b)
            pool.ParallelFor(kC, 4, [&](int64_t c0, int64_t c1) {
              for (int64_t c = c0; c < c1; ++c)
                hits[(a * kB + b) * kC + c].fetch_add(1);
            });
        });
    });
    for (auto &hit : hits)
      ASSERT_EQ(hit.load(), 1) << "threads=" << threads;
  }
}

TEST(ThreadPoolTest, NestedParallelForInsideTasks) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  TaskGroup group(pool);
  for (int t = 0; t < 8; ++t)
    group.Spawn([&] {
      pool.ParallelFor(100, 1, [&](int64_t begin, int64_t end) {
        pool.ParallelFor(end - begin, 1, [&](int64_t b, int64_t e) {
          total.fetch_add(e - b);
        });
      });
    });
  group.Wait();
  EXPECT_EQ(total.load(), 800);
}

TEST(ThreadPoolTest, BlockingTasksDoNotStarveWorkers) {
  ThreadPool pool(1);
  std::atomic<bool> release{false};
  std::atomic<int> blockedStarted{0};
  // Four tasks that block until released: they must get their own threads.
  for (int i = 0; i < 4; ++i)
    pool.ScheduleBlocking([&] {
      blockedStarted.fetch_add(1);
      while (!release.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  // Meanwhile the single worker still runs ordinary tasks.
  std::atomic<int> done{0};
  for (int i = 0; i < 100; ++i)
    pool.Schedule([&] { done.fetch_add(1); });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((done.load() < 100 || blockedStarted.load() < 4) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(done.load(), 100);
  EXPECT_EQ(blockedStarted.load(), 4); // all four ran concurrently
  release.store(true);
  pool.Quiesce();
}

TEST(ThreadPoolTest, BlockingTasksRunOffWorkers) {
  ThreadPool pool(2);
  std::atomic<int> onWorker{0};
  for (int i = 0; i < 20; ++i)
    pool.ScheduleBlocking([&] {
      if (pool.IsWorkerThread())
        onWorker.fetch_add(1);
    });
  pool.Quiesce();
  EXPECT_EQ(onWorker.load(), 0);
}

TEST(ThreadPoolTest, ShutdownWhileBusy) {
  std::atomic<int> count{0};
  ThreadPool *current = nullptr;
  // Tasks that keep spawning more and a blocking task still sleeping when
  // the destructor starts: everything must run before it returns.
  std::function<void(int)> spawn = [&](int depth) {
    count.fetch_add(1);
    if (depth < 12) {
      current->Schedule([&spawn, depth] { spawn(depth + 1); });
      current->Schedule([&spawn, depth] { spawn(depth + 1); });
    }
  };
  {
    ThreadPool pool(2);
    current = &pool;
    for (int i = 0; i < 4; ++i)
      pool.Schedule([&spawn] { spawn(6); });
    pool.ScheduleBlocking([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      count.fetch_add(1);
    });
    // No Quiesce: the destructor drains.
  }
  EXPECT_EQ(count.load(), 4 * ((1 << 7) - 1) + 1);

  // A pool destroyed with queued work and no explicit wait.
  std::atomic<int> later{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 10000; ++i)
      pool.Schedule([&] { later.fetch_add(1); });
  }
  EXPECT_EQ(later.load(), 10000);
}

TEST(ThreadPoolTest, TwoPoolsConcurrently) {
  ThreadPool a(2), b(2);
  std::atomic<int> countA{0}, countB{0}, wrongPool{0};
  std::thread feederA([&] {
    for (int i = 0; i < 20000; ++i)
      a.Schedule([&] {
        if (!a.IsWorkerThread() || b.IsWorkerThread())
          wrongPool.fetch_add(1);
        countA.fetch_add(1);
      });
  });
  std::thread feederB([&] {
    for (int i = 0; i < 20000; ++i)
      b.Schedule([&] { countB.fetch_add(1); });
  });
  // Cross-pool nesting: a task of A runs a ParallelFor on B.
  std::atomic<int64_t> crossSum{0};
  a.Schedule([&] {
    b.ParallelFor(1000, 10, [&](int64_t begin, int64_t end) {
      crossSum.fetch_add(end - begin);
    });
  });
  feederA.join();
  feederB.join();
  a.Quiesce();
  b.Quiesce();
  EXPECT_EQ(countA.load(), 20000);
  EXPECT_EQ(countB.load(), 20000);
  EXPECT_EQ(wrongPool.load(), 0);
  EXPECT_EQ(crossSum.load(), 1000);
}

TEST(ThreadPoolTest, CancelParallelFor) {
  ThreadPool pool(2);
  CancellationToken token;
  std::atomic<int64_t> processed{0};
  pool.ParallelFor(
      100000, 100,
      [&](int64_t begin, int64_t end) {
        processed.fetch_add(end - begin);
        if (processed.load() >= 500)
          token.Cancel();
      },
      &token);
  EXPECT_TRUE(token.IsCancelled());
  EXPECT_LT(processed.load(), 100000);
  // A run with a token cancelled beforehand does nothing.
  std::atomic<int> calls{0};
  pool.ParallelFor(1000, 1, [&](int64_t, int64_t) { calls.fetch_add(1); },
                   &token);
  EXPECT_EQ(calls.load(), 0);
}

TEST(ThreadPoolTest, CancelTaskGroup) {
  ThreadPool pool(1);
  TaskGroup group(pool);
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  std::atomic<bool> started{false};
  // The first task occupies the only worker; the rest queue behind it.
  group.Spawn([&] {
    started.store(true);
    while (!release.load())
      std::this_thread::yield();
    ran.fetch_add(1);
  });
  for (int i = 0; i < 50; ++i)
    group.Spawn([&] { ran.fetch_add(1); });
  while (!started.load())
    std::this_thread::yield();
  group.Cancel();
  EXPECT_TRUE(group.IsCancelled());
  group.Spawn([&] { ran.fetch_add(1000); }); // refused
  release.store(true);
  group.Wait();
  // The running task finished; tasks that had not started were skipped.
  EXPECT_EQ(ran.load(), 1);
  // Tasks scheduled after the cancel see it.
  CancellationToken token;
  token.Cancel();
  std::atomic<int> sawCancel{0};
  pool.Schedule([&] {
    if (token.IsCancelled())
      sawCancel.fetch_add(1);
  });
  pool.Quiesce();
  EXPECT_EQ(sawCancel.load(), 1);
}

double processCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

/// CPU seconds the process used while the calling thread slept `ms`.
double cpuSecondsWhileSleeping(int ms) {
  double before = processCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return processCpuSeconds() - before;
}

/// Sets (or, for nullptr, unsets) an environment variable until the end of
/// the scope, then restores it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = getenv(name)) {
      had_ = true;
      old_ = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  bool had_ = false;
  std::string old_;
};

TEST(ThreadPoolTest, IdlePoolUsesNoCpu) {
  ThreadPool pool(2);
  std::atomic<int> count{0};
  for (int i = 0; i < 10000; ++i)
    pool.Schedule([&] { count.fetch_add(1); });
  pool.Quiesce();
  // Spinning workers would burn ~200 ms of CPU here; parked ones ~0. The
  // bound is loose for slow (sanitizer) builds; bench-async measures it.
  EXPECT_LT(cpuSecondsWhileSleeping(100), 0.010)
      << "CPU seconds used while idle";
  EXPECT_EQ(count.load(), 10000);
}

TEST(ThreadPoolTest, EnvironmentThreadCount) {
  const char *saved = getenv("TFRT_NUM_THREADS");
  std::string savedValue = saved ? saved : "";
  setenv("TFRT_NUM_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultNumThreads(), 3);
  {
    ThreadPool pool(0);
    EXPECT_EQ(pool.NumThreads(), 3);
  }
  {
    ThreadPool pool(2); // an explicit count wins
    EXPECT_EQ(pool.NumThreads(), 2);
  }
  setenv("TFRT_NUM_THREADS", "not a number", 1);
  int fallback = ThreadPool::DefaultNumThreads();
  unsetenv("TFRT_NUM_THREADS");
  EXPECT_EQ(fallback, ThreadPool::DefaultNumThreads());
  EXPECT_GE(ThreadPool::DefaultNumThreads(), 1);
  EXPECT_EQ(static_cast<unsigned>(ThreadPool::DefaultNumThreads()),
            std::max(1u, std::thread::hardware_concurrency()));
  if (saved)
    setenv("TFRT_NUM_THREADS", savedValue.c_str(), 1);
}

TEST(ThreadPoolTest, EnvironmentSpinTime) {
  int64_t fallback;
  {
    ScopedEnv env("TFRT_SPIN_US", nullptr);
    fallback = ThreadPool(1).SpinMicroseconds();
  }
  EXPECT_EQ(fallback, 1000);
  {
    ScopedEnv env("TFRT_SPIN_US", "250");
    EXPECT_EQ(ThreadPool(1).SpinMicroseconds(), 250);
  }
  for (const char *bad : {"-1", "1000001", "12us", ""}) {
    ScopedEnv env("TFRT_SPIN_US", bad);
    EXPECT_EQ(ThreadPool(1).SpinMicroseconds(), fallback) << bad;
  }
  // Without spinning, bursts and parallel loops still work.
  ScopedEnv env("TFRT_SPIN_US", "0");
  ThreadPool pool(2);
  EXPECT_EQ(pool.SpinMicroseconds(), 0);
  pool.BeginBurst();
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(1000, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sum.fetch_add(i);
  });
  pool.EndBurst();
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

/// Runs `tasks` empty tasks on `pool` and waits for them.
void runTasks(ThreadPool &pool, int tasks) {
  std::atomic<int> count{0};
  for (int i = 0; i < tasks; ++i)
    pool.Schedule([&] { count.fetch_add(1); });
  pool.Quiesce();
  EXPECT_EQ(count.load(), tasks);
}

TEST(ThreadPoolTest, PoolAfterBurstUsesNoCpu) {
  // Workers spin in a burst (up to the spin time after their last task,
  // here 1 s); once it ends they park as an idle pool's do.
  std::optional<ScopedEnv> env(std::in_place, "TFRT_SPIN_US", "1000000");
  ThreadPool pool(2);
  env.reset();
  pool.BeginBurst();
  runTasks(pool, 10000);
  pool.EndBurst();
  EXPECT_LT(cpuSecondsWhileSleeping(100), 0.010)
      << "CPU seconds used after the burst";
}

TEST(ThreadPoolTest, BurstSpinIsBounded) {
  // A burst that is never ended does not keep the workers spinning beyond
  // the spin time: two workers, 2 ms each, against 200 ms each unbounded.
  std::optional<ScopedEnv> env(std::in_place, "TFRT_SPIN_US", "2000");
  ThreadPool pool(2);
  env.reset();
  pool.BeginBurst();
  runTasks(pool, 1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_LT(cpuSecondsWhileSleeping(200), 0.030)
      << "CPU seconds used while spinning in a burst";
  pool.EndBurst();
}

TEST(ThreadPoolTest, BurstsFromManyThreadsStress) {
  // Runs of several callers overlap: nested and concurrent bursts around
  // parallel loops (whose chunks nest loops of their own).
  ThreadPool pool(3);
  constexpr int kCallers = 4, kRounds = 200;
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) {
        pool.BeginBurst();
        if (r % 3 == 0)
          pool.BeginBurst();
        pool.ParallelFor(64, 1, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i)
            pool.ParallelFor(4, 1, [&](int64_t b2, int64_t e2) {
              total.fetch_add(e2 - b2);
            });
        });
        if (r % 3 == 0)
          pool.EndBurst();
        pool.EndBurst();
        if ((r + c) % 50 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(total.load(), int64_t(kCallers) * kRounds * 64 * 4);
  // A ParallelFor returns once its chunks are done; helper tasks that found
  // none left may still be queued (tens of thousands here, which take tens
  // of milliseconds under ThreadSanitizer). Once they have run too, the
  // pool parks.
  pool.Quiesce();
  EXPECT_LT(cpuSecondsWhileSleeping(100), 0.010)
      << "CPU seconds used after all bursts ended";
}

TEST(ThreadPoolTest, AwaitOnWorkerHelps) {
  // One worker awaits a value produced by a task queued behind it: without
  // helping this would deadlock.
  ThreadPool pool(1);
  auto value = MakeUnconstructedAsyncValueRef<int>();
  std::atomic<int> seen{0};
  pool.Schedule([&] {
    pool.Schedule([value] { value.emplace(5); });
    pool.Await(value);
    seen.store(*value);
  });
  pool.Quiesce();
  EXPECT_EQ(seen.load(), 5);
  // From an outside thread Await simply blocks.
  auto other = MakeUnconstructedAsyncValueRef<int>();
  pool.Schedule([other] { other.emplace(6); });
  pool.Await(other);
  EXPECT_EQ(*other, 6);
}

TEST(ThreadPoolTest, AwaitOnWorkerProducedElsewhere) {
  ThreadPool pool(2);
  for (int round = 0; round < 50; ++round) {
    auto value = MakeUnconstructedAsyncValueRef<int>();
    std::atomic<bool> done{false};
    pool.Schedule([&, value] {
      pool.Await(value);
      done.store(true);
    });
    std::thread producer([value] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      value.emplace(1);
    });
    producer.join();
    pool.Quiesce();
    EXPECT_TRUE(done.load());
  }
}

TEST(ThreadPoolTest, FanOutFanInWithAsyncValues) {
  ThreadPool pool(2);
  constexpr int kTasks = 100;
  std::vector<AsyncValueRef<int>> parts;
  std::vector<AsyncValue *> raw;
  for (int i = 0; i < kTasks; ++i) {
    parts.push_back(MakeUnconstructedAsyncValueRef<int>());
    raw.push_back(parts.back().GetAsyncValue());
  }
  auto sum = MakeUnconstructedAsyncValueRef<int>();
  RunWhenReady(raw, [parts, sum] {
    int total = 0;
    for (auto &part : parts)
      total += *part;
    sum.emplace(total);
  });
  for (int i = 0; i < kTasks; ++i)
    pool.Schedule([part = parts[i], i] { part.emplace(i); });
  Await(sum);
  EXPECT_EQ(*sum, kTasks * (kTasks - 1) / 2);
  pool.Quiesce();
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

struct RangeContext {
  std::atomic<int> *hits;
};

void markRange(void *ctx, int64_t begin, int64_t end) {
  auto *context = static_cast<RangeContext *>(ctx);
  for (int64_t i = begin; i < end; ++i)
    context->hits[i].fetch_add(1);
}

void increment(void *ctx) {
  static_cast<std::atomic<int> *>(ctx)->fetch_add(1);
}

TEST(AsyncCApiTest, PoolParallelFor) {
  tfrt_pool *pool = nullptr;
  ASSERT_EQ(tfrt_pool_create(2, &pool), nullptr);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(tfrt_pool_num_threads(pool), 2);
  std::vector<std::atomic<int>> hits(1000);
  RangeContext context{hits.data()};
  tfrt_pool_parallel_for(pool, 1000, 7, markRange, &context);
  for (auto &hit : hits)
    ASSERT_EQ(hit.load(), 1);
  // A NULL pool runs serially; bad arguments are no-ops.
  tfrt_pool_parallel_for(nullptr, 1000, 7, markRange, &context);
  tfrt_pool_parallel_for(pool, -5, 7, markRange, &context);
  tfrt_pool_parallel_for(pool, 10, 7, nullptr, &context);
  for (auto &hit : hits)
    ASSERT_EQ(hit.load(), 2);
  tfrt_pool_destroy(pool);
  tfrt_pool_destroy(nullptr);
  EXPECT_EQ(tfrt_pool_num_threads(nullptr), 0);
}

TEST(AsyncCApiTest, SpawnAndGroups) {
  tfrt_pool *pool = nullptr;
  ASSERT_EQ(tfrt_pool_create(0, &pool), nullptr);
  EXPECT_GE(tfrt_pool_num_threads(pool), 1);
  std::atomic<int> count{0};
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(tfrt_pool_spawn(pool, increment, &count), nullptr);
  ASSERT_EQ(tfrt_pool_spawn_blocking(pool, increment, &count), nullptr);
  tfrt_pool_quiesce(pool);
  EXPECT_EQ(count.load(), 101);

  tfrt_task_group *group = nullptr;
  ASSERT_EQ(tfrt_task_group_create(pool, &group), nullptr);
  std::atomic<int> groupCount{0};
  for (int i = 0; i < 500; ++i)
    ASSERT_EQ(tfrt_task_group_spawn(group, increment, &groupCount), nullptr);
  tfrt_task_group_wait(group);
  EXPECT_EQ(groupCount.load(), 500);
  EXPECT_EQ(tfrt_task_group_is_cancelled(group), 0);
  tfrt_task_group_cancel(group);
  EXPECT_EQ(tfrt_task_group_is_cancelled(group), 1);
  tfrt_status status = tfrt_task_group_spawn(group, increment, &groupCount);
  EXPECT_EQ(tfrt_status_code(status), TFRT_CANCELLED);
  tfrt_status_free(status);
  tfrt_task_group_destroy(group);
  tfrt_task_group_destroy(nullptr);
  tfrt_task_group_wait(nullptr);
  tfrt_task_group_cancel(nullptr);
  tfrt_pool_quiesce(nullptr);
  tfrt_pool_destroy(pool);
}

TEST(AsyncCApiTest, InvalidArguments) {
  tfrt_status status = tfrt_pool_create(1, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
  tfrt_pool *pool = reinterpret_cast<tfrt_pool *>(1);
  status = tfrt_pool_create(5000, &pool);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(pool, nullptr);
  tfrt_status_free(status);
  status = tfrt_pool_spawn(nullptr, increment, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
  tfrt_task_group *group = reinterpret_cast<tfrt_task_group *>(1);
  status = tfrt_task_group_create(nullptr, &group);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  EXPECT_EQ(group, nullptr);
  tfrt_status_free(status);
  status = tfrt_task_group_spawn(nullptr, increment, nullptr);
  EXPECT_EQ(tfrt_status_code(status), TFRT_INVALID_ARGUMENT);
  tfrt_status_free(status);
}

struct NestedContext {
  tfrt_pool *pool;
  std::atomic<int64_t> *total;
};

void innerRange(void *ctx, int64_t begin, int64_t end) {
  static_cast<NestedContext *>(ctx)->total->fetch_add(end - begin);
}

void outerRange(void *ctx, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    tfrt_pool_parallel_for(static_cast<NestedContext *>(ctx)->pool, 50, 1,
                           innerRange, ctx);
}

TEST(AsyncCApiTest, NestedParallelFor) {
  tfrt_pool *pool = nullptr;
  ASSERT_EQ(tfrt_pool_create(2, &pool), nullptr);
  std::atomic<int64_t> total{0};
  NestedContext context{pool, &total};
  tfrt_pool_parallel_for(pool, 40, 1, outerRange, &context);
  EXPECT_EQ(total.load(), 40 * 50);
  tfrt_pool_destroy(pool);
}

} // namespace
