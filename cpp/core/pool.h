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

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

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
#include "cpp/core/family.h"
#include "cpp/core/spec.h"
#include "cpp/core/state_batch.h"

namespace envpool {

enum class AutoresetMode { kNextStep, kSameStep };

// Engine-level options, read from the config's common keys.
struct PoolOptions {
  int num_envs = 1;
  int batch_size = 0;               // 0 = num_envs
  int num_threads = 0;              // 0 = automatic
  int thread_affinity_offset = -1;  // -1 = no pinning
  uint64_t seed = 0;
  int64_t max_episode_steps = 0;  // 0 = no limit
  AutoresetMode autoreset = AutoresetMode::kNextStep;
};

// The engine's own state keys, always first in the layout, in this order.
enum CommonKey : int { kReward, kTerminated, kTruncated, kDiscount, kEnvId, kElapsedStep, kNumCommonKeys };

inline std::vector<ArraySpec> CommonStateSpecs() {
  return {Spec<float>("reward", {}),   Spec<bool>("terminated", {}),     Spec<bool>("truncated", {}),
          Spec<float>("discount", {}), Spec<int32_t>("info:env_id", {}), Spec<int32_t>("info:elapsed_step", {})};
}

// Thrown by Recv()/Call() when envs of the batch threw. The batch is
// complete (the other envs' rows are valid; a failed env's row is zeroed
// with terminated set) and every env in it is free to be sent again; a
// failed env is reset on its next step.
class BatchError : public std::exception {
 public:
  BatchError(std::shared_ptr<StateBatch> b, std::vector<StateBatch::Failure> f)
      : batch(std::move(b)), failures(std::move(f)) {
    message = failures.size() == 1 ? "env " : "envs ";
    for (std::size_t i = 0; i < failures.size(); ++i) {
      if (i > 0) message += ", ";
      message += std::to_string(failures[i].env_id);
    }
    message += " failed";
    try {
      std::rethrow_exception(failures[0].error);
    } catch (const std::exception& e) {
      message += std::string(": ") + e.what();
    } catch (...) {
      message += ": unknown exception";
    }
  }
  const char* what() const noexcept override { return message.c_str(); }

  std::shared_ptr<StateBatch> batch;
  std::vector<StateBatch::Failure> failures;
  std::string message;
};

// One task of a pool: a family and its config. A multi-task pool has
// several (the same state and action specs, checked), and env i runs task
// env_task[i]; its max_episode_steps is its task's.
struct PoolTask {
  const Family* family;
  Config config;
  int64_t max_episode_steps = 0;  // 0 = no limit
};

// Thrown to a thread waiting in the pool when another thread closes it.
class PoolClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class EnvPool {
 public:
  EnvPool(const Family& family, const Config& config, PoolOptions opt)
      : EnvPool({PoolTask{&family, config, opt.max_episode_steps}}, {}, opt) {}

  // A pool over several tasks; env_task[i] is env i's index into tasks
  // (empty: every env runs tasks[0]). With more than one task, each row's
  // info:task_id holds that index.
  EnvPool(std::vector<PoolTask> tasks, std::vector<int> env_task, PoolOptions opt)
      : opt_(Resolve(opt)),
        pool_tasks_(std::move(tasks)),
        env_task_(std::move(env_task)),
        env_spec_(CheckedSpec(pool_tasks_, env_task_, opt_.num_envs)),
        layout_(BuildLayout(env_spec_, opt.autoreset, pool_tasks_.size() > 1)),
        sync_(opt_.batch_size == opt_.num_envs),
        num_workers_(NumWorkers(opt_)),
        queue_(sync_ ? num_workers_ + (caller_steps() ? 1 : 0) : 1, opt_.num_envs,
               static_cast<std::size_t>(opt_.num_envs)) {
    capacity_ = opt_.batch_size;
    if (!sync_) ring_size_ = (opt_.num_envs + opt_.batch_size - 1) / opt_.batch_size + 2;
    CheckMemory();
    memory_ = std::make_shared<BatchMemory>(BatchBytes(layout_, capacity_));
    num_env_keys_ = static_cast<int>(env_spec_.state.size());
    for (const ArraySpec& a : env_spec_.action) action_bytes_.push_back(a.NumBytes());
    for (const ArraySpec& a : env_spec_.state) state_types_.push_back(a.dtype);
    for (const ArraySpec& a : env_spec_.action) action_types_.push_back(a.dtype);
    if (pool_tasks_.size() > 1) task_key_ = static_cast<int>(layout_.specs.size()) - 1;
    CreateEnvs();
    prepares_ = std::all_of(pool_tasks_.begin(), pool_tasks_.end(),
                            [](const PoolTask& t) { return t.family->steps_elsewhere; });
    if (!sync_) {
      ring_ = std::vector<RingSlot>(ring_size_);
      for (int i = 0; i < ring_size_; ++i) Publish(i);
    }
    // Spinning only pays while every waiting thread has a core of its own;
    // otherwise a spinner takes the core of a thread with work to do.
    if (num_workers_ + 1 > UsableCores()) {
      may_spin_ = false;
      spins_.store(0);
    }
    StartWorkers();
  }

  ~EnvPool() { Close(); }
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

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

