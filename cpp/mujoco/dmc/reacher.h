// dm_control.suite.reacher: a two-link arm reaching a random target (easy,
// hard: the target's size). The target moves per episode: its own model copy.
#ifndef ENVPOOL_MUJOCO_DMC_REACHER_H_
#define ENVPOOL_MUJOCO_DMC_REACHER_H_

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Reacher : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"easy", "hard"};
  static Config Defaults() { return DmcDefaults("easy", 20.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> position, to_target, velocity;
    explicit Spec(const Reacher& e) {
      position = Obs("position", {e.m_->nq});
      to_target = Obs("to_target", {2});
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e, "target", 2);
    }
  };

  explicit Reacher(const Config& c)
      : DmcEnv(c, "reacher", /*own_model=*/true),
        target_size_(CheckTask(c, kTasks) == "easy" ? .05 : .015),
        spec_(*this) {
    target_ = Id(mjOBJ_GEOM, "target");
    finger_ = Id(mjOBJ_GEOM, "finger");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    m_->geom_size[3 * target_] = target_size_;
    RandomizeLimitedAndRotationalJoints();
    const double angle = random_.Uniform(0, 2 * std::numbers::pi);
    const double radius = random_.Uniform(.05, .20);
    m_->geom_pos[3 * target_] = radius * std::sin(angle);
    m_->geom_pos[3 * target_ + 1] = radius * std::cos(angle);
    draws_ = {m_->geom_pos[3 * target_], m_->geom_pos[3 * target_ + 1]};
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos, d_->qpos + m_->nq, out[spec_.position]);
    double* t = out[spec_.to_target];
    t[0] = d_->geom_xpos[3 * target_] - d_->geom_xpos[3 * finger_];
    t[1] = d_->geom_xpos[3 * target_ + 1] - d_->geom_xpos[3 * finger_ + 1];
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double radii = m_->geom_size[3 * target_] + m_->geom_size[3 * finger_];
    const double dx = d_->geom_xpos[3 * target_] - d_->geom_xpos[3 * finger_];
    const double dy = d_->geom_xpos[3 * target_ + 1] - d_->geom_xpos[3 * finger_ + 1];
    return Tolerance(Norm({dx, dy}), 0, radii);
  }

 private:
  double target_size_;
  Spec spec_;
  int target_ = 0, finger_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_REACHER_H_
