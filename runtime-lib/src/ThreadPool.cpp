//===- ThreadPool.cpp - work-stealing pool on pthreads and futexes --------===//
//
// Structure (see tfrt/thread_pool.h for the contract):
// - Each worker owns a fixed-capacity Chase-Lev deque of TaskNode pointers
//   (all index operations sequentially consistent, no stand-alone fences, so
//   thread sanitizer reasons about it exactly). A full deque overflows into
//   the injection queue, a mutex-protected intrusive FIFO that also takes
//   tasks from outside threads.
// - Parking: an idle worker lists itself on the pool's idle stack (which
//   bumps `idleCount`), looks for work once more and futex-waits on its own
//   `parkState`. A producer publishes its task, then, only if `idleCount` is
//   non-zero, pops one idle worker and wakes exactly that one. The
//   sequentially consistent publish/list pairs make a lost wake-up
//   impossible; a popped worker is no longer counted, so a burst of N tasks
//   wakes at most one worker per idle worker, and busy pools make no
//   syscalls. (Skipping the wake-up while some worker spins saves about 20%
//   CPU on fan-out from a worker, but tasks then stall whenever the spinner
//   is preempted, which on an oversubscribed machine cost far more; so every
//   publish checks for idle workers.)
// - Counters (ParallelFor chunks, TaskGroup tasks, outstanding tasks) keep a
//   waiter flag in bit 31 so that releasing them makes a futex call only when
//   somebody sleeps on them.
// - Blocking tasks run on detached threads created on demand and reused.
// C library, pthreads and the futex syscall only (no C++ runtime library).
//
//===----------------------------------------------------------------------===//

#include "tfrt/thread_pool.h"

