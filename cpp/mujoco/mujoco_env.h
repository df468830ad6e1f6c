// The gymnasium tasks' base, on MujocoBase (mujoco_base.h: what every env on
// libmujoco shares, dm_control's too). The tasks themselves (gymnasium's, v4 and v5 of each in one file)
// are in cpp/mujoco/gym/; cpp/mujoco/register.cc registers them.
//
// Semantics follow gymnasium 1.x arithmetic for arithmetic: the float32
// action is written to the float64 ctrl, control costs of the action are
// float32 with numpy's summation order (np.sum(np.square(action)) is a
// float32 in gymnasium), and 2/3-vector norms use numpy's dot (an FMA chain).
//
// Besides gymnasium's keywords every task has:
//   xml_file      the model file (also a v4 key here, where gymnasium hard
//                 codes it). A bare name is looked up in assets_dir, a path
//                 starting with '/', '.' or '~' is used as is (like
//                 gymnasium's expand_model_path).
//   assets_dir    gymnasium's assets folder; set by src/envpool/tasks/mujoco.py.
//   expose_state  when true, info "qpos0"/"qvel0" hold the episode's initial
//                 qpos/qvel (after reset noise) on every step of the episode.
//   width, height, camera_id, camera_name, default_camera_config, max_geom,
//   visual_options
//                 gymnasium's MujocoEnv rendering keywords (render.h); the
//                 camera config and visual options as text. Also v4 keys.
//   model_randomization, model_info
//                per-episode model randomization (model_params.h), as text;
//                with model_info, info "model_<field>" holds each randomized
//                field's values (float64) on every step.
//   from_pixels, img_height, img_width, state_in_info
//                 pixel observations: obs is the (3, img_height, img_width)
//                 uint8 frame of that camera; state_in_info keeps the state
//                 observation as info "state".
#ifndef ENVPOOL_MUJOCO_MUJOCO_ENV_H_
#define ENVPOOL_MUJOCO_MUJOCO_ENV_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"
#include "cpp/mujoco/model_params.h"
#include "cpp/mujoco/mujoco_base.h"
#include "cpp/mujoco/render.h"

