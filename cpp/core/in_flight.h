// Which envs of a pool are in a call: an env has a task or an unreceived
// result from the moment a call queues it (under the pool's caller mutex)
// until whichever thread receives its row clears it. Invariant: an env is
// in at most one call at a time, which Check enforces before a call
// changes anything.
#ifndef ENVPOOL_CORE_IN_FLIGHT_H_
#define ENVPOOL_CORE_IN_FLIGHT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cpp/core/checks.h"
#include "cpp/core/envs.h"

namespace envpool {

class InFlight {
 public:
  explicit InFlight(int num_envs)
      : num_envs_(num_envs), marks_(std::make_unique<std::atomic<bool>[]>(num_envs)), stamps_(num_envs, 0) {}

  // Under the caller mutex. Refuses ids out of range, repeated, in flight,
  // or (needs_reset_refused: a step with autoreset disabled) of an env that
  // needs a reset: the env is not in flight, so no stepping thread writes
  // its needs_reset.
  void Check(const int* env_ids, int n, PoolEnvs& envs, bool needs_reset_refused) {
    if (n < 0) throw std::invalid_argument("env_id must be a list of env ids");
    // Repeats are found by stamping each named slot with this call's number.
    ++stamp_;
    for (int i = 0; i < n; ++i) {
      const int id = env_ids[i];
      if (id < 0 || id >= num_envs_) throw std::out_of_range(checks::EnvIdOutOfRange(id, num_envs_));
      if (stamps_[id] == stamp_) throw std::invalid_argument(checks::EnvIdRepeated(id));
      stamps_[id] = stamp_;
      if (marks_[id].load(std::memory_order_acquire)) throw std::invalid_argument(checks::EnvInFlight(id));
      if (needs_reset_refused && envs[id].needs_reset) throw std::invalid_argument(checks::EnvNeedsReset(id));
    }
  }

  // Under the caller mutex, after Check.
  void Mark(int id) { marks_[id].store(true, std::memory_order_relaxed); }
  void Added(int n) { total_ += n; }
  // By the thread that received the rows (atomic: a sync step takes the
  // caller mutex once, not twice).
  void Clear(const int32_t* ids, int n) {
    for (int i = 0; i < n; ++i) marks_[ids[i]].store(false, std::memory_order_release);
    total_.fetch_sub(n);
  }
  int total() const { return total_.load(); }

 private:
  int num_envs_;
  std::unique_ptr<std::atomic<bool>[]> marks_;
  std::atomic<int> total_{0};
  uint64_t stamp_ = 0;
  // Per env: the stamp_ of the last call that named it (repeats); apart
  // from the slots, which the stepping threads write.
  std::vector<uint64_t> stamps_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_IN_FLIGHT_H_
