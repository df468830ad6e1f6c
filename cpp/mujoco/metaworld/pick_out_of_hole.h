// MetaWorld/PickOutOfHole-v3: metaworld's SawyerPickOutOfHoleEnvV3 (lift the
// puck out of a hole in the table to a goal in the air; the puck's start is
// fixed, the task vector draws the goal).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PICK_OUT_OF_HOLE_H_
#define ENVPOOL_MUJOCO_METAWORLD_PICK_OUT_OF_HOLE_H_

#include <algorithm>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PickOutOfHole : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_pick_out_of_hole.xml"); }
  explicit PickOutOfHole(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, -0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.1, 0.5, 0.15},
                      {0.1, 0.6, 0.3},
                      {0.0, 0.75, 0.02, -0.1, 0.5, 0.15},
                      {0.0, 0.75, 0.02, 0.1, 0.6, 0.3}}),
        obj_(BodyId("obj")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    SetObjXyz(obj_init_pos_);
    target_pos_ = {v[3], v[4], v[5]};
  }

  void ObjectObs(double* o) const override { BodyObs(obj_, o); }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3 gripper = TcpCenter();
    const double obj_to_target = Dist(obj, target_pos_);
    const double tcp_to_obj = Dist(obj, gripper);
    const double in_place_margin = Dist(obj_init_pos_, target_pos_);
    // The floor is a funnel centred on the hole, which the hand stays above.
    const double floor =
        FunnelFloor(Norm2(gripper[0] - obj_init_pos_[0], gripper[1] - obj_init_pos_[1]), 0.03, 0.015, 0.15);
    const double above_floor =
        gripper[2] >= floor ? 1.0 : Tolerance(std::max(floor - gripper[2], 0.0), 0.0, 0.01, 0.02);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.015, 0.02, 0.01, 0.03, 0.1, true);
    const double in_place = Tolerance(obj_to_target, 0, 0.02, in_place_margin);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    const bool grasp_success = tcp_to_obj < 0.04 && obj[2] - 0.02 > obj_init_pos_[2] && !(obs[3] < 0.33);
    if (grasp_success) reward = reward + Py(1.0 + 5.0 * HamacherProduct(in_place, above_floor));
    if (obj_to_target < 0.05) reward = Py(10.0);  // the base's TARGET_RADIUS
    return {reward.v,
            Flag(obj_to_target <= 0.07),
            Flag(tcp_to_obj <= 0.03),
            Flag(grasp_success),
            object_grasped.v,
            in_place,
            obj_to_target};
  }

 private:
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PICK_OUT_OF_HOLE_H_
