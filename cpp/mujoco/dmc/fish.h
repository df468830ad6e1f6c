// dm_control.suite.fish: a fish in a fluid, turning upright (upright) or
// swimming to a random target (swim: the target moves per episode, so the
// env keeps its own model copy).
#ifndef ENVPOOL_MUJOCO_DMC_FISH_H_
#define ENVPOOL_MUJOCO_DMC_FISH_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Fish : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"upright", "swim"};
  static constexpr const char* kJoints[] = {"tail1",          "tail_twist",   "tail2",        "finright_roll",
                                            "finright_pitch", "finleft_roll", "finleft_pitch"};
  // control_timestep .04 over the model's .004.
  static Config Defaults() { return DmcDefaults("upright", 40.0, 10); }

  struct Spec : DmcSpec {
    StateKey<double> joint_angles = Obs("joint_angles", {7});
    StateKey<double> upright = Obs("upright", {});
    StateKey<double> target, velocity;
    explicit Spec(const Fish& e) {
      if (e.swim_) target = Obs("target", {3});
      velocity = Obs("velocity", {e.m_->nv});
      if (e.swim_) {
        Finish(e, "target0", 3);
      } else {
        Finish(e);
      }
    }
  };

  explicit Fish(const Config& c)
      : DmcEnv(c, "fish", /*own_model=*/c.Get<std::string>("task_name") == "swim"),
        swim_(CheckTask(c, kTasks) == "swim"),
        spec_(*this) {
    for (int i = 0; i < 7; ++i) {
      const int j = Id(mjOBJ_JOINT, kJoints[i]);
      joint_qpos_[i] = m_->jnt_qposadr[j];
      joint_dof_[i] = m_->jnt_dofadr[j];
    }
    root_ = JointQposAdr("root");
    torso_ = Id(mjOBJ_BODY, "torso");
    target_ = Id(mjOBJ_GEOM, "target");
    mouth_ = Id(mjOBJ_GEOM, "mouth");
  }
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    double quat[4];
    for (double& q : quat) q = random_.Gauss();
    const double norm = Norm4(quat);
    for (int k = 0; k < 4; ++k) d_->qpos[root_ + 3 + k] = quat[k] / norm;
    for (int i = 0; i < 7; ++i) d_->qpos[joint_qpos_[i]] = random_.Uniform(-.2, .2);
    if (swim_) {
      m_->geom_pos[3 * target_] = random_.Uniform(-.4, .4);
      m_->geom_pos[3 * target_ + 1] = random_.Uniform(-.4, .4);
      m_->geom_pos[3 * target_ + 2] = random_.Uniform(.1, .3);
      draws_.assign(m_->geom_pos + 3 * target_, m_->geom_pos + 3 * target_ + 3);
    }
    // Upright hides the target (geom_rgba): rendering only, on the shared
    // model, so it is not copied here.
  }

  void Observe(const StateRow& out) override {
    double* a = out[spec_.joint_angles];
    for (int i = 0; i < 7; ++i) a[i] = d_->qpos[joint_qpos_[i]];
    *out[spec_.upright] = d_->xmat[9 * torso_ + 8];
    if (swim_) {
      const std::array<double, 3> t = MouthToTarget();
      std::copy(t.begin(), t.end(), out[spec_.target]);
    }
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double upright = d_->xmat[9 * torso_ + 8];
    if (!swim_) return Tolerance(upright, 1, 1, 1);
    const double radii = m_->geom_size[3 * mouth_] + m_->geom_size[3 * target_];
    const std::array<double, 3> t = MouthToTarget();
    const double in_target = Tolerance(Norm({t[0], t[1], t[2]}), 0, radii, 2 * radii);
    const double is_upright = 0.5 * (upright + 1);
    return (7 * in_target + is_upright) / 8;
  }

 private:
  // (target - mouth) in the mouth's frame: the row vector times geom_xmat,
  // summed in order without FMA (numpy's vector-matrix dot).
  std::array<double, 3> MouthToTarget() const {
    const double* t = d_->geom_xpos + 3 * target_;
    const double* m = d_->geom_xpos + 3 * mouth_;
    const double v[3] = {t[0] - m[0], t[1] - m[1], t[2] - m[2]};
    const double* r = d_->geom_xmat + 9 * mouth_;
    std::array<double, 3> out{};
    for (int j = 0; j < 3; ++j) out[j] = (v[0] * r[j] + v[1] * r[3 + j]) + v[2] * r[6 + j];
    return out;
  }

  bool swim_;
  Spec spec_;
  std::array<int, 7> joint_qpos_{}, joint_dof_{};
  int root_ = 0, torso_ = 0, target_ = 0, mouth_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_FISH_H_
