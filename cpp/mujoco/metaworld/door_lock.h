// MetaWorld/DoorLock-v3 and DoorUnlock-v3: metaworld's lock tasks (turn a
// door's lock down or sideways; the door placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_DOOR_LOCK_H_
#define ENVPOOL_MUJOCO_METAWORLD_DOOR_LOCK_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kLock>
class DoorLockTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_door_lock.xml"); }
  explicit DoorLockTask(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, -0.15},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      kLock ? Vec3{-0.5, 0.40, -0.15} : Vec3{0.0, 0.64, 0.2100},
                      kLock ? Vec3{0.5, 1.0, 0.5} : Vec3{0.2, 0.7, 0.2111},
                      {-0.1, 0.8, 0.15},
                      {0.1, 0.85, 0.15},
                      nullptr}),
        door_(BodyId("door")),
        door_link_(BodyId("door_link")),
        lock_link_(BodyId("lock_link")),
        lock_start_(SiteId(kLock ? "lockStartLock" : "lockStartUnlock")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(door_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* /*v*/) override {
    if (kLock) {
      // One more frame-skipped step with the hand reset's controls.
      for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
    } else {
      // _set_obj_xyz(1.5708): the lock turned.
      d_->qpos[9] = 1.5708;
      d_->qvel[9] = 0.0;
      mj_forward(m_, d_);
    }
    const Vec3 lock = BodyPos(lock_link_);
    target_pos_ = kLock ? Vec3{lock[0] + 0.0, lock[1] + -0.04, lock[2] + -0.1}
                        : Vec3{lock[0] + 0.1, lock[1] + -0.04, lock[2] + 0.0};
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(lock_start_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * door_link_ + i];
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kLockLength = 0.1;
    Eval e;
    if (kLock) {
      const Vec3 obj = ObsVec(obs, 4);
      const Vec3 tcp = BodyPos(left_pad_);
      const double tcp_to_obj = Norm3((obj[0] - tcp[0]) * 0.25, (obj[1] - tcp[1]) * 1.0, (obj[2] - tcp[2]) * 0.5);
      const Vec3 pad0 = InitLeftPad();
      const double tcp_to_obj_init =
          Norm3((obj[0] - pad0[0]) * 0.25, (obj[1] - pad0[1]) * 1.0, (obj[2] - pad0[2]) * 0.5);
      const double obj_to_target = std::abs(target_pos_[2] - obj[2]);
      const double tcp_opened = std::max(obs[3], 0.0);
      const double near_lock = Tolerance(tcp_to_obj, 0, 0.01, tcp_to_obj_init);
      const double lock_pressed = Tolerance(obj_to_target, 0, 0.005, kLockLength);
      double reward = 2 * HamacherProduct(tcp_opened, near_lock);
      reward += 8 * lock_pressed;
      e.reward = reward;
      e.success = obj_to_target <= 0.02 ? 1.0 : 0.0;
      e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
      e.grasp_reward = near_lock;
      e.in_place_reward = lock_pressed;
      e.obj_to_target = obj_to_target;
    } else {
      const Vec3 gripper = ObsVec(obs, 0), lock = ObsVec(obs, 4);
      // obj_init_pos is a view of data.body("lock_link").xpos in the
      // reference: its current value.
      const Vec3 obj_init = BodyPos(lock_link_);
      const double offset[3] = {0.0, 0.055, 0.07}, scale[3] = {0.25, 1.0, 0.5};
      double s[3], s0[3];
      for (int i = 0; i < 3; ++i) {
        s[i] = (gripper[i] + offset[i] - lock[i]) * scale[i];
        s0[i] = (init_tcp_[i] + offset[i] - obj_init[i]) * scale[i];
      }
      const double shoulder_to_lock = Norm3(s[0], s[1], s[2]);
      const double ready = Tolerance(shoulder_to_lock, 0, 0.02, Norm3(s0[0], s0[1], s0[2]));
      const double obj_to_target = std::abs(target_pos_[0] - lock[0]);
      const double pushed = Tolerance(obj_to_target, 0, 0.005, kLockLength);
      e.reward = 2 * ready + 8 * pushed;
      e.success = obj_to_target <= 0.02 ? 1.0 : 0.0;
      e.near_object = shoulder_to_lock <= 0.05 ? 1.0 : 0.0;
      e.grasp_reward = ready;
      e.in_place_reward = pushed;
      e.obj_to_target = obj_to_target;
    }
    e.grasp_success = obs[3] > 0 ? 1.0 : 0.0;
    return e;
  }

 private:
  int door_, door_link_, lock_link_, lock_start_;
};

using DoorLock = DoorLockTask<true>;
using DoorUnlock = DoorLockTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_DOOR_LOCK_H_