namespace envpool::mujoco {

// Throws std::runtime_error when the headers we compiled against and the
// libmujoco loaded at run time disagree.
void CheckMujocoVersion();
// MuJoCo's fatal errors become C++ exceptions (its default calls exit()) and
// its warnings Python RuntimeWarnings (its default prints them and appends
// them to MUJOCO_LOG.TXT in the working directory).
void InstallMujocoHandlers();

// numpy's float reduction order (pairwise summation with 8 accumulators),
// so float32 costs round exactly like gymnasium's np.sum.
template <class T>
T NumpySum(const T* a, int n) {
  if (n < 8) {
    T r = T(0);
    for (int i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    int i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  int n2 = n / 2;
  n2 -= n2 % 8;
  return NumpySum(a, n2) + NumpySum(a + n2, n - n2);
}

// np.linalg.norm of a 2/3-vector is a dot product, which numpy computes as
// an FMA chain.
inline double Norm2(double x, double y) { return std::sqrt(std::fma(y, y, x * x)); }
inline double Norm3(double x, double y, double z) { return std::sqrt(std::fma(z, z, std::fma(y, y, x * x))); }
inline double Clip(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

// A (min, max) config pair, e.g. healthy_z_range.
struct Range {
  double lo, hi;
};
Range GetRange(const Config& c, const std::string& key);

// A task's config table, in one order for every task: xml_file, frame_skip
// (a keyword from v5 on; v4 hard codes it), the task's own keywords, then
// assets_dir and expose_state.
Config GymDefaults(int version, const std::string& xml_file, int frame_skip,
                   std::initializer_list<std::pair<std::string, ConfigValue>> keys);

// Appends the rendering and pixel-observation keys (see the list above) to a
// task's config table; default_camera_config is the task's (gymnasium's
// DEFAULT_CAMERA_CONFIG of its class, as CameraConfig text).
void AddRenderDefaults(Config* c, const std::string& default_camera_config);

// Appends arrays to one observation row.
class ObsWriter {
 public:
  explicit ObsWriter(double* o) : o_(o) {}
  void Put(double v) { o_[k_++] = v; }
  void Put(const double* src, int n) {
    std::copy(src, src + n, o_ + k_);
    k_ += n;
  }
  void PutClipped(const double* src, int n, double limit) {
    for (int i = 0; i < n; ++i) o_[k_ + i] = Clip(src[i], -limit, limit);
    k_ += n;
  }

 private:
  double* o_;
  int k_ = 0;
};

// Humanoid's body-state observation after qpos and qvel: com inertia, com
// velocity, actuator forces and external contact forces. v4 observes every
// body and dof; v5 drops the world body and the free joint's 6 dofs, and
// each array has an include_*_in_observation switch.
struct BodyStateObs {
  bool v5;
  bool cinert = true, cvel = true, qfrc_actuator = true, cfrc_ext = true;
  BodyStateObs(const Config& c, bool v5);
  int Size(const mjModel* m) const;
  void Write(ObsWriter* w, const mjModel* m, const mjData* d) const;
};

class MujocoEnv;

// What every gymnasium task writes and reads. A task's Spec derives from it,
// adds its info keys with Info() in gymnasium's order, then calls Finish().
// With from_pixels, Finish() turns "obs" into the pixel array: tasks write
// their state observation through MujocoEnv::StateObs(out), never out[obs].
struct MujocoSpec : MujocoBaseSpec {
  StateKey<double> obs;
  ActionKey<float> action;
  // from_pixels: the state observation's size, and info "state" with
  // state_in_info (else -1). (pixels, the frame, is "obs".)
  int state_size = 0;
  StateKey<double> state_info;
  // Every scalar info key, for Reset to zero the ones without a reset value.
  std::vector<StateKey<double>> infos;
  // Absent (index -1) unless AddTendonInfo.
  StateKey<double> tendon_length, tendon_velocity;

  explicit MujocoSpec(int obs_size) : MujocoSpec("obs", obs_size) {}
  // A dict observation's main key ("obs:observation" for the goal
  // environments of cpp/mujoco/robotics/, which add their goal keys).
  MujocoSpec(const std::string& obs_key, int obs_size) : obs(AddState<double>(obs_key, {obs_size})) {}
  StateKey<double> Info(const std::string& name) {
    infos.push_back(AddState<double>("info:" + name, {}));
    return infos.back();
  }
  void AddTendonInfo(const mjModel* m);
  // The expose_state keys and the action (ctrl, in the actuators' ranges).
  void Finish(const MujocoEnv& env);
};

// The shared part of a gymnasium task, on MujocoBase (the model, the data,
// the renderers): the model file, the reset sequence, the frame-skipped
// stepper, the pixel observation's state scratch and the costs several
// tasks use. A task implements ResetModel (its reset noise), WriteReset
// (observation and reset info) and StepModel (simulate, observation,
// reward, info).
class MujocoEnv : public MujocoBase {
 public:
  void Seed(uint64_t seed) override {
    rng_.seed(seed);
    normal_.reset();  // a cached second normal must not outlive the seed
    MujocoBase::Seed(seed);
  }
  void Reset(const StateRow& out) final;
  StepResult Step(const ActionRow& action, const StateRow& out) final;

  virtual const MujocoSpec& spec() const = 0;

  const std::string& xml_path() const { return xml_path_; }
  int frame_skip() const { return frame_skip_; }
  bool state_in_info() const { return state_in_info_; }

 protected:
  // fixed_frame_skip is v4's hard-coded frame skip, used where the config
  // has no frame_skip key. Refuses models with fewer than min_nq/min_nv
  // position/velocity coordinates than the task indexes.
  MujocoEnv(const Config& c, int fixed_frame_skip, int min_nq, int min_nv)
      : MujocoEnv(c, ResolveXml(c), fixed_frame_skip, min_nq, min_nv) {}

  // Where the task writes its observation: the obs row, or with from_pixels
  // a scratch (kept as info "state" with state_in_info; obs is the frame).
  double* StateObs(const StateRow& out) { return from_pixels() ? state_.data() : out[spec().obs]; }

  virtual void ResetModel() = 0;
  // Scalar infos are zero unless written here (gymnasium's reset info).
  virtual void WriteReset(const StateRow& out) = 0;
  virtual StepResult StepModel(const float* action, const StateRow& out) = 0;

  // An info key this version lacks has index -1; its value is dropped.
  static void SetInfo(const StateRow& out, StateKey<double> key, double v) {
    if (key.index >= 0) *out[key] = v;
  }

  int BodyId(const char* name) const;
  double Uniform(double lo, double hi) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
  }
  // init_qpos + U(-s, s), and qvel U(-s, s) or N(0, s) (gymnasium adds the
  // zero init_qvel, which turns a -0.0 draw into +0.0).
  void NoiseUniform(double s);
  void NoiseUniformNormal(double s);

  void Simulate(const float* action) {
    for (int i = 0; i < m_->nu; ++i) d_->ctrl[i] = action[i];
    for (int k = 0; k < frame_skip_; ++k) mj_step(m_, d_);
  }

  // w * np.sum(np.square(action)) with a float32 action: float32 throughout.
  float SquareSum32(const float* a) {
    for (int i = 0; i < m_->nu; ++i) sq32_[i] = a[i] * a[i];
    return NumpySum(sq32_.data(), m_->nu);
  }
  float CtrlCost32(const float* a, double weight) { return static_cast<float>(weight) * SquareSum32(a); }
  double SquareSum(const double* x, int n) {
    for (int i = 0; i < n; ++i) sq64_[i] = x[i] * x[i];
    return NumpySum(sq64_.data(), n);
  }
  void MassCenter(double* x, double* y) const;
  bool StateFinite() const;

  double dt_ = 0.0;  // seconds per agent step

 private:
  MujocoEnv(const Config& c, const std::string& xml_path, int fixed_frame_skip, int min_nq, int min_nv);
  // The config's xml_file, looked up in assets_dir unless a path.
  static std::string ResolveXml(const Config& c);

  // gymnasium's dt: model.opt.timestep * frame_skip, read at each step.
  void OnModelChanged() override { dt_ = m_->opt.timestep * frame_skip_; }
  // Also renders the pixel observation (after the task's writes).
  void WriteExtras(const StateRow& out, const MujocoSpec& spec);

  std::string xml_path_;
  int frame_skip_;
  bool state_in_info_ = false;
  std::vector<double> state_;  // the state observation, with from_pixels
  std::vector<float> sq32_;
  std::vector<double> sq64_;
  std::normal_distribution<double> normal_{0.0, 1.0};
};

// A bare copy of the env's model and a fresh mjData stepping frame_skip
// mj_steps per call with random ctrl: the bench's raw ceiling.
std::function<void()> MakeRawStepper(const MujocoEnv& env, uint64_t seed);
// The same for any model: frame_skip mj_steps per call (the dm_control
// suite's raw ceiling steps n_sub_steps).
std::function<void()> MakeRawStepper(const mjModel* model, int frame_skip, uint64_t seed);

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_MUJOCO_ENV_H_
