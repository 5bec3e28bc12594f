//===- AsyncValueTest.cpp - tfrt::AsyncValue and UniqueFunction tests -----===//
//
// State transitions, reference counting (checked for leaks by payloads that
// count their live instances, and by ASan in sanitizer builds), AndThen
// ordering and exactly-once delivery (also racing the producer), errors
// through RunWhenReady chains, Chain, and Await from plain threads.
//
//===----------------------------------------------------------------------===//

#include "tfrt/async_value.h"
#include "tfrt/function.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tfrt;

namespace {

/// Counts live instances so tests can check that payloads are destroyed.
struct Tracked {
  static std::atomic<int> live;
  int value;
  explicit Tracked(int v) : value(v) { live.fetch_add(1); }
  Tracked(const Tracked &other) : value(other.value) { live.fetch_add(1); }
  ~Tracked() { live.fetch_sub(1); }
};
std::atomic<int> Tracked::live{0};

class AsyncValueTest : public ::testing::Test {
protected:
  void SetUp() override { Tracked::live.store(0); }
  void TearDown() override { EXPECT_EQ(Tracked::live.load(), 0); }
};

TEST_F(AsyncValueTest, AvailableValue) {
  AsyncValueRef<Tracked> value = MakeAvailableAsyncValueRef<Tracked>(42);
  EXPECT_TRUE(value.IsAvailable());
  EXPECT_TRUE(value.IsConcrete());
  EXPECT_FALSE(value.IsError());
  EXPECT_EQ(value.GetAsyncValue()->state(), AsyncValue::State::kConcrete);
  EXPECT_EQ(value->value, 42);
  EXPECT_EQ((*value).value, 42);
  EXPECT_STREQ(value.GetError(), "");
  EXPECT_EQ(Tracked::live.load(), 1);
}

TEST_F(AsyncValueTest, UnconstructedToConcrete) {
  auto value = MakeUnconstructedAsyncValueRef<Tracked>();
  EXPECT_EQ(value.GetAsyncValue()->state(), AsyncValue::State::kUnconstructed);
  EXPECT_TRUE(value.IsUnavailable());
  EXPECT_EQ(Tracked::live.load(), 0);
  value.emplace(7);
  EXPECT_TRUE(value.IsConcrete());
  EXPECT_EQ(value->value, 7);
}

TEST_F(AsyncValueTest, UnconstructedToConstructedToConcrete) {
  auto value = MakeUnconstructedAsyncValueRef<Tracked>();
  value.construct(3);
  EXPECT_EQ(value.GetAsyncValue()->state(), AsyncValue::State::kConstructed);
  EXPECT_FALSE(value.IsAvailable());
  EXPECT_EQ(Tracked::live.load(), 1);
  bool ran = false;
  value.AndThen([&] { ran = true; });
  EXPECT_FALSE(ran);
  value.SetStateConcrete();
  EXPECT_TRUE(ran);
  EXPECT_EQ(value->value, 3);
}

TEST_F(AsyncValueTest, ConstructedValueFromFactory) {
  auto value = MakeConstructedAsyncValueRef<Tracked>(5);
  EXPECT_EQ(value.GetAsyncValue()->state(), AsyncValue::State::kConstructed);
  value->value = 6; // the producer may still write it
  value.SetStateConcrete();
  EXPECT_EQ(value->value, 6);
}

TEST_F(AsyncValueTest, ErrorFromUnconstructed) {
  auto value = MakeUnconstructedAsyncValueRef<Tracked>();
  value.SetError("boom");
  EXPECT_TRUE(value.IsAvailable());
  EXPECT_TRUE(value.IsError());
  EXPECT_FALSE(value.IsConcrete());
  EXPECT_STREQ(value.GetError(), "boom");
  EXPECT_EQ(Tracked::live.load(), 0);
}

TEST_F(AsyncValueTest, ErrorFromConstructedDestroysPayload) {
  auto value = MakeConstructedAsyncValueRef<Tracked>(1);
  EXPECT_EQ(Tracked::live.load(), 1);
  value.SetError("late failure");
  EXPECT_EQ(Tracked::live.load(), 0);
  EXPECT_STREQ(value.GetError(), "late failure");
}

TEST_F(AsyncValueTest, MakeErrorValue) {
  auto error = MakeErrorAsyncValueRef<Tracked>("bad input");
  EXPECT_TRUE(error.IsError());
  EXPECT_STREQ(error.GetError(), "bad input");
  auto chainError = MakeErrorAsyncValueRef("no type");
  EXPECT_TRUE(chainError.IsError());
  // The message is a private copy.
  std::string text = "temporary";
  auto copied = MakeErrorAsyncValueRef(text.c_str());
  text = "changed";
  EXPECT_STREQ(copied.GetError(), "temporary");
  auto nullMessage = MakeErrorAsyncValueRef(nullptr);
  EXPECT_STREQ(nullMessage.GetError(), "");
}

TEST_F(AsyncValueTest, DoublePublishAborts) {
  // Re-executes the test binary for the child: safe with threads around.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto value = MakeAvailableAsyncValueRef<int>(1);
        value.SetError("again");
      },
      "");
}

