// Hopper-v4/v5: gymnasium's HopperEnv (a planar one-legged hopper rewarded
// for hopping forward, ending when it falls or its state leaves a range).
#ifndef ENVPOOL_MUJOCO_GYM_HOPPER_H_
#define ENVPOOL_MUJOCO_GYM_HOPPER_H_

#include <vector>

#include "cpp/mujoco/gym/planar_walker.h"

namespace envpool::mujoco::gym {

class Hopper : public PlanarWalker {
 public:
  static Config Defaults(int version) {
    using V = std::vector<double>;
    return GymDefaults(version, "hopper.xml", kFrameSkip,
                       {{"forward_reward_weight", 1.0},
                        {"ctrl_cost_weight", 1e-3},
                        {"healthy_reward", 1.0},
                        {"terminate_when_unhealthy", true},
                        {"healthy_state_range", V{-100.0, 100.0}},
                        {"healthy_z_range", V{0.7, kInf}},
                        {"healthy_angle_range", V{-0.2, 0.2}},
                        {"reset_noise_scale", 5e-3},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) {
    return "trackbodyid=2;distance=3.0;lookat=0.0,0.0,1.15;elevation=-20.0";
  }

  Hopper(const Config& c, int version) : PlanarWalker(c, version) {}
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_HOPPER_H_
