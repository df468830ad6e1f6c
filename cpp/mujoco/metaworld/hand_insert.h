// MetaWorld/HandInsert-v3: metaworld's SawyerHandInsertEnvV3 (push the
// block into a hole in the table).
#ifndef ENVPOOL_MUJOCO_METAWORLD_HAND_INSERT_H_
#define ENVPOOL_MUJOCO_METAWORLD_HAND_INSERT_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class HandInsert : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_table_with_hole.xml"); }
  explicit HandInsert(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {-0.04, 0.8, -0.0201},
                      {0.04, 0.88, -0.0199},
                      {-0.1, 0.6, 0.05, -0.04, 0.8, -0.0201},
                      {0.1, 0.7, 0.05, 0.04, 0.88, -0.0199}}),
        obj_(BodyId("obj")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    // The height is init_config's (the reference keeps the previous
    // episode's, which is always that).
    obj_init_pos_ = {v[0], v[1], 0.05};
    target_pos_ = {v[3], v[4], v[5]};
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * obj_ + i];
  }

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kRadius = 0.05;
    const Vec3 obj = ObsVec(obs, 4);
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kRadius, target_to_obj_init);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, true);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    if (tcp_to_obj < 0.02 && tcp_opened > 0) reward = reward + Py(1.0 + 7.0 * in_place);
    if (target_to_obj < kRadius) reward = Py(10.0);
    Eval e;
    e.reward = reward.v;
    e.success = target_to_obj <= 0.05 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_HAND_INSERT_H_