  const PoolOptions& options() const { return opt_; }
  const EnvSpec& env_spec() const { return env_spec_; }
  const StateLayout& layout() const { return layout_; }
  bool sync() const { return sync_; }
  bool closed() const { return closed_.load(); }
  int in_flight() const { return in_flight_total_.load(); }

  // Queues a step or reset of each env in env_ids. actions[k] points at n
  // contiguous rows of action key k, already of the key's dtype; seeds
  // (reset only) may be null. In sync mode the results form one batch for
  // recv(); in async mode they join the ring. All checks happen before any
  // change, so a call that throws leaves the pool as it was.
  void Send(Task::Kind kind, const int* env_ids, int n, const char* const* actions, const uint64_t* seeds) {
    std::unique_lock<std::mutex> lock(mu_);
    NoteCaller();
    ThrowIfClosed();
    CheckEnvIds(env_ids, n);
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
      NoteCaller();
      if (!multi_caller_ && unreserved_ + n < opt_.batch_size) throw WouldWaitForever(unreserved_ + n);
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
      NoteCaller();
      ThrowIfClosed();
      CheckEnvIds(env_ids, n);
      batch = NewBatch(n);
      // With num_threads 1 the one stepping thread may as well be this
      // one while no other env is in flight: no hand-off, no wake-up.
      here = prepares_ || StepsHere(n) || (!caller_steps() && in_flight_total_.load() == 0);
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
      NoteCaller();
      ThrowIfClosed();
      if (sync_) {
        if (pending_.empty()) throw std::runtime_error("recv() called with nothing in flight: send() first");
        batch = std::move(pending_.front());
        pending_.pop_front();
      } else {
        // With one calling thread, too few envs in flight means waiting
        // forever; with several, another thread may still send.
        while (unreserved_ < opt_.batch_size) {
          if (!multi_caller_) throw WouldWaitForever(unreserved_);
          cv_.wait(lock);
          ThrowIfClosed();
        }
        unreserved_ -= opt_.batch_size;
        number = static_cast<int64_t>(next_ticket_++);
        // With several receiving threads, claims can run a whole ring ahead
        // of a batch still being received (its last row written late), so
        // this batch's slot may still hold that older batch: wait for it.
        RingSlot& slot = ring_[number % ring_size_];
        cv_.wait(lock, [&] { return slot.number.load() == static_cast<uint64_t>(number) || closed_.load(); });
        ThrowIfClosed();
        batch = slot.owner;
      }
    }
    ReceiverTicket& mine = Receiving();
    mine = ReceiverTicket{this, number, false};
    try {
      Wait(batch);
    } catch (...) {
      mine = ReceiverTicket{};
      throw;
    }
    const bool published = mine.published;
    mine = ReceiverTicket{};
    Finish(batch, published ? -1 : number);
    return batch;
  }

  // Renders env_ids (envs not in flight) on the stepping threads, as
  // their steps run, into a batch of its own: key 0 holds the frames
  // (n x height x width x 3 uint8), key 1 the env ids. Every env of the pool
  // must render at one size (the first call checks).
  std::shared_ptr<StateBatch> Render(const int* env_ids, int n) {
    std::shared_ptr<StateBatch> batch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      NoteCaller();
      ThrowIfClosed();
      CheckEnvIds(env_ids, n);
      if (render_layout_ == nullptr) render_layout_ = std::make_unique<StateLayout>(BuildRenderLayout());
      const std::size_t bytes = BatchBytes(*render_layout_, std::max(n, 1));
      char* mem = static_cast<char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
      if (mem == nullptr) throw std::bad_alloc();
      batch = std::make_shared<StateBatch>(*render_layout_, std::max(n, 1), n, std::shared_ptr<char>(mem, std::free));
      tasks_.resize(n);
      for (int i = 0; i < n; ++i) {
        in_flight_[env_ids[i]].store(true, std::memory_order_relaxed);
        tasks_[i] = Task{Task::kRender, env_ids[i], batch.get(), i, false, 0};
      }
      in_flight_total_ += n;
      if (n > 0) queue_.Push(tasks_.data(), n, caller_steps() ? n - 1 : n);
    }
    Wait(batch);
    const int32_t* ids = reinterpret_cast<const int32_t*>(batch->key_base[1]);
    for (int i = 0; i < n; ++i) in_flight_[ids[i]].store(false, std::memory_order_release);
    in_flight_total_.fetch_sub(n);
    if (batch->failed.load(std::memory_order_acquire)) {
      std::vector<StateBatch::Failure> failures;
      {
        std::lock_guard<std::mutex> lock(batch->failure_mu);
        failures = batch->failures;
      }
      throw BatchError(batch, std::move(failures));
    }
    return batch;
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
    queue_.Stop(static_cast<int>(workers_.size()));
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

 private:
  struct EnvSlot {
    std::unique_ptr<Env> env;
    std::vector<char*> action;  // this env's row of each action array
    std::vector<char*> out;     // this env's row pointers, refreshed per task
    int64_t elapsed = 0;
    int64_t max_episode_steps = 0;
    int task = 0;
    uint32_t runs = 0;
    bool needs_reset = true;
  };

