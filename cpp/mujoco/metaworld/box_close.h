// MetaWorld/BoxClose-v3: metaworld's SawyerBoxCloseEnvV3 (lift the lid by its
// handle and put it on the box; the task vector places the lid and the box).
#ifndef ENVPOOL_MUJOCO_METAWORLD_BOX_CLOSE_H_
#define ENVPOOL_MUJOCO_METAWORLD_BOX_CLOSE_H_

#include <algorithm>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class BoxClose : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_box.xml"); }
  explicit BoxClose(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {-0.1, 0.7, 0.133},
                      {0.1, 0.8, 0.133},
                      {-0.05, 0.5, 0.02, -0.1, 0.7, 0.133},
                      {0.05, 0.55, 0.02, 0.1, 0.8, 0.133},
                      "BoxHandleGeom"}),
        box_(BodyId("boxbody")),
        lid_(BodyId("top_link")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.25); }

  // The box under the goal, at the height it has (a fixed body: its model
  // z is where the hand reset finds it).
  void PlaceModel(const double* v) override { SetModelBodyPos(box_, {v[3], v[4], m_->body_pos[3 * box_ + 2]}); }

  void ResetTask(const double* v) override {
    // init_config's lid height is a float32 0.02.
    obj_init_pos_ = {v[0], v[1], static_cast<double>(0.02f)};
    target_pos_ = {v[3], v[4], v[5]};
    for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
    SetObjXyz(obj_init_pos_);
  }

  void ObjectObs(double* o) const override { BodyObs(lid_, o); }

  Eval Evaluate(const double* obs, const float* action) override {
    const double reward_grab = GrabEffortReward(action[3]);
    // The lid upright is the quaternion (.707, 0, 0, .707).
    const double reward_quat = std::max(1.0 - QuatError(obs + 7, {0.707, 0, 0, 0.707}) / 0.2, 0.0);
    const Vec3 hand = ObsVec(obs, 0);
    const Vec3 lid{obs[4], obs[5], obs[6] + 0.02};
    const double floor = FunnelFloor(Norm2(hand[0] - lid[0], hand[1] - lid[1]), 0.02, 0.04, 0.4);
    const double above_floor = hand[2] >= floor ? 1.0 : Tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place = Tolerance(Dist(hand, lid), 0, 0.02, 0.5);
    const double ready_to_lift = HamacherProduct(above_floor, in_place);
    const double placed =
        Norm3((target_pos_[0] - lid[0]) * 1.0, (target_pos_[1] - lid[1]) * 1.0, (target_pos_[2] - lid[2]) * 3.0);
    const double lifted = 0.2 * (lid[2] > 0.04 ? 1.0 : 0.0) + 0.8 * Tolerance(placed, 0, 0.05, 0.25);
    double reward = 2.0 * HamacherProduct(reward_grab, ready_to_lift) + 8.0 * lifted;
    const bool success = Dist(ObsVec(obs, 4), target_pos_) < 0.08;
    if (success) reward = 10.0;
    // The lid's orientation scales everything (no kick-flipping it on).
    reward *= reward_quat;
    return {reward, Flag(success), ready_to_lift, Flag(reward_grab >= 0.5), reward_grab, lifted, 0.0};
  }

 private:
  int box_, lid_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_BOX_CLOSE_H_
