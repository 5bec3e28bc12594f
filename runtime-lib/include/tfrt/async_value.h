//===- tfrt/async_value.h - futures with continuations ----------*- C++ -*-===//
//
// An AsyncValue is a reference-counted slot for a result that may not exist
// yet; AsyncValueRef<T> is the typed owning handle to one.
//
// Contract
// --------
// States and transitions (the state only moves forward), with the
// AsyncValueRef<T> calls that perform them:
//
//     unconstructed --emplace(args)-----------------------> concrete
//     unconstructed --construct(args)---------------------> constructed
//     constructed   --SetStateConcrete()------------------> concrete
//     unconstructed --SetError(msg)-----------------------> error
//     constructed   --SetError(msg) (payload destroyed)---> error
//
//   MakeAvailableAsyncValueRef<T>(args) starts concrete,
//   MakeConstructedAsyncValueRef<T>(args) constructed,
//   MakeUnconstructedAsyncValueRef<T>() unconstructed and
//   MakeErrorAsyncValueRef(msg) in error.
//
//   "available" means concrete or error; both are terminal. Exactly one
//   thread, the producer, performs the transitions of a value, each at most
//   once; making an available value available again is a contract violation
//   (it aborts). Consumers only read: the payload after IsConcrete(), the
//   message after IsError(). Everything the producer wrote before making the
//   value available is visible to every consumer that observes it available
//   (release/acquire).
//
// Thread safety: AddRef/DropRef, state queries, AndThen and Await may be
// called from any thread at any time. The payload is not synchronized beyond
// the availability hand-off: consumers that mutate it must coordinate.
//
// Ownership: intrusive atomic reference count. Make...AsyncValueRef returns
// a handle owning one reference; copying an AsyncValueRef adds one, destroying
// it drops one; the last drop destroys the payload (if constructed), the
// error message and the memory. Continuations that need the value must hold
// their own reference (capture an AsyncValueRef copy).
//
// Continuations: AndThen(f) runs f exactly once: inline, on the calling
// thread, when the value is already available; otherwise on the thread that
// makes it available, right after the transition, in the order AndThen was
// called. Continuations must not block for long (they run on the producer's
// thread, often a pool worker); hand heavy work to a ThreadPool.
//
// Errors: an error value carries a private copy of a message. Errors
// propagate by value: a computation that finds an error input (FirstError())
// sets its own result to an error instead of computing it.
//
// Await(value) blocks the calling thread on a condition variable until the
// value is available. Call it from threads that are not pool workers (a
// worker blocked in Await cannot run the tasks that would produce the value);
// inside a pool use AndThen/RunWhenReady or ThreadPool::Await.
//
// Memory comes from malloc; allocation failure aborts.
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_ASYNC_VALUE_H
#define TFRT_ASYNC_VALUE_H

#include "tfrt/function.h"
#include "tfrt/runtime.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <atomic>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>

