// dm_control.suite.acrobot: a two-link pendulum actuated at the elbow
// (swingup, swingup_sparse).
#ifndef ENVPOOL_MUJOCO_DMC_ACROBOT_H_
#define ENVPOOL_MUJOCO_DMC_ACROBOT_H_

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Acrobot : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"swingup", "swingup_sparse"};
  static Config Defaults() { return DmcDefaults("swingup", 10.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> orientations = Obs("orientations", {4});
    StateKey<double> velocity = Obs("velocity", {2});
    explicit Spec(const Acrobot& e) { Finish(e); }
  };

  explicit Acrobot(const Config& c)
      : DmcEnv(c, "acrobot"), sparse_(CheckTask(c, kTasks) == "swingup_sparse"), spec_(*this) {
    shoulder_ = JointQposAdr("shoulder");
    elbow_ = JointQposAdr("elbow");
    upper_ = Id(mjOBJ_BODY, "upper_arm");
    lower_ = Id(mjOBJ_BODY, "lower_arm");
    target_ = Id(mjOBJ_SITE, "target");
    tip_ = Id(mjOBJ_SITE, "tip");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    d_->qpos[shoulder_] = random_.Uniform(-std::numbers::pi, std::numbers::pi);
    d_->qpos[elbow_] = random_.Uniform(-std::numbers::pi, std::numbers::pi);
  }

  void Observe(const StateRow& out) override {
    double* o = out[spec_.orientations];
    o[0] = d_->xmat[9 * upper_ + 2];
    o[1] = d_->xmat[9 * lower_ + 2];
    o[2] = d_->xmat[9 * upper_ + 8];
    o[3] = d_->xmat[9 * lower_ + 8];
    std::copy(d_->qvel, d_->qvel + 2, out[spec_.velocity]);
  }

  double Reward() override {
    const double* t = d_->site_xpos + 3 * target_;
    const double* p = d_->site_xpos + 3 * tip_;
    const double dist = Norm({t[0] - p[0], t[1] - p[1], t[2] - p[2]});
    return Tolerance(dist, 0, m_->site_size[3 * target_], sparse_ ? 0 : 1);
  }

 private:
  bool sparse_;
  Spec spec_;
  int shoulder_ = 0, elbow_ = 0, upper_ = 0, lower_ = 0, target_ = 0, tip_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_ACROBOT_H_
