// Who calls a pool, and the threads it runs on: whether a second thread has
// called (then a recv() short of envs waits for another thread's send()
// instead of raising), calls that count as one caller's (SequencedCaller),
// the cores this process may use and pinning a thread to one.
#ifndef ENVPOOL_CORE_CALLERS_H_
#define ENVPOOL_CORE_CALLERS_H_

#include <thread>

#include "cpp/platform/threads.h"

namespace envpool {

// Marks this thread's pool calls, while alive, as made on behalf of a
// caller whose calls are already ordered one after another (XLA may run its
// custom calls on threads of its own, ordered by the data they pass on):
// they never count as a second calling thread, so a recv() that could
// never complete still raises instead of waiting for a send() that no
// other thread will make.
class SequencedCaller {
 public:
  SequencedCaller() { Flag() = true; }
  ~SequencedCaller() { Flag() = false; }
  SequencedCaller(const SequencedCaller&) = delete;
  SequencedCaller& operator=(const SequencedCaller&) = delete;
  static bool active() { return Flag(); }

 private:
  static bool& Flag() {
    thread_local bool flag = false;
    return flag;
  }
};

// The pool's calling threads (under the pool's caller mutex).
class Callers {
 public:
  // Notices a second calling thread: from then on a recv() that finds too
  // few envs in flight waits for another thread's send() instead of raising.
  void Note() {
    if (SequencedCaller::active()) return;
    const std::thread::id me = std::this_thread::get_id();
    if (first_ == std::thread::id()) {
      first_ = me;
    } else if (!several_ && first_ != me) {
      several_ = true;
    }
  }
  bool several() const { return several_; }

 private:
  std::thread::id first_;
  bool several_ = false;
};

using platform::PinThread;
using platform::UsableCores;

}  // namespace envpool

#endif  // ENVPOOL_CORE_CALLERS_H_
