// MetaWorld/Soccer-v3: metaworld's SawyerSoccerEnvV3 (push the ball into a
// goal; both placed by the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_SOCCER_H_
#define ENVPOOL_MUJOCO_METAWORLD_SOCCER_H_

#include <algorithm>
#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class Soccer : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_soccer.xml"); }
  explicit Soccer(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.1, 0.8, 0.0},
                      {0.1, 0.9, 0.0},
                      {-0.1, 0.6, 0.03, -0.1, 0.8, 0.0},
                      {0.1, 0.7, 0.03, 0.1, 0.9, 0.0}}),
        ball_(BodyId("soccer_ball")),
        goal_whole_(BodyId("goal_whole")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void PlaceModel(const double* v) override { SetModelBodyPos(goal_whole_, {v[3], v[4], v[5]}); }

  void ResetTask(const double* v) override {
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], 0.03};  // init_config's height, kept by the reference
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  // The ball, and scipy's quaternion of its body frame.
  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(ball_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    MatQuat(d_->xmat + 9 * ball_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kRadius = 0.07;
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const double target_to_obj =
        Norm3((obj[0] - target_pos_[0]) * 3.0, (obj[1] - target_pos_[1]) * 1.0, (obj[2] - target_pos_[2]) * 1.0);
    const double target_to_obj_init =
        Norm3((obj[0] - obj_init_pos_[0]) * 3.0, (obj[1] - obj_init_pos_[1]) * 1.0, (obj[2] - obj_init_pos_[2]) * 1.0);
    double in_place = Tolerance(target_to_obj, 0, kRadius, target_to_obj_init);
    const double goal_line = target_pos_[1] - 0.1;
    if (obj[1] > goal_line && std::abs(obj[0] - target_pos_[0]) > 0.10)
      in_place = Clip(in_place - 2 * ((obj[1] - goal_line) / (1 - goal_line)), 0.0, 1.0);
    const double object_grasped = PadCagingReward(obj, 0.013, 0.01, 0.005);
    double reward = (3 * object_grasped) + (6.5 * in_place);
    if (target_to_obj < kRadius) reward = 10.0;
    const double obj_to_target = Dist(obj, target_pos_);
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int ball_, goal_whole_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_SOCCER_H_
