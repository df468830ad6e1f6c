// MetaWorld/StickPush-v3 and StickPull-v3: metaworld's stick tasks (grasp the
// stick and push the thermos with it, or hook its handle and pull it; the
// task vector places the stick and the goal).
#ifndef ENVPOOL_MUJOCO_METAWORLD_STICK_H_
#define ENVPOOL_MUJOCO_METAWORLD_STICK_H_

#include <cmath>
#include <vector>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kPush>
class StickTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_stick_obj.xml"); }
  explicit StickTask(const Config& c)
      : SawyerEnv(c, {{-0.5, kPush ? 0.40 : 0.35, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      kPush ? Vec3{0.399, 0.55, 0.1319} : Vec3{0.35, 0.45, 0.0199},
                      kPush ? Vec3{0.401, 0.6, 0.1321} : Vec3{0.45, 0.55, 0.0201},
                      kPush ? std::vector<double>{-0.08, 0.58, 0.000, 0.399, 0.55, 0.1319}
                            : std::vector<double>{-0.1, 0.55, 0.000, 0.35, 0.45, 0.0199},
                      kPush ? std::vector<double>{-0.03, 0.62, 0.001, 0.401, 0.6, 0.1321}
                            : std::vector<double>{0.0, 0.65, 0.001, 0.45, 0.55, 0.0201}}),
        stick_(BodyId("stick")),
        object_(BodyId("object")),
        insertion_(SiteId("insertion")),
        stick_end_(SiteId("stick_end")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.1); }

  void ResetTask(const double* v) override {
    stick_init_ = {v[0], v[1], 0.02};  // init_config's stick height
    // The push goal is at the insertion's height where the hand reset left it.
    target_pos_ = {v[3], v[4], kPush ? SitePos(insertion_)[2] : stick_init_[2]};
    SetObjXyz(stick_init_);
    // The thermos's two slide joints at their start (the reference zeroes
    // qvel[16:18], which is the second slide's and nothing past it).
    d_->qpos[16] = 0.0;
    d_->qpos[17] = kPush ? 0.0 : 0.09;
    for (int i = 16; i < 18 && i < m_->nv; ++i) d_->qvel[i] = 0.0;
    mj_forward(m_, d_);
    obj_init_pos_ = BodyPos(object_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(stick_);
    for (int i = 0; i < 3; ++i) o[i] = p[i];
    MatQuat(d_->xmat + 9 * stick_, o + 3);
    const Vec3 ins = SitePos(insertion_);
    o[7] = ins[0] + 0.0;
    o[8] = ins[1] + (kPush ? 0.09 : 0.0);
    o[9] = ins[2] + 0.0;
  }

  Eval Evaluate(const double* obs, const float* action) override {
    return kPush ? EvaluatePush(obs, action) : EvaluatePull(obs, action);
  }

 private:
  Eval EvaluatePush(const double* obs, const float* action) {
    constexpr double kTargetRadius = 0.12;
    const Vec3 tcp = TcpCenter();
    const Vec3 stick{obs[4] + 0.015, obs[5] + 0.0, obs[6] + 0.0};
    const Vec3 container = ObsVec(obs, 11);
    const double tcp_opened = obs[3];
    const Vec3& target = target_pos_;
    const double tcp_to_stick = Dist(stick, tcp);
    const double stick_in_place =
        Tolerance(Dist(stick, target), 0, kTargetRadius, Dist(stick_init_, target) - kTargetRadius);
    const double container_to_target = Dist(container, target);
    const double container_in_place =
        Tolerance(container_to_target, 0, kTargetRadius, Dist(obj_init_pos_, target) - kTargetRadius);
    Scalar object_grasped = GripperCagingReward(action, stick, 0.04, 0.05, 0.01, 0.01, 1.0, true, false, &stick_init_);
    Scalar reward = object_grasped;
    if (tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_[2]) {
      object_grasped = Py(1);
      reward = Py(2.0 + 5.0 * stick_in_place + 3.0 * container_in_place);
      if (container_to_target <= kTargetRadius) reward = Py(10.0);
    }
    const bool grasp_success = TouchingMainObject() && tcp_opened > 0 && obs[6] - 0.01 > stick_init_[2];
    return {reward.v,
            Flag(grasp_success && container_to_target <= 0.12),
            Flag(tcp_to_stick <= 0.03),
            Flag(grasp_success),
            object_grasped.v,
            stick_in_place,
            container_to_target};
  }

  Eval EvaluatePull(const double* obs, const float* action) {
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 stick = ObsVec(obs, 4);
    const Vec3 end_of_stick = SitePos(stick_end_);
    const Vec3 handle = ObsVec(obs, 11);
    const Vec3 container{handle[0] + 0.05, handle[1] + 0.0, handle[2] + 0.0};
    const Vec3 container_init{obj_init_pos_[0] + 0.05, obj_init_pos_[1] + 0.0, obj_init_pos_[2] + 0.0};
    const double tcp_opened = obs[3];
    const Vec3& target = target_pos_;
    const double tcp_to_stick = Dist(stick, tcp);
    const double handle_to_target = Dist(handle, target);
    // The stick into the handle: z errors count twice.
    const double stick_to_container =
        Norm3((stick[0] - container[0]) * 1.0, (stick[1] - container[1]) * 1.0, (stick[2] - container[2]) * 2.0);
    const double stick_in_place_margin =
        Norm3((stick_init_[0] - container_init[0]) * 1.0, (stick_init_[1] - container_init[1]) * 1.0,
              (stick_init_[2] - container_init[2]) * 2.0);
    const double stick_in_place = Tolerance(stick_to_container, 0, kTargetRadius, stick_in_place_margin);
    const double stick_in_place_2 = Tolerance(Dist(stick, target), 0, kTargetRadius, Dist(stick_init_, target));
    const double container_in_place = Tolerance(Dist(container, target), 0, kTargetRadius, Dist(obj_init_pos_, target));
    Scalar object_grasped = GripperCagingReward(action, stick, 0.014, 0.05, 0.01, 0.01, 1.0, true);
    const bool grasped = tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_[2];
    if (grasped) object_grasped = Py(1);
    const Scalar in_place_and_grasped = HamacherProduct(object_grasped, Py(stick_in_place));
    Scalar reward = in_place_and_grasped;
    const bool inserted = Inserted(handle, end_of_stick);
    if (grasped) {
      reward = Py(1.0) + in_place_and_grasped + Py(5.0 * stick_in_place);
      if (inserted) {
        reward = Py(1.0) + in_place_and_grasped + Py(5.0) + Py(2.0 * stick_in_place_2) + Py(1.0 * container_in_place);
        if (handle_to_target <= 0.12) reward = Py(10.0);
      }
    }
    return {reward.v,
            Flag(handle_to_target <= 0.12 && inserted),
            Flag(tcp_to_stick <= 0.03),
            Flag(TouchingMainObject() && tcp_opened > 0 && stick[2] - 0.02 > obj_init_pos_[2]),
            object_grasped.v,
            stick_in_place,
            handle_to_target};
  }

  // _stick_is_inserted: the stick's end past the handle, within 4 cm of it
  // in y and 6 cm in z.
  static bool Inserted(const Vec3& handle, const Vec3& end) {
    return end[0] >= handle[0] && std::abs(end[1] - handle[1]) <= 0.040 && std::abs(end[2] - handle[2]) <= 0.060;
  }

  int stick_, object_, insertion_, stick_end_;
  Vec3 stick_init_{};
};

using StickPush = StickTask<true>;
using StickPull = StickTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_STICK_H_
