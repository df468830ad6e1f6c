// MetaWorld/FaucetOpen-v3 and FaucetClose-v3: metaworld's faucet tasks
// (turn a faucet's handle one way or the other; the faucet placed at the
// task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_FAUCET_H_
#define ENVPOOL_MUJOCO_METAWORLD_FAUCET_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kOpen>
class FaucetTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_faucet.xml"); }
  explicit FaucetTask(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.4, 0.2},
                      {-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      kOpen ? std::vector<double>{-0.05, 0.8, 0.0} : std::vector<double>{-0.1, 0.8, 0.0},
                      kOpen ? std::vector<double>{0.05, 0.85, 0.0} : std::vector<double>{0.1, 0.85, 0.0},
                      nullptr}),
        base_(BodyId("faucetBase")),
        handle_(SiteId(kOpen ? "handleStartOpen" : "handleStartClose")),
        goal_(SiteId(kOpen ? "goal_open" : "goal_close")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(base_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[0] + (kOpen ? +kHandleLength : -kHandleLength), v[1] + 0.0, v[2] + 0.125};
    // FaucetClose runs mj_forward here; FaucetOpen observes the hand
    // reset's last step.
    if (!kOpen) mj_forward(m_, d_);
    SetModelSitePos(goal_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(handle_);
    o[0] = p[0] + 0.0;
    o[1] = p[1] + 0.0;
    o[2] = p[2] + -0.01;
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * base_ + i];
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kReachRadius = 0.01;
    const Vec3 obj = kOpen ? Vec3{obs[4] + -0.04, obs[5] + 0.0, obs[6] + 0.03} : ObsVec(obs, 4);
    const Vec3 tcp = TcpCenter();
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    const double tcp_to_obj = Dist(obj, tcp);
    const double tcp_to_obj_init = Dist(obj_init_pos_, init_tcp_);
    const double reach =
        Tolerance(tcp_to_obj, 0, kReachRadius, std::abs(tcp_to_obj_init - kReachRadius), Sigmoid::kGaussian);
    double reward = 2 * reach + 3 * in_place;
    reward *= 2;
    reward = target_to_obj <= kTargetRadius ? 10 : reward;
    Eval e;
    e.reward = reward;
    e.success = target_to_obj <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.01 ? 1.0 : 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kHandleLength = 0.175, kTargetRadius = 0.07;
  int base_, handle_, goal_;
};

using FaucetOpen = FaucetTask<true>;
using FaucetClose = FaucetTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_FAUCET_H_
