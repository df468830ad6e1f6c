// The engine: a pool of envs stepped by worker threads.
//
// send() copies each env's action into that env's row of the pool's
// action arrays and queues a task; workers run tasks and write results in
// place into a state batch;
// recv() waits for a batch to complete (running queued tasks itself while
// it waits, so a small batch costs no thread hand-off) and hands it over.
//
// Sync mode (batch_size == num_envs): every send gets its own batch, rows
// in the order of the env ids sent. Async mode: batches of batch_size rows
// come from a ring, and an env claims its row when it *finishes* (at its
// first write of results, after simulating), so recv() returns the first
// batch_size envs to finish, in finishing order, and a slow env never holds
// up the envs that finished before it. call() (own-batch) sends to some
// envs and waits for exactly those rows, in the order given, in either mode.
//
// Every public call may come from any thread: caller-side bookkeeping lives
// under one mutex (never held while stepping or waiting), several threads
// may wait in recv() at once (each takes its own batch), and Close() from
// another thread wakes them with an exception.
#ifndef ENVPOOL_CORE_POOL_H_
#define ENVPOOL_CORE_POOL_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/callers.h"
#include "cpp/core/checks.h"
#include "cpp/core/envs.h"
#include "cpp/core/errors.h"
#include "cpp/core/family.h"
#include "cpp/core/finished_first.h"
#include "cpp/core/layout.h"
#include "cpp/core/result_signal.h"
#include "cpp/core/ring.h"
#include "cpp/core/spec.h"
#include "cpp/core/state_batch.h"
#include "cpp/core/wait_policy.h"
#include "cpp/platform/memory.h"

namespace envpool {

class EnvPool final : private BatchRing::Host {
 public:
  EnvPool(const Family& family, const Config& config, PoolOptions opt)
      : EnvPool({PoolTask{&family, config, opt.max_episode_steps}}, {}, opt) {}

  // A pool over several tasks; env_task[i] is env i's index into tasks
  // (empty: every env runs tasks[0]). With more than one task (or
  // opt.report_task_id), each row's info:task_id holds that index.
  EnvPool(std::vector<PoolTask> tasks, std::vector<int> env_task, PoolOptions opt)
      : opt_(Resolve(opt)),
        pool_tasks_(std::move(tasks)),
        env_task_(std::move(env_task)),
        env_spec_(CheckedSpec(pool_tasks_, env_task_, opt_.num_envs)),
        layout_(BuildLayout(env_spec_, opt.autoreset, ReportsTasks(pool_tasks_, opt_))),
        envs_(layout_, env_spec_, opt_.autoreset,
              ReportsTasks(pool_tasks_, opt_) ? static_cast<int>(layout_.specs.size()) - 1 : -1, &ClaimRingRow, this),
        sync_(opt_.batch_size == opt_.num_envs),
        caller_steps_(opt_.num_threads > 1 && !StepsElsewhere(pool_tasks_)),
        num_workers_(caller_steps_ ? opt_.num_threads - 1 : std::max(1, opt_.num_threads)),
        queue_(sync_ ? num_workers_ + (caller_steps_ ? 1 : 0) : 1, opt_.num_envs,
               static_cast<std::size_t>(opt_.num_envs)),
        capacity_(opt_.batch_size),
        ring_(this, opt_.batch_size, sync_ ? 0 : (opt_.num_envs + opt_.batch_size - 1) / opt_.batch_size + 2),
        wait_(num_workers_) {
    // Batches in use at once: the ring, or a sync batch and the caller's last one.
    CheckMemory(layout_, sync_ ? 2.0 : static_cast<double>(ring_.size()), capacity_, opt_.num_envs);
    memory_ = std::make_shared<BatchMemory>(BatchBytes(layout_, capacity_));
    in_flight_ = std::make_unique<std::atomic<bool>[]>(opt_.num_envs);
    check_stamps_.assign(opt_.num_envs, 0);
    if (!opt_.seeds.empty() && opt_.seeds.size() != static_cast<std::size_t>(opt_.num_envs))
      throw std::invalid_argument(checks::SeedCount(opt_.seeds.size(), static_cast<std::size_t>(opt_.num_envs)));
    envs_.Create(pool_tasks_, env_task_, opt_.num_envs, opt_.num_threads, opt_.seed, opt_.seeds);
    prepares_ = StepsElsewhere(pool_tasks_);
    if (prepares_ && !sync_ && pool_tasks_.size() == 1) {
      std::vector<ResultSignal*> signals;
      for (int i = 0; i < opt_.num_envs; ++i) signals.push_back(ResultSignalOf(envs_[i].env.get()));
      finished_first_.Use(std::move(signals));
    }
    for (int i = 0; i < ring_.size(); ++i) ring_.Publish(i, NewBatch(opt_.batch_size));
    if (num_workers_ + 1 > UsableCores()) wait_.NeverSpin();
    StartWorkers();
  }

