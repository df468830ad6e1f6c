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
//
// The pool holds the calls and their bookkeeping; how envs are scheduled is
// chosen once, when the pool is made (schedule.h), and the threads that
// step them are stepping.h's. Invariants: an env is in at most one call at
// a time (in_flight.h); every env in flight has exactly one task, queued or
// running; unreserved_ counts the async envs in flight not yet promised to
// a recv(), so a recv() never waits for rows nobody will write.
#ifndef ENVPOOL_CORE_POOL_H_
#define ENVPOOL_CORE_POOL_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/callers.h"
#include "cpp/core/checks.h"
#include "cpp/core/envs.h"
#include "cpp/core/errors.h"
#include "cpp/core/family.h"
#include "cpp/core/in_flight.h"
#include "cpp/core/layout.h"
#include "cpp/core/result_signal.h"
#include "cpp/core/ring.h"
#include "cpp/core/schedule.h"
#include "cpp/core/spec.h"
#include "cpp/core/state_batch.h"
#include "cpp/core/stepping.h"
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
        schedule_(Schedule::Choose(opt_, pool_tasks_)),
        sync_(schedule_.sync),
        stepping_(&envs_, schedule_, opt_.num_envs),
        capacity_(opt_.batch_size),
        ring_(this, opt_.batch_size, sync_ ? 0 : (opt_.num_envs + opt_.batch_size - 1) / opt_.batch_size + 2) {
    // Batches in use at once: the ring, or a sync batch and the caller's last one.
    CheckMemory(layout_, sync_ ? 2.0 : static_cast<double>(ring_.size()), capacity_, opt_.num_envs);
    memory_ = std::make_shared<BatchMemory>(BatchBytes(layout_, capacity_));
    if (!opt_.seeds.empty() && opt_.seeds.size() != static_cast<std::size_t>(opt_.num_envs))
      throw std::invalid_argument(checks::SeedCount(opt_.seeds.size(), static_cast<std::size_t>(opt_.num_envs)));
    envs_.Create(pool_tasks_, env_task_, opt_.num_envs, opt_.num_threads, opt_.seed, opt_.seeds);
    if (schedule_.finished_first) {
      std::vector<ResultSignal*> signals;
      for (int i = 0; i < opt_.num_envs; ++i) signals.push_back(ResultSignalOf(envs_[i].env.get()));
      stepping_.UseFinishedFirst(std::move(signals));
    }
    for (int i = 0; i < ring_.size(); ++i) ring_.Publish(i, NewBatch(opt_.batch_size));
    if (schedule_.num_workers + 1 > UsableCores()) stepping_.NeverSpin();
    try {
      stepping_.Start(opt_.thread_affinity_offset);
    } catch (...) {
      closed_.store(true);
      throw;
    }
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
  int in_flight() const { return in_flight_.total(); }

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
      here = schedule_.prepares || stepping_.wait_policy().StepsHere(n) ||
             (!schedule_.caller_steps && in_flight_.total() == 0);
      timed = here && (++here_calls_ & 15) == 0;
      Queue(kind, env_ids, n, actions, seeds, batch.get(), /*push=*/!here);
    }
    if (here) stepping_.RunHere(kind, env_ids, n, batch.get(), actions, seeds, timed);
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
    stepping_.Stop();
  }

 private:
  void ThrowIfClosed() const {
    if (closed_.load()) throw PoolClosed("this env pool is closed");
  }

  // Under mu_ (see InFlight::Check).
  void CheckEnvIds(const int* env_ids, int n, bool step = false) {
    in_flight_.Check(env_ids, n, envs_, step && opt_.autoreset == AutoresetMode::kDisabled);
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
      in_flight_.Mark(env_ids[i]);
      if (push) tasks_[i] = Stepping::TaskOf(kind, env_ids, i, batch, seeds);
      // Envs that step elsewhere start now, not when a stepping thread takes
      // the task: with fewer threads than envs in flight, a thread waiting
      // for one env would otherwise leave the others' workers idle.
      if (push && schedule_.prepares && (kind == Task::kStep || kind == Task::kReset))
        envs_.Prepare(tasks_[i], s, s.action.data());
    }
    in_flight_.Added(n);
    if (batch == nullptr) unreserved_ += n;
    if (push) stepping_.Push(tasks_.data(), n);
  }

  // After a batch is complete: frees its envs for the next send, recycles
  // its ring slot, and reports failed envs.
  void Finish(const std::shared_ptr<StateBatch>& batch, int64_t ring_number, int id_key = kEnvId) {
    in_flight_.Clear(reinterpret_cast<const int32_t*>(batch->key_base[id_key]), batch->done.target());
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

  static PoolOptions Resolve(PoolOptions opt) {
    if (opt.batch_size == 0) opt.batch_size = opt.num_envs;
    if (opt.num_threads == 0) opt.num_threads = std::max(1, std::min(opt.batch_size, UsableCores()));
    return opt;
  }

  // Runs queued tasks until `batch` is complete. If the pool is closed
  // meanwhile, the batch is kept alive for the workers still writing to it
  // and PoolClosed is thrown.
  void Wait(const std::shared_ptr<StateBatch>& batch) {
    if (!stepping_.Wait(batch.get(), closed_)) Abandon(batch);
  }

  [[noreturn]] void Abandon(const std::shared_ptr<StateBatch>& batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      abandoned_.push_back(batch);
    }
    throw PoolClosed("the env pool was closed while this thread waited for results");
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

  PoolOptions opt_;
  std::vector<PoolTask> pool_tasks_;
  std::vector<int> env_task_;
  EnvSpec env_spec_;
  StateLayout layout_;
  PoolEnvs envs_;
  const Schedule schedule_;
  const bool sync_;    // schedule_.sync, read on every call
  Stepping stepping_;  // after envs_, which its threads step: stopped before envs_ goes
  // Batches have one capacity: num_envs in sync mode, batch_size in async mode.
  int capacity_;
  // Async mode: the batches envs join as they finish (read by workers).
  BatchRing ring_;
  std::shared_ptr<BatchMemory> memory_;
  std::shared_ptr<BatchMemory> large_memory_;   // under mu_
  std::unique_ptr<StateLayout> render_layout_;  // at the first Render(), under mu_
  std::atomic<bool> closed_{false};

  // Caller-side state, under mu_ (never held while stepping or waiting).
  mutable std::mutex mu_;
  std::condition_variable cv_;  // a send, a second caller or close
  Callers callers_;
  uint32_t here_calls_ = 0;  // calls stepped by the calling thread alone
  std::vector<Task> tasks_;
  std::deque<std::shared_ptr<StateBatch>> pending_;  // sync mode
  InFlight in_flight_{opt_.num_envs};                // which envs are in a call (in_flight.h)
  int unreserved_ = 0;                               // async envs in flight not yet promised to a recv()
  uint64_t next_ticket_ = 0;
  // Batches whose waiter left when the pool closed: workers may still be
  // writing to them, so they live as long as the pool.
  std::vector<std::shared_ptr<StateBatch>> abandoned_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_POOL_H_
