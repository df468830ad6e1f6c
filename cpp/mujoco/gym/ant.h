// Ant-v4/v5: gymnasium's AntEnv (a quadruped rewarded for walking forward,
// ending when its torso leaves the healthy height range).
#ifndef ENVPOOL_MUJOCO_GYM_ANT_H_
#define ENVPOOL_MUJOCO_GYM_ANT_H_

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class Ant : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  static Config Defaults(int version) {
    using V = std::vector<double>;
    if (version >= 5)
      return GymDefaults(version, "ant.xml", kFrameSkip,
                         {{"forward_reward_weight", 1.0},
                          {"ctrl_cost_weight", 0.5},
                          {"contact_cost_weight", 5e-4},
                          {"healthy_reward", 1.0},
                          {"main_body", int64_t{1}},
                          {"terminate_when_unhealthy", true},
                          {"healthy_z_range", V{0.2, 1.0}},
                          {"contact_force_range", V{-1.0, 1.0}},
                          {"reset_noise_scale", 0.1},
                          {"exclude_current_positions_from_observation", true},
                          {"include_cfrc_ext_in_observation", true}});
    return GymDefaults(version, "ant.xml", kFrameSkip,
                       {{"ctrl_cost_weight", 0.5},
                        {"use_contact_forces", false},
                        {"contact_cost_weight", 5e-4},
                        {"healthy_reward", 1.0},
                        {"terminate_when_unhealthy", true},
                        {"healthy_z_range", V{0.2, 1.0}},
                        {"contact_force_range", V{-1.0, 1.0}},
                        {"reset_noise_scale", 0.1},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) { return "distance=4.0"; }

  struct Spec : MujocoSpec {
    StateKey<double> x_position, y_position, distance_from_origin, x_velocity, y_velocity;
    StateKey<double> reward_forward, reward_ctrl, reward_contact, reward_survive, forward_reward;
    explicit Spec(const Ant& e) : MujocoSpec(e.ObsSize()) {
      if (e.v5_) {
        x_position = Info("x_position");
        y_position = Info("y_position");
        distance_from_origin = Info("distance_from_origin");
        x_velocity = Info("x_velocity");
        y_velocity = Info("y_velocity");
        reward_forward = Info("reward_forward");
        reward_ctrl = Info("reward_ctrl");
        reward_contact = Info("reward_contact");
        reward_survive = Info("reward_survive");
      } else {
        reward_forward = Info("reward_forward");
        reward_ctrl = Info("reward_ctrl");
        reward_survive = Info("reward_survive");
        x_position = Info("x_position");
        y_position = Info("y_position");
        distance_from_origin = Info("distance_from_origin");
        x_velocity = Info("x_velocity");
        y_velocity = Info("y_velocity");
        forward_reward = Info("forward_reward");
      }
      Finish(e);
    }
  };

  Ant(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 3, 0),
        v5_(version >= 5),
        forward_reward_weight_(v5_ ? c.Get<double>("forward_reward_weight") : 0.0),  // v4: none
        ctrl_cost_weight_(c.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(c.Get<double>("contact_cost_weight")),
        healthy_reward_(c.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(c.Get<bool>("terminate_when_unhealthy")),
        healthy_z_(GetRange(c, "healthy_z_range")),
        contact_force_(GetRange(c, "contact_force_range")),
        reset_noise_scale_(c.Get<double>("reset_noise_scale")),
        skip_(c.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0),
        use_contact_forces_(!v5_ && c.Get<bool>("use_contact_forces")),
        include_cfrc_ext_(v5_ && c.Get<bool>("include_cfrc_ext_in_observation")),
        // v4 observes and costs the contact forces only on request; v5 always
        // costs them. Both need cfrc_ext, which mj_step leaves stale.
        need_rne_(v5_ || use_contact_forces_),
        main_body_(v5_ ? MainBody(c) : BodyId("torso")),
        cf_(6 * m_->nbody),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override { NoiseUniformNormal(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override {
    WriteObs(StateObs(out));
    if (!v5_) return;
    const double* qpos = d_->qpos;
    *out[spec_.x_position] = qpos[0];
    *out[spec_.y_position] = qpos[1];
    *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    const double x0 = d_->xpos[3 * main_body_], y0 = d_->xpos[3 * main_body_ + 1];
    Simulate(a);
    if (need_rne_) mj_rnePostConstraint(m_, d_);
    WriteObs(StateObs(out));
    const double* qpos = d_->qpos;
    const double x1 = d_->xpos[3 * main_body_], y1 = d_->xpos[3 * main_body_ + 1];
    const double vx = (x1 - x0) / dt_, vy = (y1 - y0) / dt_;
    const bool healthy = StateFinite() && healthy_z_.lo <= qpos[2] && qpos[2] <= healthy_z_.hi;
    const float ctrl = CtrlCost32(a, ctrl_cost_weight_);
    *out[spec_.x_velocity] = vx;
    *out[spec_.y_velocity] = vy;
    StepResult r;
    if (v5_) {
      const double fwd = vx * forward_reward_weight_;
      const double hr = healthy ? healthy_reward_ : 0.0 * healthy_reward_;
      const double contact = ContactCost();
      const double costs = static_cast<double>(ctrl) + contact;
      r.reward = (fwd + hr) - costs;
      r.terminated = !healthy && terminate_when_unhealthy_;
      *out[spec_.x_position] = qpos[0];
      *out[spec_.y_position] = qpos[1];
      *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
      *out[spec_.reward_forward] = fwd;
      *out[spec_.reward_ctrl] = -ctrl;
      *out[spec_.reward_contact] = -contact;
      *out[spec_.reward_survive] = hr;
    } else {
      const double fwd = vx;
      const double hr = (healthy || terminate_when_unhealthy_) ? healthy_reward_ : 0.0 * healthy_reward_;
      double costs = ctrl;
      double reward_ctrl = -ctrl;
      if (use_contact_forces_) {
        const double contact = ContactCost();
        costs = static_cast<double>(ctrl) + contact;
        reward_ctrl = -contact;  // gymnasium's v4 reports the contact cost as reward_ctrl
      }
      r.reward = (fwd + hr) - costs;
      r.terminated = terminate_when_unhealthy_ ? !healthy : false;
      *out[spec_.reward_forward] = fwd;
      *out[spec_.reward_ctrl] = reward_ctrl;
      *out[spec_.reward_survive] = hr;
      *out[spec_.x_position] = x1;
      *out[spec_.y_position] = y1;
      *out[spec_.distance_from_origin] = Norm2(x1, y1);
      *out[spec_.forward_reward] = fwd;
    }
    return r;
  }

 private:
  int MainBody(const Config& c) const {
    const ConfigValue& v = c.At("main_body");
    if (const auto* name = std::get_if<std::string>(&v)) return BodyId(name->c_str());
    if (const auto* id = std::get_if<int64_t>(&v)) {
      if (*id < 0 || *id >= m_->nbody)
        throw std::invalid_argument("main_body " + std::to_string(*id) + " is out of range [0, " +
                                    std::to_string(m_->nbody) + ")");
      return static_cast<int>(*id);
    }
    throw std::invalid_argument("main_body must be a body id (int) or a body name (str)");
  }

  int ObsSize() const {
    const int nb = m_->nbody;
    const int contact = v5_ ? (include_cfrc_ext_ ? 6 * (nb - 1) : 0) : (use_contact_forces_ ? 6 * nb : 0);
    return m_->nq - skip_ + m_->nv + contact;
  }

  void WriteObs(double* o) {
    ObsWriter w(o);
    w.Put(d_->qpos + skip_, m_->nq - skip_);
    w.Put(d_->qvel, m_->nv);
    if (!need_rne_) return;
    const int n = 6 * m_->nbody;
    for (int i = 0; i < n; ++i) cf_[i] = Clip(d_->cfrc_ext[i], contact_force_.lo, contact_force_.hi);
    // v5 leaves out the world body's (always zero) row.
    if (include_cfrc_ext_) w.Put(cf_.data() + 6, n - 6);
    if (use_contact_forces_) w.Put(cf_.data(), n);
  }

  // Of the clipped forces WriteObs left in cf_.
  double ContactCost() { return contact_cost_weight_ * SquareSum(cf_.data(), 6 * m_->nbody); }

  bool v5_;
  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  Range healthy_z_, contact_force_;
  double reset_noise_scale_;
  int skip_;
  bool use_contact_forces_, include_cfrc_ext_, need_rne_;
  int main_body_;
  std::vector<double> cf_;  // clipped cfrc_ext
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_ANT_H_
