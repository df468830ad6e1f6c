// MetaWorld/DialTurn-v3: metaworld's SawyerDialTurnEnvV3 (turn a dial; the
// dial placed at the task vector).
#ifndef ENVPOOL_MUJOCO_METAWORLD_DIAL_TURN_H_
#define ENVPOOL_MUJOCO_METAWORLD_DIAL_TURN_H_

#include <cmath>
#include <stdexcept>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class DialTurn : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_dial.xml"); }
  explicit DialTurn(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {-0.1, 0.73, 0.0299},
                      {0.1, 0.83, 0.0301},
                      {-0.1, 0.7, 0.0},
                      {0.1, 0.8, 0.0},
                      nullptr}),
        dial_(BodyId("dial")) {
    const int joint = mj_name2id(m_, mjOBJ_JOINT, "knob_Joint_1");
    if (joint < 0) throw std::invalid_argument("the model has no joint 'knob_Joint_1'");
    knob_qpos_ = m_->jnt_qposadr[joint];
  }

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(dial_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[0] + 0, v[1] + 0.03, v[2] + 0.03};
    dial_push_init_ = PushPosition(DialPos());
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = DialPos();
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * dial_ + i];
  }

  Eval Evaluate(const double* /*obs*/, const float* action) override {
    constexpr double kRadius = 0.07, kReachRadius = 0.005;  // the class's TARGET_RADIUS
    const Vec3 obj = DialPos();
    const Vec3 push = PushPosition(obj);
    const Vec3 tcp = TcpCenter();
    const double target_to_obj = Dist(obj, target_pos_);
    const double target_to_obj_init = Dist(dial_push_init_, target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kRadius, std::abs(target_to_obj_init - kRadius));
    const double tcp_to_obj = Dist(push, tcp);
    const double tcp_to_obj_init = Dist(dial_push_init_, init_tcp_);
    const double reach0 =
        Tolerance(tcp_to_obj, 0, kReachRadius, std::abs(tcp_to_obj_init - kReachRadius), Sigmoid::kGaussian);
    const Scalar reach = HamacherProduct(Py(reach0), GripEffort(action[3], 1.0));
    Eval e;
    e.reward = (Py(10) * HamacherProduct(reach, Py(in_place))).v;
    e.success = target_to_obj <= kRadius ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.01 ? 1.0 : 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  // _get_pos_objects: the point on the dial's rim at its angle.
  Vec3 DialPos() const {
    const Vec3 center = BodyPos(dial_);
    const double angle = d_->qpos[knob_qpos_];
    constexpr double radius = 0.05;
    return {center[0] + std::sin(angle) * radius, center[1] + -std::cos(angle) * radius, center[2] + 0.0 * radius};
  }
  static Vec3 PushPosition(const Vec3& p) { return {p[0] + 0.05, p[1] + 0.02, p[2] + 0.09}; }

  int dial_, knob_qpos_ = 0;
  Vec3 dial_push_init_{};
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_DIAL_TURN_H_