#include "Internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h> // sched_yield
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tfrt {
namespace internal {
namespace {

/// Counter flags: a thread sleeps on the counter's futex / a worker waits
/// for it while parked as an idle worker.
constexpr uint32_t kWaiterBit = 1u << 31;
constexpr uint32_t kHelperBit = 1u << 30;
constexpr uint32_t kCountMask = kHelperBit - 1;
/// Rounds of "look for work, pause" before an idle thread parks, at least;
/// with a handful of workers one round costs well under 100 ns.
constexpr int kSpinRounds = 64;
/// How long a thread that ran out of work during a burst keeps looking for
/// more before it sleeps, unless TFRT_SPIN_US says otherwise.
constexpr int64_t kDefaultSpinMicroseconds = 1000;
/// Rounds between two reads of the clock while spinning.
constexpr int kRoundsPerClockRead = 16;
constexpr int64_t kDequeCapacity = 4096; // power of two

void futexWait(std::atomic<uint32_t> *word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}

void futexWake(std::atomic<uint32_t> *word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE_PRIVATE,
          count, nullptr, nullptr, 0);
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Chase-Lev work-stealing deque with a fixed capacity.
class WorkDeque {
public:
  enum class StealResult { kEmpty, kSuccess, kRetry };

  WorkDeque() {
    for (auto &slot : slots_)
      slot.store(nullptr, std::memory_order_relaxed);
  }

  /// Owner only. False when full.
  bool push(TaskNode *task) {
    int64_t b = bottom_.load(std::memory_order_relaxed);
    int64_t t = top_.load(std::memory_order_acquire);
    if (b - t >= kDequeCapacity)
      return false;
    slots_[b & (kDequeCapacity - 1)].store(task, std::memory_order_relaxed);
    bottom_.store(b + 1, std::memory_order_seq_cst);
    return true;
  }

  /// Owner only: the most recently pushed task, or nullptr.
  TaskNode *pop() {
    int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_seq_cst);
    int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {
      bottom_.store(b + 1, std::memory_order_release);
      return nullptr;
    }
    TaskNode *task =
        slots_[b & (kDequeCapacity - 1)].load(std::memory_order_relaxed);
    if (t == b) {
      // Last element: race the thieves for it.
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        task = nullptr;
      bottom_.store(b + 1, std::memory_order_release);
    }
    return task;
  }

  /// Any thread: the oldest task.
  StealResult steal(TaskNode **out) {
    int64_t t = top_.load(std::memory_order_seq_cst);
    int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b)
      return StealResult::kEmpty;
    TaskNode *task =
        slots_[t & (kDequeCapacity - 1)].load(std::memory_order_relaxed);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return StealResult::kRetry;
    *out = task;
    return StealResult::kSuccess;
  }

private:
  alignas(64) std::atomic<int64_t> top_{0};
  alignas(64) std::atomic<int64_t> bottom_{0};
  alignas(64) std::atomic<TaskNode *> slots_[kDequeCapacity];
};

/// Mutex-protected FIFO for tasks from outside threads and deque overflow.
class InjectionQueue {
public:
  InjectionQueue() { pthread_mutex_init(&mutex_, nullptr); }
  ~InjectionQueue() { pthread_mutex_destroy(&mutex_); }

  void push(TaskNode *task) {
    task->next = nullptr;
    pthread_mutex_lock(&mutex_);
    if (tail_)
      tail_->next = task;
    else
      head_ = task;
    tail_ = task;
    size_.fetch_add(1, std::memory_order_seq_cst);
    pthread_mutex_unlock(&mutex_);
  }

  TaskNode *pop() {
    if (size_.load(std::memory_order_seq_cst) == 0)
      return nullptr;
    pthread_mutex_lock(&mutex_);
    TaskNode *task = head_;
    if (task) {
      head_ = task->next;
      if (!head_)
        tail_ = nullptr;
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
    pthread_mutex_unlock(&mutex_);
    return task;
  }

private:
  pthread_mutex_t mutex_;
  TaskNode *head_ = nullptr;
  TaskNode *tail_ = nullptr;
  std::atomic<size_t> size_{0};
};

} // namespace

enum ParkState : uint32_t { kRunning = 0, kParked = 1, kNotified = 2 };

struct alignas(64) Worker {
  WorkDeque deque;
  PoolImpl *pool = nullptr;
  int index = 0;
  uint64_t rng = 0;
  pthread_t thread;
  /// kParked while listed and possibly asleep; the waker sets kNotified.
  alignas(64) std::atomic<uint32_t> parkState{kRunning};
  Worker *nextIdle = nullptr; // idle stack link, under idleMutex
  bool listed = false;        // on the idle stack, under idleMutex
};

struct PoolImpl {
  int numThreads = 0;
  /// How long a thread without work keeps looking before it sleeps while
  /// a burst is on (BeginBurst/EndBurst); otherwise kSpinRounds rounds.
  int64_t spinNanoseconds = 0;
  alignas(64) std::atomic<int32_t> bursts{0};
  Worker *workers = nullptr;
  InjectionQueue injection;

  pthread_mutex_t idleMutex;
  Worker *idleHead = nullptr; // under idleMutex
  alignas(64) std::atomic<int32_t> idleCount{0};
  std::atomic<bool> stopping{false};
  /// Scheduled but unfinished tasks (both kinds); bit 31: Quiesce waits.
  alignas(64) std::atomic<uint32_t> outstanding{0};

  // Blocking threads, all under blockingMutex.
  pthread_mutex_t blockingMutex;
  pthread_cond_t blockingCond; // work or stop for idle blocking threads
  pthread_cond_t blockingExit; // a blocking thread exited
  TaskNode *blockingHead = nullptr;
  TaskNode *blockingTail = nullptr;
  int blockingQueued = 0;
  int blockingIdle = 0;
  int blockingLive = 0;
  bool blockingStop = false;

  PoolImpl() {
    pthread_mutex_init(&idleMutex, nullptr);
    pthread_mutex_init(&blockingMutex, nullptr);
    pthread_cond_init(&blockingCond, nullptr);
    pthread_cond_init(&blockingExit, nullptr);
  }
  ~PoolImpl() {
    pthread_cond_destroy(&blockingExit);
    pthread_cond_destroy(&blockingCond);
    pthread_mutex_destroy(&blockingMutex);
    pthread_mutex_destroy(&idleMutex);
  }
};

namespace {

/// The worker the current thread is (of whichever pool), or nullptr.
thread_local Worker *tCurrentWorker = nullptr;

Worker *currentWorkerOf(const PoolImpl *pool) {
  Worker *worker = tCurrentWorker;
  return worker && worker->pool == pool ? worker : nullptr;
}

uint64_t nextRandom(uint64_t &state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/// Puts `self` on the idle stack; it must then look for work (or its wake
/// condition) once more before parkWait().
void listIdle(PoolImpl *pool, Worker *self) {
  pthread_mutex_lock(&pool->idleMutex);
  self->parkState.store(kParked, std::memory_order_seq_cst);
  self->nextIdle = pool->idleHead;
  pool->idleHead = self;
  self->listed = true;
  pool->idleCount.fetch_add(1, std::memory_order_seq_cst);
  pthread_mutex_unlock(&pool->idleMutex);
}

/// Takes `self` off the idle stack (if no waker took it already).
void unlistIdle(PoolImpl *pool, Worker *self) {
  pthread_mutex_lock(&pool->idleMutex);
  if (self->listed) {
    Worker **link = &pool->idleHead;
    while (*link != self)
      link = &(*link)->nextIdle;
    *link = self->nextIdle;
    self->listed = false;
    pool->idleCount.fetch_sub(1, std::memory_order_seq_cst);
  }
  self->parkState.store(kRunning, std::memory_order_relaxed);
  pthread_mutex_unlock(&pool->idleMutex);
}

/// Sleeps until a waker pops `self` off the idle stack.
void parkWait(Worker *self) {
  while (self->parkState.load(std::memory_order_acquire) == kParked)
    futexWait(&self->parkState, kParked);
  self->parkState.store(kRunning, std::memory_order_relaxed);
}

// parkState becomes kParked and kNotified only under idleMutex, together
// with listing and unlisting, so a worker that sees kNotified is unlisted.
// The futex wake itself may come late: a stray wake of a worker that has
// listed itself again only makes it re-check parkState.

/// Wakes every idle worker (shutdown, or a helping waiter's condition).
void wakeAllIdle(PoolImpl *pool) {
  if (pool->idleCount.load(std::memory_order_seq_cst) == 0)
    return;
  pthread_mutex_lock(&pool->idleMutex);
  Worker *list = pool->idleHead;
  pool->idleHead = nullptr;
  for (Worker *w = list; w; w = w->nextIdle) {
    w->listed = false;
    pool->idleCount.fetch_sub(1, std::memory_order_seq_cst);
  }
  // Under the mutex: an unlisted worker may list itself again (and rewrite
  // nextIdle) as soon as it runs, which needs this mutex. Rare path.
  for (Worker *w = list; w;) {
    Worker *next = w->nextIdle;
    w->parkState.store(kNotified, std::memory_order_seq_cst);
    futexWake(&w->parkState, 1);
    w = next;
  }
  pthread_mutex_unlock(&pool->idleMutex);
}

/// Called after publishing a task: wakes one idle worker, if any.
void notifyOne(PoolImpl *pool) {
  if (pool->idleCount.load(std::memory_order_seq_cst) == 0)
    return;
  pthread_mutex_lock(&pool->idleMutex);
  Worker *worker = pool->idleHead;
  if (worker) {
    pool->idleHead = worker->nextIdle;
    worker->listed = false;
    pool->idleCount.fetch_sub(1, std::memory_order_seq_cst);
    worker->parkState.store(kNotified, std::memory_order_seq_cst);
  }
  pthread_mutex_unlock(&pool->idleMutex);
  if (worker)
    futexWake(&worker->parkState, 1);
}

/// Own deque, then the injection queue, then the other workers' deques.
TaskNode *findTask(PoolImpl *pool, Worker *self) {
  if (self)
    if (TaskNode *task = self->deque.pop())
      return task;
  if (TaskNode *task = pool->injection.pop())
    return task;
  int n = pool->numThreads;
  if (n <= 1 && self)
    return nullptr;
  uint64_t seed = self ? nextRandom(self->rng) : 0;
  for (;;) {
    bool retry = false;
    int start = static_cast<int>(seed % static_cast<uint64_t>(n));
    for (int i = 0; i < n; ++i) {
      Worker &victim = pool->workers[(start + i) % n];
      if (&victim == self)
        continue;
      TaskNode *task = nullptr;
      switch (victim.deque.steal(&task)) {
      case WorkDeque::StealResult::kSuccess:
        return task;
      case WorkDeque::StealResult::kRetry:
        retry = true;
        break;
      case WorkDeque::StealResult::kEmpty:
        break;
      }
    }
    if (!retry)
      return nullptr;
    cpuRelax();
  }
}

void releaseOutstanding(PoolImpl *pool) {
  uint32_t previous =
      pool->outstanding.fetch_sub(1, std::memory_order_acq_rel);
  if (previous == (kWaiterBit | 1)) {
    // The pool outlives this call (the destructor joins every thread), so
    // clearing the flag here is safe and saves later syscalls.
    uint32_t expected = kWaiterBit;
    pool->outstanding.compare_exchange_strong(expected, 0,
                                              std::memory_order_relaxed);
    futexWake(&pool->outstanding, INT_MAX);
  }
}

void runTask(PoolImpl *pool, TaskNode *task) {
  task->run(task);
  releaseOutstanding(pool);
}

/// How long a thread without work keeps looking: kSpinRounds rounds; then,
/// while the pool is in a burst, until pool->spinNanoseconds have passed
/// since the first of them. The clock and the burst count are read every
/// kRoundsPerClockRead rounds only, and not at all when work shows up
/// within the first rounds. Once next() has said no, it keeps saying no.
class SpinBudget {
public:
  explicit SpinBudget(const PoolImpl *pool) : pool_(pool) {}

  /// Whether to look once more.
  bool next() {
    if (exhausted_)
      return false;
    ++round_;
    if (round_ < kSpinRounds || round_ % kRoundsPerClockRead != 0)
      return true;
    if (pool_->spinNanoseconds <= 0 ||
        pool_->bursts.load(std::memory_order_relaxed) <= 0) {
      exhausted_ = true;
      return false;
    }
    uint64_t now = rt::monotonicNanoseconds();
    if (!start_)
      start_ = now;
    exhausted_ = now - start_ >= uint64_t(pool_->spinNanoseconds);
    return !exhausted_;
  }

private:
  const PoolImpl *pool_;
  uint64_t start_ = 0; // the first clock read; 0 before it
  int64_t round_ = 0;
  bool exhausted_ = false;
};

TaskNode *findTaskSpinning(PoolImpl *pool, Worker *self,
                           FunctionRef<bool()> done) {
  SpinBudget budget(pool);
  do {
    if (TaskNode *task = findTask(pool, self))
      return task;
    if (done())
      return nullptr;
    cpuRelax();
  } while (budget.next());
  return nullptr;
}

/// Runs tasks on worker `self` until done(); parks when there is no work.
/// `arm` is called once before the first park so that whoever makes done()
/// true wakes the parked threads.
void helpUntil(PoolImpl *pool, Worker *self, FunctionRef<bool()> done,
               FunctionRef<void()> arm) {
  bool armed = false;
  for (;;) {
    if (done())
      return;
    if (TaskNode *task = findTaskSpinning(pool, self, done)) {
      runTask(pool, task);
      continue;
    }
    if (!armed) {
      arm();
      armed = true;
    }
    listIdle(pool, self);
    if (done()) {
      unlistIdle(pool, self);
      return;
    }
    if (TaskNode *task = findTask(pool, self)) {
      unlistIdle(pool, self);
      runTask(pool, task);
      continue;
    }
    parkWait(self);
  }
}

void *workerMain(void *arg) {
  Worker *self = static_cast<Worker *>(arg);
  PoolImpl *pool = self->pool;
  tCurrentWorker = self;
  auto stopping = [pool] {
    return pool->stopping.load(std::memory_order_relaxed);
  };
  for (;;) {
    if (TaskNode *task = findTaskSpinning(pool, self, stopping)) {
      runTask(pool, task);
      continue;
    }
    listIdle(pool, self);
    if (TaskNode *task = findTask(pool, self)) {
      unlistIdle(pool, self);
      runTask(pool, task);
      continue;
    }
    if (pool->stopping.load(std::memory_order_seq_cst)) {
      unlistIdle(pool, self);
      break;
    }
    parkWait(self);
  }
  tCurrentWorker = nullptr;
  return nullptr;
}

void *blockingMain(void *arg) {
  PoolImpl *pool = static_cast<PoolImpl *>(arg);
  pthread_mutex_lock(&pool->blockingMutex);
  for (;;) {
    while (!pool->blockingHead && !pool->blockingStop) {
      ++pool->blockingIdle;
      pthread_cond_wait(&pool->blockingCond, &pool->blockingMutex);
      --pool->blockingIdle;
    }
    TaskNode *task = pool->blockingHead;
    if (!task)
      break; // stopping and nothing queued
    pool->blockingHead = task->next;
    if (!pool->blockingHead)
      pool->blockingTail = nullptr;
    --pool->blockingQueued;
    pthread_mutex_unlock(&pool->blockingMutex);
    runTask(pool, task);
    pthread_mutex_lock(&pool->blockingMutex);
  }
  --pool->blockingLive;
  pthread_cond_broadcast(&pool->blockingExit);
  pthread_mutex_unlock(&pool->blockingMutex);
  return nullptr;
}

/// What std::thread::hardware_concurrency() reports (online CPUs), without
/// the C++ runtime library.
int onlineCpus() {
  long count = sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<int>(count) : 1;
}

/// How long threads without work spin in a burst before they sleep:
/// TFRT_SPIN_US microseconds when it holds an integer from 0 to 1000000,
/// else kDefaultSpinMicroseconds.
int64_t spinNanosecondsFromEnvironment() {
  int64_t microseconds = kDefaultSpinMicroseconds;
  if (const char *text = getenv("TFRT_SPIN_US")) {
    char *end = nullptr;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno == 0 && end != text && *end == '\0' && value >= 0 &&
        value <= 1000000)
      microseconds = value;
  }
  return microseconds * 1000;
}

/// Starts the workers; false (and nothing left running) on failure.
PoolImpl *createPool(int numThreads) {
  if (numThreads <= 0)
    numThreads = ThreadPool::DefaultNumThreads();
  if (numThreads > ThreadPool::kMaxThreads)
    return nullptr;
  void *memory = aligned_alloc(alignof(PoolImpl), sizeof(PoolImpl));
  if (!memory)
    return nullptr;
  PoolImpl *pool = ::new (memory) PoolImpl();
  pool->spinNanoseconds = spinNanosecondsFromEnvironment();
  size_t bytes = sizeof(Worker) * static_cast<size_t>(numThreads);
  void *workerMemory = aligned_alloc(alignof(Worker), bytes);
  if (!workerMemory) {
    DeleteObject(pool);
    return nullptr;
  }
  pool->workers = static_cast<Worker *>(workerMemory);
  for (int i = 0; i < numThreads; ++i) {
    Worker *worker = ::new (&pool->workers[i]) Worker();
    worker->pool = pool;
    worker->index = i;
    worker->rng = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1);
  }
  // Workers read numThreads when stealing: publish it before starting them.
  pool->numThreads = numThreads;
  int started = 0;
  for (; started < numThreads; ++started)
    if (pthread_create(&pool->workers[started].thread, nullptr, workerMain,
                       &pool->workers[started]) != 0)
      break;
  if (started < numThreads) {
    pool->stopping.store(true, std::memory_order_seq_cst);
    wakeAllIdle(pool);
    for (int i = 0; i < started; ++i)
      pthread_join(pool->workers[i].thread, nullptr);
    for (int i = 0; i < numThreads; ++i)
      pool->workers[i].~Worker();
    free(pool->workers);
    DeleteObject(pool);
    return nullptr;
  }
  return pool;
}

void destroyPool(PoolImpl *pool) {
  pool->stopping.store(true, std::memory_order_seq_cst);
  wakeAllIdle(pool);
  for (int i = 0; i < pool->numThreads; ++i)
    pthread_join(pool->workers[i].thread, nullptr);
  pthread_mutex_lock(&pool->blockingMutex);
  pool->blockingStop = true;
  pthread_cond_broadcast(&pool->blockingCond);
  while (pool->blockingLive > 0)
    pthread_cond_wait(&pool->blockingExit, &pool->blockingMutex);
  pthread_mutex_unlock(&pool->blockingMutex);
  for (int i = 0; i < pool->numThreads; ++i)
    pool->workers[i].~Worker();
  free(pool->workers);
  DeleteObject(pool);
}

/// Shared state of one ParallelFor; freed by whoever drops the last ref.
struct ParallelForState {
  std::atomic<uint32_t> refs{1};
  std::atomic<int64_t> nextChunk{0};
  std::atomic<uint32_t> remaining{0};
  int64_t n = 0;
  int64_t chunk = 0;
  int64_t numChunks = 0;
  const FunctionRef<void(int64_t, int64_t)> *fn = nullptr;
  const CancellationToken *cancel = nullptr;
  ThreadPool *pool = nullptr;

  void dropRef() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      DeleteObject(this);
  }

  /// Claims and runs chunks until none is left. After the last release of
  /// `remaining` the caller may have returned: only the state is touched.
  void runChunks() {
    for (;;) {
      int64_t i = nextChunk.fetch_add(1, std::memory_order_relaxed);
      if (i >= numChunks)
        return;
      if (!cancel || !cancel->IsCancelled()) {
        int64_t begin = i * chunk;
        int64_t end = n - begin > chunk ? begin + chunk : n;
        (*fn)(begin, end);
      }
      pool->ReleaseCounter(&remaining);
    }
  }
};

