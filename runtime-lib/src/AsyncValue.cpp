//===- AsyncValue.cpp - AsyncValue state machine and fan-in ---------------===//
//
// The state and the continuation list share one atomic word, so registering a
// continuation and publishing the value cannot miss each other: AddWaiter
// pushes with a compare-and-swap that fails once the state is available, and
// MakeAvailable swaps the whole word, taking the list it has to run.
// C library and pthreads only (no C++ runtime).
//
//===----------------------------------------------------------------------===//

#include "tfrt/async_value.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

namespace tfrt {

namespace {

char *copyMessage(const char *message) {
  if (!message)
    message = "";
  size_t length = strlen(message);
  char *copy = static_cast<char *>(internal::AllocateOrDie(length + 1, 1));
  memcpy(copy, message, length + 1);
  return copy;
}

} // namespace

void AsyncValue::SetStateConstructed() {
  uintptr_t word = word_.load(std::memory_order_relaxed);
  if ((word & kStateMask) !=
      static_cast<uintptr_t>(State::kUnconstructed))
    abort();
  // Only the producer changes the state bits; continuations may be pushed
  // concurrently, so keep the list part.
  word_.fetch_or(static_cast<uintptr_t>(State::kConstructed),
                 std::memory_order_release);
}

void AsyncValue::SetStateConcrete() {
  if (state() != State::kConstructed)
    abort();
  MakeAvailable(State::kConcrete);
}

void AsyncValue::SetError(const char *message) {
  State current = state();
  if (current == State::kConcrete || current == State::kError)
    abort();
  if (current == State::kConstructed)
    ops_->destroyPayload(this);
  error_ = copyMessage(message);
  MakeAvailable(State::kError);
}

void AsyncValue::AddWaiter(internal::Waiter *waiter) {
  uintptr_t word = word_.load(std::memory_order_acquire);
  for (;;) {
    if ((word & kStateMask) >= static_cast<uintptr_t>(State::kConcrete)) {
      waiter->run(waiter);
      return;
    }
    waiter->next = reinterpret_cast<internal::Waiter *>(word & ~kStateMask);
    uintptr_t desired = reinterpret_cast<uintptr_t>(waiter) |
                        (word & kStateMask);
    if (word_.compare_exchange_weak(word, desired, std::memory_order_acq_rel,
                                    std::memory_order_acquire))
      return;
  }
}

void AsyncValue::MakeAvailable(State state) {
  uintptr_t old = word_.exchange(static_cast<uintptr_t>(state),
                                 std::memory_order_acq_rel);
  if ((old & kStateMask) >= static_cast<uintptr_t>(State::kConcrete))
    abort(); // made available twice
  // The list is LIFO; reverse it to run continuations in AndThen order.
  internal::Waiter *list =
      reinterpret_cast<internal::Waiter *>(old & ~kStateMask);
  internal::Waiter *ordered = nullptr;
  while (list) {
    internal::Waiter *next = list->next;
    list->next = ordered;
    ordered = list;
    list = next;
  }
  while (ordered) {
    internal::Waiter *next = ordered->next;
    ordered->run(ordered); // may free the node
    ordered = next;
  }
}

void AsyncValue::Destroy() {
  if (state() == State::kConstructed || state() == State::kConcrete)
    ops_->destroyPayload(this);
  // A value that dies unavailable (its producer broke the contract by
  // dropping the last reference without publishing) may still hold
  // continuations; running them would hand them a dead value, so their nodes
  // are deliberately leaked.
  free(error_);
  ops_->free(this);
}

void AsyncValue::Await() const {
  if (IsAvailable())
    return;
  struct BlockingWaiter : internal::Waiter {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool done;
  } waiter;
  pthread_mutex_init(&waiter.mutex, nullptr);
  pthread_cond_init(&waiter.cond, nullptr);
  waiter.done = false;
  waiter.run = [](internal::Waiter *self) {
    auto *blocking = static_cast<BlockingWaiter *>(self);
    pthread_mutex_lock(&blocking->mutex);
    blocking->done = true;
    pthread_cond_signal(&blocking->cond);
    pthread_mutex_unlock(&blocking->mutex);
  };
  const_cast<AsyncValue *>(this)->AddWaiter(&waiter);
  pthread_mutex_lock(&waiter.mutex);
  while (!waiter.done)
    pthread_cond_wait(&waiter.cond, &waiter.mutex);
  pthread_mutex_unlock(&waiter.mutex);
  pthread_cond_destroy(&waiter.cond);
  pthread_mutex_destroy(&waiter.mutex);
}

const AsyncValue *FirstError(Span<AsyncValue *const> values) {
  for (AsyncValue *value : values)
    if (value->IsError())
      return value;
  return nullptr;
}

void RunWhenReady(Span<AsyncValue *const> values,
                  UniqueFunction<void()> callback) {
  bool allAvailable = true;
  for (AsyncValue *value : values)
    if (!value->IsAvailable()) {
      allAvailable = false;
      break;
    }
  if (allAvailable) {
    callback();
    return;
  }
  // One count per value, and one allocation holding the counter, the
  // callback and a waiter node per value. Registration runs inline for values
  // that became available meanwhile; the count cannot reach zero before the
  // last registration, and MakeAvailable reads a node's link before running
  // it, so freeing the block from the last node is safe.
  struct FanIn;
  struct FanInWaiter : internal::Waiter {
    FanIn *fanIn;
  };
  struct FanIn {
    std::atomic<size_t> remaining;
    UniqueFunction<void()> callback;
  };
  static_assert(sizeof(FanIn) % alignof(FanInWaiter) == 0, "layout");
  size_t count = values.size();
  void *memory = internal::AllocateOrDie(
      sizeof(FanIn) + count * sizeof(FanInWaiter), alignof(FanIn));
  FanIn *fanIn = ::new (memory) FanIn();
  fanIn->remaining.store(count, std::memory_order_relaxed);
  fanIn->callback = std::move(callback);
  auto *waiters = reinterpret_cast<FanInWaiter *>(fanIn + 1);
  for (size_t i = 0; i < count; ++i) {
    FanInWaiter *waiter = ::new (&waiters[i]) FanInWaiter();
    waiter->fanIn = fanIn;
    waiter->run = [](internal::Waiter *self) {
      FanIn *shared = static_cast<FanInWaiter *>(self)->fanIn;
      if (shared->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        shared->callback();
        shared->~FanIn();
        free(shared);
      }
    };
  }
  for (size_t i = 0; i < count; ++i)
    values[i]->AddWaiter(&waiters[i]);
}

void Await(Span<AsyncValue *const> values) {
  for (AsyncValue *value : values)
    value->Await();
}

} // namespace tfrt
