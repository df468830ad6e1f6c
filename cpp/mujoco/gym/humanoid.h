// Humanoid-v4/v5: gymnasium's HumanoidEnv (a 3D biped rewarded for moving
// its centre of mass forward, ending when its torso leaves the healthy
// height range).
#ifndef ENVPOOL_MUJOCO_GYM_HUMANOID_H_
#define ENVPOOL_MUJOCO_GYM_HUMANOID_H_

#include <vector>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class Humanoid : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  static Config Defaults(int version) {
    using V = std::vector<double>;
    if (version >= 5)
      return GymDefaults(version, "humanoid.xml", kFrameSkip,
                         {{"forward_reward_weight", 1.25},
                          {"ctrl_cost_weight", 0.1},
                          {"contact_cost_weight", 5e-7},
                          {"contact_cost_range", V{-kInf, 10.0}},
                          {"healthy_reward", 5.0},
                          {"terminate_when_unhealthy", true},
                          {"healthy_z_range", V{1.0, 2.0}},
                          {"reset_noise_scale", 1e-2},
                          {"exclude_current_positions_from_observation", true},
                          {"include_cinert_in_observation", true},
                          {"include_cvel_in_observation", true},
                          {"include_qfrc_actuator_in_observation", true},
                          {"include_cfrc_ext_in_observation", true}});
    return GymDefaults(version, "humanoid.xml", kFrameSkip,
                       {{"forward_reward_weight", 1.25},
                        {"ctrl_cost_weight", 0.1},
                        {"healthy_reward", 5.0},
                        {"terminate_when_unhealthy", true},
                        {"healthy_z_range", V{1.0, 2.0}},
                        {"reset_noise_scale", 1e-2},
                        {"exclude_current_positions_from_observation", true}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) {
    return "trackbodyid=1;distance=4.0;lookat=0.0,0.0,2.0;elevation=-20.0";
  }

  struct Spec : MujocoSpec {
    StateKey<double> x_position, y_position, distance_from_origin, x_velocity, y_velocity;
    // v4's names: reward_linvel, reward_alive, reward_quadctrl (and the
    // forward reward again as forward_reward); v5 adds the contact cost.
    StateKey<double> reward_forward, reward_survive, reward_ctrl, reward_contact, forward_reward;
    explicit Spec(const Humanoid& e) : MujocoSpec(e.m_->nq - e.skip_ + e.m_->nv + e.body_obs_.Size(e.m_)) {
      if (e.v5_) {
        x_position = Info("x_position");
        y_position = Info("y_position");
        distance_from_origin = Info("distance_from_origin");
        x_velocity = Info("x_velocity");
        y_velocity = Info("y_velocity");
        reward_survive = Info("reward_survive");
        reward_forward = Info("reward_forward");
        reward_ctrl = Info("reward_ctrl");
        reward_contact = Info("reward_contact");
        AddTendonInfo(e.m_);
      } else {
        reward_forward = Info("reward_linvel");
        reward_ctrl = Info("reward_quadctrl");
        reward_survive = Info("reward_alive");
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

  Humanoid(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 3, version >= 5 ? 6 : 0),
        v5_(version >= 5),
        forward_reward_weight_(c.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(c.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(v5_ ? c.Get<double>("contact_cost_weight") : 0.0),  // v4: no contact cost
        contact_cost_range_(v5_ ? GetRange(c, "contact_cost_range") : Range{0.0, 0.0}),
        healthy_reward_(c.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(c.Get<bool>("terminate_when_unhealthy")),
        healthy_z_(GetRange(c, "healthy_z_range")),
        reset_noise_scale_(c.Get<double>("reset_noise_scale")),
        skip_(c.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0),
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
    *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    double x0, y0, x1, y1;
    MassCenter(&x0, &y0);
    Simulate(a);
    // The observation and the contact cost read cfrc_ext, which mj_step
    // leaves stale.
    mj_rnePostConstraint(m_, d_);
    WriteObs(StateObs(out));
    MassCenter(&x1, &y1);
    const double* qpos = d_->qpos;
    const double vx = (x1 - x0) / dt_, vy = (y1 - y0) / dt_;
    // gymnasium squares the float64 ctrl here, not the float32 action.
    const double ctrl = ctrl_cost_weight_ * SquareSum(d_->ctrl, m_->nu);
    const double fwd = forward_reward_weight_ * vx;
    const bool healthy = healthy_z_.lo < qpos[2] && qpos[2] < healthy_z_.hi;
    // v4 pays the healthy reward on an unhealthy step when it terminates.
    const double hr = (healthy || (!v5_ && terminate_when_unhealthy_)) ? healthy_reward_ : 0.0 * healthy_reward_;
    StepResult r;
    r.terminated = !healthy && terminate_when_unhealthy_;
    if (v5_) {
      const double contact = Clip(contact_cost_weight_ * SquareSum(d_->cfrc_ext, 6 * m_->nbody), contact_cost_range_.lo,
                                  contact_cost_range_.hi);
      r.reward = (fwd + hr) - (ctrl + contact);
      *out[spec_.x_position] = qpos[0];
      *out[spec_.y_position] = qpos[1];
      *out[spec_.distance_from_origin] = Norm2(qpos[0], qpos[1]);
      *out[spec_.reward_contact] = -contact;
    } else {
      r.reward = (fwd + hr) - ctrl;
      *out[spec_.x_position] = x1;
      *out[spec_.y_position] = y1;
      *out[spec_.distance_from_origin] = Norm2(x1, y1);
      *out[spec_.forward_reward] = fwd;
    }
    *out[spec_.x_velocity] = vx;
    *out[spec_.y_velocity] = vy;
    *out[spec_.reward_forward] = fwd;
    *out[spec_.reward_survive] = hr;
    *out[spec_.reward_ctrl] = -ctrl;
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
  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_;
  Range contact_cost_range_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
  Range healthy_z_;
  double reset_noise_scale_;
  int skip_;
  BodyStateObs body_obs_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_HUMANOID_H_
