// Futex-based waiting primitives: a counting semaphore and a counter that
// threads can wait on. No mutex anywhere: the fast paths are single atomic
// operations, and a system call happens only when a thread really sleeps or
// someone is known to be sleeping.
#ifndef ENVPOOL_CORE_SEMAPHORE_H_
#define ENVPOOL_CORE_SEMAPHORE_H_

#include <atomic>
#include <chrono>
#include <climits>

#include "cpp/platform/threads.h"
#include "cpp/platform/wait.h"

namespace envpool {

inline void FutexWait(std::atomic<int>* addr, int expected) { platform::WaitWord(addr, expected); }

inline void FutexWake(std::atomic<int>* addr, int count) { platform::WakeWord(addr, count); }

inline void CpuRelax() { platform::CpuRelax(); }

// Gives up the core (a yield: the thread runs on only while nothing
// else wants the core) until ready() or `duration` has passed; returns
// ready(). The clock is read every 16 yields (a yield takes ~0.35 us here).
template <typename Ready>
bool YieldUntil(std::chrono::nanoseconds duration, Ready ready) {
  if (duration.count() <= 0) return ready();
  const auto end = std::chrono::steady_clock::now() + duration;
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      platform::YieldCore();
    }
    if (std::chrono::steady_clock::now() >= end) return ready();
  }
}

// Counting semaphore. A waiter first spins (`spins` pause loops), then
// yields its core for `yield_for` (YieldUntil), then sleeps on the futex.
// On the stepping path the next token usually arrives within a task's
// time, and waking a thread that sleeps costs tens to hundreds of
// microseconds on a virtual machine (its idle vCPU must be scheduled again).
class Semaphore {
 public:
  explicit Semaphore(int initial = 0) : count_(initial) {}

  bool TryAcquire() {
    int c = count_.load(std::memory_order_relaxed);
    while (c > 0) {
      if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
    }
    return false;
  }

  // Takes up to `max` tokens at once (one atomic operation for all of
  // them); returns how many, 0 if none were available.
  int TryAcquireUpTo(int max) {
    int c = count_.load(std::memory_order_relaxed);
    while (c > 0) {
      const int take = c < max ? c : max;
      if (count_.compare_exchange_weak(c, c - take, std::memory_order_acquire, std::memory_order_relaxed)) return take;
    }
    return 0;
  }

  void Acquire(int spins = 2000, std::chrono::nanoseconds yield_for = std::chrono::nanoseconds(0)) {
    for (int i = 0; i < spins; ++i) {
      if (TryAcquire()) return;
      CpuRelax();
    }
    if (YieldUntil(yield_for, [this] { return TryAcquire(); })) return;
    while (!TryAcquire()) {
      // The seq_cst pair (waiters_++ then count_ read, against count_ add
      // then waiters_ read in Release) rules out a lost wake-up; the futex
      // itself re-checks count_ == 0 before sleeping.
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      if (count_.load(std::memory_order_seq_cst) <= 0) FutexWait(&count_, 0);
      waiters_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  // Adds n tokens and wakes up to `wake` sleeping waiters (default n).
  void Release(int n = 1, int wake = -1) {
    if (wake < 0) wake = n;
    count_.fetch_add(n, std::memory_order_seq_cst);
    if (wake > 0 && waiters_.load(std::memory_order_seq_cst) > 0) FutexWake(&count_, wake);
  }

 private:
  std::atomic<int> count_;
  std::atomic<int> waiters_{0};
};

// Counts arrivals at a batch. Arrive() touches nothing after the final
// increment, because the batch may be freed the moment it is complete.
class Countdown {
 public:
  void Reset(int target) {
    target_ = target;
    count_.store(0, std::memory_order_relaxed);
  }
  int target() const { return target_; }
  bool Done() const { return count_.load(std::memory_order_seq_cst) >= target_; }

  // Counts n arrivals; returns true for the call that completes the count.
  bool Arrive(int n = 1) {
    const int target = target_;
    return count_.fetch_add(n, std::memory_order_seq_cst) + n == target;
  }

 private:
  std::atomic<int> count_{0};
  int target_ = 0;
};

// Lets threads sleep until "something completed". Any number of threads
// may wait at once (several Python threads in recv() of one pool). It
// lives as long as the pool, so a completing worker may signal it after
// the batch is gone.
class Notifier {
 public:
  int Epoch() const { return epoch_.load(std::memory_order_seq_cst); }

  void Notify() {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst) > 0) FutexWake(&epoch_, INT_MAX);
  }

  // Sleeps unless the epoch moved past `seen` or `ready()` holds; the
  // caller re-checks its condition afterwards (wake-ups can be spurious).
  // The seq_cst pair (waiters_++ then epoch_ read, against epoch_++ then
  // waiters_ read in Notify) rules out a lost wake-up.
  template <class Ready>
  void Wait(int seen, Ready ready) {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (epoch_.load(std::memory_order_seq_cst) == seen && !ready()) FutexWait(&epoch_, seen);
    waiters_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  std::atomic<int> epoch_{0};
  std::atomic<int> waiters_{0};
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_SEMAPHORE_H_