  // Where one running task writes: fixed up front for sync and own-batch
  // tasks, claimed at the env's first write for ring tasks.
  struct Target : RowClaim {
    EnvPool* pool;
    EnvSlot* slot;
    StateBatch* batch;
    int row;
  };

  // Notices a second calling thread (under mu_): from then on a recv()
  // that finds too few envs in flight waits for another thread's send()
  // instead of raising.
  void NoteCaller() {
    if (SequencedCaller::active()) return;
    const std::thread::id me = std::this_thread::get_id();
    if (first_caller_ == std::thread::id()) {
      first_caller_ = me;
    } else if (!multi_caller_ && first_caller_ != me) {
      multi_caller_ = true;
    }
  }

  std::runtime_error WouldWaitForever(int available) const {
    return std::runtime_error(
        "recv() would wait forever: " + std::to_string(available) +
        " env(s) in flight for the next batch, fewer than batch_size=" + std::to_string(opt_.batch_size));
  }

  void ThrowIfClosed() const {
    if (closed_.load()) throw PoolClosed("this env pool is closed");
  }

  // Under mu_.
  void CheckEnvIds(const int* env_ids, int n) {
    if (n < 0) throw std::invalid_argument("env_id must be a list of env ids");
    // Repeats are found by stamping each named slot with this call's number.
    ++check_stamp_;
    for (int i = 0; i < n; ++i) {
      int id = env_ids[i];
      if (id < 0 || id >= opt_.num_envs)
        throw std::out_of_range("env_id " + std::to_string(id) + " is out of range [0, " +
                                std::to_string(opt_.num_envs) + ")");
      if (check_stamps_[id] == check_stamp_)
        throw std::invalid_argument("env_id " + std::to_string(id) + " is repeated");
      check_stamps_[id] = check_stamp_;
      if (in_flight_[id].load(std::memory_order_acquire))
        throw std::invalid_argument("env " + std::to_string(id) +
                                    " is still in flight: recv() its result before sending to it again");
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
      EnvSlot& s = slots_[env_ids[i]];
      if (kind == Task::kStep && push) {
        for (std::size_t k = 0; k < action_bytes_.size(); ++k)
          std::memcpy(s.action[k], actions[k] + action_bytes_[k] * i, action_bytes_[k]);
      }
      in_flight_[env_ids[i]].store(true, std::memory_order_relaxed);
      if (push) tasks_[i] = TaskOf(kind, env_ids, i, batch, seeds);
    }
    in_flight_total_ += n;
    if (batch == nullptr) unreserved_ += n;
    // The thread that will recv() runs tasks too (with num_threads > 1). In
    // sync mode one task is left for it rather than paying a wake-up: a
    // single-env step never leaves this thread (workers still take it if
    // they are awake). In async mode every task wakes a worker, so the
    // oldest tasks (a straggler sent first) go to workers and the
    // receiving thread helps with the newest, and is rarely the one stuck
    // in a slow env.
    if (n > 0 && push) queue_.Push(tasks_.data(), n, sync_ && caller_steps() ? n - 1 : n);
  }

  // Whether the calling thread should step a call's n envs alone, from
  // the timed tasks' mean. Handing a task to another core costs it cache
  // misses on its task, action and result rows (kHandOff, measured with
  // CartPole on a 2-core VM), and the call a wait for the slowest thread.
  // With T stepping threads a call gains t(1 - 1/T) per env of work t and
  // pays about kHandOff/T, so envs cheaper than kHandOff/(T-1) are stepped
  // here whatever their number (two threads took 145 us per call of 1024
  // CartPole envs, the caller alone 91), and so is a call whose whole work
  // is under kInlineWork (about the hand-off's fixed cost: 64 CartPole
  // envs took 13-15 us on two threads, 7-8 alone).
  bool StepsHere(int n) const {
    const int64_t t = task_ns_.load(std::memory_order_relaxed);
    return t * num_workers_ <= kHandOff.count() || t <= kInlineWork.count() / std::max(n, 1);
  }

