//===- bench_model.cpp - threads and concurrent requests on a model -------===//
//
// Links one compiled model (its NAME_descriptor is MODEL_DESCRIPTOR) and
// measures, alternating the two configurations round by round:
//   latency     one request at a time: on the calling thread only, then with
//               a pool of one worker (2 threads share the model's parallel
//               chunks and task groups); median per configuration;
//   throughput  `--requests` requests with `--inflight` in flight
//               (tfrt_model_run_async, one instance each) on a pool of 1 and
//               of 2 workers; requests per second.
// Each 2-thread figure comes with the process CPU time / wall time over its
// window (2.0 = both cores ran throughout), the quietness check of
// docs/performance.md.
//
// usage: bench-model-NAME [--rounds R] [--runs N] [--requests Q]
//                         [--inflight K]
//
//===----------------------------------------------------------------------===//

#include "tfrt/async.h"
#include "tfrt/runtime.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

extern "C" const tfrt_model_desc *MODEL_DESCRIPTOR(void);

namespace {

using Clock = std::chrono::steady_clock;

double cpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void die(tfrt_status status, const char *what) {
  if (!status)
    return;
  std::fprintf(stderr, "error: %s: %s\n", what, tfrt_status_message(status));
  std::exit(1);
}

struct Buffers {
  explicit Buffers(const tfrt_model_desc *d) {
    auto add = [&](const tfrt_tensor_desc &t, std::vector<tfrt_tensor> &out,
                   bool input) {
      size_t n = tfrt_dtype_size(t.dtype);
      for (int32_t i = 0; i < t.rank; ++i)
        n *= size_t(t.dims[i]);
      storage.emplace_back(n / sizeof(float) + 1);
      if (input)
        for (size_t k = 0; k < storage.back().size(); ++k)
          storage.back()[k] = float(k % 97) / 97.0f;
      out.push_back({storage.back().data(), t.dtype, t.rank, t.dims});
    };
    storage.reserve(d->num_inputs + d->num_outputs);
    for (uint32_t i = 0; i < d->num_inputs; ++i)
      add(d->inputs[i], inputs, true);
    for (uint32_t i = 0; i < d->num_outputs; ++i)
      add(d->outputs[i], outputs, false);
  }
  std::vector<std::vector<float>> storage;
  std::vector<tfrt_tensor> inputs, outputs;
};

/// Completions of asynchronous runs; each instance reports its index.
struct Done {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> idle; // instances whose last run has completed
  int count = 0;
};
struct Slot {
  Done *done;
  int index;
  static void callback(void *self, tfrt_status status) {
    die(status, "asynchronous run");
    auto *slot = static_cast<Slot *>(self);
    std::lock_guard<std::mutex> lock(slot->done->mutex);
    slot->done->idle.push_back(slot->index);
    ++slot->done->count;
    slot->done->cv.notify_all();
  }
};

/// Requests per second for `requests` requests with one run in flight per
/// instance.
double throughput(const tfrt_model_desc *desc, tfrt_pool *pool, int requests,
                  std::vector<tfrt_instance *> &instances,
                  std::vector<Buffers> &buffers, double &cpuPerWall) {
  Done done;
  int n = int(instances.size());
  std::vector<Slot> slots;
  for (int k = 0; k < n; ++k)
    slots.push_back({&done, k});
  for (int k = n - 1; k >= 0; --k)
    done.idle.push_back(k);
  double cpu0 = cpuSeconds();
  auto t0 = Clock::now();
  for (int started = 0; started < requests; ++started) {
    int k;
    {
      std::unique_lock<std::mutex> lock(done.mutex);
      done.cv.wait(lock, [&] { return !done.idle.empty(); });
      k = done.idle.back();
      done.idle.pop_back();
    }
    die(tfrt_model_run_async(instances[k], buffers[k].inputs.data(),
                             desc->num_inputs, buffers[k].outputs.data(),
                             desc->num_outputs, pool, Slot::callback,
                             &slots[k]),
        "run_async");
  }
  {
    std::unique_lock<std::mutex> lock(done.mutex);
    done.cv.wait(lock, [&] { return done.count == requests; });
  }
  double wall = since(t0);
  cpuPerWall = (cpuSeconds() - cpu0) / wall;
  return requests / wall;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5, runs = 30, requests = 64, inflight = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (v <= 0) {
      std::fprintf(stderr, "error: %s needs a positive count\n", a.c_str());
      return 1;
    }
    if (a == "--rounds")
      rounds = v;
    else if (a == "--runs")
      runs = v;
    else if (a == "--requests")
      requests = v;
    else if (a == "--inflight")
      inflight = v;
    else {
      std::fprintf(stderr, "error: unknown option %s\n", a.c_str());
      return 1;
    }
  }
  const tfrt_model_desc *desc = MODEL_DESCRIPTOR();
  tfrt_pool *pool1 = nullptr, *pool2 = nullptr;
  die(tfrt_pool_create(1, &pool1), "pool");
  die(tfrt_pool_create(2, &pool2), "pool");

