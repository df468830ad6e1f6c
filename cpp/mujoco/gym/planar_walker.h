// What gymnasium's HopperEnv and Walker2dEnv share (the two differ in their
// model, defaults, camera and Hopper's healthy_state_range): a planar body
// rewarded for moving forward, healthy while its torso's height and angle
// (and, with healthy_state_range, every other coordinate) stay in range.
#ifndef ENVPOOL_MUJOCO_GYM_PLANAR_WALKER_H_
#define ENVPOOL_MUJOCO_GYM_PLANAR_WALKER_H_

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class PlanarWalker : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 4;

  struct Spec : MujocoSpec {
    // v4 reports only the position and velocity.
    StateKey<double> x_position, z_distance_from_origin, x_velocity, reward_forward, reward_ctrl, reward_survive;
    explicit Spec(const PlanarWalker& e) : MujocoSpec(e.m_->nq - e.skip_ + e.m_->nv) {
      x_position = Info("x_position");
      if (e.v5_) z_distance_from_origin = Info("z_distance_from_origin");
      x_velocity = Info("x_velocity");
      if (e.v5_) {
        reward_forward = Info("reward_forward");
        reward_ctrl = Info("reward_ctrl");
        reward_survive = Info("reward_survive");
      }
      Finish(e);
    }
  };

  const MujocoSpec& spec() const override { return spec_; }

 protected:
  // Reads healthy_state_range where the config has it (Hopper).
  PlanarWalker(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 3, 0),
        v5_(version >= 5),
        forward_reward_weight_(c.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(c.Get<double>("ctrl_cost_weight")),
        healthy_reward_(c.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(c.Get<bool>("terminate_when_unhealthy")),
        healthy_z_(GetRange(c, "healthy_z_range")),
        healthy_angle_(GetRange(c, "healthy_angle_range")),
        check_state_(c.Has("healthy_state_range")),
        healthy_state_(check_state_ ? GetRange(c, "healthy_state_range") : Range{0.0, 0.0}),
        reset_noise_scale_(c.Get<double>("reset_noise_scale")),
        skip_(c.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0),
        spec_(*this) {}

  void ResetModel() override { NoiseUniform(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override {
    WriteObs(StateObs(out));
    if (!v5_) return;
    *out[spec_.x_position] = d_->qpos[0];
    *out[spec_.z_distance_from_origin] = d_->qpos[1] - m_->qpos0[1];
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    const double x0 = d_->qpos[0];
    Simulate(a);
    WriteObs(StateObs(out));
    const double* qpos = d_->qpos;
    const double vx = (qpos[0] - x0) / dt_;
    const float ctrl = CtrlCost32(a, ctrl_cost_weight_);
    const double fwd = forward_reward_weight_ * vx;
    const bool healthy = Healthy();
    // v4 pays the healthy reward on an unhealthy step when it terminates.
    const double hr = (healthy || (!v5_ && terminate_when_unhealthy_)) ? healthy_reward_ : 0.0 * healthy_reward_;
    StepResult r;
    r.reward = (fwd + hr) - static_cast<double>(ctrl);
    r.terminated = !healthy && terminate_when_unhealthy_;
    *out[spec_.x_position] = qpos[0];
    SetInfo(out, spec_.z_distance_from_origin, qpos[1] - m_->qpos0[1]);
    *out[spec_.x_velocity] = vx;
    SetInfo(out, spec_.reward_forward, fwd);
    SetInfo(out, spec_.reward_ctrl, -ctrl);
    SetInfo(out, spec_.reward_survive, hr);
    return r;
  }

 private:
  void WriteObs(double* o) const {
    ObsWriter w(o);
    w.Put(d_->qpos + skip_, m_->nq - skip_);
    w.PutClipped(d_->qvel, m_->nv, 10.0);
  }

  bool Healthy() const {
    const double* qpos = d_->qpos;
    const double* qvel = d_->qvel;
    bool ok = true;
    if (check_state_) {
      const auto [lo, hi] = healthy_state_;
      for (int i = 2; i < m_->nq; ++i) ok = ok && lo < qpos[i] && qpos[i] < hi;
      for (int i = 0; i < m_->nv; ++i) ok = ok && lo < qvel[i] && qvel[i] < hi;
    }
    const double z = qpos[1], angle = qpos[2];
    return ok && healthy_z_.lo < z && z < healthy_z_.hi && healthy_angle_.lo < angle && angle < healthy_angle_.hi;
  }

  bool v5_;
  double forward_reward_weight_, ctrl_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  Range healthy_z_, healthy_angle_;
  bool check_state_;
  Range healthy_state_;
  double reset_noise_scale_;
  int skip_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_PLANAR_WALKER_H_
