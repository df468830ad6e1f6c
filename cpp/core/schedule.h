// How a pool schedules its envs: four choices made once, when the pool is
// made (Schedule::Choose), from its options and families, and never changed
// afterwards. pool.h (the calls) and stepping.h (the stepping threads) act on
// them; docs/engine_internals.md has the measurements behind them and the
// commands that reproduce them.
#ifndef ENVPOOL_CORE_SCHEDULE_H_
#define ENVPOOL_CORE_SCHEDULE_H_

#include <algorithm>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/core/layout.h"

namespace envpool {

struct Schedule {
  // Sync (batch_size == num_envs): every send() gets its own batch, rows in
  // the order of the env ids sent. Async: batches of batch_size rows come
  // from the ring, each env claiming its row when it finishes.
  bool sync = true;
  // The threads waiting in recv() step queued envs, so they are among the
  // num_threads stepping threads and num_threads - 1 workers start. False
  // with num_threads 1 (one worker steps, the caller only waits: one thread
  // steps at a time) and for envs that step elsewhere (num_threads workers
  // that wait for the envs' processes; a receiving thread that took a slow
  // one would return its finished batch late).
  bool caller_steps = false;
  // Every family steps its envs elsewhere (Family::steps_elsewhere): a
  // call's envs are all started (Env::Prepare) when queued, then waited for.
  bool prepares = false;
  // Async, envs that step elsewhere, one task: stepping threads may take
  // the envs in finishing order (finished_first.h), which they do when
  // every env signals its results (FinishedFirst::Use decides).
  bool finished_first = false;
  int num_workers = 1;  // worker threads; always >= 1

  // Invariant: in sync mode every stepping thread has its lane of the action
  // queue (worker i lane i, the receiving threads the last one), so an env
  // keeps to one thread and its state to one core's cache; in async mode
  // there is one first-in-first-out lane, so an env waits for at most the
  // envs sent before it, whatever any worker is busy with.
  int lanes() const { return sync ? num_workers + (caller_steps ? 1 : 0) : 1; }
  int caller_lane() const { return sync ? num_workers : 0; }
  int worker_lane(int worker) const { return sync ? worker : 0; }

  // Of n tasks queued by one call, how many wake a worker. In sync mode with
  // a stepping caller one is left for the caller rather than paying a
  // wake-up (a single-env step never leaves the calling thread; workers
  // still take it if they are awake). In async mode every task wakes one, so
  // the oldest tasks go to workers and the receiving thread helps with the
  // newest, rarely the one stuck in a slow env.
  int Woken(int n) const { return sync && caller_steps ? n - 1 : n; }

  // opt: resolved (batch_size and num_threads set).
  static Schedule Choose(const PoolOptions& opt, const std::vector<PoolTask>& tasks) {
    const bool elsewhere =
        std::all_of(tasks.begin(), tasks.end(), [](const PoolTask& t) { return t.family->steps_elsewhere; });
    Schedule s;
    s.sync = opt.batch_size == opt.num_envs;
    s.caller_steps = opt.num_threads > 1 && !elsewhere;
    s.prepares = elsewhere;
    s.finished_first = elsewhere && !s.sync && tasks.size() == 1;
    s.num_workers = s.caller_steps ? opt.num_threads - 1 : std::max(1, opt.num_threads);
    return s;
  }
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_SCHEDULE_H_
