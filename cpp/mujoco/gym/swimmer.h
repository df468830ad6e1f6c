// Swimmer-v4/v5: gymnasium's SwimmerEnv (a three-link swimmer in a viscous
// fluid rewarded for moving forward).
#ifndef ENVPOOL_MUJOCO_GYM_SWIMMER_H_
#define ENVPOOL_MUJOCO_GYM_SWIMMER_H_

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class Swimmer : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 4;
  static Config Defaults(int version) {
    return GymDefaults(version, "swimmer.xml", kFrameSkip,
                       {{"forward_reward_weight", 1.0},
                        {"ctrl_cost_weight", 1e-4},
                        {"reset_noise_scale", 0.1},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's class has no default camera config.
  static const char* DefaultCameraConfig(int /*version*/) { return ""; }

  struct Spec : MujocoSpec {
    StateKey<double> x_position, y_position, distance_from_origin, x_velocity, y_velocity;
    // The forward reward is v4's reward_fwd and forward_reward, v5's reward_forward.
    StateKey<double> reward_fwd, reward_forward, forward_reward, reward_ctrl;
    explicit Spec(const Swimmer& e) : MujocoSpec(e.m_->nq - e.skip_ + e.m_->nv) {
      if (e.v5_) {
        x_position = Info("x_position");
        y_position = Info("y_position");
        distance_from_origin = Info("distance_from_origin");
        x_velocity = Info("x_velocity");
        y_velocity = Info("y_velocity");
        reward_forward = Info("reward_forward");
        reward_ctrl = Info("reward_ctrl");
      } else {
        reward_fwd = Info("reward_fwd");
        reward_ctrl = Info("reward_ctrl");
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

  Swimmer(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 2, 0),
        v5_(version >= 5),
        forward_reward_weight_(c.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(c.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(c.Get<double>("reset_noise_scale")),
        skip_(c.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override { NoiseUniform(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override {
    WriteObs(StateObs(out));
    if (!v5_) return;
    const double* qpos = d_->qpos;
    *out[spec_.x_position] = qpos[0];
    *out[spec_.y_position] = qpos[1];
    *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    const double x0 = d_->qpos[0], y0 = d_->qpos[1];
    Simulate(a);
    WriteObs(StateObs(out));
    const double* qpos = d_->qpos;
    const double vx = (qpos[0] - x0) / dt_, vy = (qpos[1] - y0) / dt_;
    const double fwd = forward_reward_weight_ * vx;
    const float ctrl = CtrlCost32(a, ctrl_cost_weight_);
    StepResult r;
    r.reward = fwd - static_cast<double>(ctrl);
    SetInfo(out, spec_.reward_fwd, fwd);
    SetInfo(out, spec_.reward_forward, fwd);
    SetInfo(out, spec_.forward_reward, fwd);
    *out[spec_.reward_ctrl] = -ctrl;
    *out[spec_.x_position] = qpos[0];
    *out[spec_.y_position] = qpos[1];
    *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
    *out[spec_.x_velocity] = vx;
    *out[spec_.y_velocity] = vy;
    return r;
  }

 private:
  void WriteObs(double* o) const {
    ObsWriter w(o);
    w.Put(d_->qpos + skip_, m_->nq - skip_);
    w.Put(d_->qvel, m_->nv);
  }

  bool v5_;
  double forward_reward_weight_, ctrl_cost_weight_, reset_noise_scale_;
  int skip_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_SWIMMER_H_
