// HumanoidStandup-v4/v5: gymnasium's HumanoidStandupEnv (Humanoid lying on
// the ground, rewarded for raising its torso; never terminates).
#ifndef ENVPOOL_MUJOCO_GYM_HUMANOID_STANDUP_H_
#define ENVPOOL_MUJOCO_GYM_HUMANOID_STANDUP_H_

#include <algorithm>
#include <vector>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class HumanoidStandup : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  // v4 hard codes what v5 names.
  static constexpr double kCtrlCostWeight = 0.1, kImpactCostWeight = 5e-7, kImpactCostMax = 10.0;
  static constexpr double kResetNoiseScale = 1e-2;
  static Config Defaults(int version) {
    using V = std::vector<double>;
    if (version < 5) return GymDefaults(version, "humanoidstandup.xml", kFrameSkip, {});
    // Like gymnasium's v5, uph_cost_weight is accepted but does not enter
    // the reward.
    return GymDefaults(version, "humanoidstandup.xml", kFrameSkip,
                       {{"uph_cost_weight", 1.0},
                        {"ctrl_cost_weight", kCtrlCostWeight},
                        {"impact_cost_weight", kImpactCostWeight},
                        {"impact_cost_range", V{-kInf, kImpactCostMax}},
                        {"reset_noise_scale", kResetNoiseScale},
                        {"exclude_current_positions_from_observation", true},
                        {"include_cinert_in_observation", true},
                        {"include_cvel_in_observation", true},
                        {"include_qfrc_actuator_in_observation", true},
                        {"include_cfrc_ext_in_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) {
    return "trackbodyid=1;distance=4.0;lookat=0.0,0.0,0.8925;elevation=-20.0";
  }

  struct Spec : MujocoSpec {
    StateKey<double> x_position, y_position, z_distance_from_origin;  // v5 only
    StateKey<double> reward_linup, reward_quadctrl, reward_impact;
    explicit Spec(const HumanoidStandup& e) : MujocoSpec(e.m_->nq - e.skip_ + e.m_->nv + e.body_obs_.Size(e.m_)) {
      if (e.v5_) {
        x_position = Info("x_position");
        y_position = Info("y_position");
        z_distance_from_origin = Info("z_distance_from_origin");
      }
      reward_linup = Info("reward_linup");
      reward_quadctrl = Info("reward_quadctrl");
      reward_impact = Info("reward_impact");
      if (e.v5_) AddTendonInfo(e.m_);
      Finish(e);
    }
  };

  HumanoidStandup(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 3, version >= 5 ? 6 : 0),
        v5_(version >= 5),
        ctrl_cost_weight_(v5_ ? c.Get<double>("ctrl_cost_weight") : kCtrlCostWeight),
        impact_cost_weight_(v5_ ? c.Get<double>("impact_cost_weight") : kImpactCostWeight),
        impact_cost_range_(v5_ ? GetRange(c, "impact_cost_range") : Range{-kInf, kImpactCostMax}),
        reset_noise_scale_(v5_ ? c.Get<double>("reset_noise_scale") : kResetNoiseScale),
        skip_((!v5_ || c.Get<bool>("exclude_current_positions_from_observation")) ? 2 : 0),
        body_obs_(c, v5_),
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
    *out[spec_.z_distance_from_origin] = qpos[2] - m_->qpos0[2];
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    Simulate(a);
    // The observation and the impact cost read cfrc_ext, which mj_step
    // leaves stale.
    mj_rnePostConstraint(m_, d_);
    WriteObs(StateObs(out));
    const double* qpos = d_->qpos;
    const double uph = (qpos[2] - 0) / m_->opt.timestep;
    // gymnasium squares the float64 ctrl here, not the float32 action.
    const double ctrl = ctrl_cost_weight_ * SquareSum(d_->ctrl, m_->nu);
    double impact = impact_cost_weight_ * SquareSum(d_->cfrc_ext, 6 * m_->nbody);
    // v4 only caps it (np.minimum), v5 clips it (np.clip).
    impact = v5_ ? Clip(impact, impact_cost_range_.lo, impact_cost_range_.hi) : std::min(impact, kImpactCostMax);
    StepResult r;
    r.reward = uph - ctrl - impact + 1;
    SetInfo(out, spec_.x_position, qpos[0]);
    SetInfo(out, spec_.y_position, qpos[1]);
    SetInfo(out, spec_.z_distance_from_origin, qpos[2] - m_->qpos0[2]);
    *out[spec_.reward_linup] = uph;
    *out[spec_.reward_quadctrl] = -ctrl;
    *out[spec_.reward_impact] = -impact;
    return r;
  }

 private:
  void WriteObs(double* o) const {
    ObsWriter w(o);
    w.Put(d_->qpos + skip_, m_->nq - skip_);
    w.Put(d_->qvel, m_->nv);
    body_obs_.Write(&w, m_, d_);
  }

  bool v5_;
  double ctrl_cost_weight_, impact_cost_weight_;
  Range impact_cost_range_;
  double reset_noise_scale_;
  int skip_;  // v4 always leaves out the x/y position
  BodyStateObs body_obs_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_HUMANOID_STANDUP_H_
