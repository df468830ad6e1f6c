// MetaWorld/Push-v3: metaworld's SawyerPushEnvV3 (push the puck to a goal
// on the table).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PUSH_H_
#define ENVPOOL_MUJOCO_METAWORLD_PUSH_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class Push : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_push_v3.xml"); }
  explicit Push(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.1, 0.8, 0.01},
                      {0.1, 0.9, 0.02},
                      {-0.1, 0.6, 0.02, -0.1, 0.8, 0.01},
                      {0.1, 0.7, 0.02, 0.1, 0.9, 0.02}}),
        obj_(BodyId("obj")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    // The object's height is where the hand reset left it (fix_extreme_obj_pos).
    const double z = BodyPos(obj_)[2];
    target_pos_ = {v[3], v[4], z};
    obj_init_pos_ = {v[0], v[1], z};
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, true);
    Scalar reward = Py(2) * object_grasped;
    if (tcp_to_obj < 0.02 && tcp_opened > 0) reward = reward + (Py(1.0) + reward + Py(5.0 * in_place));
    if (target_to_obj < kTargetRadius) reward = Py(10.0);
    Eval e;
    e.reward = reward.v;
    e.success = target_to_obj <= kTargetRadius ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.05;
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PUSH_H_
