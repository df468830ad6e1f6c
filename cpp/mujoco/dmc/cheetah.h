// dm_control.suite.cheetah: a planar cheetah rewarded for running (run).
#ifndef ENVPOOL_MUJOCO_DMC_CHEETAH_H_
#define ENVPOOL_MUJOCO_DMC_CHEETAH_H_

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Cheetah : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"run"};
  static Config Defaults() { return DmcDefaults("run", 10.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity;
    explicit Spec(const Cheetah& e) {
      position = Obs("position", {e.m_->nq - 1});
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e);
    }
  };

  explicit Cheetah(const Config& c) : DmcEnv(c, "cheetah"), spec_(*this) {
    CheckTask(c, kTasks);
    if (m_->nq != m_->njnt) throw std::invalid_argument("cheetah: the model must have only 1-dof joints");
    speed_ = SensorAdr("torso_subtreelinvel");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    // Limited joints uniform in their ranges, then 200 physics steps to
    // settle, with the clock set back to 0.
    for (int j = 0; j < m_->njnt; ++j)
      if (m_->jnt_limited[j] == 1) d_->qpos[j] = random_.Uniform(m_->jnt_range[2 * j], m_->jnt_range[2 * j + 1]);
    PhysicsStep(200);
    d_->time = 0;
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos + 1, d_->qpos + m_->nq, out[spec_.position]);
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    constexpr double kRunSpeed = 10;
    return Tolerance(d_->sensordata[speed_], kRunSpeed, kInf, kRunSpeed, Sigmoid::kLinear, 0);
  }

 private:
  Spec spec_;
  int speed_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_CHEETAH_H_
