// MetaWorld/LeverPull-v3: metaworld's SawyerLeverPullEnvV3 (lift a lever
// up by 90 degrees; the lever placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_LEVER_PULL_H_
#define ENVPOOL_MUJOCO_METAWORLD_LEVER_PULL_H_

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class LeverPull : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_lever_pull.xml"); }
  explicit LeverPull(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.4), static_cast<float>(0.2)},
                      {-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      {-0.1, 0.7, 0.0},
                      {0.1, 0.8, 0.0}}),
        lever_(BodyId("lever")),
        lever_start_(SiteId("leverStart")) {
    const int joint = mj_name2id(m_, mjOBJ_JOINT, "LeverAxis");
    if (joint < 0) throw std::invalid_argument("the model has no joint 'LeverAxis'");
    axis_qpos_ = m_->jnt_qposadr[joint];
  }

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(lever_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    lever_pos_init_ = {v[0] + 0.12, v[1] + -kLeverRadius, v[2] + 0.25};
    target_pos_ = {v[0] + 0.12, v[1] + 0.0, v[2] + (0.25 + kLeverRadius)};
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(lever_start_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    const Vec3 gripper = ObsVec(obs, 0), lever = ObsVec(obs, 4);
    const double scale[3] = {4.0, 1.0, 4.0}, offset[3] = {0.0, 0.055, 0.07};
    double s[3], s0[3];
    for (int i = 0; i < 3; ++i) {
      s[i] = (gripper[i] + offset[i] - lever[i]) * scale[i];
      s0[i] = (init_tcp_[i] + offset[i] - lever_pos_init_[i]) * scale[i];
    }
    const double shoulder_to_lever = Norm3(s[0], s[1], s[2]);
    const double ready_to_lift = Tolerance(shoulder_to_lever, 0, 0.02, Norm3(s0[0], s0[1], s0[2]));
    const double lever_angle = -d_->qpos[axis_qpos_];
    const double lever_error = std::abs(lever_angle - std::numbers::pi / 2.0);
    const double lever_engagement =
        Tolerance(lever_error, 0, std::numbers::pi / 48.0, (std::numbers::pi / 2.0) - (std::numbers::pi / 12.0));
    const double obj_to_target = Dist(lever, target_pos_);
    const double in_place_margin = Dist(lever_pos_init_, target_pos_);
    const double in_place = Tolerance(obj_to_target, 0, 0.04, in_place_margin);
    Eval e;
    e.reward = 10.0 * HamacherProduct(ready_to_lift, in_place);
    e.success = lever_error <= std::numbers::pi / 24 ? 1.0 : 0.0;
    e.near_object = shoulder_to_lever < 0.03 ? 1.0 : 0.0;
    e.grasp_success = ready_to_lift > 0.9 ? 1.0 : 0.0;
    e.grasp_reward = ready_to_lift;
    e.in_place_reward = lever_engagement;
    e.obj_to_target = shoulder_to_lever;
    return e;
  }

 private:
  static constexpr double kLeverRadius = 0.2;
  int lever_, lever_start_, axis_qpos_ = 0;
  Vec3 lever_pos_init_{};
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_LEVER_PULL_H_
