// Reacher-v4/v5: gymnasium's ReacherEnv (a two-joint arm rewarded for
// bringing its fingertip to a random target).
#ifndef ENVPOOL_MUJOCO_GYM_REACHER_H_
#define ENVPOOL_MUJOCO_GYM_REACHER_H_

#include <cmath>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class Reacher : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 2;
  static Config Defaults(int version) {
    if (version < 5) return GymDefaults(version, "reacher.xml", kFrameSkip, {});
    return GymDefaults(version, "reacher.xml", kFrameSkip,
                       {{"reward_dist_weight", 1.0}, {"reward_control_weight", 1.0}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) { return "trackbodyid=0"; }

  struct Spec : MujocoSpec {
    StateKey<double> reward_dist, reward_ctrl;
    explicit Spec(const Reacher& e) : MujocoSpec(e.ObsSize()) {
      reward_dist = Info("reward_dist");
      reward_ctrl = Info("reward_ctrl");
      Finish(e);
    }
  };

  Reacher(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 2, 2),
        v5_(version >= 5),
        // v4's reward has no weights: 1 leaves its terms exactly unchanged.
        reward_dist_weight_(v5_ ? c.Get<double>("reward_dist_weight") : 1.0),
        reward_control_weight_(v5_ ? c.Get<double>("reward_control_weight") : 1.0),
        fingertip_(BodyId("fingertip")),
        target_(BodyId("target")),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    const int nq = m_->nq, nv = m_->nv;
    double* qpos = d_->qpos;
    double* qvel = d_->qvel;
    for (int i = 0; i < nq; ++i) qpos[i] = Uniform(-0.1, 0.1) + m_->qpos0[i];
    // The target: uniform in the disc of radius 0.2, by rejection.
    double gx, gy;
    do {
      gx = Uniform(-0.2, 0.2);
      gy = Uniform(-0.2, 0.2);
    } while (!(Norm2(gx, gy) < 0.2));
    qpos[nq - 2] = gx;
    qpos[nq - 1] = gy;
    for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + Uniform(-0.005, 0.005);
    qvel[nv - 2] = qvel[nv - 1] = 0.0;
  }

  void WriteReset(const StateRow& out) override { WriteObs(StateObs(out)); }

  StepResult StepModel(const float* a, const StateRow& out) override {
    // gymnasium's v4 computes the reward before simulating, v5 after.
    const Terms before = v5_ ? Terms{} : Measure(a);
    Simulate(a);
    WriteObs(StateObs(out));
    const Terms t = v5_ ? Measure(a) : before;
    *out[spec_.reward_dist] = t.dist;
    *out[spec_.reward_ctrl] = t.ctrl;
    StepResult r;
    r.reward = t.dist + static_cast<double>(t.ctrl);
    return r;
  }

 private:
  int ObsSize() const { return 4 + (m_->nq - 2) + 2 + (v5_ ? 2 : 3); }

  // The negative distance and control terms; the control term is float32.
  struct Terms {
    double dist;
    float ctrl;
  };
  Terms Measure(const float* a) {
    const double* ft = d_->xpos + 3 * fingertip_;
    const double* tg = d_->xpos + 3 * target_;
    return {-Norm3(ft[0] - tg[0], ft[1] - tg[1], ft[2] - tg[2]) * reward_dist_weight_,
            -SquareSum32(a) * static_cast<float>(reward_control_weight_)};
  }

  void WriteObs(double* o) const {
    const double* qpos = d_->qpos;
    ObsWriter w(o);
    w.Put(std::cos(qpos[0]));
    w.Put(std::cos(qpos[1]));
    w.Put(std::sin(qpos[0]));
    w.Put(std::sin(qpos[1]));
    w.Put(qpos + 2, m_->nq - 2);
    w.Put(d_->qvel, 2);
    const double* ft = d_->xpos + 3 * fingertip_;
    const double* tg = d_->xpos + 3 * target_;
    // v5 drops the always-zero z difference.
    for (int i = 0; i < (v5_ ? 2 : 3); ++i) w.Put(ft[i] - tg[i]);
  }

  bool v5_;
  double reward_dist_weight_, reward_control_weight_;
  int fingertip_, target_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_REACHER_H_
