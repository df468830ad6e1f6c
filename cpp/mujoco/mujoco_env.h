// The MuJoCo family: gymnasium's MuJoCo locomotion and manipulation tasks
// (Ant, HalfCheetah, Hopper, Humanoid, HumanoidStandup,
// InvertedDoublePendulum, InvertedPendulum, Pusher, Reacher, Swimmer,
// Walker2d), each in its -v4 and -v5 flavour, on the real libmujoco.
//
// One generic env class runs every task; a table (TaskDefs) names each
// task+version, its model file, frame skip and config defaults (which are
// exactly the keyword arguments of gymnasium's class for that version), and
// a few switch statements hold the per-task observation, reward and
// termination rules.
//
// Besides gymnasium's keywords every task has:
//   xml_file      the model file (also a v4 key here, where gymnasium hard
//                 codes it). A bare name is looked up in assets_dir, a path
//                 starting with '/', '.' or '~' is used as is (like
//                 gymnasium's expand_model_path).
//   assets_dir    gymnasium's assets folder; set by envpool/tasks/mujoco.py.
//   expose_state  when true, info "qpos0"/"qvel0" hold the episode's initial
//                 qpos/qvel (after reset noise) on every step of the episode.
//   width, height, camera_id, camera_name, default_camera_config, max_geom,
//   visual_options
//                 gymnasium's MujocoEnv rendering keywords (render.h); the
//                 camera config and visual options as text. Also v4 keys.
//   from_pixels, img_height, img_width, state_in_info
//                 pixel observations: obs is the (3, img_height, img_width)
//                 uint8 frame of that camera; state_in_info keeps the state
//                 observation as info "state".
#ifndef ENVPOOL_MUJOCO_MUJOCO_ENV_H_
#define ENVPOOL_MUJOCO_MUJOCO_ENV_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"

namespace envpool::mujoco {

enum class Task {
  kAnt,
  kHalfCheetah,
  kHopper,
  kHumanoid,
  kHumanoidStandup,
  kInvertedDoublePendulum,
  kInvertedPendulum,
  kPusher,
  kReacher,
  kSwimmer,
  kWalker2d,
};

struct TaskDef {
  std::string name;  // family name, e.g. "Ant-v4"
  Task task;
  int version;            // 4 or 5
  std::string xml_file;   // default model file
  int frame_skip;         // default frame skip
  int max_episode_steps;  // gymnasium's registered default
  Config defaults;        // the family's config keys and defaults
};

// Every task+version, in registration order.
const std::vector<TaskDef>& TaskDefs();

// Throws std::runtime_error when the headers we compiled against and the
// libmujoco loaded at run time disagree.
void CheckMujocoVersion();
// Makes MuJoCo's fatal errors C++ exceptions instead of exit().
void InstallMujocoErrorHandler();

EnvSpec MakeSpec(const TaskDef& def, const Config& config);
std::unique_ptr<Env> MakeEnv(const TaskDef& def, const Config& config,
                             int env_id);
// A bare model+data stepping frame_skip mj_steps per call with random ctrl.
std::function<void()> MakeRawStepper(const TaskDef& def, const Config& config,
                                     uint64_t seed);

// numpy's float reduction order (pairwise summation with 8 accumulators),
// so float32 costs round exactly like gymnasium's np.sum.
template <class T>
T NumpySum(const T* a, int n) {
  if (n < 8) {
    T r = T(0);
    for (int i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    int i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  int n2 = n / 2;
  n2 -= n2 % 8;
  return NumpySum(a, n2) + NumpySum(a + n2, n - n2);
}

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_MUJOCO_ENV_H_
