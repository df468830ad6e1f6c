// dm_control.suite.hopper: a planar one-legged hopper (stand, hop).
#ifndef ENVPOOL_MUJOCO_DMC_HOPPER_H_
#define ENVPOOL_MUJOCO_DMC_HOPPER_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Hopper : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"stand", "hop"};
  // control_timestep .02 over the model's .005.
  static Config Defaults() { return DmcDefaults("stand", 20.0, 4); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity, touch;
    explicit Spec(const Hopper& e) {
      position = Obs("position", {e.m_->nq - 1});
      velocity = Obs("velocity", {e.m_->nv});
      touch = Obs("touch", {2});
      Finish(e);
    }
  };

  explicit Hopper(const Config& c) : DmcEnv(c, "hopper"), spec_(*this) {
    hopping_ = CheckTask(c, kTasks) == "hop";
    torso_ = Id(mjOBJ_BODY, "torso");
    foot_ = Id(mjOBJ_BODY, "foot");
    speed_ = SensorAdr("torso_subtreelinvel");
    toe_ = SensorAdr("touch_toe");
    heel_ = SensorAdr("touch_heel");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos + 1, d_->qpos + m_->nq, out[spec_.position]);
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
    double* t = out[spec_.touch];
    t[0] = std::log1p(d_->sensordata[toe_]);
    t[1] = std::log1p(d_->sensordata[heel_]);
  }

  double Reward() override {
    const double height = d_->xipos[3 * torso_ + 2] - d_->xipos[3 * foot_ + 2];
    const double standing = Tolerance(height, 0.6, 2);
    if (hopping_) return standing * Tolerance(d_->sensordata[speed_], 2, kInf, 1, Sigmoid::kLinear, 0.5);
    // tolerance(control, ...).mean(): numpy sums in order, then divides.
    double small_control = 0;
    for (int i = 0; i < m_->nu; ++i) small_control += Tolerance(d_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0);
    small_control /= m_->nu;
    small_control = (small_control + 4) / 5;
    return standing * small_control;
  }

 private:
  Spec spec_;
  bool hopping_ = false;
  int torso_ = 0, foot_ = 0, speed_ = 0, toe_ = 0, heel_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_HOPPER_H_
