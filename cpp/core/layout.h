// A pool's options and the byte layout of its batches: the engine's common
// keys, the tasks' shared spec, the same_step "final:" copies, and the
// check that a configuration's batches fit in memory before anything is
// allocated.
#ifndef ENVPOOL_CORE_LAYOUT_H_
#define ENVPOOL_CORE_LAYOUT_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/core/keys.h"
#include "cpp/core/spec.h"
#include "cpp/core/state_batch.h"
#include "cpp/platform/memory.h"

namespace envpool {

// kDisabled: gymnasium's AutoresetMode.DISABLED, a done env stays done
// (stepping it is refused) until a reset names it.
enum class AutoresetMode { kNextStep, kSameStep, kDisabled };

// Engine-level options, read from the config's common keys.
struct PoolOptions {
  int num_envs = 1;
  int batch_size = 0;               // 0 = num_envs
  int num_threads = 0;              // 0 = automatic
  int thread_affinity_offset = -1;  // -1 = no pinning
  uint64_t seed = 0;
  std::vector<uint64_t> seeds;    // one per env; empty: env i gets seed + i
  int64_t max_episode_steps = 0;  // 0 = no limit
  AutoresetMode autoreset = AutoresetMode::kNextStep;
  // info:task_id even when every env runs one task: a pool made from a list
  // of tasks keeps its keys whatever the list's length.
  bool report_task_id = false;
};

// One task of a pool: a family and its config. A multi-task pool has
// several (the same state and action specs, checked), and env i runs task
// env_task[i]; its max_episode_steps is its task's.
struct PoolTask {
  const Family* family;
  Config config;
  int64_t max_episode_steps = 0;  // 0 = no limit
  // What info:task_id reports for its envs (-1: the task's own index).
  // Per-env options make several configs of one task: they share its id.
  int id = -1;
};

inline int ReportedTask(const std::vector<PoolTask>& tasks, int t) { return tasks[t].id >= 0 ? tasks[t].id : t; }
// Whether the pool's envs run more than one task (info:task_id says which).
inline bool ReportsTasks(const std::vector<PoolTask>& tasks, const PoolOptions& opt) {
  if (opt.report_task_id) return true;
  for (std::size_t t = 1; t < tasks.size(); ++t)
    if (ReportedTask(tasks, static_cast<int>(t)) != ReportedTask(tasks, 0)) return true;
  return false;
}

// The engine's own state keys, always first in the layout, in this order.
enum CommonKey : int { kReward, kTerminated, kTruncated, kDiscount, kEnvId, kElapsedStep, kNumCommonKeys };

inline std::vector<ArraySpec> CommonStateSpecs() {
  return {Spec<float>("reward", {}),   Spec<bool>("terminated", {}),     Spec<bool>("truncated", {}),
          Spec<float>("discount", {}), Spec<int32_t>("info:env_id", {}), Spec<int32_t>("info:elapsed_step", {})};
}

// The tasks' common spec; every task must declare the same arrays (name,
// dtype, shape and bounds), or batches could not hold them.
inline EnvSpec CheckedSpec(const std::vector<PoolTask>& tasks, const std::vector<int>& env_task, int num_envs) {
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

// The common keys, the env's keys, then (same_step) the final copies and
// (multi-task) info:task_id.
inline StateLayout BuildLayout(const EnvSpec& spec, AutoresetMode mode, bool multi_task) {
  std::vector<ArraySpec> specs = CommonStateSpecs();
  for (const ArraySpec& a : spec.state) specs.push_back(a);
  if (mode == AutoresetMode::kSameStep) {
    // The final observation and info of a finished episode, since the
    // row itself then holds the next episode's first observation.
    for (const ArraySpec& a : spec.state) {
      ArraySpec f = a;
      f.name = FinalName(a.name);
      specs.push_back(f);
    }
    specs.push_back(Spec<int32_t>(FinalName("info:elapsed_step"), {}));
  }
  // Last, so the keys before it keep their places.
  if (multi_task) specs.push_back(Spec<int32_t>("info:task_id", {}));
  return StateLayout(std::move(specs));
}

// A render batch: key kRenderFrame holds the frames (height x width x 3
// uint8), kRenderEnvId the env ids.
enum RenderKey : int { kRenderFrame, kRenderEnvId };
inline StateLayout RenderLayout(std::array<int, 2> size) {
  return StateLayout({Spec<uint8_t>("frame", {size[0], size[1], 3}), Spec<int32_t>("env_id", {})});
}

// Refuses, before allocating anything, a configuration whose batches and
// envs would not fit in this machine's memory (e.g. 65536x65536 frames):
// `batches` batches of `capacity` rows in use at once, plus each env's own
// copy of its state, at the least.
inline void CheckMemory(const StateLayout& layout, double batches, int capacity, int num_envs) {
  const double physical = platform::PhysicalMemory();
  if (physical <= 0) return;
  double row = 0;
  for (std::size_t b : layout.row_bytes) row += static_cast<double>(b);
  const double need = row * (batches * capacity + num_envs);
  if (need > physical) {
    auto gib = [](double b) { return std::to_string(b / (1 << 30)).substr(0, 6) + " GiB"; };
    throw std::invalid_argument("this configuration needs at least " + gib(need) + " (" + gib(row) +
                                " per env row) but the machine has " + gib(physical) +
                                ": lower num_envs, batch_size or the observation size");
  }
}

// Elapsed steps are counted in 64 bits (max_episode_steps=0 never
// truncates) and reported as EnvPool's int32, saturating.
inline int32_t SaturatedInt32(int64_t v) { return static_cast<int32_t>(std::min<int64_t>(v, INT32_MAX)); }

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

}  // namespace envpool

#endif  // ENVPOOL_CORE_LAYOUT_H_