  // Latency: one instance, caller only vs caller + 1 worker.
  tfrt_instance *inst = nullptr;
  die(tfrt_model_create(desc, &inst), "create");
  Buffers io(desc);
  auto runOnce = [&] {
    die(tfrt_model_run(inst, io.inputs.data(), desc->num_inputs,
                       io.outputs.data(), desc->num_outputs),
        "run");
  };
  std::vector<double> lat1, lat2, ratio2;
  for (int r = 0; r < rounds; ++r) {
    for (int threads = 1; threads <= 2; ++threads) {
      die(tfrt_model_set_pool(inst, threads == 1 ? nullptr : pool1), "pool");
      for (int w = 0; w < 3; ++w)
        runOnce();
      std::vector<double> t;
      double cpu0 = cpuSeconds();
      auto w0 = Clock::now();
      for (int i = 0; i < runs; ++i) {
        auto s = Clock::now();
        runOnce();
        t.push_back(since(s) * 1e3);
      }
      (threads == 1 ? lat1 : lat2).push_back(median(t));
      if (threads == 2)
        ratio2.push_back((cpuSeconds() - cpu0) / since(w0));
    }
  }
  tfrt_model_destroy(inst);
  double m1 = median(lat1), m2 = median(lat2);
  std::printf("latency threads=1 median_ms=%.4f\n", m1);
  std::printf("latency threads=2 median_ms=%.4f speedup=%.2fx cpu/wall=%.2f\n",
              m2, m1 / m2, median(ratio2));

  // Throughput: `inflight` instances with asynchronous runs.
  std::vector<tfrt_instance *> instances(inflight, nullptr);
  std::vector<Buffers> buffers;
  buffers.reserve(inflight);
  for (int k = 0; k < inflight; ++k) {
    die(tfrt_model_create(desc, &instances[k]), "create");
    buffers.emplace_back(desc);
  }
  std::vector<double> tp1, tp2, tpRatio;
  for (int r = 0; r < rounds; ++r) {
    double ignored, cw;
    throughput(desc, pool1, inflight, instances, buffers, ignored); // warm-up
    tp1.push_back(throughput(desc, pool1, requests, instances, buffers,
                             ignored));
    throughput(desc, pool2, inflight, instances, buffers, ignored);
    tp2.push_back(throughput(desc, pool2, requests, instances, buffers, cw));
    tpRatio.push_back(cw);
  }
  for (tfrt_instance *i : instances)
    tfrt_model_destroy(i);
  double q1 = median(tp1), q2 = median(tp2);
  std::printf("throughput threads=1 requests_per_s=%.1f (%d requests, %d in "
              "flight)\n",
              q1, requests, inflight);
  std::printf("throughput threads=2 requests_per_s=%.1f ratio=%.2fx "
              "cpu/wall=%.2f\n",
              q2, q2 / q1, median(tpRatio));
  tfrt_pool_destroy(pool1);
  tfrt_pool_destroy(pool2);
  return 0;
}
