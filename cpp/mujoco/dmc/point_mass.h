// dm_control.suite.point_mass: a point mass driven to a target (easy; hard
// randomises the actuators' joint mixing per episode: its own model copy).
#ifndef ENVPOOL_MUJOCO_DMC_POINT_MASS_H_
#define ENVPOOL_MUJOCO_DMC_POINT_MASS_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class PointMass : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"easy", "hard"};
  static Config Defaults() { return DmcDefaults("easy", 20.0, 1); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity;
    explicit Spec(const PointMass& e) {
      position = Obs("position", {e.m_->nq});
      velocity = Obs("velocity", {e.m_->nv});
      if (e.randomize_gains_) {
        Finish(e, "wrap_prm", 4);
      } else {
        Finish(e);
      }
    }
  };

  explicit PointMass(const Config& c)
      : DmcEnv(c, "point_mass", c.Get<std::string>("task_name") == "hard"),
        randomize_gains_(CheckTask(c, kTasks) == "hard"),
        spec_(*this) {
    target_ = Id(mjOBJ_GEOM, "target");
    pointmass_ = Id(mjOBJ_GEOM, "pointmass");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    if (!randomize_gains_) return;
    double dir1[2], dir2[2];
    RandomDirection(dir1);
    bool parallel = true;
    while (parallel) {
      RandomDirection(dir2);
      parallel = std::abs(dir1[0] * dir2[0] + dir1[1] * dir2[1]) > 0.9;  // np.dot (see Norm)
    }
    m_->wrap_prm[0] = dir1[0];
    m_->wrap_prm[1] = dir1[1];
    m_->wrap_prm[2] = dir2[0];
    m_->wrap_prm[3] = dir2[1];
    draws_.assign(m_->wrap_prm, m_->wrap_prm + 4);
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos, d_->qpos + m_->nq, out[spec_.position]);
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double* t = d_->geom_xpos + 3 * target_;
    const double* p = d_->geom_xpos + 3 * pointmass_;
    const double dist = Norm({t[0] - p[0], t[1] - p[1], t[2] - p[2]});
    const double target_size = m_->geom_size[3 * target_];
    const double near_target = Tolerance(dist, 0, target_size, target_size);
    double control_reward = 0;
    for (int i = 0; i < m_->nu; ++i) control_reward += Tolerance(d_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0);
    control_reward /= m_->nu;
    const double small_control = (control_reward + 4) / 5;
    return near_target * small_control;
  }

 private:
  // randn(2), normalised by np.linalg.norm.
  void RandomDirection(double* dir) {
    dir[0] = random_.Gauss();
    dir[1] = random_.Gauss();
    const double norm = Norm({dir[0], dir[1]});
    dir[0] /= norm;
    dir[1] /= norm;
  }

  bool randomize_gains_;
  Spec spec_;
  int target_ = 0, pointmass_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_POINT_MASS_H_
