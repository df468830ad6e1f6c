// Warnings from envs and libraries (e.g. MuJoCo's mju_user_warning), raised
// as Python warnings. Envs run on worker threads without the GIL, so they
// only queue the text; the binding issues the queued warnings when a pool
// call returns to Python (warnings.warn, RuntimeWarning).
#ifndef ENVPOOL_CORE_WARNINGS_H_
#define ENVPOOL_CORE_WARNINGS_H_

#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace envpool {

class WarningQueue {
 public:
  // At most kMax messages wait (a warning repeated every step must not
  // grow without bound); later ones are counted and reported as one line.
  static constexpr std::size_t kMax = 64;

  void Post(std::string message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (messages_.size() < kMax) {
      messages_.push_back(std::move(message));
    } else {
      ++dropped_;
    }
    pending_.store(true, std::memory_order_release);
  }

  // Cheap when nothing is queued (one atomic load).
  std::vector<std::string> Take() {
    if (!pending_.load(std::memory_order_acquire)) return {};
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out = std::move(messages_);
    messages_.clear();
    if (dropped_ > 0) out.push_back(std::to_string(dropped_) + " more warning(s) dropped");
    dropped_ = 0;
    pending_.store(false, std::memory_order_release);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
  std::size_t dropped_ = 0;
  std::atomic<bool> pending_{false};
};

inline WarningQueue& Warnings() {
  static WarningQueue queue;
  return queue;
}

inline void PostWarning(std::string message) { Warnings().Post(std::move(message)); }

}  // namespace envpool

#endif  // ENVPOOL_CORE_WARNINGS_H_