struct ParallelForHelper : TaskNode {
  ParallelForState *state;
};

void runParallelForHelper(TaskNode *node) {
  ParallelForState *state = static_cast<ParallelForHelper *>(node)->state;
  free(node);
  state->runChunks();
  state->dropRef();
}

} // namespace
} // namespace internal

using internal::kCountMask;
using internal::kHelperBit;
using internal::kWaiterBit;

int ThreadPool::DefaultNumThreads() {
  if (const char *text = getenv("TFRT_NUM_THREADS")) {
    char *end = nullptr;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno == 0 && end != text && *end == '\0' && value > 0 &&
        value <= kMaxThreads)
      return static_cast<int>(value);
  }
  return internal::onlineCpus();
}

ThreadPool::ThreadPool(int numThreads)
    : impl_(internal::createPool(numThreads)) {
  if (!impl_)
    abort();
}

ThreadPool::ThreadPool(int numThreads, NoAbortTag)
    : impl_(internal::createPool(numThreads)) {}

ThreadPool::~ThreadPool() {
  if (!impl_)
    return;
  Quiesce();
  internal::destroyPool(impl_);
}

int ThreadPool::NumThreads() const { return impl_->numThreads; }

bool ThreadPool::IsWorkerThread() const {
  return internal::currentWorkerOf(impl_) != nullptr;
}

