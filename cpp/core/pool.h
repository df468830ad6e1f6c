// The engine: a pool of envs stepped by worker threads.
//
// send() copies each env's action into that env's own slot and queues a
// task; workers run tasks and write results in place into a state batch;
// recv() waits for a batch to complete (running queued tasks itself while it
// waits, so a small batch costs no thread hand-off) and hands it over.
//
// Sync mode (batch_size == num_envs): every send gets its own batch, rows
// in the order of the env ids sent. Async mode: rows are claimed in the
// order envs start running from a ring of batches of batch_size rows, and
// recv() returns the oldest batch once it is full.
#ifndef ENVPOOL_CORE_POOL_H_
#define ENVPOOL_CORE_POOL_H_

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/env.h"
#include "cpp/core/spec.h"
#include "cpp/core/state_batch.h"

namespace envpool {

enum class AutoresetMode { kNextStep, kSameStep };

// Engine-level options, read from the config's common keys.
struct PoolOptions {
  int num_envs = 1;
  int batch_size = 0;  // 0 = num_envs
  int num_threads = 0;  // 0 = automatic
  int thread_affinity_offset = -1;  // -1 = no pinning
  uint64_t seed = 0;
  int max_episode_steps = 0;  // 0 = no limit
  AutoresetMode autoreset = AutoresetMode::kNextStep;
};

// The engine's own state keys, always first in the layout, in this order.
enum CommonKey : int {
  kReward,
  kTerminated,
  kTruncated,
  kDiscount,
  kEnvId,
  kElapsedStep,
  kNumCommonKeys
};

inline std::vector<ArraySpec> CommonStateSpecs() {
  return {Spec<float>("reward", {}),       Spec<bool>("terminated", {}),
          Spec<bool>("truncated", {}),      Spec<float>("discount", {}),
          Spec<int32_t>("info:env_id", {}), Spec<int32_t>("info:elapsed_step", {})};
}

class EnvPool {
 public:
  EnvPool(const Family& family, const Config& config, PoolOptions opt)
      : opt_(Resolve(opt)), env_spec_(family.make_spec(config)),
        layout_(BuildLayout(env_spec_, opt.autoreset)),
        sync_(opt_.batch_size == opt_.num_envs),
        num_workers_(NumWorkers(opt_)),
        queue_(num_workers_ + 1, static_cast<std::size_t>(opt_.num_envs)) {
    capacity_ = opt_.batch_size;
    memory_ = std::make_shared<BatchMemory>(BatchBytes(layout_, capacity_));
    num_env_keys_ = static_cast<int>(env_spec_.state.size());
    for (const ArraySpec& a : env_spec_.action) action_bytes_.push_back(a.NumBytes());
    CreateEnvs(family, config);
    if (!sync_) {
      ring_size_ = (opt_.num_envs + opt_.batch_size - 1) / opt_.batch_size + 2;
      ring_ = std::vector<RingSlot>(ring_size_);
      for (int i = 0; i < ring_size_; ++i) Publish(i);
    }
    // Spinning only pays while every waiting thread has a core of its own;
    // otherwise a spinner takes the core of a thread with work to do.
    if (num_workers_ + 1 > UsableCores()) {
      may_spin_ = false;
      spins_.store(0);
    }
    for (int i = 0; i < num_workers_; ++i) {
      workers_.emplace_back([this, i] { WorkerLoop(i); });
      if (opt_.thread_affinity_offset >= 0) Pin(workers_.back(), i);
    }
  }

  ~EnvPool() { Close(); }
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  const PoolOptions& options() const { return opt_; }
  const EnvSpec& env_spec() const { return env_spec_; }
  const StateLayout& layout() const { return layout_; }
  bool sync() const { return sync_; }
  bool closed() const { return closed_; }
  int in_flight() const { return in_flight_count_; }

