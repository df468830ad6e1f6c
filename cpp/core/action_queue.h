// The queue of pending env tasks (a step or a reset of one env).
//
// One producer (the Python thread, which holds the GIL while it sends) and
// many consumers (the workers, and the receiving thread when it helps).
// The producer fills slots and then releases that many semaphore tokens;
// a consumer holding a token claims the next slot with one fetch_add.
// Each slot carries a sequence number (as in Vyukov's bounded queue), so a
// consumer that claimed a slot and was preempted before reading it can't
// have its task overwritten: the producer waits for the read first. That
// wait only happens when a consumer sleeps mid-claim for a whole lap.
#ifndef ENVPOOL_CORE_ACTION_QUEUE_H_
#define ENVPOOL_CORE_ACTION_QUEUE_H_

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "cpp/core/futex.h"

namespace envpool {

struct StateBatch;

struct Task {
  enum Kind : int8_t { kStep, kReset, kStop };
  Kind kind;
  int env_id;
  // Sync mode: the batch and row the result goes to. Async mode: batch is
  // null and the row is claimed when the task finishes.
  StateBatch* batch;
  int row;
  // kReset only: reseed with this value first when has_seed.
  bool has_seed;
  uint64_t seed;
};

class ActionQueue {
 public:
  explicit ActionQueue(std::size_t capacity) : ring_(capacity) {
    for (std::size_t i = 0; i < capacity; ++i) ring_[i].seq.store(i, std::memory_order_relaxed);
  }

  // Producer only. Publish tasks[0..n) to the consumers, waking at most
  // `wake` sleeping ones (the others are left for whoever comes next).
  void Push(const Task* tasks, int n, int wake) {
    for (int i = 0; i < n; ++i, ++tail_) {
      Cell& cell = ring_[tail_ % ring_.size()];
      for (int spin = 0; cell.seq.load(std::memory_order_acquire) != tail_; ++spin)
        if (spin > 64) sched_yield();
      cell.task = tasks[i];
      cell.seq.store(tail_ + 1, std::memory_order_release);
    }
    tokens_.Release(n, wake);
  }

  // Blocks until a task is available (see Semaphore::Acquire).
  Task Pop(int spins, int yields) {
    tokens_.Acquire(spins, yields);
    return Claim();
  }

  bool TryPop(Task* task) {
    if (!tokens_.TryAcquire()) return false;
    *task = Claim();
    return true;
  }

 private:
  Task Claim() {
    uint64_t i = head_.fetch_add(1, std::memory_order_relaxed);
    Cell& cell = ring_[i % ring_.size()];
    // Holding a token means slot i is published or about to be.
    while (cell.seq.load(std::memory_order_acquire) != i + 1) CpuRelax();
    Task task = cell.task;
    cell.seq.store(i + ring_.size(), std::memory_order_release);
    return task;
  }

  struct Cell {
    Task task;
    std::atomic<uint64_t> seq;
  };
  std::vector<Cell> ring_;
  uint64_t tail_ = 0;
  std::atomic<uint64_t> head_{0};
  Semaphore tokens_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ACTION_QUEUE_H_