  ~EnvPool() { Close(); }
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  using SequencedCaller = envpool::SequencedCaller;  // see callers.h

  const PoolOptions& options() const { return opt_; }
  const EnvSpec& env_spec() const { return env_spec_; }
  const StateLayout& layout() const { return layout_; }
  bool sync() const { return sync_; }
  bool closed() const override { return closed_.load(); }
  int in_flight() const { return in_flight_total_.load(); }

  // Queues a step or reset of each env in env_ids. actions[k] points at n
  // contiguous rows of action key k, already of the key's dtype; seeds
  // (reset only) may be null. In sync mode the results form one batch for
  // recv(); in async mode they join the ring. All checks happen before any
  // change, so a call that throws leaves the pool as it was.
  void Send(Task::Kind kind, const int* env_ids, int n, const char* const* actions, const uint64_t* seeds) {
    std::unique_lock<std::mutex> lock(mu_);
    callers_.Note();
    ThrowIfClosed();
    CheckEnvIds(env_ids, n, kind == Task::kStep);
    if (n == 0 && !sync_) return;
    std::shared_ptr<StateBatch> batch;
    if (sync_) batch = NewBatch(n);
    Queue(kind, env_ids, n, actions, seeds, batch.get());
    if (sync_) pending_.push_back(std::move(batch));
    lock.unlock();
    if (!sync_) cv_.notify_all();  // a receiver may be waiting for envs
  }

  // Send() then Recv() as one call. In async mode it refuses, before
  // sending, a step that could never complete a batch.
  std::shared_ptr<StateBatch> Step(Task::Kind kind, const int* env_ids, int n, const char* const* actions,
                                   const uint64_t* seeds) {
    if (sync_) return Call(kind, env_ids, n, actions, seeds);
    {
      std::lock_guard<std::mutex> lock(mu_);
      callers_.Note();
      if (!callers_.several() && unreserved_ + n < opt_.batch_size)
        throw std::runtime_error(checks::WouldWaitForever(unreserved_ + n, opt_.batch_size));
    }
    Send(kind, env_ids, n, actions, seeds);
    return Recv();
  }

  // Sends to env_ids and waits for exactly their rows, in that order, in a
  // batch of their own (in async mode, without touching the ring).
  std::shared_ptr<StateBatch> Call(Task::Kind kind, const int* env_ids, int n, const char* const* actions,
                                   const uint64_t* seeds) {
    std::shared_ptr<StateBatch> batch;
    bool here = false, timed = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      callers_.Note();
      ThrowIfClosed();
      CheckEnvIds(env_ids, n, kind == Task::kStep);
      batch = NewBatch(n);
      // With num_threads 1 the one stepping thread may as well be this
      // one while no other env is in flight: no hand-off, no wake-up.
      here = prepares_ || wait_.StepsHere(n) || (!caller_steps_ && in_flight_total_.load() == 0);
      timed = here && (++here_calls_ & 15) == 0;
      Queue(kind, env_ids, n, actions, seeds, batch.get(), /*push=*/!here);
    }
    if (here) RunHere(kind, env_ids, n, batch.get(), actions, seeds, timed);
    Wait(batch);
    Finish(batch, /*ring_number=*/-1);
    return batch;
  }

