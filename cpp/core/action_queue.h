// The queue of pending env tasks (a step or a reset of one env).
//
// One producer at a time (the pool serialises send() calls under its caller
// mutex) and several consumers. Tasks go to lanes by env id (contiguous
// blocks of envs, LaneOf) and each consumer has a lane it takes from first.
// In sync mode the pool gives each worker a lane and the receiving threads
// (which help) the last one, so an env keeps running on the same thread and
// its simulator state stays in that core's cache (moving a MuJoCo env
// between cores every step costs ~4% of the physics); an idle consumer takes
// any lane's work, and every kFairEvery-th claim serves the lanes in turn
// (one that no claim has served since the consumer's previous turn), so a
// lane whose owner is busy elsewhere is never starved. In async mode
// the pool uses one lane: strictly first in, first out.
//
// One semaphore counts the tasks waiting in all lanes: a consumer holding
// a token is owed a task and scans the lanes until it claims one. Each
// lane is a bounded ring whose slots carry sequence numbers (Vyukov's
// queue), so the producer never overwrites a slot still being read.
#ifndef ENVPOOL_CORE_ACTION_QUEUE_H_
#define ENVPOOL_CORE_ACTION_QUEUE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpp/core/semaphore.h"
#include "cpp/platform/threads.h"

namespace envpool {

struct StateBatch;

struct Task {
  enum Kind : int8_t { kStep, kReset, kStop, kRender };
  Kind kind;
  int env_id;
  // The batch and row the result goes to; batch is null for an async ring
  // task, whose row is claimed when the env first writes its results.
  StateBatch* batch;
  int row;
  // kReset only: reseed with this value first when has_seed.
  bool has_seed;
  uint64_t seed;
};

class ActionQueue {
 public:
  // `lane_capacity` bounds the tasks one lane can hold at once; env ids are
  // in [0, num_envs).
  ActionQueue(int num_lanes, int num_envs, std::size_t lane_capacity) : lanes_(num_lanes), num_envs_(num_envs) {
    // A power of two, so a position's cell is a mask away (a division took
    // a tenth of a claim).
    std::size_t capacity = 1;
    while (capacity < lane_capacity) capacity *= 2;
    for (Lane& lane : lanes_) {
      lane.ring = std::make_unique<Cell[]>(capacity);
      lane.capacity = capacity;
      lane.mask = capacity - 1;
      for (std::size_t i = 0; i < capacity; ++i) lane.ring[i].seq.store(i, std::memory_order_relaxed);
      lane.seen_heads = std::make_unique<std::atomic<uint64_t>[]>(lanes_.size());
    }
  }

  int num_lanes() const { return static_cast<int>(lanes_.size()); }
  // Blocks, not env % lanes: a thread then writes its envs' rows of every
  // result array side by side, where interleaved rows shared each cache
  // line with the other threads' (false sharing; CartPole's sync step
  // spent a quarter of its time on it).
  int LaneOf(int env_id) const { return static_cast<int>(static_cast<int64_t>(env_id) * num_lanes() / num_envs_); }

  // Producer only. Publish tasks[0..n), each to its env's lane, waking at
  // most `wake` sleeping consumers (the others are left for whoever comes
  // next).
  void Push(const Task* tasks, int n, int wake) {
    for (int i = 0; i < n; ++i) {
      Lane& lane = lanes_[LaneOf(tasks[i].env_id)];
      Cell& cell = lane.ring[lane.tail & lane.mask];
      for (int spin = 0; cell.seq.load(std::memory_order_acquire) != lane.tail; ++spin)
        if (spin > 64) platform::YieldCore();
      cell.task = tasks[i];
      cell.seq.store(lane.tail + 1, std::memory_order_release);
      ++lane.tail;
    }
    tokens_.Release(n, wake);
  }

  // Producer only. Makes `consumers` blocked or later Pop() calls return a
  // kStop task once every queued task has been claimed.
  void Stop(int consumers) {
    stopping_.store(true, std::memory_order_seq_cst);
    tokens_.Release(consumers, consumers);
  }

  // Gives back a token that stood for no task (a kStop meant for a worker,
  // taken by a receiving thread), so the worker still gets its stop.
  void ReturnStop() { tokens_.Release(1, 1); }

  // Blocks until a task is available (see Semaphore::Acquire). `lane` is
  // the consumer's own lane (one consumer per lane).
  Task Pop(int lane, int spins, std::chrono::nanoseconds yield_for) {
    tokens_.Acquire(spins, yield_for);
    return Claim(lane);
  }

  bool TryPop(int lane, Task* task) {
    if (!tokens_.TryAcquire()) return false;
    *task = Claim(lane);
    return true;
  }

