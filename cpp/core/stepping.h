// The stepping side of a pool: its worker threads, the action queue they
// take tasks from, and the loops that run tasks (a worker's, a waiting
// caller's, and a call stepped wholly on the calling thread). The pool
// (pool.h) queues tasks and waits for batches through it; Schedule
// (schedule.h) fixes how, once.
//
// Invariants: a task is run by exactly one thread; a batch is complete
// (StateBatch::done) once each of its rows has arrived, counted at the latest
// when the thread that wrote it stops running tasks of that batch
// (Arrivals); completed_ is notified after every arrival that completes a
// batch, so a thread sleeping in Wait() never misses its batch.
#ifndef ENVPOOL_CORE_STEPPING_H_
#define ENVPOOL_CORE_STEPPING_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/callers.h"
#include "cpp/core/envs.h"
#include "cpp/core/finished_first.h"
#include "cpp/core/layout.h"
#include "cpp/core/result_signal.h"
#include "cpp/core/schedule.h"
#include "cpp/core/semaphore.h"
#include "cpp/core/state_batch.h"
#include "cpp/core/wait_policy.h"

namespace envpool {

class Stepping {
 public:
  Stepping(PoolEnvs* envs, const Schedule& schedule, int num_envs)
      : envs_(*envs),
        schedule_(schedule),
        queue_(schedule.lanes(), num_envs, static_cast<std::size_t>(num_envs)),
        wait_(schedule.num_workers) {}
  ~Stepping() { Stop(); }
  Stepping(const Stepping&) = delete;
  Stepping& operator=(const Stepping&) = delete;

  // Before Start: the envs' result signals, for Schedule::finished_first.
  void UseFinishedFirst(std::vector<ResultSignal*> signals) { finished_first_.Use(std::move(signals)); }
  // With more threads than usable cores, waiting threads never spin.
  void NeverSpin() { wait_.NeverSpin(); }
  WaitPolicy& wait_policy() { return wait_; }

  // Starts the workers (pinned from affinity_offset, unless negative). On
  // failure the ones started are stopped and std::runtime_error thrown.
  void Start(int affinity_offset) {
    for (int i = 0; i < schedule_.num_workers; ++i) {
      try {
        workers_.emplace_back([this, i] { WorkerLoop(i); });
      } catch (const std::system_error& e) {
        Stop();
        throw std::runtime_error("could not start worker thread " + std::to_string(i + 1) + " of " +
                                 std::to_string(schedule_.num_workers) + " (" + e.what() +
                                 "): lower num_threads or raise the process's thread/memory limits");
      }
      if (affinity_offset >= 0) PinThread(workers_.back(), affinity_offset + i);
    }
  }

  // Wakes every thread waiting for a batch, stops the workers once the
  // queued work is done and joins them. Idempotent.
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    completed_.Notify();
    finished_first_.Stop();
    queue_.Stop(static_cast<int>(workers_.size()));
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  // Tasks of one call, for the stepping threads (Schedule::Woken of them
  // wake a worker).
  void Push(const Task* tasks, int n) {
    if (n == 0) return;
    if (finished_first_.active()) {
      finished_first_.Add(tasks, n);
    } else {
      queue_.Push(tasks, n, schedule_.Woken(n));
    }
  }

  // Runs queued tasks (a caller that steps) until `b` is complete; false if
  // the pool closed first (`closed`), with b's writers possibly still
  // running: the caller keeps b alive.
  bool Wait(StateBatch* b, const std::atomic<bool>& closed) {
    Task tasks[WaitPolicy::kMaxChunk];
    Arrivals arrivals(this);  // counted on every way out, as it may hold another batch's
    // A caller that does not step (num_threads 1) only waits, and keeps
    // only the short yield: its longer one would double the CPU time a
    // one-core pool takes.
    const bool helps = schedule_.caller_steps;
    while (!b->done.Done()) {
      if (closed.load()) return false;
      if (const int n = helps ? queue_.TryPopMany(schedule_.caller_lane(), tasks, wait_.chunk()) : 0) {
        if (RunTasks(tasks, n, &arrivals)) {
          queue_.ReturnStop();  // the stop was meant for a worker
          return false;
        }
        continue;
      }
      Flush(&arrivals);
      // Workers hold the remaining tasks; they finish within microseconds
      // for cheap envs, so spin a little before sleeping.
      const int seen = completed_.Epoch();
      const int spins = 2 * wait_.spins();
      for (int i = 0; i < spins && !b->done.Done(); ++i) CpuRelax();
      YieldUntil(helps ? wait_.YieldFor() : WaitPolicy::kMinYield, [b] { return b->done.Done(); });
      completed_.Wait(seen, [b, &closed] { return b->done.Done() || closed.load(); });
    }
    return true;
  }

