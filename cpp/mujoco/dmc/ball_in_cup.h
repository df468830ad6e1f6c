// dm_control.suite.ball_in_cup: swing a ball on a string into a cup (catch).
#ifndef ENVPOOL_MUJOCO_DMC_BALL_IN_CUP_H_
#define ENVPOOL_MUJOCO_DMC_BALL_IN_CUP_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class BallInCup : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"catch"};
  // control_timestep .02 over the model's .002.
  static Config Defaults() { return DmcDefaults("catch", 20.0, 10); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity;
    explicit Spec(const BallInCup& e) {
      position = Obs("position", {e.m_->nq});
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e);
    }
  };

  explicit BallInCup(const Config& c) : DmcEnv(c, "ball_in_cup"), spec_(*this) {
    CheckTask(c, kTasks);
    ball_x_ = JointQposAdr("ball_x");
    ball_z_ = JointQposAdr("ball_z");
    target_ = Id(mjOBJ_SITE, "target");
    ball_body_ = Id(mjOBJ_BODY, "ball");
    ball_geom_ = Id(mjOBJ_GEOM, "ball");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    // Redraw the ball until it does not penetrate the cup.
    bool penetrating = true;
    while (penetrating) {
      d_->qpos[ball_x_] = random_.Uniform(-.2, .2);
      d_->qpos[ball_z_] = random_.Uniform(.2, .5);
      ForwardWithoutActuation();
      penetrating = d_->ncon > 0;
    }
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos, d_->qpos + m_->nq, out[spec_.position]);
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double ball_size = m_->geom_size[3 * ball_geom_];
    for (int k : {0, 2}) {
      const double to_target = std::abs(d_->site_xpos[3 * target_ + k] - d_->xpos[3 * ball_body_ + k]);
      if (!(to_target < m_->site_size[3 * target_ + k] - ball_size)) return 0.0;
    }
    return 1.0;
  }

 private:
  Spec spec_;
  int ball_x_ = 0, ball_z_ = 0, target_ = 0, ball_body_ = 0, ball_geom_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_BALL_IN_CUP_H_
