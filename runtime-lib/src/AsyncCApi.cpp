//===- AsyncCApi.cpp - C ABI over tfrt::ThreadPool ------------------------===//
//
// tfrt/async.h: pools and task groups for generated code. Allocation failures
// become statuses instead of aborts, so every node is malloc'd here rather
// than through the aborting C++ helpers.
//
//===----------------------------------------------------------------------===//

#include "RunContext.h"
#include "tfrt/async.h"
#include "tfrt/thread_pool.h"

#include <stdlib.h>

struct tfrt_pool_s {
  tfrt::ThreadPool pool;
  explicit tfrt_pool_s(int32_t numThreads)
      : pool(numThreads, tfrt::ThreadPool::NoAbortTag{}) {}
};

namespace tfrt::rt {
void poolBeginBurst(tfrt_pool *pool) {
  if (pool)
    pool->pool.BeginBurst();
}
void poolEndBurst(tfrt_pool *pool) {
  if (pool)
    pool->pool.EndBurst();
}
} // namespace tfrt::rt

struct tfrt_task_group_s {
  tfrt::ThreadPool *pool;
  std::atomic<uint32_t> pending{0};
  tfrt::CancellationToken cancel;
};

namespace {

struct FnTask : tfrt::internal::TaskNode {
  tfrt_task_fn fn;
  void *ctx;
};

void runFnTask(tfrt::internal::TaskNode *node) {
  FnTask *task = static_cast<FnTask *>(node);
  tfrt_task_fn fn = task->fn;
  void *ctx = task->ctx;
  free(task);
  fn(ctx);
}

struct GroupTask : tfrt::internal::TaskNode {
  tfrt_task_group *group;
  tfrt_task_fn fn;
  void *ctx;
};

void runGroupTask(tfrt::internal::TaskNode *node) {
  GroupTask *task = static_cast<GroupTask *>(node);
  tfrt_task_group *group = task->group;
  tfrt_task_fn fn = task->fn;
  void *ctx = task->ctx;
  free(task);
  if (!group->cancel.IsCancelled())
    fn(ctx);
  // The group may be destroyed as soon as this release is seen.
  group->pool->ReleaseCounter(&group->pending);
}

FnTask *makeFnTask(tfrt_task_fn fn, void *ctx) {
  void *memory = malloc(sizeof(FnTask));
  if (!memory)
    return nullptr;
  FnTask *task = ::new (memory) FnTask();
  task->run = runFnTask;
  task->fn = fn;
  task->ctx = ctx;
  return task;
}

tfrt_status invalid(const char *message) {
  return tfrt_status_create(TFRT_INVALID_ARGUMENT, message);
}

tfrt_status outOfMemory(const char *message) {
  return tfrt_status_create(TFRT_OUT_OF_MEMORY, message);
}

} // namespace

