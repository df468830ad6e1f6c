// InvertedPendulum-v4/v5: gymnasium's InvertedPendulumEnv (a cart balancing
// a pole, ending when the pole tilts past 0.2 rad).
#ifndef ENVPOOL_MUJOCO_GYM_INVERTED_PENDULUM_H_
#define ENVPOOL_MUJOCO_GYM_INVERTED_PENDULUM_H_

#include <cmath>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class InvertedPendulum : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 2;
  static constexpr double kResetNoiseScale = 0.01;  // v4 hard codes it
  static Config Defaults(int version) {
    if (version < 5) return GymDefaults(version, "inverted_pendulum.xml", kFrameSkip, {});
    return GymDefaults(version, "inverted_pendulum.xml", kFrameSkip, {{"reset_noise_scale", kResetNoiseScale}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) { return "trackbodyid=0;distance=2.04"; }

  struct Spec : MujocoSpec {
    StateKey<double> reward_survive;  // v5 only
    explicit Spec(const InvertedPendulum& e) : MujocoSpec(e.m_->nq + e.m_->nv) {
      if (e.v5_) reward_survive = Info("reward_survive");
      Finish(e);
    }
  };

  InvertedPendulum(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 2, 0),
        v5_(version >= 5),
        reset_noise_scale_(v5_ ? c.Get<double>("reset_noise_scale") : kResetNoiseScale),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override { NoiseUniform(reset_noise_scale_); }

  void WriteReset(const StateRow& out) override { WriteObs(StateObs(out)); }

  StepResult StepModel(const float* a, const StateRow& out) override {
    Simulate(a);
    double* obs = StateObs(out);
    WriteObs(obs);
    const int n = m_->nq + m_->nv;
    bool finite = true;
    for (int i = 0; i < n; ++i) finite = finite && std::isfinite(obs[i]);
    StepResult r;
    r.terminated = !finite || std::fabs(obs[1]) > 0.2;
    // v4 pays the reward on the terminating step too.
    r.reward = v5_ ? (r.terminated ? 0.0 : 1.0) : 1.0;
    SetInfo(out, spec_.reward_survive, r.reward);
    return r;
  }

 private:
  void WriteObs(double* o) const {
    ObsWriter w(o);
    w.Put(d_->qpos, m_->nq);
    w.Put(d_->qvel, m_->nv);
  }

  bool v5_;
  double reset_noise_scale_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_INVERTED_PENDULUM_H_