  // Checks done by the caller before any task is queued, so a bad call
  // changes nothing.
  void CheckEnvIds(const int* env_ids, int n) {
    if (n <= 0) throw std::invalid_argument("env_id must name at least one env");
    // Repeats are found by stamping each named slot with this call's number.
    ++check_stamp_;
    for (int i = 0; i < n; ++i) {
      int id = env_ids[i];
      if (id < 0 || id >= opt_.num_envs)
        throw std::out_of_range("env_id " + std::to_string(id) + " is out of range [0, " +
                                std::to_string(opt_.num_envs) + ")");
      if (slots_[id].check_stamp == check_stamp_)
        throw std::invalid_argument("env_id " + std::to_string(id) + " is repeated");
      slots_[id].check_stamp = check_stamp_;
      if (slots_[id].in_flight)
        throw std::invalid_argument("env " + std::to_string(id) +
                                    " is still in flight: recv() its result before sending to it again");
    }
  }

  // actions[k] points at n contiguous rows of action key k, already of the
  // key's dtype. Seeds (reset only) may be null.
  void Send(Task::Kind kind, const int* env_ids, int n, const char* const* actions,
            const uint64_t* seeds) {
    CheckEnvIds(env_ids, n);
    std::shared_ptr<StateBatch> batch;
    if (sync_) {
      batch = NewBatch(n);
      pending_.push_back(batch);
    }
    tasks_.resize(n);
    for (int i = 0; i < n; ++i) {
      EnvSlot& s = slots_[env_ids[i]];
      if (kind == Task::kStep) {
        for (std::size_t k = 0; k < action_bytes_.size(); ++k)
          std::memcpy(s.action[k], actions[k] + action_bytes_[k] * i, action_bytes_[k]);
      }
      s.in_flight = true;
      tasks_[i] = Task{kind, env_ids[i], batch.get(), i, seeds != nullptr,
                       seeds != nullptr ? seeds[i] : 0};
    }
    in_flight_count_ += n;
    // The thread that will recv() runs tasks too, so one task is left for
    // it rather than paying a wake-up: a single-env step never leaves this
    // thread. Workers still take it if they are awake.
    queue_.Push(tasks_.data(), n, n - 1);
  }

  // Waits for the next batch. Call without holding the GIL.
  std::shared_ptr<StateBatch> Recv() {
    std::shared_ptr<StateBatch> batch;
    if (sync_) {
      if (pending_.empty()) throw std::runtime_error("recv() called with nothing in flight: send() first");
      batch = pending_.front();
    } else {
      if (in_flight_count_ < opt_.batch_size)
        throw std::runtime_error("recv() would wait forever: " + std::to_string(in_flight_count_) +
                                 " env(s) in flight, fewer than batch_size=" +
                                 std::to_string(opt_.batch_size));
      batch = ring_[ring_head_ % ring_size_].owner;
    }
    HelpUntilDone(batch.get());
    if (sync_) {
      pending_.pop_front();
    } else {
      // Nobody can reach this ring slot again until the batch that replaces
      // it is needed: at most num_envs rows are ever claimed but unreceived.
      Publish(ring_head_ + ring_size_);
      ++ring_head_;
    }
    const int rows = batch->done.target();
    const int32_t* ids = reinterpret_cast<const int32_t*>(batch->key_base[kEnvId]);
    for (int i = 0; i < rows; ++i) slots_[ids[i]].in_flight = false;
    in_flight_count_ -= rows;
    if (batch->failed.load()) throw std::runtime_error(batch->error);
    return batch;
  }

