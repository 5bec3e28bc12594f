//===- tfrt/thread_pool.h - work-stealing thread pool -----------*- C++ -*-===//
//
// A fixed set of worker threads for short, non-blocking tasks, plus a
// separate, growing set of threads for tasks that block.
//
// Contract
// --------
// Workers: N threads (constructor argument; 0 means the environment variable
// TFRT_NUM_THREADS when it holds a positive integer, else the number of
// online CPUs, as std::thread::hardware_concurrency() reports it). Each
// worker owns a bounded work-stealing deque (Chase-Lev, lock-free): it pushes
// and pops its own tasks at the bottom (LIFO), idle workers steal from the
// top (FIFO). Tasks scheduled from threads that are not workers of this pool
// go to a global FIFO injection queue (mutex). An idle worker spins for a
// bounded number of rounds (64 rounds of "look for work, one pause
// instruction", a few microseconds), then parks on a futex until a producer
// wakes exactly that worker: an idle pool uses no CPU. Inside a burst
// (BeginBurst/EndBurst, which a model run brackets itself with) workers and
// waiting threads keep spinning for up to the pool's spin time
// (TFRT_SPIN_US microseconds when set, from 0 to 1000000; default 1000)
// after their last piece of work, since waking a parked thread on a virtual
// machine can cost tens of microseconds, more than many parallel loops of a
// model; the spin ends when the burst does.
//
// Tasks: any move-only callable `void()`. Schedule() is for tasks that do not
// block (no I/O, no waiting on other tasks except through the pool's own
// waiting functions, which run other tasks meanwhile). Tasks that may block
// go through ScheduleBlocking(): they run on dedicated threads, created on
// demand (up to kMaxBlockingThreads, then queued) and kept for reuse, so they
// never occupy workers. Every scheduled task runs exactly once. Allocation
// failure aborts (the C ABI in tfrt/async.h reports it instead).
//
// Waiting: ParallelFor, TaskGroup::Wait and ThreadPool::Await called on a
// worker of the same pool run other tasks while they wait (so nesting cannot
// deadlock) and park on the pool's futex when there is nothing to run; on any
// other thread they block on a futex or condition variable.
//
// Thread safety: every member function may be called concurrently from any
// thread, except the destructor. Quiesce() and the destructor must not be
// called from a thread of this pool. Several pools may coexist; a worker of
// one pool is an ordinary outside thread for another.
//
// Shutdown: Quiesce() returns once every task scheduled before or during the
// call (including tasks those tasks schedule) has finished. The destructor
// quiesces, then stops and joins all threads; it is safe while tasks are
// still running or queued (they all run first). Scheduling from outside
// threads concurrently with the destructor is not allowed.
//
// Cancellation: a CancellationToken is a flag that only moves from "live" to
// "cancelled". ParallelFor skips chunks not started yet once its token is
// cancelled; TaskGroup skips tasks not started yet once the group is
// cancelled (they are counted as finished). Running code observes it through
// IsCancelled(); nothing is interrupted.
//
// State: no global mutable state. A thread-local pointer records which pool
// and worker the current thread is, so Schedule() can use the local deque.
// The implementation uses the C library and pthreads only.
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_THREAD_POOL_H
#define TFRT_THREAD_POOL_H

#include "tfrt/async_value.h"
#include "tfrt/function.h"
#include "tfrt/runtime.h"

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <utility>

namespace tfrt {

/// The general task type: a move-only callable. Schedule() accepts it, like
/// any other callable.
using Task = UniqueFunction<void()>;

/// A one-way "cancelled" flag shared by a producer of work and the work.
class CancellationToken {
public:
  CancellationToken() = default;
  CancellationToken(const CancellationToken &) = delete;
  CancellationToken &operator=(const CancellationToken &) = delete;

  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  /// Makes the token uncancelled again; only while no operation uses it.
  void Reset() { cancelled_.store(false, std::memory_order_release); }
  bool IsCancelled() const {
    return cancelled_.load(std::memory_order_acquire);
  }

private:
  std::atomic<bool> cancelled_{false};
};

namespace internal {

/// A scheduled task: an intrusive node whose `run` executes the task and
/// frees the node.
struct TaskNode {
  TaskNode *next = nullptr;
  void (*run)(TaskNode *self) = nullptr;
};

/// Wraps a callable into a malloc'd TaskNode (aborts when out of memory).
template <class F> TaskNode *MakeTaskNode(F &&f) {
  using Fn = std::decay_t<F>;
  struct Node : TaskNode {
    explicit Node(F &&f) : fn(std::forward<F>(f)) {
      run = [](TaskNode *self) {
        Node *node = static_cast<Node *>(self);
        node->fn();
        DeleteObject(node);
      };
    }
    Fn fn;
  };
  return NewOrDie<Node>(std::forward<F>(f));
}

struct PoolImpl;

} // namespace internal

class TFRT_API ThreadPool {
public:
  /// Upper bound of the threads created for ScheduleBlocking.
  static constexpr int kMaxBlockingThreads = 64;
  /// Upper bound of the worker count.
  static constexpr int kMaxThreads = 4096;

  /// Starts `numThreads` workers (0 or less: see the contract; at most
  /// kMaxThreads). Aborts if the workers cannot be started or the count is
  /// too large.
  explicit ThreadPool(int numThreads = 0);
  /// As above, but a failure to start the workers leaves the pool invalid
  /// (valid() is false; only the destructor may be called) instead of
  /// aborting.
  struct NoAbortTag {};
  ThreadPool(int numThreads, NoAbortTag);
  ~ThreadPool();
  bool valid() const { return impl_ != nullptr; }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// The default worker count: TFRT_NUM_THREADS if set to a positive
  /// integer, else the number of online CPUs (at least 1).
  static int DefaultNumThreads();

