// MetaWorld/HandlePress-v3, HandlePressSide-v3, HandlePull-v3 and
// HandlePullSide-v3: metaworld's four handle tasks (press a handle down or
// pull it up, the box in front or to the side). They share the model edits
// and reset; the press tasks share one reward, the pull tasks another, so
// one class takes the variant.
#ifndef ENVPOOL_MUJOCO_METAWORLD_HANDLE_H_
#define ENVPOOL_MUJOCO_METAWORLD_HANDLE_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

enum class Handle { kPress, kPressSide, kPull, kPullSide };

template <Handle kVariant>
class HandleTask : public SawyerEnv {
  static constexpr bool kPress = kVariant == Handle::kPress || kVariant == Handle::kPressSide;
  static constexpr bool kSide = kVariant == Handle::kPressSide || kVariant == Handle::kPullSide;

 public:
  static Config Defaults() {
    return SawyerDefaults(kSide ? "sawyer_xyz/sawyer_handle_press_sideways.xml" : "sawyer_xyz/sawyer_handle_press.xml");
  }
  explicit HandleTask(const Config& c)
      : SawyerEnv(c, MakeTask()),
        box_(BodyId("box")),
        handle_(SiteId(kVariant == Handle::kPull       ? "handleRight"
                       : kVariant == Handle::kPullSide ? "handleCenter"
                                                       : "handleStart")),
        goal_(SiteId(kPress ? "goalPress" : "goalPull")) {}

 protected:
  static Task MakeTask() {
    Task t{{-0.5, 0.40, 0.05}, {0.5, 1.0, 0.5}, {0.0, 0.6, 0.2}, {-0.5, 0.40, 0.05}, {0.5, 1.0, 0.5}, {}, {}, nullptr};
    switch (kVariant) {
      case Handle::kPress:
        t.goal_low = {-0.1, 0.55, 0.04};
        t.goal_high = {0.1, 0.70, 0.08};
        t.rand_low = {-0.1, 0.8, -0.001};
        t.rand_high = {0.1, 0.9, 0.001};
        break;
      case Handle::kPull:
        t.goal_low = {-0.1, 0.55, 0.04};
        t.goal_high = {0.1, 0.70, 0.18};
        t.rand_low = {-0.1, 0.8, -0.001};
        t.rand_high = {0.1, 0.9, 0.001};
        break;
      case Handle::kPressSide:
        t.rand_low = {-0.35, 0.65, -0.001};
        t.rand_high = {-0.25, 0.75, 0.001};
        break;
      case Handle::kPullSide:
      default:
        t.rand_low = {-0.35, 0.65, 0.0};
        t.rand_high = {-0.25, 0.75, 0.0};
    }
    return t;
  }

  void PlaceModel(const double* v) override { SetModelBodyPos(box_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    // _set_obj_xyz: the handle's joint.
    d_->qpos[9] = kPress ? -0.001 : -0.1;
    d_->qvel[9] = 0.0;
    mj_forward(m_, d_);
    target_pos_ = SitePos(goal_);
    handle_init_pos_ = SitePos(handle_);
    if (kVariant == Handle::kPullSide) obj_init_pos_ = handle_init_pos_;
  }

  // The handle's site; no quaternion (zeros).
  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(handle_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 tcp = TcpCenter();
    Eval e;
    if (kPress) {
      constexpr double kRadius = 0.02, kHandleRadius = 0.02;
      const Vec3 obj = SitePos(handle_);
      const double target_to_obj = std::abs(obj[2] - target_pos_[2]);
      const double target_to_obj_init = std::abs(handle_init_pos_[2] - target_pos_[2]);
      const double in_place = Tolerance(target_to_obj, 0, kRadius, std::abs(target_to_obj_init - kRadius));
      const double tcp_to_obj = Dist(obj, tcp);
      const double tcp_to_obj_init = Dist(handle_init_pos_, init_tcp_);
      const double reach = Tolerance(tcp_to_obj, 0, kHandleRadius, std::abs(tcp_to_obj_init - kHandleRadius));
      double reward = HamacherProduct(reach, in_place);
      reward = target_to_obj <= kRadius ? 1.0 : reward;
      reward *= 10;
      e.reward = reward;
      e.success = target_to_obj <= kRadius ? 1.0 : 0.0;
      e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
      e.grasp_success = 1.0;
      e.grasp_reward = reach;
      e.in_place_reward = in_place;
      e.obj_to_target = target_to_obj;
      return e;
    }
    constexpr double kRadius = 0.05;
    const Vec3 obj = ObsVec(obs, 4);
    double target_to_obj, target_to_obj_init;
    Scalar object_grasped;
    if (kVariant == Handle::kPull) {
      target_to_obj = std::abs(target_pos_[2] - obj[2]);
      target_to_obj_init = std::abs(target_pos_[2] - obj_init_pos_[2]);
      object_grasped = GripperCagingReward(action, obj, 0.022, 0.05, 0.01, 0.01, 1.0, true);
    } else {
      target_to_obj = Dist(obj, target_pos_);
      target_to_obj_init = Dist(obj_init_pos_, target_pos_);
      object_grasped = GripperCagingReward(action, obj, 0.032, 0.06, 0.01, 0.01, 1.0, true);
    }
    const double in_place = Tolerance(target_to_obj, 0, kRadius, target_to_obj_init);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, tcp);
    // HandlePull compares the handle's y with the box's z (the reference's).
    const double lifted = kVariant == Handle::kPull ? obj[1] : obj[2];
    if (tcp_to_obj < 0.035 && tcp_opened > 0 && lifted - 0.01 > obj_init_pos_[2])
      reward = reward + Py(1.0 + 5.0 * in_place);
    if (target_to_obj < kRadius) reward = Py(10.0);
    e.reward = reward.v;
    e.success = target_to_obj <= (kVariant == Handle::kPull ? kRadius : 0.08) ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
    e.grasp_success = (tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2]) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int box_, handle_, goal_;
  Vec3 handle_init_pos_{};
};

using HandlePress = HandleTask<Handle::kPress>;
using HandlePressSide = HandleTask<Handle::kPressSide>;
using HandlePull = HandleTask<Handle::kPull>;
using HandlePullSide = HandleTask<Handle::kPullSide>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_HANDLE_H_
