// dm_control.suite.humanoid_CMU: the CMU mocap humanoid (stand, walk, run),
// humanoid's task code with the CMU model's names.
#ifndef ENVPOOL_MUJOCO_DMC_HUMANOID_CMU_H_
#define ENVPOOL_MUJOCO_DMC_HUMANOID_CMU_H_

#include <string>

#include "cpp/mujoco/dmc/humanoid.h"

namespace envpool::mujoco::dmc {

class HumanoidCMU : public HumanoidBase {
 public:
  static constexpr const char* kTasks[] = {"stand", "walk", "run"};
  // control_timestep .02 over the model's .002.
  static Config Defaults() { return DmcDefaults("stand", 20.0, 10); }
  static constexpr Names kNames{
      "humanoid_CMU", "thorax", {"lhand", "lfoot", "rhand", "rfoot"}, "thorax_subtreelinvel", 7};

  explicit HumanoidCMU(const Config& c) : HumanoidBase(c, kNames, Speed(c.Get<std::string>("task_name")), false) {
    CheckTask(c, kTasks);
  }

 private:
  static double Speed(const std::string& task) { return task == "stand" ? 0 : task == "walk" ? 1 : 10; }
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_HUMANOID_CMU_H_
