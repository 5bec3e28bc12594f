//===- tfrt/function.h - move-only and borrowed callables -------*- C++ -*-===//
//
// Contract
// --------
// - UniqueFunction<R(Args...)> owns one callable. It is move-only (the
//   callable may capture move-only state), never copies it, and stores it
//   inline when it is at most kInlineBytes bytes, no more aligned than
//   max_align_t and nothrow-movable; larger callables live in one malloc'd
//   block. Allocation failure aborts (runtime-lib builds without exceptions).
//   A UniqueFunction is not thread-safe: one thread at a time may call, move
//   or destroy it. Calling an empty UniqueFunction is undefined.
// - FunctionRef<R(Args...)> borrows a callable: it is two words, never
//   allocates, and is valid only while the referenced callable is alive (use
//   it for parameters that are called before the callee returns). Calling it
//   from several threads at once is fine when the callable allows that.
// - Header-only; the inline parts need no C++ runtime library (memory comes
//   from malloc, so runtime-lib's objects keep depending on the C library
//   only).
//
//===----------------------------------------------------------------------===//
#ifndef TFRT_FUNCTION_H
#define TFRT_FUNCTION_H

#include <stddef.h>
#include <stdlib.h>

#include <new>
#include <type_traits>
#include <utility>

namespace tfrt {
namespace internal {

/// malloc with the given alignment; aborts when memory runs out.
inline void *AllocateOrDie(size_t size, size_t alignment) {
  void *memory;
  if (alignment <= alignof(max_align_t)) {
    memory = malloc(size ? size : 1);
  } else {
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    memory = aligned_alloc(alignment, rounded ? rounded : alignment);
  }
  if (!memory)
    abort();
  return memory;
}

/// Constructs a T in AllocateOrDie'd memory.
template <class T, class... Args> T *NewOrDie(Args &&...args) {
  void *memory = AllocateOrDie(sizeof(T), alignof(T));
  return ::new (memory) T(std::forward<Args>(args)...);
}

/// Destroys and frees an object made by NewOrDie.
template <class T> void DeleteObject(T *object) {
  object->~T();
  free(object);
}

} // namespace internal

template <class Signature> class UniqueFunction;

template <class R, class... Args> class UniqueFunction<R(Args...)> {
public:
  /// Callables up to this size are stored without an allocation.
  static constexpr size_t kInlineBytes = 4 * sizeof(void *);

  UniqueFunction() = default;
  UniqueFunction(std::nullptr_t) {}

  template <class F,
            class = std::enable_if_t<
                !std::is_same<std::decay_t<F>, UniqueFunction>::value &&
                std::is_invocable_r<R, std::decay_t<F> &, Args...>::value>>
  UniqueFunction(F &&f) {
    using Fn = std::decay_t<F>;
    if constexpr (kStoredInline<Fn>) {
      ::new (static_cast<void *>(storage_)) Fn(std::forward<F>(f));
    } else {
      Fn *heap = internal::NewOrDie<Fn>(std::forward<F>(f));
      ::new (static_cast<void *>(storage_)) Fn *(heap);
    }
    ops_ = &kOps<Fn>;
  }

  UniqueFunction(UniqueFunction &&other) noexcept { moveFrom(other); }
  UniqueFunction &operator=(UniqueFunction &&other) noexcept {
    if (this != &other) {
      reset();
      moveFrom(other);
    }
    return *this;
  }
  UniqueFunction(const UniqueFunction &) = delete;
  UniqueFunction &operator=(const UniqueFunction &) = delete;
  ~UniqueFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  R operator()(Args... args) {
    return ops_->invoke(storage_, std::forward<Args>(args)...);
  }

  /// Destroys the callable; the function becomes empty.
  void reset() {
    if (ops_) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

private:
  struct Ops {
    R (*invoke)(void *storage, Args &&...args);
    void (*relocate)(void *to, void *from); // move + destroy the source
    void (*destroy)(void *storage);
  };

  template <class Fn>
  static constexpr bool kStoredInline =
      sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(max_align_t) &&
      std::is_nothrow_move_constructible<Fn>::value;

  template <class Fn> static Fn *target(void *storage) {
    if constexpr (kStoredInline<Fn>)
      return std::launder(reinterpret_cast<Fn *>(storage));
    else
      return *std::launder(reinterpret_cast<Fn **>(storage));
  }

  template <class Fn> static R invokeImpl(void *storage, Args &&...args) {
    return (*target<Fn>(storage))(std::forward<Args>(args)...);
  }
  template <class Fn> static void relocateImpl(void *to, void *from) {
    if constexpr (kStoredInline<Fn>) {
      Fn *source = target<Fn>(from);
      ::new (to) Fn(std::move(*source));
      source->~Fn();
    } else {
      ::new (to) Fn *(target<Fn>(from));
    }
  }
  template <class Fn> static void destroyImpl(void *storage) {
    if constexpr (kStoredInline<Fn>)
      target<Fn>(storage)->~Fn();
    else
      internal::DeleteObject(target<Fn>(storage));
  }
  template <class Fn>
  static constexpr Ops kOps = {&invokeImpl<Fn>, &relocateImpl<Fn>,
                               &destroyImpl<Fn>};

  void moveFrom(UniqueFunction &other) {
    if (other.ops_) {
      other.ops_->relocate(storage_, other.storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(max_align_t) unsigned char storage_[kInlineBytes];
  const Ops *ops_ = nullptr;
};

template <class Signature> class FunctionRef;

template <class R, class... Args> class FunctionRef<R(Args...)> {
public:
  template <class F,
            class = std::enable_if_t<
                !std::is_same<std::decay_t<F>, FunctionRef>::value &&
                std::is_invocable_r<R, F &, Args...>::value>>
  FunctionRef(F &&f)
      : callable_(const_cast<void *>(static_cast<const void *>(&f))),
        invoke_(&invokeImpl<std::remove_reference_t<F>>) {}

  R operator()(Args... args) const {
    return invoke_(callable_, std::forward<Args>(args)...);
  }

private:
  template <class F> static R invokeImpl(void *callable, Args... args) {
    return (*static_cast<F *>(callable))(std::forward<Args>(args)...);
  }

  void *callable_;
  R (*invoke_)(void *, Args...);
};

} // namespace tfrt

#endif // TFRT_FUNCTION_H
