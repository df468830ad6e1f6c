// A batch of results: one contiguous array per state key, `capacity` rows.
//
// Workers write rows in place; the finished batch is handed to NumPy as
// views of this memory, which lives as long as any array still uses it.
#ifndef ENVPOOL_CORE_STATE_BATCH_H_
#define ENVPOOL_CORE_STATE_BATCH_H_

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cpp/core/futex.h"
#include "cpp/core/spec.h"

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
  std::size_t BlockBytes(std::size_t key, int capacity) const {
    return (row_bytes[key] * capacity + 63) / 64 * 64;
  }
};

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

struct StateBatch {
  StateBatch(const StateLayout& layout, int capacity, int target)
      : capacity(capacity) {
    std::size_t total = 0;
    for (std::size_t k = 0; k < layout.specs.size(); ++k)
      total += layout.BlockBytes(k, capacity);
    memory.reset(static_cast<char*>(std::aligned_alloc(64, total + 64)),
                 FreeDeleter());
    char* p = memory.get();
    for (std::size_t k = 0; k < layout.specs.size(); ++k) {
      key_base.push_back(p);
      row_bytes.push_back(layout.row_bytes[k]);
      p += layout.BlockBytes(k, capacity);
    }
    done.Reset(target);
  }

  char* Row(std::size_t key, int row) const {
    return key_base[key] + row_bytes[key] * row;
  }

  std::shared_ptr<char> memory;
  std::vector<char*> key_base;
  std::vector<std::size_t> row_bytes;
  int capacity;
  Countdown done;
  // Set by a worker whose env threw; reported by recv().
  std::atomic<bool> failed{false};
  std::string error;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_STATE_BATCH_H_
