// MetaWorld/BinPicking-v3: metaworld's SawyerBinPickingEnvV3 (move the cube
// from one bin to the other; the task vector places the cube, the goal is
// the fixed target bin).
#ifndef ENVPOOL_MUJOCO_METAWORLD_BIN_PICKING_H_
#define ENVPOOL_MUJOCO_METAWORLD_BIN_PICKING_H_

#include <algorithm>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class BinPicking : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_bin_picking.xml"); }
  explicit BinPicking(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.07},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {0.1199, 0.699, -0.001},
                      {0.1201, 0.701, +0.001},
                      {-0.21, 0.65, 0.02, 0.1199, 0.699, -0.001},
                      {-0.03, 0.75, 0.02, 0.1201, 0.701, +0.001},
                      nullptr}),
        obj_(BodyId("obj")),
        bin_goal_(BodyId("bin_goal")) {}

 protected:
  void ResetTask(const double* v) override {
    // The cube's height is where the hand reset left it; the vector's goal
    // part is drawn and unused (the goal is the target bin).
    obj_init_pos_ = {v[0], v[1], BodyPos(obj_)[2]};
    SetObjXyz(obj_init_pos_);
    target_pos_ = BodyPos(bin_goal_);
    have_margin_ = false;
  }

  void ObjectObs(double* o) const override { BodyObs(obj_, o); }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 hand = ObsVec(obs, 0);
    const Vec3 obj = ObsVec(obs, 4);
    const double target_to_obj = Dist(obj, target_pos_);
    // The in-place margin is the distance at the episode's first step.
    if (!have_margin_) {
      target_to_obj_init_ = target_to_obj;
      have_margin_ = true;
    }
    const double in_place = Tolerance(target_to_obj, 0, 0.05, target_to_obj_init_);
    // The floor is a pair of funnels, on the cube's start and on the goal,
    // keeping the hand off the bins' walls.
    const double floor =
        std::min(FunnelFloor(Norm2(hand[0] - obj_init_pos_[0], hand[1] - obj_init_pos_[1]), 0.03, 0.02, 0.2),
                 FunnelFloor(Norm2(hand[0] - target_pos_[0], hand[1] - target_pos_[1]), 0.03, 0.02, 0.2));
    const double above_floor = hand[2] >= floor ? 1.0 : Tolerance(std::max(floor - hand[2], 0.0), 0.0, 0.01, 0.05);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.01, 0.7, true);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    const bool near_object = Dist(obj, hand) < 0.04;
    const bool grasp_success = near_object && obj[2] - 0.02 > obj_init_pos_[2] && !(obs[3] < 0.43);
    if (grasp_success) reward = reward + Py(1.0 + 5.0 * HamacherProduct(above_floor, in_place));
    if (target_to_obj < 0.05) reward = Py(10.0);  // the base's TARGET_RADIUS
    return {
        reward.v,     Flag(target_to_obj <= 0.05), Flag(near_object), Flag(grasp_success), object_grasped.v, in_place,
        target_to_obj};
  }

 private:
  int obj_, bin_goal_;
  bool have_margin_ = false;
  double target_to_obj_init_ = 0.0;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_BIN_PICKING_H_
