// dm_control.suite.swimmer: an n-link swimmer reaching a random target
// (swimmer6, swimmer15: the links are XML edits made by src/envpool/tasks/dmc.py;
// the target moves per episode, so the env keeps its own model copy).
#ifndef ENVPOOL_MUJOCO_DMC_SWIMMER_H_
#define ENVPOOL_MUJOCO_DMC_SWIMMER_H_

#include <algorithm>
#include <array>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Swimmer : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"swimmer6", "swimmer15"};
  // control_timestep .03 over the model's .002.
  static Config Defaults() { return DmcDefaults("swimmer6", 30.0, 15); }

  struct Spec : DmcSpec {
    StateKey<double> joints, to_target, body_velocities;
    explicit Spec(const Swimmer& e) {
      joints = Obs("joints", {e.m_->nq - 3});
      to_target = Obs("to_target", {2});
      body_velocities = Obs("body_velocities", {(e.m_->nsensordata - 12) / 2});
      Finish(e, "target0", 2);
    }
  };

  explicit Swimmer(const Config& c) : DmcEnv(c, "swimmer", /*own_model=*/true), spec_(*this) {
    CheckTask(c, kTasks);
    target_ = Id(mjOBJ_GEOM, "target");
    nose_ = Id(mjOBJ_GEOM, "nose");
    head_ = Id(mjOBJ_BODY, "head");
    light_ = Id(mjOBJ_LIGHT, "target_light");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    const bool close_target = random_.RandomSample() < .2;
    const double box = close_target ? .3 : 2;
    const double x = random_.Uniform(-box, box), y = random_.Uniform(-box, box);
    m_->geom_pos[3 * target_] = x;
    m_->geom_pos[3 * target_ + 1] = y;
    m_->light_pos[3 * light_] = x;
    m_->light_pos[3 * light_ + 1] = y;
    draws_ = {x, y};
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos + 3, d_->qpos + m_->nq, out[spec_.joints]);
    const std::array<double, 2> t = NoseToTarget();
    std::copy(t.begin(), t.end(), out[spec_.to_target]);
    double* v = out[spec_.body_velocities];
    for (int s = 12; s < m_->nsensordata; s += 6) {
      *v++ = d_->sensordata[s];
      *v++ = d_->sensordata[s + 1];
      *v++ = d_->sensordata[s + 5];
    }
  }

  double Reward() override {
    const double target_size = m_->geom_size[3 * target_];
    const std::array<double, 2> t = NoseToTarget();
    return Tolerance(Norm({t[0], t[1]}), 0, target_size, 5 * target_size, Sigmoid::kLongTail);
  }

 private:
  // (target - nose) times the head's orientation, x and y.
  std::array<double, 2> NoseToTarget() const {
    const double* t = d_->geom_xpos + 3 * target_;
    const double* n = d_->geom_xpos + 3 * nose_;
    const double v[3] = {t[0] - n[0], t[1] - n[1], t[2] - n[2]};
    const double* r = d_->xmat + 9 * head_;
    return {(v[0] * r[0] + v[1] * r[3]) + v[2] * r[6], (v[0] * r[1] + v[1] * r[4]) + v[2] * r[7]};
  }

  Spec spec_;
  int target_ = 0, nose_ = 0, head_ = 0, light_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_SWIMMER_H_