  // Stops the workers once queued work is done; idempotent.
  void Close() {
    if (closed_) return;
    closed_ = true;
    queue_.Stop(static_cast<int>(workers_.size()));
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

 private:
  struct EnvSlot {
    std::unique_ptr<Env> env;
    std::vector<std::unique_ptr<char[]>> action_storage;
    std::vector<char*> action;
    std::vector<char*> out;  // this env's row pointers, refreshed per task
    int elapsed = 0;
    uint32_t runs = 0;
    bool needs_reset = true;
    bool in_flight = false;  // caller thread only
    uint64_t check_stamp = 0;  // caller thread only
  };

  static StateLayout BuildLayout(const EnvSpec& spec, AutoresetMode mode) {
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
    return StateLayout(std::move(specs));
  }

  // Every batch has the same capacity (num_envs in sync mode, where a
  // partial send fills fewer rows; batch_size in async mode), so one
  // recycled block size serves them all.
  std::shared_ptr<StateBatch> NewBatch(int rows) {
    return std::make_shared<StateBatch>(layout_, capacity_, rows, memory_->Get());
  }

  void CreateEnvs(const Family& family, const Config& config) {
    slots_.resize(opt_.num_envs);
    // Env construction can be slow (ROM loading, XML parsing): spread it.
    int nt = std::max(1, std::min(opt_.num_threads, opt_.num_envs));
    std::vector<std::thread> threads;
    std::vector<std::string> errors(nt);
    for (int t = 0; t < nt; ++t) {
      threads.emplace_back([&, t] {
        try {
          for (int i = t; i < opt_.num_envs; i += nt) {
            slots_[i].env = family.make_env(config, i);
            slots_[i].env->Seed(opt_.seed + static_cast<uint64_t>(i));
          }
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& e : errors)
      if (!e.empty()) throw std::invalid_argument(e);
    for (EnvSlot& s : slots_) {
      for (std::size_t b : action_bytes_) {
        s.action_storage.emplace_back(new char[std::max<std::size_t>(b, 1)]());
        s.action.push_back(s.action_storage.back().get());
      }
      s.out.resize(num_env_keys_);
    }
  }

  static PoolOptions Resolve(PoolOptions opt) {
    if (opt.batch_size == 0) opt.batch_size = opt.num_envs;
    if (opt.num_threads == 0) opt.num_threads = std::max(1, std::min(opt.batch_size, UsableCores()));
    return opt;
  }

  // The caller steps envs while it waits in recv(), so it is one of the
  // num_threads stepping threads, in both modes. In async mode one more
  // worker could step while the caller is in Python, but then one thread
  // more than num_threads shares the cores, the scheduler keeps moving
  // threads and their envs' state between cores, and that measured slower
  // (HalfCheetah-v4, 8 envs, batch 4, 2 threads on 2 cores: 0.90 of the
  // raw ceiling, against 0.93 with num_threads - 1 workers).
  static int NumWorkers(const PoolOptions& opt) { return std::max(1, opt.num_threads - 1); }

  static int UsableCores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }

  // Every stepping thread has a lane: worker i lane i, the caller the
  // last one.
  int caller_lane() const { return num_workers_; }

  void HelpUntilDone(StateBatch* batch) {
    Task task;
    while (!batch->done.Done()) {
      if (queue_.TryPop(caller_lane(), &task)) {
        RunTask(task);
        continue;
      }
      // Workers hold the remaining tasks; they finish within microseconds
      // for cheap envs, so spin a little before sleeping.
      const int seen = completed_.Epoch();
      const int spins = 2 * spins_.load(std::memory_order_relaxed);
      for (int i = 0; i < spins && !batch->done.Done(); ++i) CpuRelax();
      for (int i = 0; i < kYields && !batch->done.Done(); ++i) sched_yield();
      completed_.Wait(seen, [batch] { return batch->done.Done(); });
    }
  }

  void WorkerLoop(int lane) {
    for (;;) {
      Task task = queue_.Pop(lane, spins_.load(std::memory_order_relaxed), kYields);
      if (task.kind == Task::kStop) return;
      RunTask(task);
    }
  }

  void RunTask(const Task& task) {
    StateBatch* batch = task.batch;
    int row = task.row;
    if (batch == nullptr) {
      uint64_t idx = ring_alloc_.fetch_add(1, std::memory_order_relaxed);
      uint64_t number = idx / opt_.batch_size;
      RingSlot& slot = ring_[number % ring_size_];
      // Published long ago in practice; the wait makes it a guarantee.
      while (slot.number.load(std::memory_order_acquire) != number) CpuRelax();
      batch = slot.batch;
      row = static_cast<int>(idx % opt_.batch_size);
    }
    EnvSlot& s = slots_[task.env_id];
    for (int k = 0; k < num_env_keys_; ++k) s.out[k] = batch->Row(kNumCommonKeys + k, row);
    StateRow out(s.out.data());
    StepResult r;
    // Time one task in 16 (per env, so no shared counter) to size spinning.
    const bool timed = (++s.runs & 15) == 0;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    try {
      if (task.kind == Task::kReset || s.needs_reset) {
        if (task.has_seed) s.env->Seed(task.seed);
        s.env->Reset(out);
        s.elapsed = 0;
      } else {
        r = s.env->Step(ActionRow(s.action.data()), out);
        ++s.elapsed;
        if (opt_.max_episode_steps > 0 && s.elapsed >= opt_.max_episode_steps) r.truncated = true;
        if (r.terminated) r.discount = 0.0f;
        if ((r.terminated || r.truncated) && opt_.autoreset == AutoresetMode::kSameStep) {
          SaveFinal(s, batch, row);
          s.env->Reset(out);
          s.elapsed = 0;
        }
      }
    } catch (const std::exception& e) {
      Fail(batch, task.env_id, e.what());
      r.terminated = true;
    } catch (...) {
      Fail(batch, task.env_id, "unknown exception");
      r.terminated = true;
    }
    if (timed) AdaptSpinning(std::chrono::steady_clock::now() - start);
    s.needs_reset = opt_.autoreset == AutoresetMode::kNextStep && (r.terminated || r.truncated);
    // float32 like EnvPool's reward; envs compute it in double and it is
    // rounded once here.
    *reinterpret_cast<float*>(batch->Row(kReward, row)) = static_cast<float>(r.reward);
    *reinterpret_cast<bool*>(batch->Row(kTerminated, row)) = r.terminated;
    *reinterpret_cast<bool*>(batch->Row(kTruncated, row)) = r.truncated;
    *reinterpret_cast<float*>(batch->Row(kDiscount, row)) = r.discount;
    *reinterpret_cast<int32_t*>(batch->Row(kEnvId, row)) = task.env_id;
    *reinterpret_cast<int32_t*>(batch->Row(kElapsedStep, row)) = s.elapsed;
    if (opt_.autoreset == AutoresetMode::kSameStep && !(r.terminated || r.truncated)) ClearFinal(batch, row);
    if (batch->done.Arrive()) completed_.Notify();
  }

  static void Fail(StateBatch* batch, int env_id, const std::string& what) {
    if (!batch->failed.exchange(true)) batch->error = "env " + std::to_string(env_id) + " failed: " + what;
  }

  // Waiting threads spin, then yield, then sleep. Spinning pays off only
  // when tasks are short (the next one is microseconds away); once a
  // sampled task takes over 100 us (Atari) a spinning thread would mostly
  // steal the core of a busy one, so only the yielding phase remains.
  void AdaptSpinning(std::chrono::steady_clock::duration took) {
    if (!may_spin_) return;
    spins_.store(took < std::chrono::microseconds(100) ? kSpins : 0, std::memory_order_relaxed);
  }

  // Same-step autoreset: copy the finished episode's last row aside.
  void SaveFinal(EnvSlot& s, StateBatch* batch, int row) {
    const int first = kNumCommonKeys + num_env_keys_;
    for (int k = 0; k < num_env_keys_; ++k)
      std::memcpy(batch->Row(first + k, row), s.out[k], layout_.row_bytes[kNumCommonKeys + k]);
    *reinterpret_cast<int32_t*>(batch->Row(first + num_env_keys_, row)) = s.elapsed;
  }

  void ClearFinal(StateBatch* batch, int row) {
    const int first = kNumCommonKeys + num_env_keys_;
    for (int k = 0; k <= num_env_keys_; ++k)
      std::memset(batch->Row(first + k, row), 0, layout_.row_bytes[first + k]);
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
  EnvSpec env_spec_;
  StateLayout layout_;
  bool sync_ = true;
  int num_workers_ = 0;
  ActionQueue queue_;  // lane i: worker i; the last lane: the caller
  bool may_spin_ = true;
  int capacity_ = 0;
  std::shared_ptr<BatchMemory> memory_;
  int num_env_keys_ = 0;
  std::vector<std::size_t> action_bytes_;
  std::vector<EnvSlot> slots_;
  std::vector<std::thread> workers_;
  bool closed_ = false;

  // Caller-thread state.
  uint64_t check_stamp_ = 0;
  std::vector<Task> tasks_;
  std::deque<std::shared_ptr<StateBatch>> pending_;  // sync mode
  int in_flight_count_ = 0;
  uint64_t ring_head_ = 0;

  // Async mode ring, read by workers.
  // Async batch number n lives in slot n % ring_size_, published by the
  // receiving thread (release on `number`) before any worker needs it.
  struct RingSlot {
    std::shared_ptr<StateBatch> owner;  // receiving thread only
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
  static constexpr int kYields = 100;
  std::atomic<int> spins_{kSpins};
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_POOL_H_
