// dm_control.suite.lqr: a chain of springs, the first bodies actuated, with
// a quadratic cost (lqr_2_1, lqr_6_2). The bodies are XML edits made in
// src/envpool/tasks/dmc.py; their stiffness is drawn from the env's generator
// when it is seeded (dm_control draws it from the task's RandomState before
// the first episode), so each env keeps its own model copy.
#ifndef ENVPOOL_MUJOCO_DMC_LQR_H_
#define ENVPOOL_MUJOCO_DMC_LQR_H_

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Lqr : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"lqr_2_1", "lqr_6_2"};
  static Config Defaults() { return DmcDefaults("lqr_2_1", kInf, 1); }

  struct Spec : DmcSpec {
    StateKey<double> position, velocity;
    explicit Spec(const Lqr& e) {
      position = Obs("position", {e.m_->nq});
      velocity = Obs("velocity", {e.m_->nv});
      Finish(e, "stiffness", e.m_->njnt);
    }
  };

  explicit Lqr(const Config& c) : DmcEnv(c, "lqr", /*own_model=*/true), spec_(*this) {
    CheckTask(c, kTasks);
    for (int b = 0; b < m_->njnt; ++b) {
      const std::string name = "joint_" + std::to_string(b);
      joints_.push_back(Id(mjOBJ_JOINT, name.c_str()));
    }
  }
  const DmcSpec& spec() const override { return spec_; }

  void Seed(uint64_t seed) override {
    DmcEnv::Seed(seed);
    // _make_body: stiffness U(15, 25), then damping U(0, 0), body by body.
    for (int j : joints_) {
      m_->jnt_stiffness[j] = random_.Uniform(15, 25);
      m_->dof_damping[m_->jnt_dofadr[j]] = random_.Uniform(0, 0);
    }
    draws_.assign(m_->jnt_stiffness, m_->jnt_stiffness + m_->njnt);
  }

 protected:
  void InitializeEpisode() override {
    const int n = m_->nq;
    unit_.resize(n);
    double* unit = unit_.data();
    for (int i = 0; i < n; ++i) unit[i] = random_.Gauss();
    const double norm = VectorNorm(unit, n);
    for (int i = 0; i < n; ++i) d_->qpos[i] = std::sqrt(2.0) * unit[i] / norm;
  }

  void Observe(const StateRow& out) override {
    std::copy(d_->qpos, d_->qpos + m_->nq, out[spec_.position]);
    std::copy(d_->qvel, d_->qvel + m_->nv, out[spec_.velocity]);
  }

  double Reward() override {
    const double state_cost = 0.5 * Dot(d_->qpos, d_->qpos, m_->nq);
    const double control_l2_norm = 0.5 * Dot(d_->ctrl, d_->ctrl, m_->nu);
    return 1 - (state_cost + control_l2_norm * 0.1);
  }

  std::optional<double> Termination() override {
    // The norm of physics.state(): qpos, qvel, act.
    double s = 0.0;
    for (int i = 0; i < m_->nq; ++i) s += d_->qpos[i] * d_->qpos[i];
    for (int i = 0; i < m_->nv; ++i) s += d_->qvel[i] * d_->qvel[i];
    for (int i = 0; i < m_->na; ++i) s += d_->act[i] * d_->act[i];
    if (std::sqrt(s) < 1e-6) return 0.0;
    return std::nullopt;
  }

 private:
  // np.dot of short vectors (OpenBLAS's scalar loop, see Norm).
  static double Dot(const double* a, const double* b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  static double VectorNorm(const double* a, int n) { return std::sqrt(Dot(a, a, n)); }

  Spec spec_;
  std::vector<int> joints_;
  std::vector<double> unit_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_LQR_H_