  // Claims up to `max` tasks at once into out[]: as many as the consumer's
  // own lane holds ready (at least one from anywhere, if any is queued),
  // for one operation on the token count shared by all consumers rather
  // than one per task (for CartPole that shared line, moving between cores
  // per task, was the largest cost of a step). Returns how many. After
  // Stop(), several of them can be kStop: hand back all but one
  // (ReturnStop) so that every consumer still gets its own.
  int TryPopMany(int lane, Task* out, int max) {
    const int want = max > 1 ? std::max(1, Ready(lanes_[lane], max)) : 1;
    const int got = tokens_.TryAcquireUpTo(want);
    for (int i = 0; i < got; ++i) out[i] = Claim(lane);
    return got;
  }

 private:
  struct Cell {
    Task task;
    std::atomic<uint64_t> seq;
  };
  struct alignas(64) Lane {
    std::unique_ptr<Cell[]> ring;
    std::size_t capacity = 0;
    std::size_t mask = 0;
    uint64_t tail = 0;  // producer only
    alignas(64) std::atomic<uint64_t> head{0};
    // Claims by the lane's consumers. Receiving threads share a lane, so it
    // is atomic, but read and written without a locked instruction: a lost
    // count between two receivers only shifts a fairness turn.
    alignas(64) std::atomic<uint32_t> owner_claims{0};
    // Per lane, its head at this lane's consumer's last fairness turn
    // (relaxed: receiving threads share a lane; a lost update only shifts
    // a turn).
    std::unique_ptr<std::atomic<uint64_t>[]> seen_heads;
  };
  static constexpr uint32_t kFairEvery = 8;

  // With a token in hand: the task it stands for is published, or about
  // to be, in some lane (another consumer may take the one we saw first,
  // but then its own is still there for us). After Stop() a token may
  // stand for no task; stopping_ is read before the scan, so a scan that
  // follows it sees every task pushed before Stop() and queued work is all
  // claimed before anyone stops.
  Task Claim(int own) {
    const int n = num_lanes();
    std::atomic<uint32_t>& claims = lanes_[own].owner_claims;
    const uint32_t turn = claims.load(std::memory_order_relaxed) + 1;
    claims.store(turn, std::memory_order_relaxed);
    const int first = turn % kFairEvery != 0 ? own : Stalled(own, static_cast<int>(turn / kFairEvery % n));
    for (;;) {
      const bool stopping = stopping_.load(std::memory_order_seq_cst);
      Task task;
      for (int k = 0; k < n; ++k)
        if (TryClaim(lanes_[(first + k) % n], &task)) return task;
      if (stopping) return Task{Task::kStop, 0, nullptr, 0, false, 0};
      CpuRelax();
    }
  }

  // The lane a fairness turn serves first: `other`, if no claim has taken
  // a task from it since this consumer's previous turn looked at it (its
  // own consumer is busy elsewhere, so its tasks could wait without
  // bound), else the consumer's own. Serving a lane whose owner keeps up
  // only moved envs between threads (8 envs of 380 us on 2 threads, sync:
  // 17% of steps ran on another thread than the env's previous step).
  int Stalled(int own, int other) {
    std::atomic<uint64_t>& seen = lanes_[own].seen_heads[other];
    const uint64_t head = lanes_[other].head.load(std::memory_order_relaxed);
    const bool stalled = head == seen.load(std::memory_order_relaxed);
    seen.store(head, std::memory_order_relaxed);
    return stalled ? other : own;
  }

  // How many tasks, up to max, are published in a row from the lane's head
  // (a hint: another consumer may claim them first).
  static int Ready(const Lane& lane, int max) {
    const uint64_t head = lane.head.load(std::memory_order_relaxed);
    int n = 0;
    while (n < max && lane.ring[(head + n) & lane.mask].seq.load(std::memory_order_relaxed) == head + n + 1) ++n;
    return n;
  }

  static bool TryClaim(Lane& lane, Task* out) {
    uint64_t pos = lane.head.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = lane.ring[pos & lane.mask];
      const uint64_t seq = cell.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<int64_t>(seq - (pos + 1));
      if (diff < 0) return false;  // nothing published at pos: empty
      if (diff > 0) {              // another consumer took pos
        pos = lane.head.load(std::memory_order_relaxed);
        continue;
      }
      if (lane.head.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        *out = cell.task;
        cell.seq.store(pos + lane.capacity, std::memory_order_release);
        return true;
      }
    }
  }

  std::vector<Lane> lanes_;
  int num_envs_;
  std::atomic<bool> stopping_{false};
  Semaphore tokens_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ACTION_QUEUE_H_
