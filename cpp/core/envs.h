// A pool's envs: their construction (spread over threads), each env's
// action row and episode bookkeeping, and one task's run of an env: its
// reset or step, max_episode_steps truncation, same_step autoreset, and a
// failure (the row zeroed, the episode ended), writing the env's row of a
// batch. The pool decides which thread runs which task (pool.h).
#ifndef ENVPOOL_CORE_ENVS_H_
#define ENVPOOL_CORE_ENVS_H_

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/env.h"
#include "cpp/core/layout.h"
#include "cpp/core/state_batch.h"
#include "cpp/platform/memory.h"

namespace envpool {

struct EnvSlot {
  std::unique_ptr<Env> env;
  std::vector<char*> action;  // this env's row of each action array
  std::vector<char*> out;     // this env's row pointers, refreshed per task
  int64_t elapsed = 0;
  int64_t max_episode_steps = 0;
  int task = 0;
  uint32_t runs = 0;
  // Its next task resets it: before the first reset, after a failure, and
  // after a done step unless autoreset is same_step (disabled: the pool
  // refuses to step it until a reset names it).
  bool needs_reset = true;
};

// Where one running task writes: fixed up front for sync and own-batch
// tasks, claimed at the env's first write for ring tasks.
struct Target : RowClaim {
  void* owner;  // the pool, for its row claim
  EnvSlot* slot;
  StateBatch* batch;
  int row;
};

// What stepping one env left for the engine to write.
struct Outcome {
  Target target;
  StepResult result;
  std::exception_ptr error;
};

class PoolEnvs {
 public:
  // `claim` claims a ring row for a task of owner's (an async task's row
  // is chosen at its first write).
  PoolEnvs(const StateLayout& layout, const EnvSpec& spec, AutoresetMode autoreset, int task_key,
           void (*claim)(RowClaim*), void* owner)
      : layout_(layout), autoreset_(autoreset), task_key_(task_key), claim_(claim), owner_(owner) {
    num_env_keys_ = static_cast<int>(spec.state.size());
    for (const ArraySpec& a : spec.action) action_bytes_.push_back(a.NumBytes());
    for (const ArraySpec& a : spec.state) state_types_.push_back(a.dtype);
    for (const ArraySpec& a : spec.action) action_types_.push_back(a.dtype);
  }

