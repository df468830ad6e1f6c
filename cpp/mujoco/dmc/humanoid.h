// dm_control.suite.humanoid (stand, walk, run, run_pure_state) and, on the
// same task code with other names, humanoid_CMU (humanoid_cmu.h).
#ifndef ENVPOOL_MUJOCO_DMC_HUMANOID_H_
#define ENVPOOL_MUJOCO_DMC_HUMANOID_H_

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

// The humanoid task on a model: its torso body, its four limbs, the
// torso's subtree velocity sensor and the xmat entry that measures upright.
class HumanoidBase : public DmcEnv {
 public:
  struct Names {
    const char* domain;
    const char* torso;
    std::array<const char*, 4> limbs;  // left hand, left foot, right hand, right foot
    const char* com_velocity;
    int upright;  // xmat index: zz for humanoid, zy for humanoid_CMU
  };

  struct Spec : DmcSpec {
    StateKey<double> joint_angles, head_height, extremities, torso_vertical, com_velocity, position, velocity;
    explicit Spec(const HumanoidBase& e) {
      if (e.pure_state_) {
        position = Obs("position", {e.m_->nq});
      } else {
        joint_angles = Obs("joint_angles", {e.m_->nq - 7});
        head_height = Obs("head_height", {});
        extremities = Obs("extremities", {12});
        torso_vertical = Obs("torso_vertical", {3});
        com_velocity = Obs("com_velocity", {3});
      }
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e);
    }
  };
  const DmcSpec& spec() const override { return spec_; }

 protected:
  HumanoidBase(const Config& c, const Names& names, double move_speed, bool pure_state)
      : DmcEnv(c, names.domain),
        move_speed_(move_speed),
        pure_state_(pure_state),
        upright_(names.upright),
        spec_(*this) {
    torso_ = Id(mjOBJ_BODY, names.torso);
    head_ = Id(mjOBJ_BODY, "head");
    for (int i = 0; i < 4; ++i) limbs_[i] = Id(mjOBJ_BODY, names.limbs[i]);
    com_velocity_ = SensorAdr(names.com_velocity);
    tol_.resize(m_->nu);
  }

  void InitializeEpisode() override {
    bool penetrating = true;
    while (penetrating) {
      RandomizeLimitedAndRotationalJoints();
      ForwardWithoutActuation();
      penetrating = d_->ncon > 0;
    }
  }

  void Observe(const StateRow& out) override {
    if (pure_state_) {
      std::copy(d_->qpos, d_->qpos + m_->nq, out[spec_.position]);
    } else {
      std::copy(d_->qpos + 7, d_->qpos + m_->nq, out[spec_.joint_angles]);
      *out[spec_.head_height] = d_->xpos[3 * head_ + 2];
      // Each limb relative to the torso, times the torso's orientation.
      const double* r = d_->xmat + 9 * torso_;
      const double* p = d_->xpos + 3 * torso_;
      double* e = out[spec_.extremities];
      for (int limb : limbs_) {
        const double* q = d_->xpos + 3 * limb;
        const double v[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        for (int j = 0; j < 3; ++j) *e++ = (v[0] * r[j] + v[1] * r[3 + j]) + v[2] * r[6 + j];
      }
      std::copy(r + 6, r + 9, out[spec_.torso_vertical]);
      std::copy(d_->sensordata + com_velocity_, d_->sensordata + com_velocity_ + 3, out[spec_.com_velocity]);
    }
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    constexpr double kStandHeight = 1.4;
    const double standing = Tolerance(d_->xpos[3 * head_ + 2], kStandHeight, kInf, kStandHeight / 4);
    const double upright = Tolerance(d_->xmat[9 * torso_ + upright_], 0.9, kInf, 1.9, Sigmoid::kLinear, 0);
    const double stand_reward = standing * upright;
    for (int i = 0; i < m_->nu; ++i) tol_[i] = Tolerance(d_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0);
    double small_control = NumpySum(tol_.data(), m_->nu) / m_->nu;  // np.mean
    small_control = (4 + small_control) / 5;
    const double* v = d_->sensordata + com_velocity_;
    if (move_speed_ == 0) {
      const double dont_move = (Tolerance(v[0], 0, 0, 2) + Tolerance(v[1], 0, 0, 2)) / 2;
      return small_control * stand_reward * dont_move;
    }
    double move = Tolerance(Norm({v[0], v[1]}), move_speed_, kInf, move_speed_, Sigmoid::kLinear, 0);
    move = (5 * move + 1) / 6;
    return small_control * stand_reward * move;
  }

  double move_speed_;
  bool pure_state_;
  int upright_;
  Spec spec_;
  int torso_ = 0, head_ = 0, com_velocity_ = 0;
  std::array<int, 4> limbs_{};
  std::vector<double> tol_;
};

class Humanoid : public HumanoidBase {
 public:
  static constexpr const char* kTasks[] = {"stand", "walk", "run", "run_pure_state"};
  // control_timestep .025 over the model's .005.
  static Config Defaults() { return DmcDefaults("stand", 25.0, 5); }
  static constexpr Names kNames{
      "humanoid", "torso", {"left_hand", "left_foot", "right_hand", "right_foot"}, "torso_subtreelinvel", 8};

  explicit Humanoid(const Config& c)
      : HumanoidBase(c, kNames, Speed(c.Get<std::string>("task_name")),
                     c.Get<std::string>("task_name") == "run_pure_state") {
    CheckTask(c, kTasks);
  }

 private:
  static double Speed(const std::string& task) { return task == "stand" ? 0 : task == "walk" ? 1 : 10; }
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_HUMANOID_H_
