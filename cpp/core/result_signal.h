// An optional second interface of envs whose steps run elsewhere
// (Family::steps_elsewhere): whether the step that Prepare started has
// finished, and a counter, shared by the envs of one family instance, that
// moves when one may have. An async pool of such envs keeps their tasks in a
// list and its threads take whichever has finished first, so a batch is made
// of the first envs to finish whatever the thread count (a thread that took
// tasks in send order waited for a slow env while finished ones queued behind
// it). Found with dynamic_cast, as NamedArrays is: Env and the SDK's v1
// layout stay as they are, and envs without it are taken in send order.
#ifndef ENVPOOL_CORE_RESULT_SIGNAL_H_
#define ENVPOOL_CORE_RESULT_SIGNAL_H_

#include <chrono>
#include <cstdint>

#include "cpp/core/env.h"

namespace envpool {

class ResultSignal {
 public:
  virtual ~ResultSignal() = default;
  // Whether the env's next Step/Reset returns without waiting for its
  // work: the work is done, or it failed (the env then throws at once).
  // Called by one thread at a time, between Prepare and that Step/Reset.
  virtual bool Finished() = 0;
  // The shared counter, and a wait (at most `timeout`) for it to move
  // from `seen`.
  virtual uint32_t Epoch() const = 0;
  virtual void WaitEpoch(uint32_t seen, std::chrono::nanoseconds timeout) = 0;
  // Moves the counter and wakes every waiter (a closing pool).
  virtual void WakeAll() = 0;
};

inline ResultSignal* ResultSignalOf(Env* env) { return dynamic_cast<ResultSignal*>(env); }

}  // namespace envpool

#endif  // ENVPOOL_CORE_RESULT_SIGNAL_H_
