// MetaWorld/Assembly-v3 and Disassemble-v3: metaworld's nut tasks (put the
// round nut over the peg by its wrench handle, or lift it off the peg; the
// task vector places the peg).
#ifndef ENVPOOL_MUJOCO_METAWORLD_NUT_H_
#define ENVPOOL_MUJOCO_METAWORLD_NUT_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kAssemble>
class NutTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_assembly_peg.xml"); }
  explicit NutTask(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(kAssemble ? 0.6 : 0.4), static_cast<float>(0.2)},
                      kAssemble ? Vec3{-0.1, 0.75, 0.1} : Vec3{-0.1 + 0.0, 0.6 + 0.0, 0.1699 + 0.005},
                      kAssemble ? Vec3{0.1, 0.85, 0.1} : Vec3{0.1 + 0.0, 0.75 + 0.0, 0.1701 + 0.005},
                      kAssemble ? std::vector<double>{0, 0.6, 0.02, -0.1, 0.75, 0.1}
                                : std::vector<double>{0.0, 0.6, 0.025, -0.1, 0.6, 0.1699},
                      kAssemble ? std::vector<double>{0, 0.6, 0.02, 0.1, 0.85, 0.1}
                                : std::vector<double>{0.1, 0.75, 0.02501, 0.1, 0.75, 0.1701},
                      "WrenchHandle"}),
        peg_(BodyId("peg")),
        nut_(BodyId("RoundNut")),
        peg_top_(SiteId("pegTop")),
        nut_grip_(SiteId("RoundNut-8")),
        nut_center_(SiteId("RoundNut")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.1); }

  // Assembly: the peg under the goal; Disassemble: the nut on the peg.
  void PlaceModel(const double* v) override {
    if (kAssemble) {
      SetModelBodyPos(peg_, {v[3] - 0.0, v[4] - 0.0, v[5] - 0.05});
      SetModelSitePos(peg_top_, {v[3], v[4], v[5]});
    } else {
      SetModelBodyPos(peg_, {v[0] + 0.0, v[1] + 0.0, v[2] + 0.03});
      SetModelSitePos(peg_top_, {v[0] + 0.0, v[1] + 0.0, v[2] + 0.08});
    }
  }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = kAssemble ? Vec3{v[3], v[4], v[5]} : Vec3{v[0] + 0, v[1] + 0, v[2] + 0.15};
    SetObjXyz(obj_init_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(nut_grip_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * nut_ + i];
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 hand = ObsVec(obs, 0);
    const Vec3 wrench = ObsVec(obs, 4);
    const Vec3 center = SitePos(nut_center_);
    // The caging reward sees the handle as a point under the hand while the
    // hand is within half the handle's length of it in x.
    Vec3 threshed = wrench;
    if (std::abs(wrench[0] - hand[0]) < kHandleLength / 2.0) threshed[0] = hand[0];
    // The wrench laid down is the quaternion (.707, 0, 0, .707).
    const double reward_quat = std::max(1.0 - QuatError(obs + 7, {0.707, 0, 0, 0.707}) / 0.4, 0.0);
    const Scalar reward_grab =
        GripperCagingReward(action, threshed, 0.015, 0.02, 0.01, 0.01, 1.0, !kAssemble, kAssemble);
    bool success = false;
    const double in_place = kAssemble ? AssembledPos(center, &success) : LiftedPos(center);
    if (!kAssemble) success = obs[6] > target_pos_[2];
    Scalar reward = (Py(2.0) * reward_grab + Py(6.0 * in_place)) * Py(reward_quat);
    if (success) reward = Py(10.0);
    return {reward.v, Flag(success), reward_quat, Flag(reward_grab.v >= 0.5), reward_grab.v, in_place, 0.0};
  }

 private:
  // Assembly's _reward_pos: aligned over the peg and below its top is
  // success; the target height is a funnel centred on the peg, widened once
  // the nut is on.
  double AssembledPos(const Vec3& center, bool* success) const {
    Vec3 error = Sub(target_pos_, center);
    const double radius = Norm2(error[0], error[1]);
    *success = radius < 0.02 && error[2] > 0.0;
    const double threshold = *success ? 0.02 : 0.01;
    const double target_height = radius > threshold ? 0.02 * std::log(radius - threshold) + 0.2 : 0.0;
    error[2] = target_height - center[2];
    const bool lifted = center[2] > 0.02 || radius < threshold;
    return 0.1 * (lifted ? 1.0 : 0.0) +
           0.9 * Tolerance(Norm3(error[0] * 1.0, error[1] * 1.0, error[2] * 3.0), 0, 0.02, 0.4);
  }

  // Disassemble's _reward_pos: the nut 10 cm above the target.
  double LiftedPos(const Vec3& center) const {
    const Vec3 error{(target_pos_[0] + 0.0) - center[0], (target_pos_[1] + 0.0) - center[1],
                     (target_pos_[2] + 0.1) - center[2]};
    return 0.1 * (center[2] > 0.02 ? 1.0 : 0.0) + 0.9 * Tolerance(Norm3(error[0], error[1], error[2]), 0, 0.02, 0.2);
  }

  static constexpr double kHandleLength = 0.02;
  int peg_, nut_, peg_top_, nut_grip_, nut_center_;
};

using Assembly = NutTask<true>;
using Disassemble = NutTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_NUT_H_