  // Waits for the next batch: in sync mode the oldest send()'s, in async
  // mode the next batch_size envs to finish. Call without holding the GIL.
  std::shared_ptr<StateBatch> Recv() {
    std::shared_ptr<StateBatch> batch;
    int64_t number = -1;
    {
      std::unique_lock<std::mutex> lock(mu_);
      callers_.Note();
      ThrowIfClosed();
      if (sync_) {
        if (pending_.empty()) throw std::runtime_error("recv() called with nothing in flight: send() first");
        batch = std::move(pending_.front());
        pending_.pop_front();
      } else {
        // With one calling thread, too few envs in flight means waiting
        // forever; with several, another thread may still send.
        while (unreserved_ < opt_.batch_size) {
          if (!callers_.several()) throw std::runtime_error(checks::WouldWaitForever(unreserved_, opt_.batch_size));
          cv_.wait(lock);
          ThrowIfClosed();
        }
        unreserved_ -= opt_.batch_size;
        number = static_cast<int64_t>(next_ticket_++);
        // With several receiving threads, claims can run a whole ring ahead
        // of a batch still being received (its last row written late), so
        // this batch's slot may still hold that older batch: wait for it.
        cv_.wait(lock, [&] { return ring_.Published(number) || closed_.load(); });
        ThrowIfClosed();
        batch = ring_.Owner(number);
      }
    }
    BatchRing::Ticket& mine = BatchRing::Receiving();
    mine = BatchRing::Ticket{&ring_, number, false};
    try {
      Wait(batch);
    } catch (...) {
      mine = BatchRing::Ticket{};
      throw;
    }
    const bool published = mine.published;
    mine = BatchRing::Ticket{};
    Finish(batch, published ? -1 : number);
    return batch;
  }

  // The envs' frame size (height, width); std::invalid_argument when they
  // cannot render or render at different sizes. Envs report a fixed size.
  std::array<int, 2> RenderSize() const { return envs_.RenderSize(); }

