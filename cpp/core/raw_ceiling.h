// The raw speed ceiling of a family: one bare emulator/simulator per
// thread (or a block of envs per thread) stepping as fast as it can, with
// no engine, queues or preprocessing. Benchmarks report engine throughput
// against it.
#ifndef ENVPOOL_CORE_RAW_CEILING_H_
#define ENVPOOL_CORE_RAW_CEILING_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/core/semaphore.h"

namespace envpool {

// The calls of RawCeiling's sync_calls mode: per block, how many of its
// envs have been taken this call, and a barrier at each call's end.
class SyncCalls {
 public:
  explicit SyncCalls(int num_threads) : threads_(num_threads), taken_(num_threads) {}

  // The next env of block b not yet taken this call (its index in the
  // block; past the block's end once all are).
  int Take(int b) { return taken_[b].n.fetch_add(1, std::memory_order_relaxed); }

  // Waits for every thread to end the call; returns whether another call
  // follows. The last thread to arrive decides (from `stop`), so all of
  // them stop after the same call.
  bool EndCall(const std::atomic<bool>& stop) {
    const uint64_t call = call_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      for (Taken& b : taken_) b.n.store(0, std::memory_order_relaxed);
      more_ = !stop.load(std::memory_order_relaxed);
      call_.store(call + 1, std::memory_order_release);
    } else {
      // Spin as a waiting engine thread does; yield once it is long (more
      // threads than cores).
      for (int spin = 0; call_.load(std::memory_order_acquire) == call; ++spin) {
        CpuRelax();
        if (spin > 4096) std::this_thread::yield();
      }
    }
    return more_;
  }

 private:
  struct alignas(64) Taken {
    std::atomic<int> n{0};
  };
  const int threads_;
  std::vector<Taken> taken_;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<uint64_t> call_{0};
  bool more_ = true;
};

// Returns agent steps per second summed over threads. With num_envs > 0,
// thread t steps its block of the num_envs envs in turn, one step each:
// the ceiling for holding that many envs (their states no longer stay in
// one core's cache between steps, as a lone env's does), still without an
// engine or batches.
//
// With sync_calls, the envs step in calls, as a sync pool's: each call
// steps every env once, each thread its own block first and then any env
// of the other blocks not yet begun (from each block's first, as the
// engine's queue lanes hand them out), and no thread starts the next call
// before the last env of this one has stepped. What that wait for the last
// step costs against the free-running loop is the most a sync engine can
// keep of it with these envs, before any Python, queue or hand-off.
inline double RawCeiling(const Family& family, const Config& config, int num_threads, double seconds, uint64_t seed,
                         int num_envs = 0, bool sync_calls = false) {
  const int envs = num_envs > 0 ? num_envs : num_threads;
  std::vector<std::function<void()>> steppers;
  for (int e = 0; e < envs; ++e) steppers.push_back(family.make_raw_stepper(config, seed + e));
  std::atomic<bool> stop{false};
  std::vector<uint64_t> counts(num_threads, 0);
  std::vector<std::thread> threads;
  auto block = [&](int t) { return static_cast<int>(static_cast<int64_t>(t) * envs / num_threads); };
  SyncCalls calls(num_threads);  // outlives the threads: they are joined below
  auto start = std::chrono::steady_clock::now();
  if (sync_calls) {
    for (int t = 0; t < num_threads; ++t) {
      threads.emplace_back([&, t] {
        uint64_t n = 0;
        do {
          for (int k = 0; k < num_threads; ++k) {
            const int b = (t + k) % num_threads;
            for (int i; (i = block(b) + calls.Take(b)) < block(b + 1);) {
              steppers[i]();
              ++n;
            }
          }
        } while (calls.EndCall(stop));
        counts[t] = n;
      });
    }
  } else {
    for (int t = 0; t < num_threads; ++t) {
      threads.emplace_back([&, t] {
        const int first = block(t);
        const int last = block(t + 1);
        // At least one step each: on a loaded machine a thread may first run
        // after the window closed, and a zero would read as a stepper that
        // cannot step.
        uint64_t n = 0;
        do {
          for (int e = first; e < last; ++e) steppers[e]();
          n += static_cast<uint64_t>(last - first);
        } while (!stop.load(std::memory_order_relaxed));
        counts[t] = n;
      });
    }
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (std::thread& th : threads) th.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return static_cast<double>(total) / elapsed;
}

// A family's make_raw_stepper for envs E (E::MakeSpec(config), E(config)):
// one bare env stepped with uniformly random actions (an
// int32 action in [low, high], float32 ones uniform in [low, high]), reset
// when an episode ends (terminated, or max_episode_steps), writing into a
// row of its own: no engine, queue or batch.
template <class E>
std::function<void()> RandomActionStepper(const Config& c, uint64_t seed) {
  struct Runner {
    EnvSpec spec;
    std::vector<std::vector<char>> state;
    std::vector<char*> state_ptrs;
    std::vector<char> action;
    const char* action_ptr = nullptr;
    std::unique_ptr<E> env;
    std::mt19937_64 rng;
    int64_t max_steps = 0, steps = 0;
  };
  auto r = std::make_shared<Runner>();
  r->spec = E::MakeSpec(c);
  for (const ArraySpec& a : r->spec.state) r->state.emplace_back(a.NumBytes() + 8);
  for (auto& s : r->state) r->state_ptrs.push_back(s.data());
  r->action.resize(r->spec.action[0].NumBytes() + 8);
  r->action_ptr = r->action.data();
  r->max_steps = c.Get<int64_t>("max_episode_steps");
  r->env = std::make_unique<E>(c);
  r->env->Seed(seed);
  r->rng.seed(seed);
  r->env->Reset(StateRow(r->state_ptrs.data()));
  return [r] {
    const StateRow out(r->state_ptrs.data());
    const ArraySpec& a = r->spec.action[0];
    if (a.dtype == DTypeOf<int32_t>()) {
      const auto n = static_cast<uint64_t>(a.high[0] - a.low[0] + 1);
      *reinterpret_cast<int32_t*>(r->action.data()) =
          static_cast<int32_t>(a.low[0]) + static_cast<int32_t>(r->rng() % n);
    } else {
      auto* v = reinterpret_cast<float*>(r->action.data());
      for (std::size_t i = 0; i < a.NumElements(); ++i)
        v[i] =
            static_cast<float>(a.low[i] + (a.high[i] - a.low[i]) * (static_cast<double>(r->rng() >> 11) * 0x1.0p-53));
    }
    const StepResult s = r->env->Step(ActionRow(&r->action_ptr), out);
    if (s.terminated || s.truncated || (r->max_steps > 0 && ++r->steps >= r->max_steps)) {
      r->steps = 0;
      r->env->Reset(out);
    }
  };
}

// A family of header-only envs E (E::Defaults(), E::MakeSpec, E(config))
// whose raw ceiling is RandomActionStepper<E>.
template <class E>
Family RandomActionFamily(const char* name, const char* kind, const char* task_module) {
  Family f = FamilyOf<E>(name, kind, task_module);
  f.make_raw_stepper = &RandomActionStepper<E>;
  return f;
}

}  // namespace envpool

#endif  // ENVPOOL_CORE_RAW_CEILING_H_
