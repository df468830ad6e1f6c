// HalfCheetah-v4/v5: gymnasium's HalfCheetahEnv (a planar cheetah rewarded
// for running forward).
#ifndef ENVPOOL_MUJOCO_GYM_HALF_CHEETAH_H_
#define ENVPOOL_MUJOCO_GYM_HALF_CHEETAH_H_

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class HalfCheetah : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  static Config Defaults(int version) {
    return GymDefaults(version, "half_cheetah.xml", kFrameSkip,
                       {{"forward_reward_weight", 1.0},
                        {"ctrl_cost_weight", 0.1},
                        {"reset_noise_scale", 0.1},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) { return "distance=4.0"; }

  struct Spec : MujocoSpec {
    StateKey<double> x_position, x_velocity, reward_forward, reward_ctrl;
    explicit Spec(const HalfCheetah& e) : MujocoSpec(e.m_->nq - e.skip_ + e.m_->nv) {
      x_position = Info("x_position");
      x_velocity = Info("x_velocity");
      reward_forward = Info(e.v5_ ? "reward_forward" : "reward_run");
      reward_ctrl = Info("reward_ctrl");
      Finish(e);
    }
  };

  HalfCheetah(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 1, 0),
        v5_(version >= 5),
        forward_reward_weight_(c.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(c.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(c.Get<double>("reset_noise_scale")),
        skip_(c.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override { NoiseUniformNormal(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override {
    WriteObs(StateObs(out));
    if (v5_) *out[spec_.x_position] = d_->qpos[0];
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    const double x0 = d_->qpos[0];
    Simulate(a);
    WriteObs(StateObs(out));
    const double x1 = d_->qpos[0];
    const double vx = (x1 - x0) / dt_;
    const float ctrl = CtrlCost32(a, ctrl_cost_weight_);
    const double fwd = forward_reward_weight_ * vx;
    *out[spec_.x_position] = x1;
    *out[spec_.x_velocity] = vx;
    *out[spec_.reward_forward] = fwd;
    *out[spec_.reward_ctrl] = -ctrl;
    StepResult r;
    r.reward = fwd - static_cast<double>(ctrl);
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

#endif  // ENVPOOL_MUJOCO_GYM_HALF_CHEETAH_H_
