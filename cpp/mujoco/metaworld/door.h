// MetaWorld/DoorOpen-v3 and DoorClose-v3: metaworld's SawyerDoorEnvV3 and
// SawyerDoorCloseEnvV3 (pull a door open by its handle, or push an open one
// shut; the door placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_DOOR_H_
#define ENVPOOL_MUJOCO_METAWORLD_DOOR_H_

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class DoorOpen : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_door_pull.xml"); }
  explicit DoorOpen(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.3, 0.4, 0.1499},
                      {-0.2, 0.5, 0.1501},
                      {0.0, 0.85, 0.15},
                      {0.1, 0.95, 0.15},
                      nullptr}),
        door_(BodyId("door")),
        handle_(GeomId("handle")) {
    const int joint = mj_name2id(m_, mjOBJ_JOINT, "doorjoint");
    if (joint < 0) throw std::invalid_argument("the model has no joint 'doorjoint'");
    door_qpos_ = m_->jnt_qposadr[joint];
    door_qvel_ = m_->jnt_dofadr[joint];
  }

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(door_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[0] + -0.3, v[1] + -0.45, v[2] + 0.0};
    SetModelSitePos(goal_site_, target_pos_);
    d_->qpos[door_qpos_] = 0.0;
    d_->qvel[door_qvel_] = 0.0;
    mj_forward(m_, d_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = GeomPos(handle_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(handle_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const double theta = d_->qpos[door_qpos_];
    // (np.clip(a, -1, 1) + 1.0) / 2.0 on the float32 action stays float32.
    const float clipped = std::min(std::max(action[3], -1.0f), 1.0f);
    const double reward_grab = static_cast<double>((clipped + 1.0f) / 2.0f);
    double ready, opened;
    RewardPos(obs, theta, &ready, &opened);
    double reward = 2.0 * HamacherProduct(ready, reward_grab) + 8.0 * opened;
    if (std::abs(obs[4] - target_pos_[0]) <= 0.08) reward = 10.0;
    Eval e;
    e.reward = reward;
    e.success = std::abs(obs[4] - target_pos_[0]) <= 0.08 ? 1.0 : 0.0;
    e.near_object = ready;
    e.grasp_success = reward_grab >= 0.5 ? 1.0 : 0.0;
    e.grasp_reward = reward_grab;
    e.in_place_reward = opened;
    e.obj_to_target = 0.0;
    return e;
  }

 private:
  // _reward_pos: the hand above a floor rising away from the handle, near
  // the handle; the door's opening angle.
  static void RewardPos(const double* obs, double theta, double* ready, double* opened) {
    const Vec3 hand = ObsVec(obs, 0);
    const Vec3 door{obs[4] + -0.05, obs[5] + 0.0, obs[6] + 0.0};
    constexpr double threshold = 0.12;
    const double radius = Norm2(hand[0] - door[0], hand[1] - door[1]);
    const double floor = radius <= threshold ? 0.0 : 0.04 * std::log(radius - threshold) + 0.4;
    const double above_floor = hand[2] >= floor ? 1.0 : Tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place =
        Tolerance(Norm3((hand[0] - door[0]) - 0.05, (hand[1] - door[1]) - 0.03, (hand[2] - door[2]) - -0.01), 0,
                  threshold / 2.0, 0.5);
    *ready = HamacherProduct(above_floor, in_place);
    const double door_angle = -theta;
    const double a = 0.2, b = 0.8;
    *opened = a * (theta < -std::numbers::pi / 90.0 ? 1.0 : 0.0) +
              b * Tolerance(std::numbers::pi / 2.0 + std::numbers::pi / 6 - door_angle, 0, 0.5, std::numbers::pi / 3.0);
  }

  int door_, handle_, door_qpos_ = 0, door_qvel_ = 0;
};

// The door's hinge in qpos and qvel.
inline std::array<int, 2> DoorJoint(const mjModel* m) {
  const int joint = mj_name2id(m, mjOBJ_JOINT, "doorjoint");
  if (joint < 0) throw std::invalid_argument("the model has no joint 'doorjoint'");
  return {m->jnt_qposadr[joint], m->jnt_dofadr[joint]};
}

class DoorClose : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_door_pull.xml"); }
  explicit DoorClose(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {-0.5, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {0.2, 0.65, 0.1499},
                      {0.3, 0.75, 0.1501},
                      {0.0, 0.85, 0.15},
                      {0.1, 0.95, 0.15},
                      nullptr}),
        door_(BodyId("door")),
        handle_(GeomId("handle")),
        hinge_(DoorJoint(m_)) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(door_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[0] + 0.2, v[1] + -0.2, v[2] + 0.0};
    SetModelSitePos(goal_site_, target_pos_);
    // The door starts open.
    d_->qpos[hinge_[0]] = -1.5708;
    d_->qvel[hinge_[1]] = 0.0;
    mj_forward(m_, d_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = GeomPos(handle_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(handle_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_to_target = Dist(tcp, target_pos_);
    const double obj_to_target = Dist(obj, target_pos_);
    const double in_place_margin = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(obj_to_target, 0, kRadius, in_place_margin, Sigmoid::kGaussian);
    const double hand_margin = Dist(task_.hand_init_pos, obj) + 0.1;
    const double hand_in_place = Tolerance(tcp_to_target, 0, 0.25 * kRadius, hand_margin, Sigmoid::kGaussian);
    double reward = 3 * hand_in_place + 6 * in_place;
    if (obj_to_target < kRadius) reward = 10;
    Eval e;
    e.reward = reward;
    e.obj_to_target = obj_to_target;
    e.in_place_reward = hand_in_place;
    e.success = obj_to_target <= 0.08 ? 1.0 : 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = 1.0;
    return e;
  }

 private:
  int door_, handle_;
  std::array<int, 2> hinge_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_DOOR_H_