  // A call whose n envs the calling thread steps itself, into `batch`:
  // RunTask's work without its per-task costs (the envs read their actions
  // where the caller holds them, the common keys' arrays are looked up
  // once, and one call in 16 is timed rather than one task in 16 per env).
  void RunHere(Task::Kind kind, const int* env_ids, int n, StateBatch* batch, const char* const* actions,
               const uint64_t* seeds, bool timed) {
    const Columns columns = envs_.ColumnsOf(batch);
    const std::vector<std::size_t>& bytes = envs_.action_bytes();
    const std::size_t keys = bytes.size();
    std::array<const char*, 8> few;
    std::vector<const char*> many(keys > few.size() ? keys : 0);
    const char** action = keys > few.size() ? many.data() : few.data();
    Outcome o;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    // Envs whose steps run elsewhere all start first, then are waited for
    // in turn (see Env::Prepare).
    if (schedule_.prepares) {
      for (int i = 0; i < n; ++i) {
        if (kind == Task::kStep)
          for (std::size_t k = 0; k < keys; ++k) action[k] = actions[k] + bytes[k] * i;
        envs_.Prepare(TaskOf(kind, env_ids, i, batch, seeds), envs_[env_ids[i]], action);
      }
    }
    for (int i = 0; i < n; ++i) {
      if (kind == Task::kStep)
        for (std::size_t k = 0; k < keys; ++k) action[k] = actions[k] + bytes[k] * i;
      const Task task = TaskOf(kind, env_ids, i, batch, seeds);
      EnvSlot& s = envs_[env_ids[i]];
      o.result = StepResult{};
      envs_.Step(task, s, action, &o);
      envs_.Record(task, s, columns, &o);
    }
    if (timed && n > 0) wait_.Observe((std::chrono::steady_clock::now() - start) / n);
    if (n > 0 && batch->done.Arrive(n)) completed_.Notify();
  }

  // The task for the i-th env of a call (row i of its batch, or of the ring
  // when batch is null).
  static Task TaskOf(Task::Kind kind, const int* env_ids, int i, StateBatch* batch, const uint64_t* seeds) {
    return Task{kind, env_ids[i], batch, i, seeds != nullptr, seeds != nullptr ? seeds[i] : 0};
  }

 private:
  void WorkerLoop(int worker) {
    if (finished_first_.active()) return TakeFinishedLoop();
    Arrivals arrivals(this);
    Task tasks[WaitPolicy::kMaxChunk];
    const int lane = schedule_.worker_lane(worker);
    for (;;) {
      int n = queue_.TryPopMany(lane, tasks, wait_.chunk());
      if (n == 0) {
        Flush(&arrivals);
        tasks[0] = queue_.Pop(lane, wait_.spins(), wait_.YieldFor());
        n = 1;
      }
      if (RunTasks(tasks, n, &arrivals)) return;
    }
  }

  // A stepping thread of an async pool of envs that step elsewhere and
  // signal their results: the finished envs first (finished_first.h).
  void TakeFinishedLoop() {
    Arrivals arrivals(this);
    Task task{};
    while (finished_first_.Take(&task, [&] { Flush(&arrivals); })) RunTask(task, &arrivals);
  }

  // A thread's finished tasks of one batch not yet counted in its
  // Countdown. A thread running a streak of tasks of one batch counts them
  // once, when the streak ends (a task of another batch, or no task ready),
  // rather than with one locked add per task on the counter that every
  // stepping thread adds to and the receiving thread polls. The batch cannot
  // complete before the streak ends, so nobody waits for the deferral.
  // Only batches known up front (sync and own-batch tasks): an async ring
  // task learns its batch at its first write, after the env has stepped.
  // Counted at the latest when the Arrivals goes out of scope.
  struct Arrivals {
    explicit Arrivals(Stepping* s) : stepping(s) {}
    ~Arrivals() { stepping->Flush(this); }
    Arrivals(const Arrivals&) = delete;
    Arrivals& operator=(const Arrivals&) = delete;
    Stepping* stepping;
    StateBatch* batch = nullptr;
    int count = 0;
  };
  void Flush(Arrivals* a) {
    if (a->count == 0) return;
    StateBatch* batch = a->batch;
    const int n = a->count;
    a->batch = nullptr;
    a->count = 0;
    if (batch->done.Arrive(n)) completed_.Notify();
  }

  // Runs claimed tasks; returns whether one of them was a stop (any further
  // stops among them are handed back for the other consumers).
  bool RunTasks(const Task* tasks, int n, Arrivals* arrivals) {
    int stops = 0;
    for (int i = 0; i < n; ++i) {
      if (tasks[i].kind == Task::kStop)
        ++stops;
      else
        RunTask(tasks[i], arrivals);
    }
    for (int i = 1; i < stops; ++i) queue_.ReturnStop();
    return stops > 0;
  }

  void RunTask(const Task& task, Arrivals* arrivals) {
    if (task.batch != arrivals->batch) Flush(arrivals);
    if (task.kind == Task::kRender) {
      envs_.Render(task);
      if (task.batch->done.Arrive()) completed_.Notify();
      return;
    }
    EnvSlot& s = envs_[task.env_id];
    Outcome o;
    // Time one task in 16 (per env, so no shared counter) to size spinning.
    const bool timed = (++s.runs & 15) == 0;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    envs_.Step(task, s, s.action.data(), &o);
    if (timed) wait_.Observe(std::chrono::steady_clock::now() - start);
    envs_.Record(task, s, &o);
    if (task.batch != nullptr) {
      arrivals->batch = o.target.batch;
      ++arrivals->count;
    } else if (o.target.batch->done.Arrive()) {
      completed_.Notify();
    }
  }

  PoolEnvs& envs_;
  const Schedule schedule_;
  ActionQueue queue_;  // lanes: Schedule::lanes()
  WaitPolicy wait_;
  // Schedule::finished_first with every env signalling: the tasks, taken in
  // finishing order instead of queue_'s send order (inactive otherwise).
  FinishedFirst finished_first_;
  std::vector<std::thread> workers_;
  bool stopped_ = false;  // Stop() ran (by the pool's Close, or at destruction)
  Notifier completed_;    // a batch completed (or the pool closed)
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_STEPPING_H_
