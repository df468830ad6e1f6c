// dm_control.suite.pendulum: swing up and balance a pole (swingup).
#ifndef ENVPOOL_MUJOCO_DMC_PENDULUM_H_
#define ENVPOOL_MUJOCO_DMC_PENDULUM_H_

#include <cmath>
#include <numbers>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Pendulum : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"swingup"};
  static Config Defaults() { return DmcDefaults("swingup", 20.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> orientation = Obs("orientation", {2});
    StateKey<double> velocity = Obs("velocity", {1});
    explicit Spec(const Pendulum& e) { Finish(e); }
  };

  explicit Pendulum(const Config& c) : DmcEnv(c, "pendulum"), spec_(*this) {
    CheckTask(c, kTasks);
    hinge_ = JointQposAdr("hinge");
    pole_ = Id(mjOBJ_BODY, "pole");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override { d_->qpos[hinge_] = random_.Uniform(-std::numbers::pi, std::numbers::pi); }

  void Observe(const StateRow& out) override {
    double* o = out[spec_.orientation];
    o[0] = d_->xmat[9 * pole_ + 8];
    o[1] = d_->xmat[9 * pole_ + 2];
    *out[spec_.velocity] = d_->qvel[m_->jnt_dofadr[0]];
  }

  double Reward() override {
    // np.cos(np.deg2rad(8))
    static const double kCosineBound = std::cos(8 * (std::numbers::pi / 180.0));
    return Tolerance(d_->xmat[9 * pole_ + 8], kCosineBound, 1);
  }

 private:
  Spec spec_;
  int hinge_ = 0, pole_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_PENDULUM_H_