  // After a batch is complete: frees its envs for the next send, recycles
  // its ring slot, and reports failed envs. The in-flight marks are atomic
  // so that a sync step takes the caller mutex once, not twice (its cost
  // showed in CartPole's per-call time).
  void Finish(const std::shared_ptr<StateBatch>& batch, int64_t ring_number) {
    const int rows = batch->done.target();
    const int32_t* ids = reinterpret_cast<const int32_t*>(batch->key_base[kEnvId]);
    for (int i = 0; i < rows; ++i) in_flight_[ids[i]].store(false, std::memory_order_release);
    in_flight_total_.fetch_sub(rows);
    if (ring_number >= 0) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        Publish(static_cast<uint64_t>(ring_number + ring_size_));
      }
      cv_.notify_all();  // a receiver may wait for that slot
    }
    if (batch->failed.load(std::memory_order_acquire)) {
      std::vector<StateBatch::Failure> failures;
      {
        std::lock_guard<std::mutex> lock(batch->failure_mu);
        failures = batch->failures;
      }
      throw BatchError(batch, std::move(failures));
    }
  }

  // The tasks' common spec; every task must declare the same arrays (name,
  // dtype, shape and bounds), or batches could not hold them.
  static EnvSpec CheckedSpec(const std::vector<PoolTask>& tasks, const std::vector<int>& env_task, int num_envs) {
    if (tasks.empty()) throw std::invalid_argument("a pool needs at least one task");
    if (!env_task.empty() && static_cast<int>(env_task.size()) != num_envs)
      throw std::invalid_argument("env_task must name a task for each of the " + std::to_string(num_envs) + " envs");
    for (int t : env_task)
      if (t < 0 || t >= static_cast<int>(tasks.size()))
        throw std::out_of_range("env_task holds " + std::to_string(t) + ", not a task index");
    EnvSpec first = tasks[0].family->make_spec(tasks[0].config);
    for (std::size_t t = 1; t < tasks.size(); ++t) {
      EnvSpec other = tasks[t].family->make_spec(tasks[t].config);
      auto differ = [&](const std::vector<ArraySpec>& a, const std::vector<ArraySpec>& b, const char* what) {
        if (a.size() != b.size())
          throw std::invalid_argument("task " + std::to_string(t) + " has " + std::to_string(b.size()) + " " + what +
                                      " arrays, task 0 has " + std::to_string(a.size()));
        for (std::size_t k = 0; k < a.size(); ++k) {
          const bool same = a[k].name == b[k].name && a[k].dtype == b[k].dtype && a[k].shape == b[k].shape &&
                            a[k].low == b[k].low && a[k].high == b[k].high;
          if (!same)
            throw std::invalid_argument("task " + std::to_string(t) + "'s " + what + " array '" + b[k].name +
                                        "' differs from task 0's '" + a[k].name + "'");
        }
      };
      differ(first.state, other.state, "state");
      differ(first.action, other.action, "action");
    }
    return first;
  }

  static StateLayout BuildLayout(const EnvSpec& spec, AutoresetMode mode, bool multi_task) {
    std::vector<ArraySpec> specs = CommonStateSpecs();
    for (const ArraySpec& a : spec.state) specs.push_back(a);
    if (mode == AutoresetMode::kSameStep) {
      // The final observation and info of a finished episode, since the
      // row itself then holds the next episode's first observation.
      for (const ArraySpec& a : spec.state) {
        ArraySpec f = a;
        f.name = "final:" + a.name;
        specs.push_back(f);
      }
      specs.push_back(Spec<int32_t>("final:info:elapsed_step", {}));
    }
    // Last, so the keys before it keep their places.
    if (multi_task) specs.push_back(Spec<int32_t>("info:task_id", {}));
    return StateLayout(std::move(specs));
  }

  // Refuses, before allocating anything, a configuration whose batches and
  // envs would not fit in this machine's memory (e.g. 65536x65536 frames).
  void CheckMemory() const {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return;
    const double physical = static_cast<double>(pages) * static_cast<double>(page);
    double row = 0;
    for (std::size_t b : layout_.row_bytes) row += static_cast<double>(b);
    // Batches in use at once (the ring, or a sync batch and the caller's
    // last one), plus each env's own copy of its state, at the least.
    const double batches = sync_ ? 2.0 : static_cast<double>(ring_size_);
    const double need = row * (batches * capacity_ + opt_.num_envs);
    if (need > physical) {
      auto gib = [](double b) { return std::to_string(b / (1 << 30)).substr(0, 6) + " GiB"; };
      throw std::invalid_argument("this configuration needs at least " + gib(need) + " (" + gib(row) +
                                  " per env row) but the machine has " + gib(physical) +
                                  ": lower num_envs, batch_size or the observation size");
    }
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

  void CreateEnvs() {
    slots_.resize(opt_.num_envs);
    in_flight_ = std::make_unique<std::atomic<bool>[]>(opt_.num_envs);
    // Env construction can be slow (ROM loading, XML parsing): spread it.
    int nt = std::max(1, std::min(opt_.num_threads, opt_.num_envs));
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(nt);
    auto build = [&](int t) {
      try {
        for (int i = t; i < opt_.num_envs; i += nt) {
          const PoolTask& task = pool_tasks_[env_task_.empty() ? 0 : env_task_[i]];
          slots_[i].task = env_task_.empty() ? 0 : env_task_[i];
          slots_[i].max_episode_steps = task.max_episode_steps;
          slots_[i].env = task.family->make_env(task.config, i);
          slots_[i].env->Seed(opt_.seed + static_cast<uint64_t>(i));
        }
      } catch (...) {
        errors[t] = std::current_exception();
      }
    };
    for (int t = 1; t < nt; ++t) {
      try {
        threads.emplace_back(build, t);
      } catch (const std::system_error&) {
        // No more threads to be had: this thread builds the rest.
        for (int u = t; u < nt; ++u) build(u);
        break;
      }
    }
    build(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    // One array per action key, envs' rows side by side: send() writes the
    // rows of a thread's block of envs into a few cache lines, which that
    // thread then reads, where a buffer per env cost a line each.
    for (std::size_t b : action_bytes_) {
      const std::size_t bytes = (std::max<std::size_t>(b, 1) * opt_.num_envs + 63) / 64 * 64;
      char* mem = static_cast<char*>(std::aligned_alloc(64, bytes));
      if (mem == nullptr) throw std::bad_alloc();
      std::memset(mem, 0, bytes);
      action_memory_.emplace_back(mem);
      for (int i = 0; i < opt_.num_envs; ++i) slots_[i].action.push_back(mem + b * i);
    }
    for (EnvSlot& s : slots_) s.out.resize(num_env_keys_);
    check_stamps_.assign(opt_.num_envs, 0);
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
      if (opt_.thread_affinity_offset >= 0) Pin(workers_.back(), i);
    }
  }

  static PoolOptions Resolve(PoolOptions opt) {
    if (opt.batch_size == 0) opt.batch_size = opt.num_envs;
    if (opt.num_threads == 0) opt.num_threads = std::max(1, std::min(opt.batch_size, UsableCores()));
    return opt;
  }

  // The caller steps envs while it waits in recv(), so it is one of the
  // num_threads stepping threads, in both modes: num_threads - 1 workers
  // start (a single-env step never leaves the calling thread, and a small
  // batch pays no thread hand-off). With num_threads workers and a caller
  // that only waited, async HalfCheetah-v4 (8 envs, batch 4, 2 threads on
  // 2 cores) ran at half the speed: three threads shared two cores and every
  // batch paid a wake-up. With num_threads 1 one worker starts, so that
  // envs still step between send() and recv(), and the caller only waits
  // (caller_steps()): one thread steps at a time, as in EnvPool (bar a call
  // of cheap envs, StepsHere), where a caller that helped made it two (a
  // process given one core, as Ray's env runners are, used two).
  static int NumWorkers(const PoolOptions& opt) { return std::max(1, opt.num_threads - 1); }
  // Whether threads waiting in recv() step queued envs (see NumWorkers).
  bool caller_steps() const { return opt_.num_threads > 1; }

  static int UsableCores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
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
    Task tasks[kMaxChunk];
    Arrivals arrivals(this);  // counted on every way out, as it may hold another batch's
    while (!b->done.Done()) {
      if (closed_.load()) Abandon(batch);
      if (const int n =
              caller_steps() ? queue_.TryPopMany(caller_lane(), tasks, chunk_.load(std::memory_order_relaxed)) : 0) {
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
      const int spins = 2 * spins_.load(std::memory_order_relaxed);
      for (int i = 0; i < spins && !b->done.Done(); ++i) CpuRelax();
      // A caller that does not step (num_threads 1) keeps only the short
      // yield: its longer one would double the CPU time a one-core pool takes.
      YieldUntil(caller_steps() ? YieldFor() : kMinYield, [b] { return b->done.Done(); });
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
    Arrivals arrivals(this);
    Task tasks[kMaxChunk];
    for (;;) {
      int n = queue_.TryPopMany(worker_lane(lane), tasks, chunk_.load(std::memory_order_relaxed));
      if (n == 0) {
        Flush(&arrivals);
        tasks[0] = queue_.Pop(worker_lane(lane), spins_.load(std::memory_order_relaxed), YieldFor());
        n = 1;
      }
      if (RunTasks(tasks, n, &arrivals)) return;
    }
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
    EnvPool* p = t->pool;
    const uint64_t idx = p->ring_alloc_.fetch_add(1, std::memory_order_relaxed);
    const uint64_t number = idx / p->opt_.batch_size;
    RingSlot& slot = p->ring_[number % p->ring_size_];
    // Usually published long ago (the ring holds more rows than there are
    // envs); with several receiving threads it can still hold a batch that
    // is being received, so wait for it. Once the pool is closed nobody
    // receives or republishes: the row goes to a batch of its own.
    for (int spin = 0; slot.number.load(std::memory_order_acquire) != number; ++spin) {
      // Receiving threads help, and several of them can each wait, inside a
      // task, for a slot that another one republishes only once it is done
      // receiving (a cycle). So a receiving thread that must wait first
      // republishes the slot of its own batch, as soon as that batch is
      // complete (its rows were all claimed before this one and are written
      // at once), rather than after its task.
      ReceiverTicket& mine = Receiving();
      if (mine.pool == p && !mine.published && mine.number >= 0) {
        p->PublishOwnEarly(mine);
        if (mine.published) continue;
      }
      if (spin > 64) {
        if (p->closed_.load()) {
          t->batch = p->DiscardBatch();
          t->row = 0;
          p->PointAt(*t->slot, t->batch, t->row);
          t->claimed = true;
          return;
        }
        sched_yield();
      }
    }
    t->batch = slot.batch;
    t->row = static_cast<int>(idx % p->opt_.batch_size);
    p->PointAt(*t->slot, t->batch, t->row);
    t->claimed = true;
  }

  // The async batch a receiving thread is waiting for, per thread (a
  // thread receives from one pool at a time).
  struct ReceiverTicket {
    EnvPool* pool = nullptr;
    int64_t number = -1;
    bool published = false;  // its slot already holds its successor
  };
  static ReceiverTicket& Receiving() {
    thread_local ReceiverTicket ticket;
    return ticket;
  }

  // Republishes the slot of the batch this thread receives once that batch
  // is complete (its rows are claimed by threads that write them at once),
  // before this thread has finished receiving it.
  void PublishOwnEarly(ReceiverTicket& mine) {
    StateBatch* own = ring_[mine.number % ring_size_].batch;
    while (!own->done.Done()) {
      if (closed_.load()) return;  // the claim goes to a discard batch
      sched_yield();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      Publish(static_cast<uint64_t>(mine.number + ring_size_));
    }
    cv_.notify_all();
    mine.published = true;
  }

  // A one-row batch for a result nobody will receive (the pool is closed),
  // alive as long as the pool.
  StateBatch* DiscardBatch() {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_.push_back(NewBatch(1));
    return abandoned_.back().get();
  }

  void PointAt(EnvSlot& s, StateBatch* batch, int row) {
    for (int k = 0; k < num_env_keys_; ++k) s.out[k] = batch->Row(kNumCommonKeys + k, row);
  }

  // Under mu_. Envs report a fixed size, so reading it while an env steps
  // elsewhere is safe.
  StateLayout BuildRenderLayout() const {
    const std::array<int, 2> size = slots_[0].env->RenderSize();
    if (size[0] <= 0 || size[1] <= 0)
      throw std::invalid_argument("this task cannot render (its envs report no frame size)");
    for (const EnvSlot& s : slots_)
      if (s.env->RenderSize() != size)
        throw std::invalid_argument("the envs of this pool render at different sizes; render() needs one size");
    return StateLayout({Spec<uint8_t>("frame", {size[0], size[1], 3}), Spec<int32_t>("env_id", {})});
  }

  void RunRender(const Task& task) {
    EnvSlot& s = slots_[task.env_id];
    StateBatch* batch = task.batch;
    uint8_t* frame = reinterpret_cast<uint8_t*>(batch->Row(0, task.row));
    try {
      s.env->Render(frame);
    } catch (...) {
      std::memset(frame, 0, batch->layout.row_bytes[0]);
      batch->AddFailure(task.env_id, std::current_exception());
    }
    *reinterpret_cast<int32_t*>(batch->Row(1, task.row)) = task.env_id;
    if (batch->done.Arrive()) completed_.Notify();
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
    if (task.kind == Task::kRender) return RunRender(task);
    EnvSlot& s = slots_[task.env_id];
    Outcome o;
    // Time one task in 16 (per env, so no shared counter) to size spinning.
    const bool timed = (++s.runs & 15) == 0;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    StepEnv(task, s, s.action.data(), &o);
    if (timed) AdaptSpinning(std::chrono::steady_clock::now() - start);
    Record(task, s, &o);
    if (task.batch != nullptr) {
      arrivals->batch = o.target.batch;
      ++arrivals->count;
    } else if (o.target.batch->done.Arrive()) {
      completed_.Notify();
    }
  }

  // What stepping one env left for the engine to write.
  struct Outcome {
    Target target;
    StepResult result;
    std::exception_ptr error;
  };

  // The env's part of a task: its reset or step (and a same-step
  // autoreset), writing its own keys; the common keys are Record()'s.
  void StepEnv(const Task& task, EnvSlot& s, const char* const* action, Outcome* o) {
    Target& t = o->target;
    t.pool = this;
    t.slot = &s;
    t.batch = task.batch;
    t.row = task.row;
    t.claim = &ClaimRingRow;
    t.claimed = task.batch != nullptr;
    if (t.claimed) PointAt(s, t.batch, t.row);
    StateRow out(s.out.data(), t.claimed ? nullptr : &t, KeyTypes{state_types_.data(), num_env_keys_});
    StepResult& r = o->result;
    try {
      if (task.kind == Task::kReset || s.needs_reset) {
        if (task.has_seed) s.env->Seed(task.seed);
        s.env->Reset(out);
        s.elapsed = 0;
      } else {
        r = s.env->Step(ActionRow(action, KeyTypes{action_types_.data(), static_cast<int>(action_types_.size())}), out);
        ++s.elapsed;
        if (s.max_episode_steps > 0 && s.elapsed >= s.max_episode_steps) r.truncated = true;
        if (r.terminated) r.discount = 0.0f;
        if ((r.terminated || r.truncated) && opt_.autoreset == AutoresetMode::kSameStep) {
          if (!t.claimed) ClaimRingRow(&t);
          SaveFinal(s, t.batch, t.row);
          s.env->Reset(out);
          s.elapsed = 0;
        }
      }
    } catch (...) {
      o->error = std::current_exception();
    }
  }

  // The common keys' arrays of a batch.
  struct Columns {
    explicit Columns(const StateBatch* b, int task_key = -1)
        : reward(reinterpret_cast<float*>(b->key_base[kReward])),
          terminated(reinterpret_cast<bool*>(b->key_base[kTerminated])),
          truncated(reinterpret_cast<bool*>(b->key_base[kTruncated])),
          discount(reinterpret_cast<float*>(b->key_base[kDiscount])),
          env_id(reinterpret_cast<int32_t*>(b->key_base[kEnvId])),
          elapsed(reinterpret_cast<int32_t*>(b->key_base[kElapsedStep])),
          task(task_key >= 0 ? reinterpret_cast<int32_t*>(b->key_base[task_key]) : nullptr) {}
    float* reward;
    bool* terminated;
    bool* truncated;
    float* discount;
    int32_t* env_id;
    int32_t* elapsed;
    int32_t* task;
  };
  Columns ColumnsOf(const StateBatch* b) const { return Columns(b, task_key_); }

  // The engine's part of a task, after StepEnv: claims the row if the env
  // wrote none, and writes the common keys (and the env's failure).
  void Record(const Task& task, EnvSlot& s, Outcome* o) {
    Target& t = o->target;
    if (!t.claimed) ClaimRingRow(&t);
    Record(task, s, ColumnsOf(t.batch), o);
  }
  void Record(const Task& task, EnvSlot& s, const Columns& c, Outcome* o) {
    const Target& t = o->target;
    StateBatch* batch = t.batch;
    const int row = t.row;
    StepResult& r = o->result;
    const bool error = static_cast<bool>(o->error);
    if (error) {
      // The env is in an unknown state: its row is zeroed, the episode
      // ends, and its next task resets it (in both autoreset modes).
      for (int k = 0; k < num_env_keys_; ++k) std::memset(s.out[k], 0, layout_.row_bytes[kNumCommonKeys + k]);
      r = StepResult{};
      r.terminated = true;
      r.discount = 0.0f;
      s.needs_reset = true;
    } else {
      s.needs_reset = opt_.autoreset == AutoresetMode::kNextStep && (r.terminated || r.truncated);
    }
    // float32 like EnvPool's reward; envs compute it in double and it is
    // rounded once here.
    c.reward[row] = static_cast<float>(r.reward);
    c.terminated[row] = r.terminated;
    c.truncated[row] = r.truncated;
    c.discount[row] = r.discount;
    c.env_id[row] = task.env_id;
    c.elapsed[row] = SaturatedInt32(s.elapsed);
    if (opt_.autoreset == AutoresetMode::kSameStep && (error || !(r.terminated || r.truncated))) ClearFinal(batch, row);
    if (c.task != nullptr) c.task[row] = s.task;
    if (error) batch->AddFailure(task.env_id, std::move(o->error));
  }

  // Call()'s path when the calling thread steps all n envs of `batch`
  // itself: RunTask's work without its per-task costs (the envs read their
  // actions where the caller holds them, the common keys' arrays are looked
  // up once, and one call in 16 is timed rather than one task in 16 per
  // env). 64 CartPole envs, a C++ loop of calls: 61 -> 46 ns per env and
  // call, of which the envs alone take 29.
  void RunHere(Task::Kind kind, const int* env_ids, int n, StateBatch* batch, const char* const* actions,
               const uint64_t* seeds, bool timed) {
    const Columns columns = ColumnsOf(batch);
    const std::size_t keys = action_bytes_.size();
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
          for (std::size_t k = 0; k < keys; ++k) action[k] = actions[k] + action_bytes_[k] * i;
        const Task task = TaskOf(kind, env_ids, i, batch, seeds);
        EnvSlot& s = slots_[env_ids[i]];
        const bool reset = task.kind == Task::kReset || s.needs_reset;
        const ActionRow row(action, KeyTypes{action_types_.data(), static_cast<int>(action_types_.size())});
        try {
          s.env->Prepare(reset ? nullptr : &row, reset && task.has_seed ? &task.seed : nullptr);
        } catch (...) {
          // A hint only: the env's Reset/Step reports what went wrong.
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      if (kind == Task::kStep)
        for (std::size_t k = 0; k < keys; ++k) action[k] = actions[k] + action_bytes_[k] * i;
      const Task task = TaskOf(kind, env_ids, i, batch, seeds);
      EnvSlot& s = slots_[env_ids[i]];
      o.result = StepResult{};
      StepEnv(task, s, action, &o);
      Record(task, s, columns, &o);
    }
    if (timed && n > 0) AdaptSpinning((std::chrono::steady_clock::now() - start) / n);
    if (n > 0 && batch->done.Arrive(n)) completed_.Notify();
  }

  // Elapsed steps are counted in 64 bits (max_episode_steps=0 never
  // truncates) and reported as EnvPool's int32, saturating.
  static int32_t SaturatedInt32(int64_t v) { return static_cast<int32_t>(std::min<int64_t>(v, INT32_MAX)); }

  // Waiting threads spin, then yield, then sleep. Spinning pays off only
  // when tasks are short (the next one is microseconds away); once a
  // sampled task takes over 100 us (Atari) a spinning thread would mostly
  // steal the core of a busy one, so only the yielding phase remains.
  //
  // Tasks are claimed in chunks of about kChunkWork of stepping (one
  // claim per task cost CartPole more than its physics), single when a
  // task takes longer: a chunk runs on one thread, and a long one would
  // keep work from an idle thread. And task_ns_, a running mean of the
  // timed tasks, tells StepsHere which calls stay on the calling thread.
  void AdaptSpinning(std::chrono::steady_clock::duration took) {
    const auto ns = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    // Stored only on a change: every claim reads these.
    const int chunk = static_cast<int>(std::clamp<int64_t>(kChunkWork.count() / ns, 1, kMaxChunk));
    if (chunk_.load(std::memory_order_relaxed) != chunk) chunk_.store(chunk, std::memory_order_relaxed);
    const int64_t old = task_ns_.load(std::memory_order_relaxed);
    const int64_t estimate = old == kUntimed ? ns : old + (ns - old) / 8;
    if (estimate != old) task_ns_.store(estimate, std::memory_order_relaxed);
    if (!may_spin_) return;
    const int spins = took < std::chrono::microseconds(100) ? kSpins : 0;
    if (spins_.load(std::memory_order_relaxed) != spins) spins_.store(spins, std::memory_order_relaxed);
  }

  // How long a waiting thread yields before it sleeps: two tasks' time
  // (kMinYield to kMaxYield). A sync call's threads finish up to a task
  // apart, and the next call follows the last of them; one that slept in
  // between waited for its vCPU to be woken (Pong, 8 envs, 2 threads: with
  // a fixed 35 us of yields, 1.3-1.9 of the 2 cores were busy; time spent
  // here when nothing else wants the core is time it would idle).
  std::chrono::nanoseconds YieldFor() const {
    const int64_t t = task_ns_.load(std::memory_order_relaxed);
    return std::clamp(std::chrono::nanoseconds(t == kUntimed ? 0 : 2 * t), kMinYield, kMaxYield);
  }

  // Same-step autoreset: copy the finished episode's last row aside.
  void SaveFinal(EnvSlot& s, StateBatch* batch, int row) {
    const int first = kNumCommonKeys + num_env_keys_;
    for (int k = 0; k < num_env_keys_; ++k)
      std::memcpy(batch->Row(first + k, row), s.out[k], layout_.row_bytes[kNumCommonKeys + k]);
    *reinterpret_cast<int32_t*>(batch->Row(first + num_env_keys_, row)) = SaturatedInt32(s.elapsed);
  }

  void ClearFinal(StateBatch* batch, int row) {
    const int first = kNumCommonKeys + num_env_keys_;
    for (int k = 0; k <= num_env_keys_; ++k) std::memset(batch->Row(first + k, row), 0, layout_.row_bytes[first + k]);
  }

  void Pin(std::thread& t, int i) {
    int ncpu = static_cast<int>(std::thread::hardware_concurrency());
    if (ncpu <= 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((opt_.thread_affinity_offset + i) % ncpu, &set);
    pthread_setaffinity_np(t.native_handle(), sizeof(set), &set);
  }

  PoolOptions opt_;
  std::vector<PoolTask> pool_tasks_;
  std::vector<int> env_task_;
  EnvSpec env_spec_;
  StateLayout layout_;
  bool sync_ = true;
  int num_workers_ = 0;
  ActionQueue queue_;  // lane i: worker i; the last lane (if caller_steps()): receiving threads
  bool may_spin_ = true;
  // Every task's family steps its envs elsewhere (Family::steps_elsewhere):
  // a call's envs are prepared, then stepped, on the calling thread.
  bool prepares_ = false;
  int capacity_ = 0;
  std::shared_ptr<BatchMemory> memory_;
  std::shared_ptr<BatchMemory> large_memory_;  // under mu_
  int num_env_keys_ = 0;
  int task_key_ = -1;                           // the layout's info:task_id (multi-task pools only)
  std::unique_ptr<StateLayout> render_layout_;  // at the first Render(), under mu_
  std::vector<std::size_t> action_bytes_;
  // Element types of the env's keys, for the debug-build key checks.
  std::vector<DType> state_types_, action_types_;
  struct FreeBytes {
    void operator()(char* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<char, FreeBytes>> action_memory_;  // one array per action key
  std::vector<EnvSlot> slots_;
  std::vector<std::thread> workers_;
  std::atomic<bool> closed_{false};

  // Caller-side state, under mu_ (never held while stepping or waiting).
  mutable std::mutex mu_;
  std::condition_variable cv_;  // a send, a second caller or close
  std::thread::id first_caller_;
  bool multi_caller_ = false;
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

  // Async mode ring, read by workers.
  // Async batch number n lives in slot n % ring_size_, published (release
  // on `number`, under mu_) when batch n - ring_size_ has been received.
  struct RingSlot {
    std::shared_ptr<StateBatch> owner;  // under mu_
    StateBatch* batch = nullptr;
    std::atomic<uint64_t> number{UINT64_MAX};
  };
  void Publish(uint64_t number) {
    RingSlot& slot = ring_[number % ring_size_];
    slot.owner = NewBatch(opt_.batch_size);
    slot.batch = slot.owner.get();
    slot.number.store(number, std::memory_order_release);
  }
  std::vector<RingSlot> ring_;
  int ring_size_ = 0;
  std::atomic<uint64_t> ring_alloc_{0};
  Notifier completed_;
  static constexpr int kSpins = 2000;
  static constexpr std::chrono::nanoseconds kMinYield{35000};
  static constexpr std::chrono::nanoseconds kMaxYield{2000000};
  std::atomic<int> spins_{kSpins};
  static constexpr int kMaxChunk = 16;
  static constexpr std::chrono::nanoseconds kChunkWork{2000};
  std::atomic<int> chunk_{1};  // tasks per claim, until a task is timed
  static constexpr std::chrono::nanoseconds kInlineWork{20000};
  static constexpr std::chrono::nanoseconds kHandOff{300};
  static constexpr int64_t kUntimed = int64_t{1} << 40;
  std::atomic<int64_t> task_ns_{kUntimed};  // a running mean of the timed tasks
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_POOL_H_
