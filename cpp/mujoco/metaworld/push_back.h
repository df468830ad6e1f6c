// MetaWorld/PushBack-v3: metaworld's SawyerPushBackEnvV3 (push the puck
// back towards the robot to a goal).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PUSH_BACK_H_
#define ENVPOOL_MUJOCO_METAWORLD_PUSH_BACK_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PushBack : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_push_back_v3.xml"); }
  explicit PushBack(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {-0.1, 0.6, 0.0199},
                      {0.1, 0.7, 0.0201},
                      {-0.1, 0.8, 0.02, -0.1, 0.6, 0.0199},
                      {0.1, 0.85, 0.02, 0.1, 0.7, 0.0201}}) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    // adjust_initObjPos: the height is the object geom's after the hand reset.
    const double z = GeomPos(main_geom_)[2];
    target_pos_ = {v[3], v[4], z};
    obj_init_pos_ = {v[0], v[1], z};
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  // The object's position is its geom's here.
  void ObjectObs(double* o) const override {
    const Vec3 p = GeomPos(main_geom_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kRadius = 0.05;
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kRadius, target_to_obj_init);
    const double object_grasped = PadCagingReward(obj, kObjRadius, 0.003);
    double reward = HamacherProduct(object_grasped, in_place);
    if (tcp_to_obj < 0.01 && (0 < tcp_opened && tcp_opened < 0.55) && target_to_obj_init - target_to_obj > 0.01)
      reward += 1.0 + 5.0 * in_place;
    if (target_to_obj < kRadius) reward = 10.0;
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kObjRadius = 0.007;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PUSH_BACK_H_