int ThreadPool::CurrentWorkerIndex() const {
  internal::Worker *worker = internal::currentWorkerOf(impl_);
  return worker ? worker->index : -1;
}

void ThreadPool::ScheduleNode(internal::TaskNode *node) {
  impl_->outstanding.fetch_add(1, std::memory_order_relaxed);
  internal::Worker *worker = internal::currentWorkerOf(impl_);
  if (!worker || !worker->deque.push(node))
    impl_->injection.push(node);
  internal::notifyOne(impl_);
}

void ThreadPool::ScheduleBlockingNode(internal::TaskNode *node) {
  internal::PoolImpl *pool = impl_;
  pool->outstanding.fetch_add(1, std::memory_order_relaxed);
  node->next = nullptr;
  pthread_mutex_lock(&pool->blockingMutex);
  if (pool->blockingTail)
    pool->blockingTail->next = node;
  else
    pool->blockingHead = node;
  pool->blockingTail = node;
  ++pool->blockingQueued;
  bool spawn = false;
  if (pool->blockingIdle >= pool->blockingQueued) {
    pthread_cond_signal(&pool->blockingCond);
  } else if (pool->blockingLive < kMaxBlockingThreads) {
    ++pool->blockingLive;
    spawn = true;
  }
  pthread_mutex_unlock(&pool->blockingMutex);
  if (!spawn)
    return;
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  bool created =
      pthread_create(&thread, &attr, internal::blockingMain, pool) == 0;
  pthread_attr_destroy(&attr);
  if (created)
    return;
  // No new thread: give the slot back. If no blocking thread exists at all,
  // run the queued work here rather than never.
  pthread_mutex_lock(&pool->blockingMutex);
  --pool->blockingLive;
  bool orphaned = pool->blockingLive == 0;
  pthread_mutex_unlock(&pool->blockingMutex);
  while (orphaned) {
    pthread_mutex_lock(&pool->blockingMutex);
    internal::TaskNode *task =
        pool->blockingLive == 0 ? pool->blockingHead : nullptr;
    if (task) {
      pool->blockingHead = task->next;
      if (!pool->blockingHead)
        pool->blockingTail = nullptr;
      --pool->blockingQueued;
    }
    pthread_mutex_unlock(&pool->blockingMutex);
    if (!task)
      break;
    internal::runTask(pool, task);
  }
}

