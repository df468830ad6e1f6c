// MetaWorld/WindowOpen-v3 and WindowClose-v3: metaworld's window tasks
// (slide a window's handle sideways; the frame placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_WINDOW_H_
#define ENVPOOL_MUJOCO_METAWORLD_WINDOW_H_

#include <cmath>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kOpen>
class WindowTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_window_horizontal.xml"); }
  explicit WindowTask(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.4), static_cast<float>(0.2)},
                      {-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      kOpen ? std::vector<double>{-0.1, 0.7, 0.16} : std::vector<double>{0.0, 0.75, 0.2},
                      kOpen ? std::vector<double>{0.1, 0.9, 0.16} : std::vector<double>{0.0, 0.9, 0.2},
                      nullptr}),
        window_(BodyId("window")),
        handle_(SiteId(kOpen ? "handleOpenStart" : "handleCloseStart")) {
    const int joint = mj_name2id(m_, mjOBJ_JOINT, "window_slide");
    if (joint < 0) throw std::invalid_argument("the model has no joint 'window_slide'");
    slide_qpos_ = m_->jnt_qposadr[joint];
  }

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(window_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = kOpen ? Vec3{v[0] + 0.2, v[1] + 0.0, v[2] + 0.0} : obj_init_pos_;
    // The handle as the hand reset's last step left it (no mj_forward after
    // the window moved: the model edit came before the hand reset).
    const Vec3 h = SitePos(handle_);
    handle_init_ = kOpen ? h : Vec3{h[0] + 0.2, h[1] + 0.0, h[2] + 0.0};
    // The slide set without mj_forward: the reset observation is stale.
    d_->qpos[slide_qpos_] = kOpen ? 0.0 : 0.2;
    SetModelSitePos(goal_site_, target_pos_);
  }

  // The handle's site; no quaternion (zeros).
  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(handle_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
  }

  Eval Evaluate(const double* /*obs*/, const float* /*action*/) override {
    constexpr double kRadius = 0.05, kHandleRadius = 0.02;
    const Vec3 obj = SitePos(handle_);
    const Vec3 tcp = TcpCenter();
    const double target_to_obj = std::abs(obj[0] - target_pos_[0]);
    const double target_to_obj_init = std::abs((kOpen ? obj_init_pos_[0] : handle_init_[0]) - target_pos_[0]);
    const double in_place = Tolerance(target_to_obj, 0, kRadius, std::abs(target_to_obj_init - kRadius));
    const double tcp_to_obj = Dist(obj, tcp);
    const double tcp_to_obj_init = Dist(handle_init_, init_tcp_);
    const double reach = Tolerance(tcp_to_obj, 0, kHandleRadius, std::abs(tcp_to_obj_init - kHandleRadius),
                                   kOpen ? Sigmoid::kLongTail : Sigmoid::kGaussian);
    Eval e;
    e.reward = 10 * HamacherProduct(reach, in_place);
    e.success = target_to_obj <= kRadius ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.05 ? 1.0 : 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int window_, handle_, slide_qpos_ = 0;
  Vec3 handle_init_{};
};

using WindowOpen = WindowTask<true>;
using WindowClose = WindowTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_WINDOW_H_
