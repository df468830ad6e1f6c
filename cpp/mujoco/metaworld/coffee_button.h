// MetaWorld/CoffeeButton-v3: metaworld's SawyerCoffeeButtonEnvV3 (press the
// coffee machine's button; the machine placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_COFFEE_BUTTON_H_
#define ENVPOOL_MUJOCO_METAWORLD_COFFEE_BUTTON_H_

#include <algorithm>
#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class CoffeeButton : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_coffee.xml"); }
  explicit CoffeeButton(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.4, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.4, 0.2},
                      {-0.1 + -0.001, 0.8 + (-0.22 + kMaxDist), -0.001 + 0.299},
                      {0.1 + 0.001, 0.9 + (-0.22 + kMaxDist), +0.001 + 0.301},
                      {-0.1, 0.8, -0.001},
                      {0.1, 0.9, +0.001},
                      nullptr}),
        machine_(BodyId("coffee_machine")),
        button_(SiteId("buttonStart")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(machine_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    // The reference's _set_obj_xyz writes the mug position into qpos[0:3]
    // (the arm's first joints) and zeroes qvel[9:15]; reproduced as is.
    d_->qpos[0] = v[0] + 0.0;
    d_->qpos[1] = v[1] + -0.22;
    d_->qpos[2] = v[2] + 0.0;
    for (int i = 9; i < 15 && i < m_->nv; ++i) d_->qvel[i] = 0.0;
    mj_forward(m_, d_);
    const Vec3 pos_button{v[0] + 0.0, v[1] + -0.22, v[2] + 0.3};
    target_pos_ = {pos_button[0] + 0.0, pos_button[1] + kMaxDist, pos_button[2] + 0.0};
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(button_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    o[3] = 1.0;
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3 tcp = TcpCenter();
    const double tcp_to_obj = Dist(obj, tcp);
    const double tcp_to_obj_init = Dist(obj, init_tcp_);
    const double obj_to_target = std::abs(target_pos_[1] - obj[1]);
    const double tcp_closed = std::max(obs[3], 0.0);
    const double near_button = Tolerance(tcp_to_obj, 0, 0.05, tcp_to_obj_init);
    const double button_pressed = Tolerance(obj_to_target, 0, 0.005, kMaxDist);
    double reward = 2 * HamacherProduct(tcp_closed, near_button);
    if (tcp_to_obj <= 0.05) reward += 8 * button_pressed;
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.02 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
    e.grasp_success = obs[3] > 0 ? 1.0 : 0.0;
    e.grasp_reward = near_button;
    e.in_place_reward = button_pressed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kMaxDist = 0.03;
  int machine_, button_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_COFFEE_BUTTON_H_