  // Makes env i of task tasks[env_task[i]] (env_task empty: tasks[0]) and
  // seeds it with seeds[i] (seeds empty: seed + i), spread over num_threads
  // threads.
  void Create(const std::vector<PoolTask>& tasks, const std::vector<int>& env_task, int num_envs, int num_threads,
              uint64_t seed, const std::vector<uint64_t>& seeds) {
    slots_.resize(num_envs);
    // Env construction can be slow (ROM loading, XML parsing): spread it.
    int nt = std::max(1, std::min(num_threads, num_envs));
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(nt);
    auto build = [&](int t) {
      try {
        for (int i = t; i < num_envs; i += nt) {
          const int k = env_task.empty() ? 0 : env_task[i];
          const PoolTask& task = tasks[k];
          slots_[i].task = ReportedTask(tasks, k);
          slots_[i].max_episode_steps = task.max_episode_steps;
          slots_[i].env = task.family->make_env(task.config, i);
          slots_[i].env->Seed(seeds.empty() ? seed + static_cast<uint64_t>(i) : seeds[i]);
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
      const std::size_t bytes = (std::max<std::size_t>(b, 1) * num_envs + 63) / 64 * 64;
      char* mem = static_cast<char*>(platform::AlignedAlloc(64, bytes));
      if (mem == nullptr) throw std::bad_alloc();
      std::memset(mem, 0, bytes);
      action_memory_.emplace_back(mem);
      for (int i = 0; i < num_envs; ++i) slots_[i].action.push_back(mem + b * i);
    }
    for (EnvSlot& s : slots_) s.out.resize(num_env_keys_);
  }

  EnvSlot& operator[](int env_id) { return slots_[env_id]; }
  const std::vector<std::size_t>& action_bytes() const { return action_bytes_; }

  void PointAt(EnvSlot& s, StateBatch* batch, int row) {
    for (int k = 0; k < num_env_keys_; ++k) s.out[k] = batch->Row(kNumCommonKeys + k, row);
  }

  // The envs' one frame size. Envs report a fixed size, so reading it
  // while an env steps elsewhere is safe.
  std::array<int, 2> RenderSize() const {
    const std::array<int, 2> size = slots_[0].env->RenderSize();
    if (size[0] <= 0 || size[1] <= 0)
      throw std::invalid_argument("this task cannot render (its envs report no frame size)");
    for (const EnvSlot& s : slots_)
      if (s.env->RenderSize() != size)
        throw std::invalid_argument("the envs of this pool render at different sizes; render() needs one size");
    return size;
  }

  // A render task: the env draws into its row of the render batch.
  void Render(const Task& task) {
    EnvSlot& s = slots_[task.env_id];
    StateBatch* batch = task.batch;
    uint8_t* frame = reinterpret_cast<uint8_t*>(batch->Row(kRenderFrame, task.row));
    try {
      s.env->Render(frame);
    } catch (...) {
      std::memset(frame, 0, batch->layout.row_bytes[kRenderFrame]);
      batch->AddFailure(task.env_id, task.row, std::current_exception());
    }
    *reinterpret_cast<int32_t*>(batch->Row(kRenderEnvId, task.row)) = task.env_id;
  }

  Columns ColumnsOf(const StateBatch* b) const { return Columns(b, task_key_); }

  // The env's part of a task: its reset or step (and a same-step
  // autoreset), writing its own keys; the common keys are Record()'s.
  void Step(const Task& task, EnvSlot& s, const char* const* action, Outcome* o) {
    Target& t = o->target;
    t.owner = owner_;
    t.slot = &s;
    t.batch = task.batch;
    t.row = task.row;
    t.claim = claim_;
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
        if ((r.terminated || r.truncated) && autoreset_ == AutoresetMode::kSameStep) {
          if (!t.claimed) t.claim(&t);
          SaveFinal(s, t.batch, t.row);
          s.env->Reset(out);
          s.elapsed = 0;
        }
      }
    } catch (...) {
      o->error = std::current_exception();
    }
  }

  // Env::Prepare's hint for a task that Step() runs next (families whose
  // envs step elsewhere); what goes wrong is reported by that Step().
  void Prepare(const Task& task, EnvSlot& s, const char* const* action) {
    const bool reset = task.kind == Task::kReset || s.needs_reset;
    const ActionRow row(action, KeyTypes{action_types_.data(), static_cast<int>(action_types_.size())});
    try {
      s.env->Prepare(reset ? nullptr : &row, reset && task.has_seed ? &task.seed : nullptr);
    } catch (...) {
    }
  }

  // The engine's part of a task, after Step: claims the row if the env
  // wrote none, and writes the common keys (and the env's failure).
  void Record(const Task& task, EnvSlot& s, Outcome* o) {
    Target& t = o->target;
    if (!t.claimed) t.claim(&t);
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
      s.needs_reset = autoreset_ != AutoresetMode::kSameStep && (r.terminated || r.truncated);
    }
    // float32 like EnvPool's reward; envs compute it in double and it is
    // rounded once here.
    c.reward[row] = static_cast<float>(r.reward);
    c.terminated[row] = r.terminated;
    c.truncated[row] = r.truncated;
    c.discount[row] = r.discount;
    c.env_id[row] = task.env_id;
    c.elapsed[row] = SaturatedInt32(s.elapsed);
    if (autoreset_ == AutoresetMode::kSameStep && (error || !(r.terminated || r.truncated))) ClearFinal(batch, row);
    if (c.task != nullptr) c.task[row] = s.task;
    if (error) batch->AddFailure(task.env_id, row, std::move(o->error));
  }

 private:
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

  const StateLayout& layout_;
  AutoresetMode autoreset_;
  int task_key_;
  void (*claim_)(RowClaim*);
  void* owner_;
  int num_env_keys_ = 0;
  std::vector<std::size_t> action_bytes_;
  // Element types of the env's keys, for the debug-build key checks.
  std::vector<DType> state_types_, action_types_;
  struct FreeBytes {
    void operator()(char* p) const { platform::AlignedFree(p); }
  };
  std::vector<std::unique_ptr<char, FreeBytes>> action_memory_;  // one array per action key
  std::vector<EnvSlot> slots_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ENVS_H_
