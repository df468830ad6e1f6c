// MetaWorld/PickPlace-v3: metaworld's SawyerPickPlaceEnvV3 (pick the puck up
// and hold it at a goal in the air).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_H_
#define ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PickPlace : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_pick_place_v3.xml"); }
  explicit PickPlace(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.1, 0.8, 0.05},
                      {0.1, 0.9, 0.3},
                      {-0.1, 0.6, 0.02, -0.1, 0.8, 0.05},
                      {0.1, 0.7, 0.02, 0.1, 0.9, 0.3}}),
        obj_(BodyId("obj")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], v[2]};
    init_tcp_ = TcpCenter();
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
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double obj_to_target = Dist(obj, target_pos_);
    const double tcp_to_obj = Dist(obj, tcp);
    const double in_place_margin = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    const Scalar object_grasped = CagingReward(action, obj);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2])
      reward = reward + Py(1.0 + 5.0 * in_place);
    if (obj_to_target < kTargetRadius) reward = Py(10.0);
    Eval e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  // The task's own _gripper_caging_reward (pads against the object's y, the
  // gripper's x-z distance, half caging half gripping).
  Scalar CagingReward(const float* action, const Vec3& obj) const {
    constexpr double pad_success_margin = 0.05, x_z_success_margin = 0.005, obj_radius = 0.015;
    const Vec3 tcp = TcpCenter();
    const Vec3 left_pad = BodyPos(left_pad_), right_pad = BodyPos(right_pad_);
    const double delta_left = left_pad[1] - obj[1];
    const double delta_right = obj[1] - right_pad[1];
    const double right_margin = std::abs(std::abs(obj[1] - InitRightPad()[1]) - pad_success_margin);
    const double left_margin = std::abs(std::abs(obj[1] - InitLeftPad()[1]) - pad_success_margin);
    const double right_caging = Tolerance(delta_right, obj_radius, pad_success_margin, right_margin);
    const double left_caging = Tolerance(delta_left, obj_radius, pad_success_margin, left_margin);
    const double y_caging = HamacherProduct(left_caging, right_caging);
    // The x-z distances as the reference forms them: the y entry zeroed by
    // subtracting it (y - y is 0 exactly for finite y).
    const double tcp_obj_xz = Norm3(tcp[0] - obj[0], (tcp[1] - tcp[1]) - (obj[1] - obj[1]), tcp[2] - obj[2]);
    const double init_xz =
        Norm3(obj_init_pos_[0] - init_tcp_[0], (obj_init_pos_[1] - obj_init_pos_[1]) - (init_tcp_[1] - init_tcp_[1]),
              obj_init_pos_[2] - init_tcp_[2]) -
        x_z_success_margin;
    const double x_z_caging = Tolerance(tcp_obj_xz, 0, x_z_success_margin, init_xz);
    const Scalar gripper_closed = GripEffort(action[3], 1.0);
    const Scalar caging = Py(HamacherProduct(y_caging, x_z_caging));
    const Scalar gripping = caging.v > 0.97 ? gripper_closed : Py(0.0);
    const Scalar caging_and_gripping = HamacherProduct(caging, gripping);
    return (caging_and_gripping + caging) / Py(2);
  }

  static constexpr double kTargetRadius = 0.05;
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_H_
