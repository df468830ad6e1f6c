// InvertedDoublePendulum-v4/v5: gymnasium's InvertedDoublePendulumEnv (a
// cart balancing two stacked poles, ending when the tip drops to y <= 1).
#ifndef ENVPOOL_MUJOCO_GYM_INVERTED_DOUBLE_PENDULUM_H_
#define ENVPOOL_MUJOCO_GYM_INVERTED_DOUBLE_PENDULUM_H_

#include <cmath>
#include <stdexcept>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class InvertedDoublePendulum : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  // v4 hard codes what v5 names.
  static constexpr double kHealthyReward = 10.0, kResetNoiseScale = 0.1;
  static Config Defaults(int version) {
    if (version < 5) return GymDefaults(version, "inverted_double_pendulum.xml", kFrameSkip, {});
    return GymDefaults(version, "inverted_double_pendulum.xml", kFrameSkip,
                       {{"healthy_reward", kHealthyReward}, {"reset_noise_scale", kResetNoiseScale}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text); v5's
  // default_camera_config keyword defaults to None instead.
  static const char* DefaultCameraConfig(int version) {
    return version >= 5 ? "" : "trackbodyid=0;distance=4.1225;lookat=0.0,0.0,0.12250000000000005";
  }

  struct Spec : MujocoSpec {
    StateKey<double> reward_survive, distance_penalty, velocity_penalty;  // v5 only
    explicit Spec(const InvertedDoublePendulum& e) : MujocoSpec(e.ObsSize()) {
      if (e.v5_) {
        reward_survive = Info("reward_survive");
        distance_penalty = Info("distance_penalty");
        velocity_penalty = Info("velocity_penalty");
      }
      Finish(e);
    }
  };

  InvertedDoublePendulum(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 1, 3),
        v5_(version >= 5),
        healthy_reward_(v5_ ? c.Get<double>("healthy_reward") : kHealthyReward),
        reset_noise_scale_(v5_ ? c.Get<double>("reset_noise_scale") : kResetNoiseScale),
        spec_(*this) {
    // The reward reads the pole tip's site.
    if (m_->nsite < 1) throw std::invalid_argument("the model has no site");
  }
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override { NoiseUniformNormal(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override { WriteObs(StateObs(out)); }

  StepResult StepModel(const float* a, const StateRow& out) override {
    Simulate(a);
    WriteObs(StateObs(out));
    const double x = d_->site_xpos[0], y = d_->site_xpos[2];
    const double v1 = d_->qvel[1], v2 = d_->qvel[2];
    const double dist = 0.01 * (x * x) + (y - 2) * (y - 2);
    const double vel = 0.001 * (v1 * v1) + 0.005 * (v2 * v2);
    StepResult r;
    r.terminated = y <= 1;
    // v4 pays the alive bonus on the terminating step too.
    const double alive = v5_ ? healthy_reward_ * (r.terminated ? 0 : 1) : healthy_reward_;
    r.reward = alive - dist - vel;
    SetInfo(out, spec_.reward_survive, alive);
    SetInfo(out, spec_.distance_penalty, -dist);
    SetInfo(out, spec_.velocity_penalty, -vel);
    return r;
  }

 private:
  // v5 drops the poles' constraint forces (always zero in v4's observation).
  int ObsSize() const { return 1 + 2 * (m_->nq - 1) + m_->nv + (v5_ ? 1 : m_->nv); }

  void WriteObs(double* o) const {
    const int nq = m_->nq;
    const double* qpos = d_->qpos;
    ObsWriter w(o);
    w.Put(qpos[0]);
    for (int i = 1; i < nq; ++i) w.Put(std::sin(qpos[i]));
    for (int i = 1; i < nq; ++i) w.Put(std::cos(qpos[i]));
    w.PutClipped(d_->qvel, m_->nv, 10.0);
    w.PutClipped(d_->qfrc_constraint, v5_ ? 1 : m_->nv, 10.0);
  }

  bool v5_;
  double healthy_reward_, reset_noise_scale_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_INVERTED_DOUBLE_PENDULUM_H_