TEST_F(AsyncValueTest, RefCounting) {
  auto value = MakeAvailableAsyncValueRef<Tracked>(1);
  AsyncValue *raw = value.GetAsyncValue();
  EXPECT_EQ(raw->NumRef(), 1u);
  {
    AsyncValueRef<Tracked> copy = value;
    EXPECT_EQ(raw->NumRef(), 2u);
    AsyncValueRef<Tracked> moved = std::move(copy);
    EXPECT_FALSE(copy);
    EXPECT_EQ(raw->NumRef(), 2u);
    AsyncValueRef<Tracked> another = value.CopyRef();
    EXPECT_EQ(raw->NumRef(), 3u);
  }
  EXPECT_EQ(raw->NumRef(), 1u);
  raw->AddRef(5);
  raw->DropRef(5);
  EXPECT_EQ(raw->NumRef(), 1u);
  AsyncValue *released = value.release();
  EXPECT_EQ(Tracked::live.load(), 1);
  released->DropRef();
  EXPECT_EQ(Tracked::live.load(), 0);
}

TEST_F(AsyncValueTest, RefCountingAcrossThreads) {
  auto value = MakeAvailableAsyncValueRef<Tracked>(9);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([copy = value.CopyRef()] {
      for (int i = 0; i < 10000; ++i) {
        AsyncValueRef<Tracked> local = copy;
        EXPECT_EQ(local->value, 9);
      }
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(value.GetAsyncValue()->NumRef(), 1u);
}

TEST_F(AsyncValueTest, AndThenRunsInlineWhenAvailable) {
  auto value = MakeAvailableAsyncValueRef<int>(1);
  int calls = 0;
  value.AndThen([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST_F(AsyncValueTest, AndThenOrderAndExactlyOnce) {
  auto value = MakeUnconstructedAsyncValueRef<int>();
  std::vector<int> order;
  for (int i = 0; i < 10; ++i)
    value.AndThen([&order, i] { order.push_back(i); });
  EXPECT_TRUE(order.empty());
  value.emplace(5);
  ASSERT_EQ(order.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(order[i], i);
  // Later continuations run inline, once.
  value.AndThen([&order] { order.push_back(100); });
  EXPECT_EQ(order.size(), 11u);
}

TEST_F(AsyncValueTest, AndThenRunsOnProducerThread) {
  auto value = MakeUnconstructedAsyncValueRef<int>();
  std::thread::id ranOn;
  value.AndThen([&] { ranOn = std::this_thread::get_id(); });
  std::thread::id producer;
  std::thread thread([&, value] {
    producer = std::this_thread::get_id();
    value.emplace(1);
  });
  thread.join();
  EXPECT_EQ(ranOn, producer);
}

TEST_F(AsyncValueTest, AndThenMoveOnlyAndLargeCaptures) {
  auto value = MakeUnconstructedAsyncValueRef<int>();
  auto owned = std::make_unique<int>(11);
  int seen = 0;
  char big[256] = {1};
  value.AndThen([owned = std::move(owned), &seen, big] {
    seen = *owned + big[0];
  });
  value.emplace(0);
  EXPECT_EQ(seen, 12);
}

TEST_F(AsyncValueTest, AndThenRacingProducerRunsEachOnce) {
  constexpr int kRounds = 200;
  constexpr int kRegistrars = 3;
  constexpr int kPerThread = 50;
  for (int round = 0; round < kRounds; ++round) {
    auto value = MakeUnconstructedAsyncValueRef<Tracked>();
    std::atomic<int> calls{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kRegistrars; ++t)
      threads.emplace_back([&] {
        while (!go.load()) {
        }
        for (int i = 0; i < kPerThread; ++i)
          value.AndThen([&calls, copy = value.CopyRef()] {
            EXPECT_EQ(copy->value, 4);
            calls.fetch_add(1);
          });
      });
    go.store(true);
    value.emplace(4);
    for (auto &thread : threads)
      thread.join();
    EXPECT_EQ(calls.load(), kRegistrars * kPerThread);
  }
}

TEST_F(AsyncValueTest, ChainOrdersWork) {
  AsyncValueRef<Chain> first = MakeUnconstructedAsyncValueRef<Chain>();
  AsyncValueRef<Chain> second = MakeUnconstructedAsyncValueRef<Chain>();
  std::vector<int> log;
  second.AndThen([&] { log.push_back(2); });
  first.AndThen([&, second] {
    log.push_back(1);
    second.emplace();
  });
  EXPECT_TRUE(log.empty());
  first.emplace();
  EXPECT_EQ(log, (std::vector<int>{1, 2}));
  EXPECT_TRUE(MakeAvailableChain().IsConcrete());
  static_assert(std::is_empty<Chain>::value, "Chain carries no data");
}

TEST_F(AsyncValueTest, RunWhenReadyAllAvailableRunsInline) {
  auto a = MakeAvailableAsyncValueRef<int>(1);
  auto b = MakeAvailableAsyncValueRef<int>(2);
  bool ran = false;
  RunWhenReady({a.GetAsyncValue(), b.GetAsyncValue()}, [&] { ran = true; });
  EXPECT_TRUE(ran);
  bool emptyRan = false;
  RunWhenReady(Span<AsyncValue *const>(), [&] { emptyRan = true; });
  EXPECT_TRUE(emptyRan);
}

TEST_F(AsyncValueTest, RunWhenReadyWaitsForLast) {
  std::vector<AsyncValueRef<int>> values;
  std::vector<AsyncValue *> raw;
  for (int i = 0; i < 5; ++i) {
    values.push_back(MakeUnconstructedAsyncValueRef<int>());
    raw.push_back(values.back().GetAsyncValue());
  }
  int calls = 0;
  RunWhenReady(raw, [&] { ++calls; });
  for (int i = 0; i < 4; ++i) {
    values[i].emplace(i);
    EXPECT_EQ(calls, 0);
  }
  values[4].emplace(4);
  EXPECT_EQ(calls, 1);
}

/// c = a + b as an asynchronous kernel: errors in inputs propagate.
AsyncValueRef<int> AddAsync(const AsyncValueRef<int> &a,
                            const AsyncValueRef<int> &b) {
  AsyncValueRef<int> result = MakeUnconstructedAsyncValueRef<int>();
  RunWhenReady({a.GetAsyncValue(), b.GetAsyncValue()}, [a, b, result] {
    if (const AsyncValue *error =
            FirstError({a.GetAsyncValue(), b.GetAsyncValue()})) {
      result.GetAsyncValue()->SetErrorFrom(*error);
      return;
    }
    result.emplace(*a + *b);
  });
  return result;
}

TEST_F(AsyncValueTest, ErrorPropagatesThroughRunWhenReadyChain) {
  auto x = MakeUnconstructedAsyncValueRef<int>();
  auto y = MakeUnconstructedAsyncValueRef<int>();
  auto one = MakeAvailableAsyncValueRef<int>(1);
  // ((x + 1) + y) + 1 and (x + 1) + 1.
  auto s1 = AddAsync(x, one);
  auto s2 = AddAsync(s1, y);
  auto s3 = AddAsync(s2, one);
  auto t1 = AddAsync(s1, one);
  EXPECT_TRUE(s3.IsUnavailable());
  x.emplace(10);
  EXPECT_TRUE(t1.IsConcrete());
  EXPECT_EQ(*t1, 12);
  EXPECT_TRUE(s3.IsUnavailable());
  y.SetError("y failed");
  EXPECT_TRUE(s2.IsError());
  EXPECT_TRUE(s3.IsError());
  EXPECT_STREQ(s3.GetError(), "y failed");
}

TEST_F(AsyncValueTest, AwaitFromOtherThread) {
  auto value = MakeUnconstructedAsyncValueRef<Tracked>();
  std::atomic<bool> awaited{false};
  std::thread waiter([&, value] {
    Await(value);
    EXPECT_EQ(value->value, 77);
    awaited.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(awaited.load());
  value.emplace(77);
  waiter.join();
  EXPECT_TRUE(awaited.load());
}

TEST_F(AsyncValueTest, AwaitManyAndErrors) {
  auto a = MakeUnconstructedAsyncValueRef<int>();
  auto b = MakeUnconstructedAsyncValueRef<int>();
  std::thread producer([a, b] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    a.emplace(1);
    b.SetError("b broke");
  });
  AsyncValue *values[] = {a.GetAsyncValue(), b.GetAsyncValue()};
  Await(Span<AsyncValue *const>(values, 2));
  EXPECT_TRUE(a.IsConcrete());
  EXPECT_TRUE(b.IsError());
  EXPECT_EQ(FirstError(Span<AsyncValue *const>(values, 2)),
            b.GetAsyncValue());
  producer.join();
  // Awaiting an available value returns at once.
  Await(a);
}

TEST(UniqueFunctionTest, InlineHeapAndMove) {
  int calls = 0;
  UniqueFunction<int(int)> small = [&calls](int x) {
    ++calls;
    return x + 1;
  };
  EXPECT_EQ(small(1), 2);
  char big[200] = {5};
  UniqueFunction<int(int)> large = [big](int x) { return x + big[0]; };
  EXPECT_EQ(large(1), 6);
  UniqueFunction<int(int)> moved = std::move(large);
  EXPECT_FALSE(large);
  EXPECT_EQ(moved(2), 7);
  moved = std::move(small);
  EXPECT_EQ(moved(3), 4);
  EXPECT_EQ(calls, 2);
  auto owned = std::make_unique<int>(3);
  UniqueFunction<int()> moveOnly = [p = std::move(owned)] { return *p; };
  EXPECT_EQ(moveOnly(), 3);
  moveOnly.reset();
  EXPECT_FALSE(moveOnly);
}

TEST(UniqueFunctionTest, DestroysCapture) {
  Tracked::live.store(0);
  {
    UniqueFunction<void()> f = [t = Tracked(1)] { (void)t; };
    UniqueFunction<void()> g = std::move(f);
    EXPECT_EQ(Tracked::live.load(), 1);
  }
  EXPECT_EQ(Tracked::live.load(), 0);
}

} // namespace
