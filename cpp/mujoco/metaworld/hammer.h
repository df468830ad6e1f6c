// MetaWorld/Hammer-v3: metaworld's SawyerHammerEnvV3 (pick the hammer up and
// drive the nail into the box; the task vector places the hammer).
#ifndef ENVPOOL_MUJOCO_METAWORLD_HAMMER_H_
#define ENVPOOL_MUJOCO_METAWORLD_HAMMER_H_

#include <algorithm>
#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class Hammer : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_hammer.xml"); }
  explicit Hammer(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.4, 0.2},
                      {0.2399, 0.7399, 0.109},
                      {0.2401, 0.7401, 0.111},
                      {-0.1, 0.4, 0.0},
                      {0.1, 0.5, 0.0},
                      "HammerHandle"}),
        hammer_(BodyId("hammer")),
        nail_(BodyId("nail_link")),
        goal_(SiteId("goal")),
        nail_qpos_(JointQposAdr("NailSlideJoint")) {}

 protected:
  // reset_model puts the box at (0.24, 0.85, 0), where the model has it.
  void ResetTask(const double* v) override {
    target_pos_ = SitePos(goal_);
    obj_init_pos_ = {v[0], v[1], v[2]};
    SetObjXyz(obj_init_pos_);
  }

  void ObjectObs(double* o) const override {
    BodyObs(hammer_, o);
    BodyObs(nail_, o + 7);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 hand = ObsVec(obs, 0);
    const Vec3 hammer = ObsVec(obs, 4);
    const Vec3 head{hammer[0] + 0.16, hammer[1] + 0.06, hammer[2] + 0.0};
    // The caging reward sees the handle as a point under the hand while the
    // hand is within half the handle's length of it in x.
    Vec3 threshed = hammer;
    if (std::abs(hammer[0] - hand[0]) < kHandleLength / 2.0) threshed[0] = hand[0];
    // The hammer laid down is the quaternion (1, 0, 0, 0).
    const double reward_quat = std::max(1.0 - QuatError(obs + 7, {1.0, 0.0, 0.0, 0.0}) / 0.4, 0.0);
    const Scalar reward_grab = GripperCagingReward(action, threshed, 0.015, 0.02, 0.01, 0.01, 1.0, true);
    const double in_place = 0.1 * (head[2] > 0.02 ? 1.0 : 0.0) + 0.9 * Tolerance(Dist(target_pos_, head), 0, 0.02, 0.2);
    Scalar reward = (Py(2.0) * reward_grab + Py(6.0 * in_place)) * Py(reward_quat);
    const bool success = d_->qpos[nail_qpos_] > 0.09;
    if (success && reward.v > 5.0) reward = Py(10.0);
    return {reward.v, Flag(success), reward_quat, Flag(reward_grab.v >= 0.5), reward_grab.v, in_place, 0.0};
  }

 private:
  static constexpr double kHandleLength = 0.14;
  int hammer_, nail_, goal_, nail_qpos_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_HAMMER_H_
