// dm_control.suite.walker: a planar biped (stand, walk, run).
#ifndef ENVPOOL_MUJOCO_DMC_WALKER_H_
#define ENVPOOL_MUJOCO_DMC_WALKER_H_

#include <algorithm>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Walker : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"stand", "walk", "run"};
  // control_timestep .025 over the model's .0025.
  static Config Defaults() { return DmcDefaults("stand", 25.0, 10); }

  struct Spec : DmcSpec {
    StateKey<double> orientations, height, velocity;
    explicit Spec(const Walker& e) {
      orientations = Obs("orientations", {2 * (e.m_->nbody - 1)});
      height = Obs("height", {});
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e);
    }
  };

  explicit Walker(const Config& c) : DmcEnv(c, "walker"), spec_(*this) {
    const std::string task = CheckTask(c, kTasks);
    move_speed_ = task == "stand" ? 0.0 : task == "walk" ? 1.0 : 8.0;
    torso_ = Id(mjOBJ_BODY, "torso");
    speed_ = SensorAdr("torso_subtreelinvel");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }

  void Observe(const StateRow& out) override {
    double* o = out[spec_.orientations];
    for (int b = 1; b < m_->nbody; ++b) {
      *o++ = d_->xmat[9 * b];      // xx
      *o++ = d_->xmat[9 * b + 2];  // xz
    }
    *out[spec_.height] = d_->xpos[3 * torso_ + 2];
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    constexpr double kStandHeight = 1.2;
    const double standing = Tolerance(d_->xpos[3 * torso_ + 2], kStandHeight, kInf, kStandHeight / 2);
    const double upright = (1 + d_->xmat[9 * torso_ + 8]) / 2;
    const double stand_reward = (3 * standing + upright) / 4;
    if (move_speed_ == 0) return stand_reward;
    const double move_reward =
        Tolerance(d_->sensordata[speed_], move_speed_, kInf, move_speed_ / 2, Sigmoid::kLinear, 0.5);
    return stand_reward * (5 * move_reward + 1) / 6;
  }

 private:
  Spec spec_;
  double move_speed_ = 0;
  int torso_ = 0, speed_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_WALKER_H_
