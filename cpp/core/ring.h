// The async ring: batches of batch_size rows that envs join as they
// *finish*. Batch number n lives in slot n % size, published (a release
// store of n in the slot) once batch n - size has been received. An env
// claims the next row (Claim) at its first write of results, after it has
// simulated, so a batch holds the first batch_size envs to finish.
//
// The subtle part is a claim that finds its slot still holding an older
// batch. Usually that batch was received long ago (the ring holds more rows
// than there are envs); with several receiving threads it can still be
// being received. Receiving threads also step envs while they wait, so
// several can each wait, inside a task, for a slot that another republishes
// only once it is done receiving (a cycle). So a receiving thread that must
// wait first republishes the slot of its own batch as soon as that batch is
// complete (PublishOwnEarly), rather than after its task, if its batch
// comes before the claimed row's: its rows were all claimed before this one
// and are written at once. A thread can also hold a later batch than the
// row its task's env claims (receivers take batches in order but their
// slots free up out of order); that batch completes only after this claim,
// so waiting for it would wait forever (it hung 4 receiving threads of 16
// envs, batch 3, once in a few runs on a loaded machine); such a claim only
// waits for the slot, which the earlier batch's receiver republishes. Once
// the pool is closed nobody receives or republishes: the row goes to a
// discard batch.
//
// TestRingClaims (tests/core/cpp/test_core.cc) exercises every branch: on
// one thread, and with a second thread that publishes the awaited slot.
#ifndef ENVPOOL_CORE_RING_H_
#define ENVPOOL_CORE_RING_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "cpp/core/state_batch.h"
#include "cpp/platform/threads.h"

namespace envpool {

class BatchRing {
 public:
  // What a claim that must wait asks of the pool (never on the fast path).
  class Host {
   public:
    virtual bool closed() const = 0;
    // Publishes a fresh batch `number` in its slot (under the pool's caller
    // mutex, with Publish) and wakes receivers waiting for it.
    virtual void Republish(uint64_t number) = 0;
    // A one-row batch for a result nobody will receive, alive as long as
    // the pool.
    virtual StateBatch* DiscardBatch() = 0;

   protected:
    ~Host() = default;
  };

  // The async batch a receiving thread is waiting for, per thread (a
  // thread receives from one ring at a time).
  struct Ticket {
    const BatchRing* ring = nullptr;
    int64_t number = -1;
    bool published = false;  // its slot already holds its successor
  };
  static Ticket& Receiving() {
    thread_local Ticket ticket;
    return ticket;
  }

  struct Row {
    StateBatch* batch;
    int row;
  };

  BatchRing(Host* host, int batch_size, int size)
      : host_(host), batch_size_(batch_size), size_(size), slots_(std::make_unique<Slot[]>(size)) {}

  int size() const { return size_; }

  // Under the pool's caller mutex.
  void Publish(uint64_t number, std::shared_ptr<StateBatch> batch) {
    Slot& slot = SlotOf(number);
    slot.owner = std::move(batch);
    slot.batch = slot.owner.get();
    slot.number.store(number, std::memory_order_release);
  }
  bool Published(uint64_t number) const { return SlotOf(number).number.load() == number; }
  // Under the pool's caller mutex, once Published(number).
  const std::shared_ptr<StateBatch>& Owner(uint64_t number) const { return SlotOf(number).owner; }

  // The next row of the ring, waiting for its batch's slot if need be.
  Row Claim() {
    const uint64_t idx = alloc_.fetch_add(1, std::memory_order_relaxed);
    const uint64_t number = idx / batch_size_;
    Slot& slot = SlotOf(number);
    for (int spin = 0; slot.number.load(std::memory_order_acquire) != number; ++spin) {
      Ticket& mine = Receiving();
      if (mine.ring == this && !mine.published && mine.number >= 0 && static_cast<uint64_t>(mine.number) < number) {
        PublishOwnEarly(mine);
        if (mine.published) continue;
      }
      if (spin > 64) {
        if (host_->closed()) return Row{host_->DiscardBatch(), 0};
        platform::YieldCore();
      }
    }
    return Row{slot.batch, static_cast<int>(idx % batch_size_)};
  }

 private:
  struct Slot {
    std::shared_ptr<StateBatch> owner;  // under the pool's caller mutex
    StateBatch* batch = nullptr;
    std::atomic<uint64_t> number{UINT64_MAX};
  };
  Slot& SlotOf(uint64_t number) const { return slots_[number % size_]; }

  // Republishes the slot of the batch this thread receives once that batch
  // is complete, before this thread has finished receiving it.
  void PublishOwnEarly(Ticket& mine) {
    const StateBatch* own = SlotOf(static_cast<uint64_t>(mine.number)).batch;
    while (!own->done.Done()) {
      if (host_->closed()) return;  // the claim goes to a discard batch
      platform::YieldCore();
    }
    host_->Republish(static_cast<uint64_t>(mine.number + size_));
    mine.published = true;
  }

  Host* host_;
  int batch_size_;
  int size_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> alloc_{0};
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_RING_H_