void ThreadPool::WaitCounter(std::atomic<uint32_t> *counter) {
  auto done = [counter] {
    return (counter->load(std::memory_order_seq_cst) & kCountMask) == 0;
  };
  if (internal::Worker *worker = internal::currentWorkerOf(impl_)) {
    internal::helpUntil(impl_, worker, done, [counter] {
      counter->fetch_or(kHelperBit, std::memory_order_seq_cst);
    });
    return;
  }
  internal::SpinBudget budget(impl_);
  for (;;) {
    uint32_t value = counter->load(std::memory_order_seq_cst);
    if ((value & kCountMask) == 0)
      return;
    if (budget.next()) {
      internal::cpuRelax();
      continue;
    }
    if (!(value & kWaiterBit)) {
      counter->fetch_or(kWaiterBit, std::memory_order_seq_cst);
      continue;
    }
    internal::futexWait(counter, value);
  }
}

void ThreadPool::ReleaseCounter(std::atomic<uint32_t> *counter) {
  internal::PoolImpl *pool = impl_;
  uint32_t previous = counter->fetch_sub(1, std::memory_order_seq_cst);
  if ((previous & kCountMask) == 1) {
    // The counter's owner may free it as soon as it sees zero: from here on
    // only its address is used, and the kernel does not dereference it.
    if (previous & kWaiterBit)
      internal::futexWake(counter, INT_MAX);
    if (previous & kHelperBit)
      internal::wakeAllIdle(pool);
  }
}

