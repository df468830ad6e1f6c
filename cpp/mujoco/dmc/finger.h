// dm_control.suite.finger: a planar finger spinning a hinged body (spin) or
// turning it to a random target angle (turn_easy, turn_hard). The tasks edit
// the model per episode (target site, hinge damping): its own model copy.
#ifndef ENVPOOL_MUJOCO_DMC_FINGER_H_
#define ENVPOOL_MUJOCO_DMC_FINGER_H_

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Finger : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"spin", "turn_easy", "turn_hard"};
  // control_timestep .02 over the model's .01.
  static Config Defaults() { return DmcDefaults("spin", 20.0, 2); }

  struct Spec : DmcSpec {
    StateKey<double> position = Obs("position", {4});
    StateKey<double> velocity = Obs("velocity", {3});
    StateKey<double> touch = Obs("touch", {2});
    StateKey<double> target_position, dist_to_target;  // turn tasks only
    explicit Spec(const Finger& e) {
      if (e.turn_) {
        target_position = Obs("target_position", {2});
        dist_to_target = Obs("dist_to_target", {});
        Finish(e, "target", 1);  // the target angle
      } else {
        Finish(e);
      }
    }
  };

  explicit Finger(const Config& c) : DmcEnv(c, "finger", /*own_model=*/true), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    if (!turn_) {
      m_->site_rgba[4 * target_site_ + 3] = 0;
      m_->site_rgba[4 * tip_site_ + 3] = 0;
      m_->dof_damping[hinge_dof_] = .03;
    } else {
      const double target_angle = random_.Uniform(-std::numbers::pi, std::numbers::pi);
      const double hinge_x = d_->xanchor[3 * hinge_], hinge_z = d_->xanchor[3 * hinge_ + 2];
      const double* cap = m_->geom_size + 3 * cap1_;
      const double radius = cap[0] + cap[1] + cap[2];
      m_->site_pos[3 * target_site_] = hinge_x + radius * std::sin(target_angle);
      m_->site_pos[3 * target_site_ + 2] = hinge_z + radius * std::cos(target_angle);
      m_->site_size[3 * target_site_] = target_radius_;
      draws_ = {target_angle};
    }
    // _set_random_joint_angles: redraw until nothing collides.
    for (int attempt = 0; attempt < 1000; ++attempt) {
      RandomizeLimitedAndRotationalJoints();
      ForwardWithoutActuation();
      if (d_->ncon == 0) return;
    }
    throw std::runtime_error("finger: could not find a collision-free state after 1000 attempts");
  }

  void Observe(const StateRow& out) override {
    const double* s = d_->sensordata;
    double* p = out[spec_.position];
    p[0] = s[proximal_];
    p[1] = s[distal_];
    p[2] = s[tip_] - s[spinner_];
    p[3] = s[tip_ + 2] - s[spinner_ + 2];
    double* v = out[spec_.velocity];
    v[0] = s[proximal_velocity_];
    v[1] = s[distal_velocity_];
    v[2] = s[hinge_velocity_];
    double* t = out[spec_.touch];
    t[0] = std::log1p(s[touchtop_]);
    t[1] = std::log1p(s[touchbottom_]);
    if (turn_) {
      double* tp = out[spec_.target_position];
      tp[0] = s[target_] - s[spinner_];
      tp[1] = s[target_ + 2] - s[spinner_ + 2];
      *out[spec_.dist_to_target] = DistToTarget();
    }
  }

  double Reward() override {
    if (!turn_) return d_->sensordata[hinge_velocity_] <= -15.0 ? 1.0 : 0.0;
    return DistToTarget() <= 0 ? 1.0 : 0.0;
  }

 private:
  void Init(const Config& c) {
    const std::string task = CheckTask(c, kTasks);
    turn_ = task != "spin";
    target_radius_ = task == "turn_easy" ? 0.07 : 0.03;
    target_site_ = Id(mjOBJ_SITE, "target");
    tip_site_ = Id(mjOBJ_SITE, "tip");
    hinge_ = Id(mjOBJ_JOINT, "hinge");
    hinge_dof_ = m_->jnt_dofadr[hinge_];
    cap1_ = Id(mjOBJ_GEOM, "cap1");
    proximal_ = SensorAdr("proximal");
    distal_ = SensorAdr("distal");
    proximal_velocity_ = SensorAdr("proximal_velocity");
    distal_velocity_ = SensorAdr("distal_velocity");
    hinge_velocity_ = SensorAdr("hinge_velocity");
    tip_ = SensorAdr("tip");
    target_ = SensorAdr("target");
    spinner_ = SensorAdr("spinner");
    touchtop_ = SensorAdr("touchtop");
    touchbottom_ = SensorAdr("touchbottom");
  }

  // |target_position - tip_position| - the target's radius.
  double DistToTarget() const {
    const double* s = d_->sensordata;
    const double dx = (s[target_] - s[spinner_]) - (s[tip_] - s[spinner_]);
    const double dz = (s[target_ + 2] - s[spinner_ + 2]) - (s[tip_ + 2] - s[spinner_ + 2]);
    return Norm({dx, dz}) - m_->site_size[3 * target_site_];
  }

  bool turn_ = false;
  double target_radius_ = 0;
  int target_site_ = 0, tip_site_ = 0, hinge_ = 0, hinge_dof_ = 0, cap1_ = 0;
  int proximal_ = 0, distal_ = 0, proximal_velocity_ = 0, distal_velocity_ = 0, hinge_velocity_ = 0;
  int tip_ = 0, target_ = 0, spinner_ = 0, touchtop_ = 0, touchbottom_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_FINGER_H_
