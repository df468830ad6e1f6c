// Walker2d-v4/v5: gymnasium's Walker2dEnv (a planar biped rewarded for
// walking forward, ending when its torso leaves the healthy height or angle).
#ifndef ENVPOOL_MUJOCO_GYM_WALKER2D_H_
#define ENVPOOL_MUJOCO_GYM_WALKER2D_H_

#include <vector>

#include "cpp/mujoco/gym/planar_walker.h"

namespace envpool::mujoco::gym {

class Walker2d : public PlanarWalker {
 public:
  static Config Defaults(int version) {
    using V = std::vector<double>;
    // v5's model gives both feet friction 1.9 (v4's right foot has 0.9).
    return GymDefaults(version, version >= 5 ? "walker2d_v5.xml" : "walker2d.xml", kFrameSkip,
                       {{"forward_reward_weight", 1.0},
                        {"ctrl_cost_weight", 1e-3},
                        {"healthy_reward", 1.0},
                        {"terminate_when_unhealthy", true},
                        {"healthy_z_range", V{0.8, 2.0}},
                        {"healthy_angle_range", V{-1.0, 1.0}},
                        {"reset_noise_scale", 5e-3},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) {
    return "trackbodyid=2;distance=4.0;lookat=0.0,0.0,1.15;elevation=-20.0";
  }

  Walker2d(const Config& c, int version) : PlanarWalker(c, version) {}
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_WALKER2D_H_
