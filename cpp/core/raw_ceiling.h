// The raw speed ceiling of a family: one bare emulator/simulator per
// thread stepping as fast as it can, with no engine, queues or
// preprocessing. Benchmarks report engine throughput against it.
#ifndef ENVPOOL_CORE_RAW_CEILING_H_
#define ENVPOOL_CORE_RAW_CEILING_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "cpp/core/family.h"

namespace envpool {

// Returns agent steps per second summed over threads.
inline double RawCeiling(const Family& family, const Config& config, int num_threads, double seconds, uint64_t seed) {
  std::vector<std::function<void()>> steppers;
  for (int t = 0; t < num_threads; ++t) steppers.push_back(family.make_raw_stepper(config, seed + t));
  std::atomic<bool> stop{false};
  std::vector<uint64_t> counts(num_threads, 0);
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        steppers[t]();
        ++n;
      }
      counts[t] = n;
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (std::thread& th : threads) th.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return static_cast<double>(total) / elapsed;
}

}  // namespace envpool

#endif  // ENVPOOL_CORE_RAW_CEILING_H_
