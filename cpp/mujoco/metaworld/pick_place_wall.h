// MetaWorld/PickPlaceWall-v3: metaworld's SawyerPickPlaceWallEnvV3 (lift the
// puck over a wall to a goal; the shaping goes through a midpoint above it).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_WALL_H_
#define ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_WALL_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PickPlaceWall : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_pick_place_wall_v3.xml"); }
  explicit PickPlaceWall(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.05, 0.85, 0.05},
                      {0.05, 0.9, 0.3},
                      {-0.05, 0.6, 0.015, -0.05, 0.85, 0.05},
                      {0.05, 0.65, 0.015, 0.05, 0.9, 0.3}}) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], v[2]};
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

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const Vec3 midpoint{target_pos_[0], 0.77, 0.25};
    const double tcp_to_obj = Dist(obj, tcp);
    const double obj_to_midpoint =
        Norm3((obj[0] - midpoint[0]) * 1.0, (obj[1] - midpoint[1]) * 1.0, (obj[2] - midpoint[2]) * 3.0);
    const double obj_to_midpoint_init =
        Norm3((obj_init_pos_[0] - midpoint[0]) * 1.0, (obj_init_pos_[1] - midpoint[1]) * 1.0,
              (obj_init_pos_[2] - midpoint[2]) * 3.0);
    const double obj_to_target = Dist(obj, target_pos_);
    const double obj_to_target_init = Dist(obj_init_pos_, target_pos_);
    const double in_place_part1 = Tolerance(obj_to_midpoint, 0, kRadius, obj_to_midpoint_init);
    const double in_place_part2 = Tolerance(obj_to_target, 0, kRadius, obj_to_target_init);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0, false);
    const Scalar grasped_in_place = HamacherProduct(object_grasped, Py(in_place_part1));
    Scalar reward = grasped_in_place;
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.015 > obj_init_pos_[2]) {
      reward = grasped_in_place + Py(1.0) + Py(4.0 * in_place_part1);
      if (obj[1] > 0.75) reward = grasped_in_place + Py(1.0) + Py(4.0) + Py(3.0 * in_place_part2);
    }
    if (obj_to_target < kRadius) reward = Py(10.0);
    Eval e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place_part2;
    e.obj_to_target = obj_to_target;
    return e;
  }
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PICK_PLACE_WALL_H_
