// How a pool's threads wait and share work, tuned from the timed tasks:
// waiting threads spin, then yield, then sleep; tasks are claimed in
// chunks; cheap calls stay on the calling thread.
//
// Spinning pays off only when tasks are short (the next one is microseconds
// away); once a sampled task takes over 100 us (Atari) a spinning thread
// would mostly steal the core of a busy one, so only the yielding phase
// remains. Tasks are claimed in chunks of about kChunkWork of stepping (one
// claim per task cost CartPole more than its physics), single when a task
// takes longer: a chunk runs on one thread, and a long one would keep work
// from an idle thread. And task_ns, a running mean of the timed tasks,
// tells StepsHere which calls stay on the calling thread.
//
// Every member is a relaxed atomic read by every claim, stored only on a
// change, so the stepping path pays no shared-line writes.
#ifndef ENVPOOL_CORE_WAIT_POLICY_H_
#define ENVPOOL_CORE_WAIT_POLICY_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace envpool {

class WaitPolicy {
 public:
  static constexpr int kSpins = 2000;
  static constexpr std::chrono::nanoseconds kMinYield{35000};
  static constexpr std::chrono::nanoseconds kMaxYield{2000000};
  static constexpr int kMaxChunk = 16;
  static constexpr std::chrono::nanoseconds kChunkWork{2000};
  static constexpr std::chrono::nanoseconds kInlineWork{20000};
  static constexpr std::chrono::nanoseconds kHandOff{300};
  static constexpr int64_t kUntimed = int64_t{1} << 40;

  // `num_workers`: the pool's worker threads (besides the callers).
  explicit WaitPolicy(int num_workers) : num_workers_(num_workers) {}

  // Spinning only pays while every waiting thread has a core of its own;
  // otherwise a spinner takes the core of a thread with work to do.
  void NeverSpin() {
    may_spin_ = false;
    spins_.store(0);
  }

  // Learns from one timed task (or a call's mean per env).
  void Observe(std::chrono::steady_clock::duration took) {
    const auto ns = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    const int chunk = static_cast<int>(std::clamp<int64_t>(kChunkWork.count() / ns, 1, kMaxChunk));
    if (chunk_.load(std::memory_order_relaxed) != chunk) chunk_.store(chunk, std::memory_order_relaxed);
    const int64_t old = task_ns_.load(std::memory_order_relaxed);
    const int64_t estimate = old == kUntimed ? ns : old + (ns - old) / 8;
    if (estimate != old) task_ns_.store(estimate, std::memory_order_relaxed);
    if (!may_spin_) return;
    const int spins = took < std::chrono::microseconds(100) ? kSpins : 0;
    if (spins_.load(std::memory_order_relaxed) != spins) spins_.store(spins, std::memory_order_relaxed);
  }

  int spins() const { return spins_.load(std::memory_order_relaxed); }
  int chunk() const { return chunk_.load(std::memory_order_relaxed); }

  // How long a waiting thread yields before it sleeps: two tasks' time
  // (kMinYield to kMaxYield). A sync call's threads finish up to a task
  // apart, and the next call follows the last of them; one that slept in
  // between waited for its vCPU to be woken (Pong, 8 envs, 2 threads: with
  // a fixed 35 us of yields, 1.3-1.9 of the 2 cores were busy; time spent
  // here when nothing else wants the core is time it would idle).
  std::chrono::nanoseconds YieldFor() const {
    const int64_t t = task_ns_.load(std::memory_order_relaxed);
    return std::clamp(std::chrono::nanoseconds(t == kUntimed ? 0 : 2 * t), kMinYield, kMaxYield);
  }

  // Whether the calling thread should step a call's n envs alone, from
  // the timed tasks' mean. Handing a task to another core costs it cache
  // misses on its task, action and result rows (kHandOff, measured with
  // CartPole on a 2-core VM), and the call a wait for the slowest thread.
  // With T stepping threads a call gains t(1 - 1/T) per env of work t and
  // pays about kHandOff/T, so envs cheaper than kHandOff/(T-1) are stepped
  // here whatever their number (two threads took 145 us per call of 1024
  // CartPole envs, the caller alone 91), and so is a call whose whole work
  // is under kInlineWork (about the hand-off's fixed cost: 64 CartPole
  // envs took 13-15 us on two threads, 7-8 alone).
  bool StepsHere(int n) const {
    const int64_t t = task_ns_.load(std::memory_order_relaxed);
    return t * num_workers_ <= kHandOff.count() || t <= kInlineWork.count() / std::max(n, 1);
  }

 private:
  int num_workers_;
  bool may_spin_ = true;
  std::atomic<int> spins_{kSpins};
  std::atomic<int> chunk_{1};               // tasks per claim, until a task is timed
  std::atomic<int64_t> task_ns_{kUntimed};  // a running mean of the timed tasks
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_WAIT_POLICY_H_
