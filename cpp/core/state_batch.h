// A batch of results: one contiguous array per state key, `capacity` rows.
//
// Workers write rows in place; the finished batch is handed to NumPy as
// views of this memory, which lives as long as any array still uses it.
#ifndef ENVPOOL_CORE_STATE_BATCH_H_
#define ENVPOOL_CORE_STATE_BATCH_H_

#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "cpp/core/semaphore.h"
#include "cpp/core/spec.h"
#include "cpp/platform/memory.h"

namespace envpool {

// Byte layout of one batch, computed once per pool from its state specs.
struct StateLayout {
  std::vector<ArraySpec> specs;
  std::vector<std::size_t> row_bytes;

  explicit StateLayout(std::vector<ArraySpec> s) : specs(std::move(s)) {
    for (const ArraySpec& a : specs) row_bytes.push_back(a.NumBytes());
  }

  // Each key's block starts on a cache line, so rows of different keys
  // written by different workers rarely share one.
  std::size_t BlockBytes(std::size_t key, int capacity) const { return (row_bytes[key] * capacity + 63) / 64 * 64; }
};

// Recycles batch memory. A batch's memory comes back here when the last
// array viewing it is gone, so in steady state a new batch costs no malloc
// and no page faults. Every block holds a reference to this, so it outlives
// the pool while NumPy still holds arrays. The mutex guards only this free
// list (touched by the calling thread and by array deallocation), never the
// workers' stepping path.
class BatchMemory : public std::enable_shared_from_this<BatchMemory> {
 public:
  static constexpr std::size_t kMaxFree = 16;

  explicit BatchMemory(std::size_t bytes) : bytes_((bytes + 63) / 64 * 64 + 64) {}
  ~BatchMemory() {
    for (char* p : free_) platform::AlignedFree(p);
  }

  std::shared_ptr<char> Get() {
    char* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        p = free_.back();
        free_.pop_back();
      }
    }
    if (p == nullptr) p = static_cast<char*>(platform::AlignedAlloc(64, bytes_));
    if (p == nullptr) throw std::bad_alloc();
    return std::shared_ptr<char>(p, [self = shared_from_this()](char* q) { self->Put(q); });
  }

 private:
  void Put(char* p) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (free_.size() < kMaxFree) {
        free_.push_back(p);
        return;
      }
    }
    platform::AlignedFree(p);
  }

  std::size_t bytes_;
  std::mutex mu_;
  std::vector<char*> free_;
};

inline std::size_t BatchBytes(const StateLayout& layout, int capacity) {
  std::size_t total = 0;
  for (std::size_t k = 0; k < layout.specs.size(); ++k) total += layout.BlockBytes(k, capacity);
  return total;
}

struct StateBatch {
  // `memory` must hold BatchBytes(layout, capacity); rows [0, target) are
  // the ones workers fill and recv() hands out.
  // `layout` must outlive the batch (the pool owns both; NumPy's views
  // keep only `memory`).
  StateBatch(const StateLayout& layout, int capacity, int target, std::shared_ptr<char> mem)
      : layout(layout), memory(std::move(mem)), capacity(capacity) {
    key_base.reserve(layout.specs.size());
    char* p = memory.get();
    for (std::size_t k = 0; k < layout.specs.size(); ++k) {
      key_base.push_back(p);
      p += layout.BlockBytes(k, capacity);
    }
    done.Reset(target);
  }

  char* Row(std::size_t key, int row) const { return key_base[key] + layout.row_bytes[key] * row; }

  const StateLayout& layout;
  std::shared_ptr<char> memory;
  std::vector<char*> key_base;
  int capacity;
  Countdown done;
  // Envs that threw while producing a row of this batch, with what they
  // threw (rethrown by the binding with its type). Rare, so a mutex. Added
  // in the order the envs failed, on any thread; read in row order
  // (ThrowIfFailed).
  struct Failure {
    int env_id;
    int row;
    std::exception_ptr error;
  };
  void AddFailure(int env_id, int row, std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(failure_mu);
    failures.push_back({env_id, row, std::move(error)});
    failed.store(true, std::memory_order_release);
  }
  std::atomic<bool> failed{false};
  std::mutex failure_mu;
  std::vector<Failure> failures;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_STATE_BATCH_H_