namespace tfrt {

class AsyncValue;

/// An empty payload for values that only order work ("this happened").
struct Chain {};

/// A non-owning view of a contiguous array.
template <class T> class Span {
public:
  Span() = default;
  Span(T *data, size_t size) : data_(data), size_(size) {}
  template <class Container,
            class = decltype(std::declval<Container &>().data())>
  Span(Container &container)
      : data_(container.data()), size_(container.size()) {}

  T *data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T &operator[](size_t i) const { return data_[i]; }
  T *begin() const { return data_; }
  T *end() const { return data_ + size_; }

private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

namespace internal {

/// A node of an AsyncValue's continuation list. `run` executes the
/// continuation and releases the node.
struct alignas(8) Waiter {
  Waiter *next = nullptr;
  void (*run)(Waiter *self) = nullptr;
};

/// Per-payload-type operations (no virtual functions: runtime-lib builds
/// without RTTI and users may build with it).
struct AsyncValueOps {
  void (*destroyPayload)(AsyncValue *value);
  void (*free)(AsyncValue *value);
};

} // namespace internal

class TFRT_API AsyncValue {
public:
  enum class State : uint8_t {
    kUnconstructed = 0,
    kConstructed = 1,
    kConcrete = 2,
    kError = 3,
  };

  AsyncValue(const AsyncValue &) = delete;
  AsyncValue &operator=(const AsyncValue &) = delete;

  State state() const {
    return static_cast<State>(word_.load(std::memory_order_acquire) &
                              kStateMask);
  }
  bool IsAvailable() const { return state() >= State::kConcrete; }
  bool IsUnavailable() const { return !IsAvailable(); }
  bool IsConcrete() const { return state() == State::kConcrete; }
  bool IsError() const { return state() == State::kError; }
  /// The error message; "" unless IsError().
  const char *GetError() const { return IsError() && error_ ? error_ : ""; }

  void AddRef(uint32_t count = 1) {
    refcount_.fetch_add(count, std::memory_order_relaxed);
  }
  void DropRef(uint32_t count = 1) {
    if (refcount_.fetch_sub(count, std::memory_order_acq_rel) == count)
      Destroy();
  }
  /// Current reference count (for tests; racy by nature).
  uint32_t NumRef() const {
    return refcount_.load(std::memory_order_acquire);
  }

  /// constructed -> concrete. Producer only.
  void SetStateConcrete();
  /// unconstructed | constructed -> error with a copy of `message`.
  /// Producer only.
  void SetError(const char *message);
  /// Copies the error of `other` (which must be an error) into this value.
  void SetErrorFrom(const AsyncValue &other) { SetError(other.GetError()); }

  /// Runs `f()` exactly once when the value is available (see the contract).
  template <class F> void AndThen(F &&f) {
    if (IsAvailable()) {
      f();
      return;
    }
    using Fn = std::decay_t<F>;
    struct Node : internal::Waiter {
      explicit Node(F &&f) : fn(std::forward<F>(f)) {
        run = [](internal::Waiter *self) {
          Node *node = static_cast<Node *>(self);
          node->fn();
          internal::DeleteObject(node);
        };
      }
      Fn fn;
    };
    AddWaiter(internal::NewOrDie<Node>(std::forward<F>(f)));
  }

  /// Blocks until available (condition variable; see the contract).
  void Await() const;

  /// Low-level AndThen: runs waiter->run(waiter) once the value is available
  /// (inline if it already is). The node must stay valid until then; `run`
  /// owns it from that point.
  void AddWaiter(internal::Waiter *waiter);

  /// Typed payload access; T must be the type the value was created with and
  /// the value must be constructed or concrete.
  template <class T> T &get();
  template <class T> const T &get() const {
    return const_cast<AsyncValue *>(this)->get<T>();
  }

protected:
  AsyncValue(State state, const internal::AsyncValueOps *ops)
      : word_(static_cast<uintptr_t>(state)), ops_(ops) {}
  ~AsyncValue() = default;

  /// unconstructed -> constructed (the payload has just been built).
  void SetStateConstructed();

  template <class T> friend class AsyncValueRef;

private:
  static constexpr uintptr_t kStateMask = 3;

  /// Publishes `state` (concrete or error) and runs the continuations.
  void MakeAvailable(State state);
  void Destroy();

  /// Low two bits: State. The rest: the continuation list (a LIFO stack of
  /// Waiter nodes) while unavailable, 0 once available.
  std::atomic<uintptr_t> word_;
  std::atomic<uint32_t> refcount_{1};
  const internal::AsyncValueOps *ops_;
  char *error_ = nullptr;
};

namespace internal {

/// An AsyncValue with inline storage for a T.
template <class T> class ConcreteAsyncValue final : public AsyncValue {
public:
  explicit ConcreteAsyncValue(State state) : AsyncValue(state, &kOps) {}

  T &payload() { return *std::launder(reinterpret_cast<T *>(storage_)); }

  template <class... Args> void construct(Args &&...args) {
    ::new (static_cast<void *>(storage_)) T(std::forward<Args>(args)...);
  }

private:
  static void destroyPayload(AsyncValue *value) {
    static_cast<ConcreteAsyncValue *>(value)->payload().~T();
  }
  static void freeValue(AsyncValue *value) {
    DeleteObject(static_cast<ConcreteAsyncValue *>(value));
  }
  static constexpr AsyncValueOps kOps = {&destroyPayload, &freeValue};

  alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace internal

template <class T> T &AsyncValue::get() {
  return static_cast<internal::ConcreteAsyncValue<T> *>(this)->payload();
}

/// Owning, typed handle to an AsyncValue holding a T.
template <class T> class AsyncValueRef {
public:
  AsyncValueRef() = default;
  /// Adopts one reference of `value` (no AddRef).
  explicit AsyncValueRef(AsyncValue *value) : value_(value) {}
  AsyncValueRef(const AsyncValueRef &other) : value_(other.value_) {
    if (value_)
      value_->AddRef();
  }
  AsyncValueRef(AsyncValueRef &&other) noexcept : value_(other.value_) {
    other.value_ = nullptr;
  }
  AsyncValueRef &operator=(AsyncValueRef other) noexcept {
    std::swap(value_, other.value_);
    return *this;
  }
  ~AsyncValueRef() {
    if (value_)
      value_->DropRef();
  }

  explicit operator bool() const { return value_ != nullptr; }
  AsyncValue *GetAsyncValue() const { return value_; }
  /// Gives up ownership of the reference without dropping it.
  AsyncValue *release() {
    AsyncValue *value = value_;
    value_ = nullptr;
    return value;
  }
  AsyncValueRef CopyRef() const { return *this; }

  bool IsAvailable() const { return value_->IsAvailable(); }
  bool IsUnavailable() const { return value_->IsUnavailable(); }
  bool IsConcrete() const { return value_->IsConcrete(); }
  bool IsError() const { return value_->IsError(); }
  const char *GetError() const { return value_->GetError(); }

  /// The payload; the value must be constructed or concrete.
  T &get() const { return value_->template get<T>(); }
  T &operator*() const { return get(); }
  T *operator->() const { return &get(); }

  /// unconstructed -> concrete: builds the payload and publishes it.
  template <class... Args> void emplace(Args &&...args) const {
    static_cast<internal::ConcreteAsyncValue<T> *>(value_)->construct(
        std::forward<Args>(args)...);
    value_->MakeAvailable(AsyncValue::State::kConcrete);
  }
  /// unconstructed -> constructed: builds the payload, not yet published.
  template <class... Args> void construct(Args &&...args) const {
    static_cast<internal::ConcreteAsyncValue<T> *>(value_)->construct(
        std::forward<Args>(args)...);
    value_->SetStateConstructed();
  }
  void SetStateConcrete() const { value_->SetStateConcrete(); }
  void SetError(const char *message) const { value_->SetError(message); }

  template <class F> void AndThen(F &&f) const {
    value_->AndThen(std::forward<F>(f));
  }

private:
  AsyncValue *value_ = nullptr;
};

/// A concrete value holding T(args...).
template <class T, class... Args>
AsyncValueRef<T> MakeAvailableAsyncValueRef(Args &&...args) {
  auto *value = internal::NewOrDie<internal::ConcreteAsyncValue<T>>(
      AsyncValue::State::kConcrete);
  value->construct(std::forward<Args>(args)...);
  return AsyncValueRef<T>(value);
}

/// A constructed (not yet available) value holding T(args...); publish it
/// with SetStateConcrete().
template <class T, class... Args>
AsyncValueRef<T> MakeConstructedAsyncValueRef(Args &&...args) {
  auto *value = internal::NewOrDie<internal::ConcreteAsyncValue<T>>(
      AsyncValue::State::kConstructed);
  value->construct(std::forward<Args>(args)...);
  return AsyncValueRef<T>(value);
}

/// An unconstructed value with room for a T; fill it with emplace().
template <class T> AsyncValueRef<T> MakeUnconstructedAsyncValueRef() {
  return AsyncValueRef<T>(internal::NewOrDie<internal::ConcreteAsyncValue<T>>(
      AsyncValue::State::kUnconstructed));
}

/// An available error value (of any payload type) carrying `message`.
template <class T = Chain>
AsyncValueRef<T> MakeErrorAsyncValueRef(const char *message) {
  AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
  value.SetError(message);
  return value;
}

/// A concrete Chain.
inline AsyncValueRef<Chain> MakeAvailableChain() {
  return MakeAvailableAsyncValueRef<Chain>();
}

/// The first value of `values` that is an error, or nullptr.
TFRT_API const AsyncValue *FirstError(Span<AsyncValue *const> values);
inline const AsyncValue *
FirstError(std::initializer_list<AsyncValue *> values) {
  return FirstError(Span<AsyncValue *const>(values.begin(), values.size()));
}

/// Runs `callback` once every value of `values` is available (concrete or
/// error): inline when they all already are, otherwise on the thread that
/// makes the last one available. The callback should check FirstError().
TFRT_API void RunWhenReady(Span<AsyncValue *const> values,
                           UniqueFunction<void()> callback);
inline void RunWhenReady(std::initializer_list<AsyncValue *> values,
                         UniqueFunction<void()> callback) {
  RunWhenReady(Span<AsyncValue *const>(values.begin(), values.size()),
               std::move(callback));
}

/// Blocks until `value` is available (not from pool workers).
inline void Await(const AsyncValue *value) { value->Await(); }
template <class T> void Await(const AsyncValueRef<T> &value) {
  value.GetAsyncValue()->Await();
}
/// Blocks until every value is available.
TFRT_API void Await(Span<AsyncValue *const> values);

} // namespace tfrt

#endif // TFRT_ASYNC_VALUE_H
