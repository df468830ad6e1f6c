// dm_control.suite.cartpole: a cart on a rail with a chain of poles
// (balance, balance_sparse, swingup, swingup_sparse, two_poles, three_poles).
// The extra poles are XML edits made by src/envpool/tasks/dmc.py (model_xml).
#ifndef ENVPOOL_MUJOCO_DMC_CARTPOLE_H_
#define ENVPOOL_MUJOCO_DMC_CARTPOLE_H_

#include <algorithm>
#include <numbers>
#include <stdexcept>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Cartpole : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"balance",        "balance_sparse", "swingup",
                                           "swingup_sparse", "two_poles",      "three_poles"};
  static Config Defaults() { return DmcDefaults("balance", 10.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity;
    explicit Spec(const Cartpole& e) {
      const int poles = e.m_->nv - 1;
      position = Obs("position", {1 + 2 * poles});
      velocity = Obs("velocity", {1 + poles});
      Finish(e);
    }
  };

  explicit Cartpole(const Config& c) : DmcEnv(c, "cartpole"), spec_(*this) {
    const std::string task = CheckTask(c, kTasks);
    swing_up_ = task != "balance" && task != "balance_sparse";
    sparse_ = task == "balance_sparse" || task == "swingup_sparse";
    slider_ = JointQposAdr("slider");
    hinge_1_ = JointQposAdr("hinge_1");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    const int nv = m_->nv;
    if (swing_up_) {
      d_->qpos[slider_] = .01 * random_.Gauss();
      d_->qpos[hinge_1_] = std::numbers::pi + .01 * random_.Gauss();
      for (int i = 2; i < nv; ++i) d_->qpos[i] = .1 * random_.Gauss();
    } else {
      d_->qpos[slider_] = random_.Uniform(-.1, .1);
      for (int i = 1; i < nv; ++i) d_->qpos[i] = random_.Uniform(-.034, .034);
    }
    for (int i = 0; i < nv; ++i) d_->qvel[i] = 0.01 * random_.Gauss();
  }

  void Observe(const StateRow& out) override {
    double* pos = out[spec_.position];
    pos[0] = d_->qpos[slider_];
    for (int b = 2; b < m_->nbody; ++b) {
      *++pos = d_->xmat[9 * b + 8];  // zz
      *++pos = d_->xmat[9 * b + 2];  // xz
    }
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double cart = d_->qpos[slider_];
    if (sparse_) {
      const double cart_in_bounds = Tolerance(cart, -.25, .25);
      double angle_in_bounds = 1.0;
      for (int b = 2; b < m_->nbody; ++b) angle_in_bounds *= Tolerance(d_->xmat[9 * b + 8], .995, 1);
      return cart_in_bounds * angle_in_bounds;
    }
    // upright.mean(): numpy sums the poles in order, then divides.
    double upright = 0.0;
    for (int b = 2; b < m_->nbody; ++b) upright += (d_->xmat[9 * b + 8] + 1) / 2;
    upright /= m_->nbody - 2;
    double centered = Tolerance(cart, 0, 0, 2);
    centered = (1 + centered) / 2;
    double small_control = Tolerance(d_->ctrl[0], 0, 0, 1, Sigmoid::kQuadratic, 0);
    small_control = (4 + small_control) / 5;
    double small_velocity = 1.0;
    for (int i = 1; i < m_->nv; ++i) small_velocity = std::min(small_velocity, Tolerance(d_->qvel[i], 0, 0, 5));
    small_velocity = (1 + small_velocity) / 2;
    return upright * small_control * small_velocity * centered;
  }

 private:
  Spec spec_;
  bool swing_up_ = false, sparse_ = false;
  int slider_ = 0, hinge_1_ = 0;
};
}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_CARTPOLE_H_
