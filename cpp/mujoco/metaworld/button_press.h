// MetaWorld/ButtonPress-v3, ButtonPressWall-v3, ButtonPressTopdown-v3 and
// ButtonPressTopdownWall-v3: metaworld's four button tasks (press a button
// in a box placed at the task vector, from the front or from above, with or
// without a wall). They differ in constants and in their reward's shape
// only, so one class takes the variant.
#ifndef ENVPOOL_MUJOCO_METAWORLD_BUTTON_PRESS_H_
#define ENVPOOL_MUJOCO_METAWORLD_BUTTON_PRESS_H_

#include <algorithm>
#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

enum class Button { kPress, kPressWall, kTopdown, kTopdownWall };

template <Button kVariant>
class ButtonPressTask : public SawyerEnv {
  static constexpr bool kTop = kVariant == Button::kTopdown || kVariant == Button::kTopdownWall;
  // The axis the button moves along (z from above, y from the front).
  static constexpr int kAxis = kTop ? 2 : 1;

 public:
  static Config Defaults() {
    switch (kVariant) {
      case Button::kPress:
        return SawyerDefaults("sawyer_xyz/sawyer_button_press.xml");
      case Button::kPressWall:
        return SawyerDefaults("sawyer_xyz/sawyer_button_press_wall.xml");
      case Button::kTopdown:
        return SawyerDefaults("sawyer_xyz/sawyer_button_press_topdown.xml");
      case Button::kTopdownWall:
      default:
        return SawyerDefaults("sawyer_xyz/sawyer_button_press_topdown_wall.xml");
    }
  }
  explicit ButtonPressTask(const Config& c)
      : SawyerEnv(c, MakeTask()),
        box_(BodyId("box")),
        button_(BodyId("button")),
        hole_(SiteId("hole")),
        button_start_(SiteId("buttonStart")) {}

 protected:
  static Task MakeTask() {
    Task t{{-0.5, 0.40, 0.05},
           {0.5, 1.0, 0.5},
           // init_config's float32 hand position.
           {0.0, static_cast<float>(0.4), static_cast<float>(0.2)},
           // goal_space is the hand's box.
           {-0.5, 0.40, 0.05},
           {0.5, 1.0, 0.5},
           {},
           {},
           "btnGeom"};
    switch (kVariant) {
      case Button::kPress:
        t.rand_low = {-0.1, 0.85, 0.115};
        t.rand_high = {0.1, 0.9, 0.115};
        break;
      case Button::kPressWall:
        t.rand_low = {-0.05, 0.85, 0.1149};
        t.rand_high = {0.05, 0.9, 0.1151};
        break;
      default:
        t.rand_low = {-0.1, 0.8, 0.115};
        t.rand_high = {0.1, 0.9, 0.115};
    }
    return t;
  }

  void PlaceModel(const double* v) override { SetModelBodyPos(box_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    if (kTop) {
      mj_forward(m_, d_);
    } else {
      // _set_obj_xyz(0): the button's joint released.
      d_->qpos[9] = 0.0;
      d_->qvel[9] = 0.0;
      mj_forward(m_, d_);
    }
    target_pos_ = SitePos(hole_);
    obj_to_target_init_ = std::abs(target_pos_[kAxis] - SitePos(button_start_)[kAxis]);
  }

  // The button's face and its body quaternion (MuJoCo's w, x, y, z).
  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(button_);
    if (kTop) {
      o[0] = p[0] + 0.0;
      o[1] = p[1] + 0.0;
      o[2] = p[2] + 0.193;
    } else {
      o[0] = p[0] + 0.0;
      o[1] = p[1] + -0.193;
      o[2] = p[2] + 0.0;
    }
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * button_ + i];
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3 tcp = TcpCenter();
    const double tcp_to_obj = Dist(obj, tcp);
    const double tcp_to_obj_init = Dist(obj, init_tcp_);
    const double obj_to_target = std::abs(target_pos_[kAxis] - obj[kAxis]);
    const double near_bound = kVariant == Button::kPress ? 0.05 : 0.01;
    const double near_button = Tolerance(tcp_to_obj, 0, near_bound, tcp_to_obj_init);
    const double button_pressed = Tolerance(obj_to_target, 0, 0.005, obj_to_target_init_);
    double reward = 0.0, success_radius = 0.0;
    switch (kVariant) {
      case Button::kTopdown:
      case Button::kTopdownWall: {
        const double tcp_closed = kVariant == Button::kTopdown ? 1 - obs[3] : std::max(obs[3], 0.0);
        reward = 5 * HamacherProduct(tcp_closed, near_button);
        if (tcp_to_obj <= 0.03) reward += 5 * button_pressed;
        success_radius = 0.024;
        break;
      }
      case Button::kPress:
        reward = 2 * HamacherProduct(std::max(obs[3], 0.0), near_button);
        if (tcp_to_obj <= 0.05) reward += 8 * button_pressed;
        success_radius = 0.02;
        break;
      case Button::kPressWall:
      default:
        if (tcp_to_obj > 0.07) {
          reward = 2 * HamacherProduct((1 - obs[3]) / 2.0, near_button);
        } else {
          reward = 2;
          reward += 2 * (1 + obs[3]);
          reward += 4 * (button_pressed * button_pressed);
        }
        success_radius = 0.03;
    }
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= success_radius ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
    e.grasp_success = obs[3] > 0 ? 1.0 : 0.0;
    e.grasp_reward = near_button;
    e.in_place_reward = button_pressed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int box_, button_, hole_, button_start_;
  double obj_to_target_init_ = 0;
};

using ButtonPress = ButtonPressTask<Button::kPress>;
using ButtonPressWall = ButtonPressTask<Button::kPressWall>;
using ButtonPressTopdown = ButtonPressTask<Button::kTopdown>;
using ButtonPressTopdownWall = ButtonPressTask<Button::kTopdownWall>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_BUTTON_PRESS_H_
