// dm_control.suite.quadruped: a four-legged ant-like walker (walk, run:
// move at a speed; escape: climb out of a random bowl-shaped terrain, drawn
// per episode on the env's own model copy; fetch: bring a ball to the
// target in a walled arena). The floor size, terrain, walls, ball and
// rangefinders are XML edits made in src/envpool/tasks/dmc.py.
#ifndef ENVPOOL_MUJOCO_DMC_QUADRUPED_H_
#define ENVPOOL_MUJOCO_DMC_QUADRUPED_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Quadruped : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"walk", "run", "escape", "fetch"};
  // control_timestep .02 over the model's .005.
  static Config Defaults() { return DmcDefaults("walk", 20.0, 4); }

  struct Spec : DmcSpec {
    StateKey<double> egocentric_state, torso_velocity, torso_upright, imu, force_torque;
    StateKey<double> origin, rangefinder;          // escape
    StateKey<double> ball_state, target_position;  // fetch
    explicit Spec(const Quadruped& e) {
      egocentric_state = Obs("egocentric_state", {2 * static_cast<int64_t>(e.hinge_qpos_.size()) + e.m_->na});
      torso_velocity = Obs("torso_velocity", {3});
      torso_upright = Obs("torso_upright", {});
      imu = Obs("imu", {static_cast<int64_t>(e.imu_.size())});
      force_torque = Obs("force_torque", {static_cast<int64_t>(e.force_torque_.size())});
      if (e.escape_) {
        origin = Obs("origin", {3});
        rangefinder = Obs("rangefinder", {static_cast<int64_t>(e.rangefinder_.size())});
      }
      if (e.fetch_) {
        ball_state = Obs("ball_state", {9});
        target_position = Obs("target_position", {3});
      }
      Finish(e);
    }
  };

  explicit Quadruped(const Config& c)
      : DmcEnv(c, "quadruped", /*own_model=*/c.Get<std::string>("task_name") == "escape"), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    if (escape_) Terrain();
    if (!fetch_) {
      double q[4];
      for (double& v : q) v = random_.Gauss();
      const double norm = Norm4(q);
      for (double& v : q) v /= norm;
      FindNonContactingHeight(q, 0.0, 0.0);
      return;
    }
    const double azimuth = random_.Uniform(0, 2 * std::numbers::pi);
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
    if (escape_) {
      const double* p = d_->xpos + 3 * torso_;
      const double v[3] = {p[0], p[1], p[2]};
      double* o = out[spec_.origin];
      InTorsoFrame(v, o);
      for (int k = 0; k < 3; ++k) o[k] = -o[k];
      double* rf = out[spec_.rangefinder];
      for (int a : rangefinder_) *rf++ = d_->sensordata[a] == -1.0 ? 1.0 : std::tanh(d_->sensordata[a]);
    }
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
    if (escape_) {
      static const double kDeviation = std::cos(20 * (std::numbers::pi / 180.0));  // np.cos(np.deg2rad(20))
      const double upright = Tolerance(d_->xmat[9 * torso_ + 8], kDeviation, kInf, 1 + kDeviation, Sigmoid::kLinear, 0);
      const double terrain_size = m_->hfield_size[0];
      const double* w = d_->site_xpos + 3 * workspace_;
      const double escape = Tolerance(Norm({w[0], w[1], w[2]}), terrain_size, kInf, terrain_size, Sigmoid::kLinear, 0);
      return upright * escape;
    }
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
    escape_ = task == "escape";
    speed_ = task == "run" ? 5 : 0.5;
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_type[j] != mjJNT_HINGE) continue;
      hinge_qpos_.push_back(m_->jnt_qposadr[j]);
      hinge_dof_.push_back(m_->jnt_dofadr[j]);
    }
    // Sensors by type, in sensor order (dm_control's _get_sensor_names).
    for (int s = 0; s < m_->nsensor; ++s) {
      const int type = m_->sensor_type[s];
      std::vector<int>* dst = nullptr;
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) dst = &imu_;
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE) dst = &force_torque_;
      if (type == mjSENS_RANGEFINDER) dst = &rangefinder_;
      if (dst == nullptr) continue;
      for (int k = 0; k < m_->sensor_dim[s]; ++k) dst->push_back(m_->sensor_adr[s] + k);
    }
    velocimeter_ = SensorAdr("velocimeter");
    torso_ = Id(mjOBJ_BODY, "torso");
    root_qpos_ = JointQposAdr("root");
    root_dof_ = JointDofAdr("root");
    floor_ = Id(mjOBJ_GEOM, "floor");
    if (fetch_ || escape_) workspace_ = Id(mjOBJ_SITE, "workspace");
    if (escape_ && (m_->nhfield < 1 || m_->hfield_nrow[0] != m_->hfield_ncol[0]))
      throw std::invalid_argument("quadruped escape: the model needs a square height field");
    if (escape_) UploadHFieldsWhenRendering();
    if (fetch_) {
      ball_body_ = Id(mjOBJ_BODY, "ball");
      ball_geom_ = Id(mjOBJ_GEOM, "ball");
      ball_qpos_ = JointQposAdr("ball_root");
      ball_dof_ = JointDofAdr("ball_root");
      target_ = Id(mjOBJ_SITE, "target");
    }
  }

  // Escape.initialize_episode's terrain: a bowl times smoothed random bumps
  // (scipy.ndimage.zoom of a uniform grid, a cubic spline), into the
  // float32 height field.
  void Terrain() {
    const int res = m_->hfield_nrow[0];
    const int bump_res = static_cast<int>(2 * m_->hfield_size[0] / 2);  // _TERRAIN_BUMP_SCALE = 2
    std::vector<double> bumps(static_cast<size_t>(bump_res) * bump_res);
    for (double& b : bumps) b = random_.Uniform(0.15, 1);  // _TERRAIN_SMOOTHNESS
    const std::vector<double> smooth = Zoom(bumps, bump_res, res);
    std::vector<double> grid(res);  // np.ogrid[-1:1:res*1j]
    const double step = (1.0 - -1.0) / static_cast<double>(res - 1);
    for (int i = 0; i < res; ++i) grid[i] = static_cast<double>(i) * step + -1.0;
    float* h = m_->hfield_data + m_->hfield_adr[0];
    for (int r = 0; r < res; ++r) {
      for (int c = 0; c < res; ++c) {
        const double radius = std::clamp(std::sqrt(grid[c] * grid[c] + grid[r] * grid[r]), .04, 1.0);
        const double bowl = .5 - std::cos(2 * std::numbers::pi * radius) / 2;
        h[r * res + c] = static_cast<float>(bowl * smooth[static_cast<size_t>(r) * res + c]);
      }
    }
  }

  // scipy.ndimage.zoom(a, out / n) of an n x n grid, order 3, mode
  // 'constant': scipy's spline prefilter (mirror boundary, axis 0 then 1)
  // and its interpolation loop, operation for operation.
  static std::vector<double> Zoom(std::vector<double> c, int n, int out) {
    std::vector<double> line(n);
    for (int axis = 0; axis < 2; ++axis) {
      for (int l = 0; l < n; ++l) {
        for (int k = 0; k < n; ++k) line[k] = axis == 0 ? c[k * n + l] : c[l * n + k];
        SplineFilter(line.data(), n);
        for (int k = 0; k < n; ++k) (axis == 0 ? c[k * n + l] : c[l * n + k]) = line[k];
      }
    }
    struct Taps {
      bool zero;
      int idx[4];
      double w[4];
    };
    std::vector<Taps> taps(out);
    const double zoom = static_cast<double>(n - 1) / static_cast<double>(out - 1);
    for (int k = 0; k < out; ++k) {
      const double cc = static_cast<double>(k) * zoom;
      Taps& t = taps[k];
      t.zero = cc < 0 || cc > n - 1;
      if (t.zero) continue;
      const int start = static_cast<int>(std::floor(cc)) - 1;
      for (int h = 0; h < 4; ++h) t.idx[h] = Mirror(start + h, n);
      const double x = cc - std::floor(cc), y = x, z = 1.0 - x;
      t.w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
      t.w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
      t.w[0] = z * z * z / 6.0;
      t.w[3] = 1.0;
      for (int h = 0; h < 3; ++h) t.w[3] -= t.w[h];
    }
    std::vector<double> result(static_cast<size_t>(out) * out, 0.0);
    for (int i = 0; i < out; ++i) {
      for (int j = 0; j < out; ++j) {
        const Taps &ti = taps[i], &tj = taps[j];
        if (ti.zero || tj.zero) continue;
        double t = 0.0;
        for (int a = 0; a < 4; ++a) {
          for (int b = 0; b < 4; ++b) {
            double coeff = c[ti.idx[a] * n + tj.idx[b]];
            coeff *= ti.w[a];
            coeff *= tj.w[b];
            t += coeff;
          }
        }
        result[static_cast<size_t>(i) * out + j] = t;
      }
    }
    return result;
  }

  // scipy's apply_filter for the cubic spline's pole, mirror boundary.
  static void SplineFilter(double* c, int n) {
    const double z = -0.267949192431122706472553658494127633;  // sqrt(3) - 2
    const double gain = (1.0 - z) * (1.0 - 1.0 / z);
    for (int i = 0; i < n; ++i) c[i] *= gain;
    double z_i = z;
    const double z_n_1 = std::pow(z, n - 1);
    c[0] = c[0] + z_n_1 * c[n - 1];
    for (int i = 1; i < n - 1; ++i) {
      c[0] += z_i * (c[i] + z_n_1 * c[n - 1 - i]);
      z_i *= z;
    }
    c[0] /= 1 - z_n_1 * z_n_1;
    for (int i = 1; i < n; ++i) c[i] += z * c[i - 1];
    c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1);
    for (int i = n - 2; i >= 0; --i) c[i] = z * (c[i + 1] - c[i]);
  }

  // scipy's map_coordinate, mirror mode, for a tap index.
  static int Mirror(int idx, int n) {
    const int sz2 = 2 * n - 2;
    if (idx < 0) {
      idx = sz2 * (-idx / sz2) + idx;
      return idx <= 1 - n ? idx + sz2 : -idx;
    }
    if (idx > n - 1) {
      idx -= sz2 * (idx / sz2);
      if (idx >= n) idx = sz2 - idx;
    }
    return idx;
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

  bool fetch_ = false, escape_ = false;
  double speed_ = 0;
  std::vector<int> hinge_qpos_, hinge_dof_, imu_, force_torque_, rangefinder_;
  int velocimeter_ = 0, torso_ = 0, root_qpos_ = 0, root_dof_ = 0, floor_ = 0;
  int ball_body_ = 0, ball_geom_ = 0, ball_qpos_ = 0, ball_dof_ = 0, target_ = 0, workspace_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_QUADRUPED_H_
