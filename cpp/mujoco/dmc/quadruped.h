// dm_control.suite.quadruped: a four-legged ant-like walker (walk, run:
// move at a speed; fetch: bring a ball to the target in a walled arena).
// The floor size, walls, ball and sensors are XML edits made in
// envpool/tasks/dmc.py.
#ifndef ENVPOOL_MUJOCO_DMC_QUADRUPED_H_
#define ENVPOOL_MUJOCO_DMC_QUADRUPED_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Quadruped : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"walk", "run", "fetch"};
  // control_timestep .02 over the model's .005.
  static Config Defaults() { return DmcDefaults("walk", 20.0, 4); }

  struct Spec : DmcSpec {
    StateKey<double> egocentric_state, torso_velocity, torso_upright, imu, force_torque;
    StateKey<double> ball_state, target_position;  // fetch
    explicit Spec(const Quadruped& e) {
      egocentric_state = Obs("egocentric_state", {2 * static_cast<int64_t>(e.hinge_qpos_.size()) + e.m_->na});
      torso_velocity = Obs("torso_velocity", {3});
      torso_upright = Obs("torso_upright", {});
      imu = Obs("imu", {static_cast<int64_t>(e.imu_.size())});
      force_torque = Obs("force_torque", {static_cast<int64_t>(e.force_torque_.size())});
      if (e.fetch_) {
        ball_state = Obs("ball_state", {9});
        target_position = Obs("target_position", {3});
      }
      Finish(e);
    }
  };

  explicit Quadruped(const Config& c) : DmcEnv(c, "quadruped"), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    if (!fetch_) {
      double q[4];
      for (double& v : q) v = random_.Gauss();
      const double norm = Norm4(q);
      for (double& v : q) v /= norm;
      FindNonContactingHeight(q, 0.0, 0.0);
      return;
    }
    const double azimuth = random_.Uniform(0, 2 * M_PI);
    const double q[4] = {std::cos(azimuth / 2), 0, 0, std::sin(azimuth / 2)};
    const double spawn_radius = 0.9 * m_->geom_size[3 * floor_];
    const double x = random_.Uniform(-spawn_radius, spawn_radius);
    const double y = random_.Uniform(-spawn_radius, spawn_radius);
    FindNonContactingHeight(q, x, y);
    d_->qpos[ball_qpos_] = random_.Uniform(-spawn_radius, spawn_radius);
    d_->qpos[ball_qpos_ + 1] = random_.Uniform(-spawn_radius, spawn_radius);
    d_->qpos[ball_qpos_ + 2] = 2;
    d_->qvel[ball_dof_] = 5 * random_.Gauss();
    d_->qvel[ball_dof_ + 1] = 5 * random_.Gauss();
  }

  void Observe(const StateRow& out) override {
    double* e = out[spec_.egocentric_state];
    for (int a : hinge_qpos_) *e++ = d_->qpos[a];
    for (int a : hinge_dof_) *e++ = d_->qvel[a];
    std::copy(d_->act, d_->act + m_->na, e);
    std::copy(d_->sensordata + velocimeter_, d_->sensordata + velocimeter_ + 3, out[spec_.torso_velocity]);
    *out[spec_.torso_upright] = d_->xmat[9 * torso_ + 8];
    double* imu = out[spec_.imu];
    for (int a : imu_) *imu++ = d_->sensordata[a];
    double* ft = out[spec_.force_torque];
    for (int a : force_torque_) *ft++ = std::asinh(d_->sensordata[a]);
    if (fetch_) {
      const double* p = d_->xpos + 3 * torso_;
      const double* b = d_->xpos + 3 * ball_body_;
      const double* bv = d_->qvel + ball_dof_;
      const double* rv = d_->qvel + root_dof_;
      const double rows[3][3] = {{b[0] - p[0], b[1] - p[1], b[2] - p[2]},
                                 {bv[0] - rv[0], bv[1] - rv[1], bv[2] - rv[2]},
                                 {bv[3], bv[4], bv[5]}};
      double* s = out[spec_.ball_state];
      for (const auto& row : rows) s = InTorsoFrame(row, s, /*matrix=*/true);
      const double* t = d_->site_xpos + 3 * target_;
      const double v[3] = {t[0] - p[0], t[1] - p[1], t[2] - p[2]};
      InTorsoFrame(v, out[spec_.target_position]);
    }
  }

  double Reward() override {
    // _upright_reward with deviation_angle 0: cos(0) = 1.
    const double upright = Tolerance(d_->xmat[9 * torso_ + 8], 1, kInf, 2, Sigmoid::kLinear, 0);
    if (!fetch_) {
      const double move = Tolerance(d_->sensordata[velocimeter_], speed_, kInf, speed_, Sigmoid::kLinear, 0.5);
      return upright * move;
    }
    const double arena_radius = m_->geom_size[3 * floor_] * std::sqrt(2.0);
    const double workspace_radius = m_->site_size[3 * workspace_];
    const double ball_radius = m_->geom_size[3 * ball_geom_];
    const double* w = d_->site_xpos + 3 * workspace_;
    const double* b = d_->xpos + 3 * ball_body_;
    const double* t = d_->site_xpos + 3 * target_;
    const double reach = Tolerance(Norm({w[0] - b[0], w[1] - b[1]}), 0, workspace_radius + ball_radius, arena_radius,
                                   Sigmoid::kLinear, 0);
    const double fetch =
        Tolerance(Norm({t[0] - b[0], t[1] - b[1]}), 0, m_->site_size[3 * target_], arena_radius, Sigmoid::kLinear, 0);
    return upright * (reach * (0.5 + 0.5 * fetch));
  }

 private:
  void Init(const Config& c) {
    const std::string task = CheckTask(c, kTasks);
    fetch_ = task == "fetch";
    speed_ = task == "run" ? 5 : 0.5;
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_type[j] != mjJNT_HINGE) continue;
      hinge_qpos_.push_back(m_->jnt_qposadr[j]);
      hinge_dof_.push_back(m_->jnt_dofadr[j]);
    }
    // Sensors by type, in sensor order (dm_control's _get_sensor_names).
    for (int s = 0; s < m_->nsensor; ++s) {
      const int type = m_->sensor_type[s];
      std::vector<int>* dst = type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER ? &imu_
                              : type == mjSENS_FORCE || type == mjSENS_TORQUE     ? &force_torque_
                                                                                  : nullptr;
      if (dst == nullptr) continue;
      for (int k = 0; k < m_->sensor_dim[s]; ++k) dst->push_back(m_->sensor_adr[s] + k);
    }
    velocimeter_ = SensorAdr("velocimeter");
    torso_ = Id(mjOBJ_BODY, "torso");
    root_qpos_ = JointQposAdr("root");
    root_dof_ = JointDofAdr("root");
    floor_ = Id(mjOBJ_GEOM, "floor");
    if (fetch_) {
      ball_body_ = Id(mjOBJ_BODY, "ball");
      ball_geom_ = Id(mjOBJ_GEOM, "ball");
      ball_qpos_ = JointQposAdr("ball_root");
      ball_dof_ = JointDofAdr("ball_root");
      target_ = Id(mjOBJ_SITE, "target");
      workspace_ = Id(mjOBJ_SITE, "workspace");
    }
  }

  // _find_non_contacting_height: from z = 0 up in 1 cm steps, each try a
  // fresh reset_context, until nothing touches.
  void FindNonContactingHeight(const double* orientation, double x, double y) {
    double z = 0.0;
    int ncon = 1;
    for (int attempts = 1; ncon > 0; ++attempts) {
      mj_resetData(m_, d_);
      ForwardWithoutActuation();
      double* root = d_->qpos + root_qpos_;
      root[0] = x;
      root[1] = y;
      root[2] = z;
      std::copy(orientation, orientation + 4, root + 3);
      ForwardWithoutActuation();
      ncon = d_->ncon;
      z += 0.01;
      if (attempts > 10000) throw std::runtime_error("quadruped: failed to find a non-contacting configuration");
    }
  }

  // A row vector times the torso's orientation: numpy's vector-matrix dot
  // sums in order; a row of a matrix-matrix dot (OpenBLAS's dgemm) is an FMA
  // chain (both measured on the AVX-512 test machines).
  double* InTorsoFrame(const double* v, double* out, bool matrix = false) const {
    const double* r = d_->xmat + 9 * torso_;
    for (int j = 0; j < 3; ++j)
      *out++ = matrix ? std::fma(v[2], r[6 + j], std::fma(v[1], r[3 + j], v[0] * r[j]))
                      : (v[0] * r[j] + v[1] * r[3 + j]) + v[2] * r[6 + j];
    return out;
  }

  bool fetch_ = false;
  double speed_ = 0;
  std::vector<int> hinge_qpos_, hinge_dof_, imu_, force_torque_;
  int velocimeter_ = 0, torso_ = 0, root_qpos_ = 0, root_dof_ = 0, floor_ = 0;
  int ball_body_ = 0, ball_geom_ = 0, ball_qpos_ = 0, ball_dof_ = 0, target_ = 0, workspace_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_QUADRUPED_H_