extern "C" {

TFRT_API tfrt_status tfrt_pool_create(int32_t num_threads, tfrt_pool **out) {
  if (!out)
    return invalid("tfrt_pool_create: out is NULL");
  *out = nullptr;
  if (num_threads > tfrt::ThreadPool::kMaxThreads)
    return invalid("tfrt_pool_create: num_threads exceeds 4096");
  void *memory = malloc(sizeof(tfrt_pool_s));
  if (!memory)
    return outOfMemory("tfrt_pool_create: cannot allocate the pool");
  tfrt_pool *pool = ::new (memory) tfrt_pool_s(num_threads);
  if (!pool->pool.valid()) {
    pool->~tfrt_pool_s();
    free(pool);
    return tfrt_status_create(TFRT_UNAVAILABLE,
                              "tfrt_pool_create: cannot start the workers");
  }
  *out = pool;
  return nullptr;
}

TFRT_API void tfrt_pool_destroy(tfrt_pool *pool) {
  if (!pool)
    return;
  pool->~tfrt_pool_s();
  free(pool);
}

TFRT_API int32_t tfrt_pool_num_threads(const tfrt_pool *pool) {
  return pool ? pool->pool.NumThreads() : 0;
}

TFRT_API void tfrt_pool_quiesce(tfrt_pool *pool) {
  if (pool)
    pool->pool.Quiesce();
}

TFRT_API void tfrt_pool_parallel_for(tfrt_pool *pool, int64_t n,
                                     int64_t min_chunk, tfrt_range_fn fn,
                                     void *ctx) {
  if (!fn || n <= 0)
    return;
  if (!pool) {
    fn(ctx, 0, n);
    return;
  }
  pool->pool.ParallelFor(n, min_chunk, [fn, ctx](int64_t begin, int64_t end) {
    fn(ctx, begin, end);
  });
}

TFRT_API void tfrt_run_report_error(tfrt_run_context *run,
                                    const char *message) {
  if (!run || !message)
    return;
  const char *none = nullptr;
  run->error.compare_exchange_strong(none, message, std::memory_order_release,
                                     std::memory_order_relaxed);
}

TFRT_API void tfrt_run_parallel_for(tfrt_run_context *run, int64_t n,
                                    void (*fn)(void *ctx, int64_t begin,
                                               int64_t end),
                                    void *ctx) {
  if (!fn || n <= 0)
    return;
  if (!run) {
    fn(ctx, 0, n);
    return;
  }
  if (run->cancel.IsCancelled())
    return;
  // Without a pool, or with one iteration (a kernel launched on its own,
  // such as every launch of PP-OCR cls), the caller runs it: the same code
  // path at any pool size.
  if (!run->pool || n == 1) {
    fn(ctx, 0, n);
    return;
  }
  // The compiler sized every iteration (a chunk of a split op, or a task):
  // each is claimed on its own.
  run->pool->pool.ParallelForEach(
      n, [fn, ctx](int64_t begin, int64_t end) { fn(ctx, begin, end); },
      &run->cancel);
}

TFRT_API void tfrt_run_parallel_for_profiled(tfrt_run_context *run, int64_t n,
                                             void (*fn)(void *ctx,
                                                        int64_t begin,
                                                        int64_t end),
                                             void *ctx, int64_t entry) {
  if (!run || !run->profile.counters || entry < 0 ||
      entry >= int64_t(run->profile.numEntries) - 1) {
    tfrt_run_parallel_for(run, n, fn, ctx);
    return;
  }
  // The entry function runs on one thread at a time, and so do the launches
  // and marks it makes: the counters need no synchronisation.
  tfrt::rt::ProfileState &profile = run->profile;
  uint64_t begin = tfrt::rt::chargeRest(profile);
  tfrt_run_parallel_for(run, n, fn, ctx);
  tfrt::rt::chargeEntry(profile, entry, begin,
                        tfrt::rt::monotonicNanoseconds());
}

TFRT_API void tfrt_profile_mark(tfrt_run_context *run, int64_t entry) {
  if (!run || !run->profile.counters || entry < 0 ||
      entry >= int64_t(run->profile.numEntries) - 1)
    return;
  tfrt::rt::ProfileState &profile = run->profile;
  tfrt::rt::chargeEntry(profile, entry, profile.stamp,
                        tfrt::rt::monotonicNanoseconds());
}

TFRT_API tfrt_status tfrt_pool_spawn(tfrt_pool *pool, tfrt_task_fn fn,
                                     void *ctx) {
  if (!pool || !fn)
    return invalid("tfrt_pool_spawn: pool or fn is NULL");
  FnTask *task = makeFnTask(fn, ctx);
  if (!task)
    return outOfMemory("tfrt_pool_spawn: cannot allocate the task");
  pool->pool.ScheduleNode(task);
  return nullptr;
}

TFRT_API tfrt_status tfrt_pool_spawn_blocking(tfrt_pool *pool,
                                              tfrt_task_fn fn, void *ctx) {
  if (!pool || !fn)
    return invalid("tfrt_pool_spawn_blocking: pool or fn is NULL");
  FnTask *task = makeFnTask(fn, ctx);
  if (!task)
    return outOfMemory("tfrt_pool_spawn_blocking: cannot allocate the task");
  pool->pool.ScheduleBlockingNode(task);
  return nullptr;
}

TFRT_API tfrt_status tfrt_task_group_create(tfrt_pool *pool,
                                            tfrt_task_group **out) {
  if (!out)
    return invalid("tfrt_task_group_create: out is NULL");
  *out = nullptr;
  if (!pool)
    return invalid("tfrt_task_group_create: pool is NULL");
  void *memory = malloc(sizeof(tfrt_task_group_s));
  if (!memory)
    return outOfMemory("tfrt_task_group_create: cannot allocate the group");
  tfrt_task_group *group = ::new (memory) tfrt_task_group_s();
  group->pool = &pool->pool;
  *out = group;
  return nullptr;
}

TFRT_API tfrt_status tfrt_task_group_spawn(tfrt_task_group *group,
                                           tfrt_task_fn fn, void *ctx) {
  if (!group || !fn)
    return invalid("tfrt_task_group_spawn: group or fn is NULL");
  if (group->cancel.IsCancelled())
    return tfrt_status_create(TFRT_CANCELLED,
                              "tfrt_task_group_spawn: the group is cancelled");
  void *memory = malloc(sizeof(GroupTask));
  if (!memory)
    return outOfMemory("tfrt_task_group_spawn: cannot allocate the task");
  GroupTask *task = ::new (memory) GroupTask();
  task->run = runGroupTask;
  task->group = group;
  task->fn = fn;
  task->ctx = ctx;
  group->pending.fetch_add(1, std::memory_order_relaxed);
  group->pool->ScheduleNode(task);
  return nullptr;
}

TFRT_API void tfrt_task_group_wait(tfrt_task_group *group) {
  if (group)
    group->pool->WaitCounter(&group->pending);
}

TFRT_API void tfrt_task_group_cancel(tfrt_task_group *group) {
  if (group)
    group->cancel.Cancel();
}

TFRT_API int32_t tfrt_task_group_is_cancelled(const tfrt_task_group *group) {
  return group && group->cancel.IsCancelled() ? 1 : 0;
}

TFRT_API void tfrt_task_group_destroy(tfrt_task_group *group) {
  if (!group)
    return;
  group->pool->WaitCounter(&group->pending);
  group->~tfrt_task_group_s();
  free(group);
}

} // extern "C"
