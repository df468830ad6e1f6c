// MetaWorld/Basketball-v3: metaworld's SawyerBasketballEnvV3 (pick the ball
// up and dunk it through the hoop; the task vector places ball and hoop).
#ifndef ENVPOOL_MUJOCO_METAWORLD_BASKETBALL_H_
#define ENVPOOL_MUJOCO_METAWORLD_BASKETBALL_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class Basketball : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_basketball.xml"); }
  explicit Basketball(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      // The goal space is the hoop's, 8.3 cm in front of and
                      // 25 cm above the basket's.
                      {-0.1 + 0, 0.85 + -0.083, 0.0 + 0.2499},
                      {0.1 + 0, (0.9 + 1e-7) + -0.083, 0.0 + 0.2501},
                      {-0.1, 0.6, 0.0299, -0.1, 0.85, 0.0},
                      {0.1, 0.7, 0.0301, 0.1, 0.9 + 1e-7, 0.0}}),
        ball_(BodyId("bsktball")),
        basket_(BodyId("basket_goal")),
        goal_(SiteId("goal")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void PlaceModel(const double* v) override { SetModelBodyPos(basket_, {v[3], v[4], v[5]}); }

  void ResetTask(const double* v) override {
    // The ball's height is init_config's float32 3 cm, whatever the vector's.
    obj_init_pos_ = {v[0], v[1], static_cast<double>(0.03f)};
    SetObjXyz(obj_init_pos_);
    target_pos_ = SitePos(goal_);  // the hoop
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override { BodyObs(ball_, o); }

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.08;
    const Vec3 obj = ObsVec(obs, 4);
    // The target is just above the hoop; z errors count twice.
    const Vec3 target{target_pos_[0], target_pos_[1], 0.3};
    const double target_to_obj =
        Norm3((obj[0] - target[0]) * 1.0, (obj[1] - target[1]) * 1.0, (obj[2] - target[2]) * 2.0);
    const double target_to_obj_init = Norm3((obj_init_pos_[0] - target[0]) * 1.0, (obj_init_pos_[1] - target[1]) * 1.0,
                                            (obj_init_pos_[2] - target[2]) * 2.0);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    Scalar object_grasped = GripperCagingReward(action, obj, 0.025, 0.06, 0.01, 0.005, 1.0, true);
    const bool held = tcp_to_obj < 0.035 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (held) object_grasped = Py(1.0);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    if (held) reward = reward + Py(1.0 + 5.0 * in_place);
    if (target_to_obj < kTargetRadius) reward = Py(10.0);
    return {reward.v,
            Flag(target_to_obj <= kTargetRadius),
            Flag(tcp_to_obj <= 0.05),
            Flag(tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2]),
            object_grasped.v,
            in_place,
            target_to_obj};
  }

 private:
  int ball_, basket_, goal_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_BASKETBALL_H_
