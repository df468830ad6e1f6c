// MetaWorld/DrawerOpen-v3 and DrawerClose-v3: metaworld's drawer tasks (the
// chest placed at the task vector; pull the drawer out by its handle, or
// push it shut from open).
#ifndef ENVPOOL_MUJOCO_METAWORLD_DRAWER_H_
#define ENVPOOL_MUJOCO_METAWORLD_DRAWER_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

// The two tasks' shared model and task vector.
inline Task DrawerTask() {
  return {{-0.5, 0.40, 0.05},
          {0.5, 1.0, 0.5},
          // init_config's float32 hand position.
          {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
          {-0.5, 0.40, 0.05},
          {0.5, 1.0, 0.5},
          {-0.1, 0.9, 0.0},
          {0.1, 0.9, 0.0},
          nullptr};
}

class DrawerOpen : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_drawer.xml"); }
  explicit DrawerOpen(const Config& c)
      : SawyerEnv(c, DrawerTask()), drawer_(BodyId("drawer")), drawer_link_(BodyId("drawer_link")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(drawer_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[0] + 0.0, v[1] + (-0.16 - kMaxDist), v[2] + 0.09};
    SetModelSitePos(goal_site_, target_pos_);
  }

  // The handle (the drawer link's origin moved 16 cm out) and the link's
  // quaternion (MuJoCo's w, x, y, z).
  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(drawer_link_);
    o[0] = p[0] + 0.0;
    o[1] = p[1] + -0.16;
    o[2] = p[2] + 0.0;
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * drawer_link_ + i];
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    const Vec3 gripper = ObsVec(obs, 0), handle = ObsVec(obs, 4);
    const double handle_error = Dist(handle, target_pos_);
    const double opening = Tolerance(handle_error, 0, 0.02, kMaxDist);
    const Vec3 handle_pos_init{target_pos_[0] + 0.0, target_pos_[1] + kMaxDist, target_pos_[2] + 0.0};
    const double gripper_error =
        Norm3((handle[0] - gripper[0]) * 3.0, (handle[1] - gripper[1]) * 3.0, (handle[2] - gripper[2]) * 1.0);
    const double gripper_error_init =
        Norm3((handle_pos_init[0] - init_tcp_[0]) * 3.0, (handle_pos_init[1] - init_tcp_[1]) * 3.0,
              (handle_pos_init[2] - init_tcp_[2]) * 1.0);
    const double caging = Tolerance(gripper_error, 0, 0.01, gripper_error_init);
    double reward = caging + opening;
    reward *= 5.0;
    const double handle_to_gripper = Dist(handle, gripper);
    Eval e;
    e.reward = reward;
    e.success = handle_error <= 0.03 ? 1.0 : 0.0;
    e.near_object = handle_to_gripper <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = obs[3] > 0 ? 1.0 : 0.0;
    e.grasp_reward = caging;
    e.in_place_reward = opening;
    e.obj_to_target = handle_error;
    return e;
  }

 private:
  static constexpr double kMaxDist = 0.2;
  int drawer_, drawer_link_;
};

class DrawerClose : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_drawer.xml"); }
  explicit DrawerClose(const Config& c)
      : SawyerEnv(c, DrawerTask()), drawer_(BodyId("drawer")), drawer_link_(BodyId("drawer_link")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(drawer_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    target_pos_ = {v[0] + 0.0, v[1] + -0.16, v[2] + 0.09};
    // _set_obj_xyz: the drawer open by maxDist (velocity kept).
    d_->qpos[9] = -kMaxDist;
    mj_forward(m_, d_);
    obj_init_pos_ = Handle();
    SetModelSitePos(goal_site_, target_pos_);
  }

  // The handle; no quaternion (zeros).
  void ObjectObs(double* o) const override {
    const Vec3 p = Handle();
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
  }

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kRadius = 0.05, kReachRadius = 0.005;
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3 tcp = TcpCenter();
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kRadius, std::abs(target_to_obj_init - kRadius));
    const double tcp_to_obj = Dist(obj, tcp);
    const double tcp_to_obj_init = Dist(obj_init_pos_, init_tcp_);
    const double reach0 =
        Tolerance(tcp_to_obj, 0, kReachRadius, std::abs(tcp_to_obj_init - kReachRadius), Sigmoid::kGaussian);
    const Scalar reach = HamacherProduct(Py(reach0), GripEffort(action[3], 1.0));
    Scalar reward = HamacherProduct(reach, Py(in_place));
    if (target_to_obj <= kRadius + 0.015) reward = Py(1.0);
    reward = reward * Py(10);
    Eval e;
    e.reward = reward.v;
    e.success = target_to_obj <= kRadius + 0.015 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.01 ? 1.0 : 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  Vec3 Handle() const {
    const Vec3 p = BodyPos(drawer_link_);
    return {p[0] + 0.0, p[1] + -0.16, p[2] + 0.05};
  }
  static constexpr double kMaxDist = 0.15;
  int drawer_, drawer_link_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_DRAWER_H_
