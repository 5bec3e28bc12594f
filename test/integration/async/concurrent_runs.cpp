//===- concurrent_runs.cpp - concurrent runs match sequential runs --------===//
//
// Links one compiled model (its NAME_descriptor is MODEL_DESCRIPTOR) and
// checks that runs executed concurrently give bit-identical outputs to the
// same requests run one after another on the calling thread:
//   1. sequential reference: one instance, no pool, every request;
//   2. many asynchronous runs in flight on one pool (tfrt_model_run_async,
//      one instance per run in flight), round after round;
//   3. synchronous runs from several application threads whose instances
//      share one pool for their parallel loops (tfrt_model_set_pool).
// Prints `N compared, M mismatched` and exits 1 on any mismatch or error.
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/runtime.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

extern "C" const tfrt_model_desc *MODEL_DESCRIPTOR(void);

namespace {

constexpr int kRequests = 12;

size_t bytesOf(const tfrt_tensor_desc &d) {
  size_t n = tfrt_dtype_size(d.dtype);
  for (int32_t i = 0; i < d.rank; ++i)
    n *= size_t(d.dims[i]);
  return n;
}

/// The buffers of one request (inputs filled deterministically from its
/// index) and the tensors that point at them.
struct Request {
  Request(const tfrt_model_desc *desc, int index) {
    for (uint32_t i = 0; i < desc->num_inputs; ++i) {
      const tfrt_tensor_desc &d = desc->inputs[i];
      buffers.emplace_back(bytesOf(d));
      std::vector<char> &b = buffers.back();
      if (d.dtype == TFRT_DTYPE_FLOAT32) {
        auto *f = reinterpret_cast<float *>(b.data());
        for (size_t k = 0; k < b.size() / 4; ++k)
          f[k] = float((k * 7919 + size_t(index) * 104729) % 2001) / 1000.0f -
                 1.0f;
      } else {
        for (size_t k = 0; k < b.size(); ++k)
          b[k] = char((k + size_t(index)) % 3);
      }
      inputs.push_back({b.data(), d.dtype, d.rank, d.dims});
    }
    for (uint32_t i = 0; i < desc->num_outputs; ++i) {
      const tfrt_tensor_desc &d = desc->outputs[i];
      buffers.emplace_back(bytesOf(d), char(0x5a));
      outputs.push_back({buffers.back().data(), d.dtype, d.rank, d.dims});
    }
    // emplace_back may have moved earlier buffers: repoint everything.
    for (uint32_t i = 0; i < desc->num_inputs; ++i)
      inputs[i].data = buffers[i].data();
    for (uint32_t i = 0; i < desc->num_outputs; ++i)
      outputs[i].data = buffers[desc->num_inputs + i].data();
  }
  std::vector<std::vector<char>> buffers;
  std::vector<tfrt_tensor> inputs, outputs;
};

bool check(tfrt_status status, const char *what) {
  if (!status)
    return true;
  std::fprintf(stderr, "error: %s: %s\n", what, tfrt_status_message(status));
  tfrt_status_free(status);
  return false;
}

struct Done {
  std::mutex mutex;
  std::condition_variable cv;
  int count = 0, errors = 0;
  static void callback(void *self, tfrt_status status) {
    auto *d = static_cast<Done *>(self);
    std::lock_guard<std::mutex> lock(d->mutex);
    if (status) {
      std::fprintf(stderr, "error: async run: %s\n",
                   tfrt_status_message(status));
      tfrt_status_free(status);
      ++d->errors;
    }
    ++d->count;
    d->cv.notify_all();
  }
  void waitFor(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return count >= n; });
  }
};

} // namespace

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const tfrt_model_desc *desc = MODEL_DESCRIPTOR();
  uint32_t nIn = desc->num_inputs, nOut = desc->num_outputs;

  // 1. Sequential reference.
  std::vector<Request> reference;
  tfrt_instance *serial = nullptr;
  if (!check(tfrt_model_create(desc, &serial), "create"))
    return 1;
  for (int r = 0; r < kRequests; ++r) {
    reference.emplace_back(desc, r);
    Request &q = reference.back();
    if (!check(tfrt_model_run(serial, q.inputs.data(), nIn, q.outputs.data(),
                              nOut),
               "sequential run"))
      return 1;
  }
  tfrt_model_destroy(serial);

  long compared = 0, mismatched = 0;
  auto compare = [&](const Request &got, int r) {
    for (uint32_t i = 0; i < nOut; ++i) {
      ++compared;
      const std::vector<char> &want = reference[r].buffers[nIn + i];
      if (std::memcmp(got.buffers[nIn + i].data(), want.data(), want.size()))
        ++mismatched;
    }
  };

  tfrt_pool *pool = nullptr;
  if (!check(tfrt_pool_create(threads, &pool), "pool"))
    return 1;

  // 2. Asynchronous runs in flight together on the pool.
  constexpr int kInFlight = 6, kRounds = 10;
  std::vector<tfrt_instance *> instances(kInFlight, nullptr);
  for (tfrt_instance *&instance : instances)
    if (!check(tfrt_model_create(desc, &instance), "create"))
      return 1;
  Done done;
  int started = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<Request> batch;
    std::vector<int> ids;
    for (int k = 0; k < kInFlight; ++k) {
      ids.push_back((round * kInFlight + k) % kRequests);
      batch.emplace_back(desc, ids.back());
    }
    for (int k = 0; k < kInFlight; ++k) {
      tfrt_status s = tfrt_model_run_async(
          instances[k], batch[k].inputs.data(), nIn, batch[k].outputs.data(),
          nOut, pool, Done::callback, &done);
      if (!check(s, "run_async"))
        return 1;
      ++started;
    }
    done.waitFor(started);
    for (int k = 0; k < kInFlight; ++k)
      compare(batch[k], ids[k]);
  }
  for (tfrt_instance *instance : instances)
    tfrt_model_destroy(instance);

  // 3. Application threads with synchronous runs sharing the pool.
  constexpr int kAppThreads = 3, kRunsEach = 8;
  std::mutex resultMutex;
  bool failed = done.errors != 0;
  std::vector<std::thread> apps;
  for (int t = 0; t < kAppThreads; ++t)
    apps.emplace_back([&, t] {
      tfrt_instance *instance = nullptr;
      if (!check(tfrt_model_create(desc, &instance), "create") ||
          !check(tfrt_model_set_pool(instance, pool), "set_pool")) {
        std::lock_guard<std::mutex> lock(resultMutex);
        failed = true;
        return;
      }
      for (int i = 0; i < kRunsEach; ++i) {
        int r = (t * kRunsEach + i) % kRequests;
        Request q(desc, r);
        bool ok = check(tfrt_model_run(instance, q.inputs.data(), nIn,
                                       q.outputs.data(), nOut),
                        "threaded run");
        std::lock_guard<std::mutex> lock(resultMutex);
        if (!ok)
          failed = true;
        else
          compare(q, r);
      }
      tfrt_model_destroy(instance);
    });
  for (std::thread &t : apps)
    t.join();
  tfrt_pool_destroy(pool);

  std::printf("%ld compared, %ld mismatched\n", compared, mismatched);
  return failed || mismatched ? 1 : 0;
}
