// The queue of pending env tasks (a step or a reset of one env).
//
// One producer (the Python thread, which holds the GIL while it sends) and
// many consumers (the workers, and the receiving thread when it helps).
// The producer fills slots and then releases that many semaphore tokens;
// a consumer holding a token claims the next slot with one fetch_add. The
// ring can't overrun: at most num_envs tasks are ever in flight, and a
// slot is only reused after its task has been read.
#ifndef ENVPOOL_CORE_ACTION_QUEUE_H_
#define ENVPOOL_CORE_ACTION_QUEUE_H_

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
  explicit ActionQueue(std::size_t capacity) : ring_(capacity) {}

  // Producer only. Publish tasks[0..n) to the consumers.
  void Push(const Task* tasks, int n) {
    for (int i = 0; i < n; ++i) ring_[(tail_ + i) % ring_.size()] = tasks[i];
    tail_ += n;
    tokens_.Release(n);
  }

  // Blocks until a task is available.
  Task Pop() {
    tokens_.Acquire();
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
    return ring_[i % ring_.size()];
  }

  std::vector<Task> ring_;
  uint64_t tail_ = 0;
  std::atomic<uint64_t> head_{0};
  Semaphore tokens_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ACTION_QUEUE_H_
