//===- bench_async.cpp - figures for the runtime-lib async core -----------===//
//
// Prints one line per figure ("name: value unit (details)"):
//   (a) dispatch overhead in ns/task: a serial chain where each task
//       schedules the next, fan-out/fan-in of 100 tasks through a TaskGroup
//       and through AsyncValues + RunWhenReady, and the C ABI;
//   (b) process CPU time consumed while the pool sits idle for 100 ms after
//       a burst of work (getrusage; should be < 1 ms);
//   (c) ParallelFor speedup of a compute-bound loop on 1 vs 2 workers.
// Each timed figure is the median of --reps runs (default 5).
//
// Usage: bench-async [--reps N] [--quick]
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/async_value.h"
#include "tfrt/thread_pool.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace tfrt;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double processCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

//===--- (a) dispatch overhead ---------------------------------------------===//

struct ChainState {
  ThreadPool *pool;
  int64_t remaining;
  AsyncValueRef<Chain> done;
};

void chainStep(ChainState *state) {
  if (--state->remaining == 0) {
    state->done.emplace();
    return;
  }
  state->pool->Schedule([state] { chainStep(state); });
}

/// ns per task of a chain of `length` tasks, each scheduling the next.
double serialChainNs(ThreadPool &pool, int64_t length) {
  ChainState state{&pool, length, MakeUnconstructedAsyncValueRef<Chain>()};
  auto start = Clock::now();
  pool.Schedule([&state] { chainStep(&state); });
  Await(state.done);
  double seconds = secondsSince(start);
  pool.Quiesce();
  return seconds * 1e9 / static_cast<double>(length);
}

/// ns per task of `rounds` rounds of: spawn 100 tasks, wait for all.
double fanOutTaskGroupNs(ThreadPool &pool, int rounds) {
  std::atomic<int64_t> sink{0};
  auto start = Clock::now();
  for (int r = 0; r < rounds; ++r) {
    TaskGroup group(pool);
    for (int i = 0; i < 100; ++i)
      group.Spawn([&sink] { sink.fetch_add(1, std::memory_order_relaxed); });
    group.Wait();
  }
  double seconds = secondsSince(start);
  if (sink.load() != int64_t(rounds) * 100)
    abort();
  return seconds * 1e9 / (rounds * 100.0);
}

/// As above, but the rounds run inside a task: spawns go to the worker's own
/// deque and the waiting worker runs tasks itself (pure dispatch cost).
double fanOutFromWorkerNs(ThreadPool &pool, int rounds) {
  auto result = MakeUnconstructedAsyncValueRef<double>();
  pool.Schedule([&] { result.emplace(fanOutTaskGroupNs(pool, rounds)); });
  Await(result);
  pool.Quiesce();
  return *result;
}

/// As above, with AsyncValues: each task fills a value, RunWhenReady joins.
double fanOutAsyncValueNs(ThreadPool &pool, int rounds) {
  auto start = Clock::now();
  std::vector<AsyncValueRef<int>> values(100);
  std::vector<AsyncValue *> raw(100);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 100; ++i) {
      values[i] = MakeUnconstructedAsyncValueRef<int>();
      raw[i] = values[i].GetAsyncValue();
    }
    auto joined = MakeUnconstructedAsyncValueRef<Chain>();
    RunWhenReady(raw, [joined] { joined.emplace(); });
    for (int i = 0; i < 100; ++i)
      pool.Schedule([value = values[i], i] { value.emplace(i); });
    Await(joined);
  }
  double seconds = secondsSince(start);
  pool.Quiesce();
  return seconds * 1e9 / (rounds * 100.0);
}

void countTask(void *ctx) {
  static_cast<std::atomic<int64_t> *>(ctx)->fetch_add(1,
                                                      std::memory_order_relaxed);
}

/// The C ABI: tfrt_task_group_spawn x100 + tfrt_task_group_wait per round.
double fanOutCApiNs(tfrt_pool *pool, int rounds) {
  std::atomic<int64_t> sink{0};
  auto start = Clock::now();
  for (int r = 0; r < rounds; ++r) {
    tfrt_task_group *group = nullptr;
    if (tfrt_task_group_create(pool, &group))
      abort();
    for (int i = 0; i < 100; ++i)
      if (tfrt_task_group_spawn(group, countTask, &sink))
        abort();
    tfrt_task_group_destroy(group);
  }
  double seconds = secondsSince(start);
  if (sink.load() != int64_t(rounds) * 100)
    abort();
  return seconds * 1e9 / (rounds * 100.0);
}

//===--- (b) idle CPU ------------------------------------------------------===//

/// CPU seconds the whole process uses over a 100 ms sleep right after a
/// burst of work on `pool`.
double idleCpuSeconds(ThreadPool &pool) {
  std::atomic<int64_t> sink{0};
  for (int i = 0; i < 100000; ++i)
    pool.Schedule([&sink] { sink.fetch_add(1, std::memory_order_relaxed); });
  pool.ParallelFor(1 << 16, 64, [&](int64_t b, int64_t e) {
    sink.fetch_add(e - b, std::memory_order_relaxed);
  });
  pool.Quiesce();
  double before = processCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return processCpuSeconds() - before;
}

//===--- (c) ParallelFor speedup -------------------------------------------===//

/// A compute-bound element: a dependent chain of floating-point operations.
inline double work(int64_t i) {
  double x = static_cast<double>(i & 1023) * 1e-3 + 1.0;
  for (int k = 0; k < 200; ++k)
    x = x * 0.999999 + 1e-7 / x;
  return x;
}