  // Renders env_ids (envs not in flight) on the stepping threads, as
  // their steps run, into a batch of its own: key 0 holds the frames
  // (n x height x width x 3 uint8), key 1 the env ids. Every env of the pool
  // must render at one size (the first call checks).
  std::shared_ptr<StateBatch> Render(const int* env_ids, int n) {
    std::shared_ptr<StateBatch> batch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      callers_.Note();
      ThrowIfClosed();
      CheckEnvIds(env_ids, n);
      // Under mu_ (envs report a fixed size).
      if (render_layout_ == nullptr) render_layout_ = std::make_unique<StateLayout>(RenderLayout(envs_.RenderSize()));
      const std::size_t bytes = BatchBytes(*render_layout_, std::max(n, 1));
      char* mem = static_cast<char*>(platform::AlignedAlloc(64, (bytes + 63) / 64 * 64));
      if (mem == nullptr) throw std::bad_alloc();
      batch = std::make_shared<StateBatch>(*render_layout_, std::max(n, 1), n,
                                           std::shared_ptr<char>(mem, platform::AlignedFree));
      Queue(Task::kRender, env_ids, n, nullptr, nullptr, batch.get());
    }
    Wait(batch);
    Finish(batch, /*ring_number=*/-1, kRenderEnvId);
    return batch;
  }

  // Runs fn(envs) on env_ids' envs (envs[i] is env_ids[i]'s) between their
  // tasks: the ids are checked as send() checks them (an env in flight is
  // refused with std::invalid_argument), and no call can send to them until
  // fn returns. For calls that read or change envs outside a task (e.g. a
  // family's NamedArrays).
  template <class F>
  void WithIdleEnvs(const int* env_ids, int n, F&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    ThrowIfClosed();
    CheckEnvIds(env_ids, n);
    std::vector<Env*> envs(n);
    for (int i = 0; i < n; ++i) envs[i] = envs_[env_ids[i]].env.get();
    fn(envs);
  }

  // Stops the workers once queued work is done and wakes every thread
  // waiting in the pool (they throw PoolClosed); idempotent, any thread.
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_.load()) return;
      closed_.store(true);
    }
    cv_.notify_all();
    completed_.Notify();
    finished_first_.Stop();
    queue_.Stop(static_cast<int>(workers_.size()));
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

 private:
  void ThrowIfClosed() const {
    if (closed_.load()) throw PoolClosed("this env pool is closed");
  }

  // Under mu_. A step (`step`) of an env that needs a reset with autoreset
  // disabled is refused here, before any env steps (the env is not in
  // flight, so no stepping thread writes its needs_reset).
  void CheckEnvIds(const int* env_ids, int n, bool step = false) {
    const bool no_autoreset = step && opt_.autoreset == AutoresetMode::kDisabled;
    if (n < 0) throw std::invalid_argument("env_id must be a list of env ids");
    // Repeats are found by stamping each named slot with this call's number.
    ++check_stamp_;
    for (int i = 0; i < n; ++i) {
      int id = env_ids[i];
      if (id < 0 || id >= opt_.num_envs) throw std::out_of_range(checks::EnvIdOutOfRange(id, opt_.num_envs));
      if (check_stamps_[id] == check_stamp_) throw std::invalid_argument(checks::EnvIdRepeated(id));
      check_stamps_[id] = check_stamp_;
      if (in_flight_[id].load(std::memory_order_acquire)) throw std::invalid_argument(checks::EnvInFlight(id));
      if (no_autoreset && envs_[id].needs_reset) throw std::invalid_argument(checks::EnvNeedsReset(id));
    }
  }

  // The task for the i-th env of a call (row i of its batch, or of the ring
  // when batch is null).
  static Task TaskOf(Task::Kind kind, const int* env_ids, int i, StateBatch* batch, const uint64_t* seeds) {
    return Task{kind, env_ids[i], batch, i, seeds != nullptr, seeds != nullptr ? seeds[i] : 0};
  }

  // Under mu_, after the checks: nothing here throws.
  // Without `push` the tasks are only marked in flight: the calling thread
  // runs them itself, reading the actions where the caller holds them.
  void Queue(Task::Kind kind, const int* env_ids, int n, const char* const* actions, const uint64_t* seeds,
             StateBatch* batch, bool push = true) {
    if (push) tasks_.resize(n);
    for (int i = 0; i < n; ++i) {
      EnvSlot& s = envs_[env_ids[i]];
      if (kind == Task::kStep && push) {
        const std::vector<std::size_t>& bytes = envs_.action_bytes();
        for (std::size_t k = 0; k < bytes.size(); ++k) std::memcpy(s.action[k], actions[k] + bytes[k] * i, bytes[k]);
      }
      in_flight_[env_ids[i]].store(true, std::memory_order_relaxed);
      if (push) tasks_[i] = TaskOf(kind, env_ids, i, batch, seeds);
      // Envs that step elsewhere start now, not when a stepping thread takes
      // the task: with fewer threads than envs in flight, a thread waiting
      // for one env would otherwise leave the others' workers idle (async, a
      // 10x spread of 1 ms Python steps, 8 envs, 2 threads: 0.71 of an even
      // spread).
      if (push && prepares_ && (kind == Task::kStep || kind == Task::kReset))
        envs_.Prepare(tasks_[i], s, s.action.data());
    }
    in_flight_total_ += n;
    if (batch == nullptr) unreserved_ += n;
    // The thread that will recv() runs tasks too (caller_steps_). In sync
    // mode one task is left for it rather than paying a wake-up: a
    // single-env step never leaves this thread (workers still take it if
    // they are awake). In async mode every task wakes a worker, so the
    // oldest tasks (a straggler sent first) go to workers and the
    // receiving thread helps with the newest, and is rarely the one stuck
    // in a slow env.
    if (n > 0 && push && finished_first_.active()) {
      finished_first_.Add(tasks_.data(), n);
    } else if (n > 0 && push) {
      queue_.Push(tasks_.data(), n, sync_ && caller_steps_ ? n - 1 : n);
    }
  }

  // After a batch is complete: frees its envs for the next send, recycles
  // its ring slot, and reports failed envs. The in-flight marks are atomic
  // so that a sync step takes the caller mutex once, not twice (its cost
  // showed in CartPole's per-call time).
  void Finish(const std::shared_ptr<StateBatch>& batch, int64_t ring_number, int id_key = kEnvId) {
    const int rows = batch->done.target();
    const int32_t* ids = reinterpret_cast<const int32_t*>(batch->key_base[id_key]);
    for (int i = 0; i < rows; ++i) in_flight_[ids[i]].store(false, std::memory_order_release);
    in_flight_total_.fetch_sub(rows);
    if (ring_number >= 0) Republish(static_cast<uint64_t>(ring_number + ring_.size()));
    ThrowIfFailed(batch);
  }

  // BatchRing::Host (and closed(), above).
  void Republish(uint64_t number) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ring_.Publish(number, NewBatch(opt_.batch_size));
    }
    cv_.notify_all();  // a receiver may wait for that slot
  }
  StateBatch* DiscardBatch() override {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_.push_back(NewBatch(1));
    return abandoned_.back().get();
  }

  // Batches have one capacity (num_envs in sync mode, where a partial send
  // fills fewer rows; batch_size in async mode), so one recycled block size
  // serves them all. An async own-batch call() may name more envs than
  // batch_size: its batch comes from blocks of num_envs rows. Under mu_
  // (or in the constructor).
  std::shared_ptr<StateBatch> NewBatch(int rows) {
    if (rows <= capacity_) return std::make_shared<StateBatch>(layout_, capacity_, rows, memory_->Get());
    if (!large_memory_) large_memory_ = std::make_shared<BatchMemory>(BatchBytes(layout_, opt_.num_envs));
    return std::make_shared<StateBatch>(layout_, opt_.num_envs, rows, large_memory_->Get());
  }

  void StartWorkers() {
    for (int i = 0; i < num_workers_; ++i) {
      try {
        workers_.emplace_back([this, i] { WorkerLoop(i); });
      } catch (const std::system_error& e) {
        Close();  // stops and joins the workers already started
        throw std::runtime_error("could not start worker thread " + std::to_string(i + 1) + " of " +
                                 std::to_string(num_workers_) + " (" + e.what() +
                                 "): lower num_threads or raise the process's thread/memory limits");
      }
      if (opt_.thread_affinity_offset >= 0) PinThread(workers_.back(), opt_.thread_affinity_offset + i);
    }
  }

  static bool StepsElsewhere(const std::vector<PoolTask>& tasks) {
    return std::all_of(tasks.begin(), tasks.end(), [](const PoolTask& t) { return t.family->steps_elsewhere; });
  }

  static PoolOptions Resolve(PoolOptions opt) {
    if (opt.batch_size == 0) opt.batch_size = opt.num_envs;
    if (opt.num_threads == 0) opt.num_threads = std::max(1, std::min(opt.batch_size, UsableCores()));
    return opt;
  }

  // Sync mode: every stepping thread has a lane (worker i lane i, the
  // receiving threads the last one), so an env keeps to one thread and its
  // state to one core's cache. Async mode: one lane, first in first out,
  // so an env waits for at most the envs sent before it, whatever any
  // worker is busy with (with a lane per worker, an env queued behind a
  // slow worker waited up to 20 batches of 16 envs / 4 where FIFO waits 5).
  int caller_lane() const { return sync_ ? num_workers_ : 0; }
  int worker_lane(int worker) const { return sync_ ? worker : 0; }

  // Runs queued tasks until `batch` is complete. If the pool is closed
  // meanwhile, the batch is kept alive for the workers still writing to it
  // and PoolClosed is thrown.
  void Wait(const std::shared_ptr<StateBatch>& batch) {
    StateBatch* b = batch.get();
    Task tasks[WaitPolicy::kMaxChunk];
    Arrivals arrivals(this);  // counted on every way out, as it may hold another batch's
    // A caller that does not step (num_threads 1) only waits, and keeps
    // only the short yield: its longer one would double the CPU time a
    // one-core pool takes.
    const bool helps = caller_steps_;
    while (!b->done.Done()) {
      if (closed_.load()) Abandon(batch);
      if (const int n = helps ? queue_.TryPopMany(caller_lane(), tasks, wait_.chunk()) : 0) {
        if (RunTasks(tasks, n, &arrivals)) {
          queue_.ReturnStop();  // the stop was meant for a worker
          Abandon(batch);
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
      completed_.Wait(seen, [this, b] { return b->done.Done() || closed_.load(); });
    }
  }

  [[noreturn]] void Abandon(const std::shared_ptr<StateBatch>& batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      abandoned_.push_back(batch);
    }
    throw PoolClosed("the env pool was closed while this thread waited for results");
  }

  void WorkerLoop(int lane) {
    if (finished_first_.active()) return TakeFinishedLoop();
    Arrivals arrivals(this);
    Task tasks[WaitPolicy::kMaxChunk];
    for (;;) {
      int n = queue_.TryPopMany(worker_lane(lane), tasks, wait_.chunk());
      if (n == 0) {
        Flush(&arrivals);
        tasks[0] = queue_.Pop(worker_lane(lane), wait_.spins(), wait_.YieldFor());
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
  // once, when the streak ends (a task of another batch, or no task ready):
  // one locked add per task on the counter that the other stepping threads
  // add to and the receiving thread polls kept its cache line moving
  // between cores (a fifth of CartPole's sync step). The batch cannot
  // complete before the streak ends, so nobody waits for the deferral.
  // Only batches known up front (sync and own-batch tasks): an async ring
  // task learns its batch at its first write, after the env has stepped.
  // Counted at the latest when the Arrivals goes out of scope.
  struct Arrivals {
    explicit Arrivals(EnvPool* p) : pool(p) {}
    ~Arrivals() { pool->Flush(this); }
    Arrivals(const Arrivals&) = delete;
    Arrivals& operator=(const Arrivals&) = delete;
    EnvPool* pool;
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

  // Claims the next ring row for an async task (at the env's first write,
  // or after the env when it wrote nothing) and points its slot at it.
  static void ClaimRingRow(RowClaim* claim) {
    Target* t = static_cast<Target*>(claim);
    EnvPool* pool = static_cast<EnvPool*>(t->owner);
    const BatchRing::Row r = pool->ring_.Claim();
    t->batch = r.batch;
    t->row = r.row;
    pool->envs_.PointAt(*t->slot, t->batch, t->row);
    t->claimed = true;
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

  // Call()'s path when the calling thread steps all n envs of `batch`
  // itself: RunTask's work without its per-task costs (the envs read their
  // actions where the caller holds them, the common keys' arrays are looked
  // up once, and one call in 16 is timed rather than one task in 16 per
  // env). 64 CartPole envs, a C++ loop of calls: 61 -> 46 ns per env and
  // call, of which the envs alone take 29.
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
    if (prepares_) {
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

  PoolOptions opt_;
  std::vector<PoolTask> pool_tasks_;
  std::vector<int> env_task_;
  EnvSpec env_spec_;
  StateLayout layout_;
  PoolEnvs envs_;
  bool sync_ = true;
  // The caller steps envs while it waits in recv(), so it is one of the
  // num_threads stepping threads, in both modes: num_threads - 1 workers
  // start (a single-env step never leaves the calling thread, and a small
  // batch pays no thread hand-off). With num_threads workers and a caller
  // that only waited, async HalfCheetah-v4 (8 envs, batch 4, 2 threads on
  // 2 cores) ran at half the speed: three threads shared two cores and every
  // batch paid a wake-up. With num_threads 1 one worker starts, so that
  // envs still step between send() and recv(), and the caller only waits
  // (caller_steps_ false): one thread steps at a time, as in EnvPool (bar a
  // call of cheap envs, WaitPolicy::StepsHere), where a caller that helped
  // made it two (a process given one core, as Ray's env runners are, used
  // two). Envs that step elsewhere get num_threads workers and a caller
  // that only waits: stepping one is waiting for its process, and a
  // receiving thread that took a slow one returned its finished batch late.
  bool caller_steps_;  // whether threads waiting in recv() step queued envs
  int num_workers_;
  ActionQueue queue_;  // lane i: worker i; the last lane (if caller_steps_): receiving threads
  // Batches have one capacity: num_envs in sync mode, batch_size in async mode.
  int capacity_;
  // Async mode: the batches envs join as they finish (read by workers).
  BatchRing ring_;
  WaitPolicy wait_;
  // Every task's family steps its envs elsewhere (Family::steps_elsewhere):
  // a call's envs are prepared, then stepped, on the calling thread.
  bool prepares_ = false;
  // Async, envs that step elsewhere and say when they finish: their tasks,
  // taken in finishing order instead of queue_'s send order (inactive
  // otherwise).
  FinishedFirst finished_first_;
  std::shared_ptr<BatchMemory> memory_;
  std::shared_ptr<BatchMemory> large_memory_;   // under mu_
  std::unique_ptr<StateLayout> render_layout_;  // at the first Render(), under mu_
  std::vector<std::thread> workers_;
  std::atomic<bool> closed_{false};

  // Caller-side state, under mu_ (never held while stepping or waiting).
  mutable std::mutex mu_;
  std::condition_variable cv_;  // a send, a second caller or close
  Callers callers_;
  uint64_t check_stamp_ = 0;
  uint32_t here_calls_ = 0;  // calls stepped by the calling thread alone
  // Per env: the check_stamp_ of the last call that named it (repeats).
  // Apart from the slots, which the stepping threads write.
  std::vector<uint64_t> check_stamps_;
  std::vector<Task> tasks_;
  std::deque<std::shared_ptr<StateBatch>> pending_;  // sync mode
  // Which envs have a task or an unreceived result: set under mu_ by
  // send, cleared by whichever thread receives the result.
  std::unique_ptr<std::atomic<bool>[]> in_flight_;
  std::atomic<int> in_flight_total_{0};
  int unreserved_ = 0;  // async envs in flight not yet promised to a recv()
  uint64_t next_ticket_ = 0;
  // Batches whose waiter left when the pool closed: workers may still be
  // writing to them, so they live as long as the pool.
  std::vector<std::shared_ptr<StateBatch>> abandoned_;

  Notifier completed_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_POOL_H_