  int NumThreads() const;
  /// Whether the calling thread is one of this pool's workers.
  bool IsWorkerThread() const;
  /// The calling worker's index in [0, NumThreads()), or -1.
  int CurrentWorkerIndex() const;

  /// Runs `f()` on a worker; returns without waiting. Non-blocking tasks
  /// only.
  template <class F> void Schedule(F &&f) {
    ScheduleNode(internal::MakeTaskNode(std::forward<F>(f)));
  }
  /// Runs `f()` on a thread reserved for blocking work.
  template <class F> void ScheduleBlocking(F &&f) {
    ScheduleBlockingNode(internal::MakeTaskNode(std::forward<F>(f)));
  }

  /// Calls fn(begin, end) over disjoint ranges covering [0, n), each at
  /// least `minChunk` long (except the last), on the workers and on the
  /// calling thread, and returns when all ranges are done. Ranges not yet
  /// started when `cancel` is cancelled are skipped. `fn` must be safe to
  /// call concurrently. Nested calls from inside `fn` are allowed.
  void ParallelFor(int64_t n, int64_t minChunk,
                   FunctionRef<void(int64_t, int64_t)> fn,
                   const CancellationToken *cancel = nullptr);
  /// As ParallelFor, with every index its own chunk: for loops whose
  /// iterations are already coarse (the chunks and tasks of a compiled
  /// model's launches), so that no thread waits on a multi-iteration chunk
  /// at the end.
  void ParallelForEach(int64_t n, FunctionRef<void(int64_t, int64_t)> fn,
                       const CancellationToken *cancel = nullptr);

  /// Waits until `value` is available; on a worker of this pool it runs
  /// other tasks meanwhile instead of blocking the worker.
  void Await(const AsyncValue *value);
  template <class T> void Await(const AsyncValueRef<T> &value) {
    Await(value.GetAsyncValue());
  }

  /// Bracket a stretch in which work comes in quick succession, such as a
  /// model run issuing one parallel loop after another. Until every
  /// BeginBurst() is matched by an EndBurst(), threads of this pool that
  /// run out of work (and threads waiting in ParallelFor) keep looking for
  /// up to the pool's spin time (TFRT_SPIN_US, default 1000 microseconds)
  /// before they sleep, so that the next loop does not pay for waking them;
  /// outside bursts they sleep after a few microseconds. Nests; callable
  /// from any thread.
  void BeginBurst();
  void EndBurst();
  /// The spin time of this pool's bursts in microseconds.
  int64_t SpinMicroseconds() const;

  /// Waits until every task scheduled so far (and those they schedule) has
  /// finished. Not from a thread of this pool.
  void Quiesce();

  /// Low-level entry points (used by the templates above, TaskGroup and the
  /// C ABI): take ownership of a node made by internal::MakeTaskNode or any
  /// malloc'd node whose `run` frees it.
  void ScheduleNode(internal::TaskNode *node);
  void ScheduleBlockingNode(internal::TaskNode *node);

  /// Waits until the low 30 bits of `*counter` are zero (helping on a
  /// worker). Whoever decrements the counter must use ReleaseCounter().
  void WaitCounter(std::atomic<uint32_t> *counter);
  /// Decrements `*counter` and wakes its waiters when it reaches zero.
  /// Touches nothing of the counter after the decrement but its address.
  void ReleaseCounter(std::atomic<uint32_t> *counter);

private:
  /// ParallelFor's core: chunks of `chunk` indices, claimed one at a time.
  void RunChunks(int64_t n, int64_t chunk,
                 FunctionRef<void(int64_t, int64_t)> fn,
                 const CancellationToken *cancel);

  internal::PoolImpl *impl_;
};

/// A set of tasks that can be waited for and cancelled together.
/// Spawn, Cancel and IsCancelled may be called from any thread, including
/// from the group's own tasks; Wait from any thread (helping on a worker).
/// The group must outlive its tasks: the destructor waits.
class TFRT_API TaskGroup {
public:
  explicit TaskGroup(ThreadPool &pool) : pool_(pool) {}
  ~TaskGroup() { Wait(); }
  TaskGroup(const TaskGroup &) = delete;
  TaskGroup &operator=(const TaskGroup &) = delete;

  /// Schedules `f()` on the pool, unless the group is cancelled; a task still
  /// queued when the group is cancelled does not run.
  template <class F> void Spawn(F &&f) {
    if (IsCancelled())
      return;
    pending_.fetch_add(1, std::memory_order_relaxed);
    pool_.ScheduleNode(internal::MakeTaskNode(
        [this, fn = std::forward<F>(f)]() mutable {
          if (!IsCancelled())
            fn();
          pool_.ReleaseCounter(&pending_);
        }));
  }
  /// Waits until every spawned task has finished or been skipped.
  void Wait() { pool_.WaitCounter(&pending_); }
  void Cancel() { cancelled_.Cancel(); }
  bool IsCancelled() const { return cancelled_.IsCancelled(); }
  const CancellationToken &token() const { return cancelled_; }
  ThreadPool &pool() const { return pool_; }

private:
  ThreadPool &pool_;
  std::atomic<uint32_t> pending_{0};
  CancellationToken cancelled_;
};

} // namespace tfrt

#endif // TFRT_THREAD_POOL_H