/// Seconds for ParallelFor(n) of work() issued from inside a worker, so
/// exactly pool.NumThreads() threads take part. `cpuSeconds` receives the
/// process CPU time over the same window (the caller only sleeps in Await),
/// so cpu / wall is the parallelism the threads actually got from the OS.
double parallelForSeconds(ThreadPool &pool, int64_t n,
                          std::vector<double> &out, double &cpuSeconds,
                          std::vector<int64_t> &perWorker) {
  double cpuBefore = processCpuSeconds();
  auto done = MakeUnconstructedAsyncValueRef<double>();
  pool.Schedule([&] {
    auto start = Clock::now();
    pool.ParallelFor(n, 1024, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[static_cast<size_t>(i)] = work(i);
      // Disjoint slots per worker: no race.
      perWorker[static_cast<size_t>(pool.CurrentWorkerIndex())] +=
          end - begin;
    });
    done.emplace(secondsSince(start));
  });
  Await(done);
  cpuSeconds = processCpuSeconds() - cpuBefore;
  pool.Quiesce();
  return *done;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 5;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, atoi(argv[++i]));
    else if (!strcmp(argv[i], "--quick"))
      quick = true;
    else {
      fprintf(stderr, "usage: %s [--reps N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  const int64_t chainLength = quick ? 100000 : 1000000;
  const int rounds = quick ? 1000 : 10000;
  const int64_t loopN = quick ? (1 << 16) : (1 << 19);

  printf("# bench-async: hardware threads %u, median of %d runs\n",
         std::thread::hardware_concurrency(), reps);

  // Wall ns/task (the figure) and process CPU ns/task (all threads; less
  // sensitive to other processes competing for the cores).
  auto report = [&](const char *name, int threads, int64_t tasks,
                    const char *size, auto &&run) {
    std::vector<double> walls, cpus;
    for (int i = 0; i < reps; ++i) {
      double cpuBefore = processCpuSeconds();
      walls.push_back(run());
      cpus.push_back((processCpuSeconds() - cpuBefore) * 1e9 /
                     static_cast<double>(tasks));
    }
    printf("%s (threads=%d): %.1f ns/task (CPU %.1f ns/task; %s)\n", name,
           threads, median(walls), median(cpus), size);
  };
  char chainSize[64], roundsSize[64];
  snprintf(chainSize, sizeof(chainSize), "%lld tasks",
           static_cast<long long>(chainLength));
  snprintf(roundsSize, sizeof(roundsSize), "%d rounds", rounds);
  const int64_t fanTasks = int64_t(rounds) * 100;

  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    report("serial chain dispatch", threads, chainLength, chainSize,
           [&] { return serialChainNs(pool, chainLength); });
  }
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    report("fan-out/fan-in 100 tasks, TaskGroup", threads, fanTasks,
           roundsSize, [&] { return fanOutTaskGroupNs(pool, rounds); });
    report("fan-out/fan-in 100 tasks, TaskGroup from a worker", threads,
           fanTasks, roundsSize,
           [&] { return fanOutFromWorkerNs(pool, rounds); });
    report("fan-out/fan-in 100 tasks, AsyncValue+RunWhenReady", threads,
           fanTasks, roundsSize,
           [&] { return fanOutAsyncValueNs(pool, rounds); });
  }
  {
    tfrt_pool *pool = nullptr;
    if (tfrt_pool_create(2, &pool))
      return 1;
    report("fan-out/fan-in 100 tasks, C ABI task group", 2, fanTasks,
           roundsSize, [&] { return fanOutCApiNs(pool, rounds); });
    tfrt_pool_destroy(pool);
  }
  {
    ThreadPool pool(2);
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i)
      samples.push_back(idleCpuSeconds(pool));
    printf("idle CPU over 100 ms after a burst (threads=2): %.3f ms median, "
           "%.3f ms max (getrusage, whole process)\n",
           median(samples) * 1e3,
           *std::max_element(samples.begin(), samples.end()) * 1e3);
  }
  {
    std::vector<double> out(static_cast<size_t>(loopN));
    auto start = Clock::now();
    for (int64_t i = 0; i < loopN; ++i)
      out[static_cast<size_t>(i)] = work(i);
    double serial = secondsSince(start);
    double t[3], cpu[3];
    std::vector<int64_t> split(2, 0);
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      std::vector<double> walls, cpus;
      std::vector<int64_t> perWorker(static_cast<size_t>(threads), 0);
      for (int i = 0; i < reps; ++i) {
        double cpuSeconds = 0;
        walls.push_back(
            parallelForSeconds(pool, loopN, out, cpuSeconds, perWorker));
        cpus.push_back(cpuSeconds);
      }
      t[threads] = median(walls);
      cpu[threads] = median(cpus);
      if (threads == 2)
        split = perWorker;
    }
    printf("ParallelFor compute-bound n=%lld: serial loop %.1f ms, 1 thread "
           "%.1f ms, 2 threads %.1f ms, speedup 1->2 threads %.2fx "
           "(process CPU time %.1f ms with 1 thread, %.1f ms with 2; CPU/wall "
           "%.2f and %.2f)\n",
           static_cast<long long>(loopN), serial * 1e3, t[1] * 1e3,
           t[2] * 1e3, t[1] / t[2], cpu[1] * 1e3, cpu[2] * 1e3,
           cpu[1] / t[1], cpu[2] / t[2]);
    printf("ParallelFor work split over 2 threads: %.1f%% / %.1f%% of the "
           "elements (all runs)\n",
           100.0 * split[0] / (split[0] + split[1]),
           100.0 * split[1] / (split[0] + split[1]));
  }
  return 0;
}