void ThreadPool::BeginBurst() {
  impl_->bursts.fetch_add(1, std::memory_order_relaxed);
}

void ThreadPool::EndBurst() {
  impl_->bursts.fetch_sub(1, std::memory_order_relaxed);
}

int64_t ThreadPool::SpinMicroseconds() const {
  return impl_->spinNanoseconds / 1000;
}

void ThreadPool::Quiesce() {
  std::atomic<uint32_t> *counter = &impl_->outstanding;
  for (;;) {
    uint32_t value = counter->load(std::memory_order_acquire);
    if ((value & kCountMask) == 0)
      return;
    if (!(value & kWaiterBit)) {
      counter->fetch_or(kWaiterBit, std::memory_order_seq_cst);
      continue;
    }
    internal::futexWait(counter, value);
  }
}

void ThreadPool::Await(const AsyncValue *value) {
  internal::Worker *worker = internal::currentWorkerOf(impl_);
  if (!worker) {
    value->Await();
    return;
  }
  if (value->IsAvailable())
    return;
  // A continuation that wakes the parked threads; `stage` reaches 2 when it
  // no longer touches this frame or the pool, so we wait for that before
  // returning.
  struct Waker : internal::Waiter {
    internal::PoolImpl *pool;
    std::atomic<int> stage{0};
  } waker;
  waker.pool = impl_;
  waker.run = [](internal::Waiter *self) {
    Waker *w = static_cast<Waker *>(self);
    internal::PoolImpl *pool = w->pool;
    w->stage.store(1, std::memory_order_seq_cst);
    internal::wakeAllIdle(pool);
    w->stage.store(2, std::memory_order_release);
  };
  bool armed = false;
  internal::helpUntil(
      impl_, worker,
      [&] {
        return armed ? waker.stage.load(std::memory_order_seq_cst) >= 1
                     : value->IsAvailable();
      },
      [&] {
        armed = true;
        const_cast<AsyncValue *>(value)->AndThen(
            [&waker] { waker.run(&waker); });
      });
  // Only the wake-up calls separate stage 1 from 2; yield if the producer
  // was preempted between them.
  for (int spins = 0;
       armed && waker.stage.load(std::memory_order_acquire) != 2; ++spins) {
    if (spins < internal::kSpinRounds)
      internal::cpuRelax();
    else
      sched_yield();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t minChunk,
                             FunctionRef<void(int64_t, int64_t)> fn,
                             const CancellationToken *cancel) {
  if (n <= 0)
    return;
  if (minChunk < 1)
    minChunk = 1;
  internal::Worker *worker = internal::currentWorkerOf(impl_);
  int64_t participants = impl_->numThreads + (worker ? 0 : 1);
  int64_t targetChunks = participants * 4;
  // Ceiling divisions written so that n near INT64_MAX cannot overflow.
  int64_t chunk = n / targetChunks + (n % targetChunks != 0);
  if (chunk < minChunk)
    chunk = minChunk;
  RunChunks(n, chunk, fn, cancel);
}

void ThreadPool::ParallelForEach(int64_t n,
                                 FunctionRef<void(int64_t, int64_t)> fn,
                                 const CancellationToken *cancel) {
  if (n <= 0)
    return;
  RunChunks(n, 1, fn, cancel);
}

void ThreadPool::RunChunks(int64_t n, int64_t chunk,
                           FunctionRef<void(int64_t, int64_t)> fn,
                           const CancellationToken *cancel) {
  internal::Worker *worker = internal::currentWorkerOf(impl_);
  int64_t participants = impl_->numThreads + (worker ? 0 : 1);
  int64_t numChunks = n / chunk + (n % chunk != 0);
  int64_t helpers = participants - 1;
  if (helpers > numChunks - 1)
    helpers = numChunks - 1;

  auto runInline = [&] {
    for (int64_t i = 0; i < numChunks; ++i) {
      if (cancel && cancel->IsCancelled())
        return;
      int64_t begin = i * chunk;
      fn(begin, n - begin > chunk ? begin + chunk : n);
    }
  };
  if (helpers <= 0) {
    runInline();
    return;
  }
  void *memory = malloc(sizeof(internal::ParallelForState));
  if (!memory) {
    runInline();
    return;
  }
  auto *state = ::new (memory) internal::ParallelForState();
  state->n = n;
  state->chunk = chunk;
  state->numChunks = numChunks;
  state->fn = &fn;
  state->cancel = cancel;
  state->pool = this;
  state->remaining.store(static_cast<uint32_t>(numChunks),
                         std::memory_order_relaxed);
  for (int64_t i = 0; i < helpers; ++i) {
    void *nodeMemory = malloc(sizeof(internal::ParallelForHelper));
    if (!nodeMemory)
      break; // fewer helpers; the caller does the rest
    auto *helper = ::new (nodeMemory) internal::ParallelForHelper();
    helper->state = state;
    helper->run = internal::runParallelForHelper;
    state->refs.fetch_add(1, std::memory_order_relaxed);
    ScheduleNode(helper);
  }
  state->runChunks();
  WaitCounter(&state->remaining);
  state->dropRef();
}

} // namespace tfrt
