// The DeepMind Control Suite's shared base: dm_control.rl.control.Environment
// and dm_control.suite.base.Task on the real libmujoco (on MujocoBase,
// ../mujoco_base.h, which gymnasium's tasks share). A domain is one file
// in this folder (its tasks are rows of a table there), registered in
// cpp/mujoco/register.cc; src/envpool/tasks/dmc.py registers the ids.
//
// Semantics follow dm_control 1.0.50 call for call, so that an env and
// suite.load(domain, task, task_kwargs={"random": seed}) produce the same
// numbers:
//   reset  mj_resetData, mj_forward with actuation disabled (Physics.reset),
//          the task's initialize_episode, mj_forward with actuation disabled
//          (after_reset), then the observation.
//   step   ctrl = action (float64, unclipped: MuJoCo clamps), the legacy step
//          (mj_step2, mj_step x (n_sub_steps - 1), mj_step1; RK4 models:
//          mj_step x n_sub_steps, mj_step1), reward, observation, then the
//          time limit (LAST with discount 1, reported as truncation) or the
//          task's termination (LAST with the task's discount).
//   random numpy's legacy RandomState (MT19937, random_sample, the polar
//          gaussian with its cached second value), seeded with the env's
//          seed: seeds below 2**32 draw exactly what RandomState(seed) draws.
//
// Config keys every domain has:
//   task_name    the dm_control task of the domain ("balance", ...).
//   model_dir    dm_control's suite folder (set by src/envpool/tasks/dmc.py):
//                the domain's XML and the common assets are read from it.
//   model_xml    the model's XML text; empty: <model_dir>/<domain>.xml. The
//                Python side fills it for domains whose XML dm_control edits
//                (cartpole's poles, ...).
//   time_limit   seconds per episode (dm_control's time_limit; inf: none).
//   n_sub_steps  physics steps per control step (dm_control's n_sub_steps,
//                the domain's control_timestep / timestep by default).
//   width, height, camera_id
//                render_mode="rgb_array": dm_control's physics.render(height,
//                width, camera_id) (defaults 240, 320, -1: the free camera
//                as mjv_defaultFreeCamera sets it), on render.h's renderer.
//   from_pixels, img_height, img_width
//                pixel observations (EnvPool's): obs "pixels", the
//                (3, img_height, img_width) uint8 frame of camera_id (as
//                dm_control's pixels wrapper renders it, channel first);
//                the task's named observations move to info.
//   model_randomization, model_info
//                per-episode model randomization (../model_params.h), as
//                text; with model_info, info "model_<field>" holds each
//                randomized field's values (float64) on every step.
//   expose_state info "qpos0"/"qvel0": the episode's initial qpos/qvel (after
//                initialize_episode), and the task's other random draws
//                under EnvPool's names where it has them (reacher "target",
//                swimmer and fish "target0", finger "target", point_mass
//                "wrap_prm", manipulator and stacker "random_info", lqr
//                "stiffness", dog "act0"), on every step of the episode:
//                what an outside test needs to put dm_control in the state.
#ifndef ENVPOOL_MUJOCO_DMC_DMC_ENV_H_
#define ENVPOOL_MUJOCO_DMC_DMC_ENV_H_

#include <mujoco/mujoco.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"
#include "cpp/mujoco/model_params.h"
#include "cpp/mujoco/mujoco_base.h"
#include "cpp/mujoco/mujoco_env.h"  // NumpySum: numpy's pairwise summation
#include "cpp/mujoco/render.h"

namespace envpool::mujoco::dmc {

// numpy's legacy RandomState: MT19937 seeded by init_genrand (a seed below
// 2**32) or init_by_array (the seed's two 32-bit words, low first), 53-bit
// doubles from two draws, and the legacy polar-method gaussian.
class NumpyRandom {
 public:
  void Seed(uint64_t seed);
  uint32_t Next32();
  double RandomSample() {
    const uint32_t a = Next32() >> 5, b = Next32() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }
  // RandomState.uniform(lo, hi): lo + (hi - lo) * random_sample().
  double Uniform(double lo, double hi) { return lo + (hi - lo) * RandomSample(); }
  // RandomState.randn() / standard_normal().
  double Gauss();

 private:
  void InitGenrand(uint32_t s);
  void Generate();
  std::array<uint32_t, 624> mt_{};
  int pos_ = 624;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

// dm_control.utils.rewards.tolerance, for a scalar x.
enum class Sigmoid { kGaussian, kHyperbolic, kLongTail, kReciprocal, kCosine, kLinear, kQuadratic, kTanhSquared };
double Tolerance(double x, double lower, double upper, double margin = 0.0, Sigmoid sigmoid = Sigmoid::kGaussian,
                 double value_at_margin = 0.1);

// np.linalg.norm of a short vector: sqrt(x.dot(x)). numpy's dot goes to
// OpenBLAS, whose kernel depends on the CPU: on the AVX-512 machines these
// tests ran on it sums the squares in order without FMA (measured for 2 to 4
// elements), which is what this does.
inline double Norm(std::initializer_list<double> x) {
  double s = 0.0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}
inline double Norm4(const double* q) { return Norm({q[0], q[1], q[2], q[3]}); }

// The common config keys (see above) with the domain's defaults, then its
// own keys.
Config DmcDefaults(const std::string& task_name, double time_limit, int n_sub_steps,
                   std::initializer_list<std::pair<std::string, ConfigValue>> keys = {});

class DmcEnv;

// What every domain writes and reads: its named observation arrays
// ("obs:<name>", float64, in dm_control's order and shapes), the float64
// action in the actuators' ctrlrange, and MujocoBase's keys.
struct DmcSpec : MujocoBaseSpec {
  ActionKey<double> action;
  StateKey<double> draws;  // the task's random draws (index -1: none)
  // Shapes come from mjModel sizes (mjtSize, 64 bits).
  StateKey<double> Obs(const std::string& name, std::initializer_list<int64_t> shape) {
    std::vector<int> dims;
    for (int64_t d : shape) dims.push_back(static_cast<int>(d));
    return AddState<double>("obs:" + name, std::move(dims));
  }
  // Call after the observation keys: adds the expose_state keys (with the
  // task's draws_size random draws as info draws_name), the pixel
  // observation (the named ones then become info) and the action.
  void Finish(const DmcEnv& env, const char* draws_name = nullptr, int draws_size = 0);
};

// dm_control's Environment and Task on MujocoBase (the model, the data, the
// renderers): the domain's XML and assets, the reset and legacy step
// sequences, the time limit and numpy's RandomState.
class DmcEnv : public MujocoBase {
 public:
  void Seed(uint64_t seed) override {
    random_.Seed(seed);
    MujocoBase::Seed(seed);
  }
  void Reset(const StateRow& out) final;
  StepResult Step(const ActionRow& action, const StateRow& out) final;

  virtual const DmcSpec& spec() const = 0;
  int n_sub_steps() const { return n_sub_steps_; }

 protected:
  // domain: the XML's base name ("cartpole"), read from model_dir unless the
  // config has model_xml. own_model: the task edits the model per episode
  // (targets, ...), so the env keeps a private copy. asset_dir: a folder of
  // model_dir whose files the model names (dog's meshes and textures).
  DmcEnv(const Config& c, const std::string& domain, bool own_model = false, const char* asset_dir = nullptr);

  // The config's task_name, refused unless one of the domain's tasks.
  template <std::size_t N>
  std::string CheckTask(const Config& c, const char* const (&tasks)[N]) const {
    const std::string name = c.Get<std::string>("task_name");
    for (const char* t : tasks)
      if (name == t) return name;
    std::string known;
    for (const char* t : tasks) known += std::string(known.empty() ? "" : ", ") + t;
    throw std::invalid_argument(domain_ + " has no task '" + name + "' (its tasks: " + known + ")");
  }

  // The task's initialize_episode (runs between the two resets' forwards).
  virtual void InitializeEpisode() = 0;
  // before_step: ctrl = action.
  virtual void BeforeStep(const double* action) {
    for (int i = 0; i < m_->nu; ++i) d_->ctrl[i] = action[i];
  }
  virtual void Observe(const StateRow& out) = 0;
  virtual double Reward() = 0;
  // get_termination: nullopt (None) or the episode's last discount.
  virtual std::optional<double> Termination() { return std::nullopt; }

  // physics.forward(), and physics.after_reset(): mj_forward with
  // actuation disabled.
  void Forward() { mj_forward(m_, d_); }
  void ForwardWithoutActuation();
  // physics.step(n) with legacy_step (dm_control's default).
  void PhysicsStep(int n);

  // dm_control.suite.utils.randomizers.randomize_limited_and_rotational_joints.
  void RandomizeLimitedAndRotationalJoints();

  // Ids and addresses by name; throw std::invalid_argument when missing.
  int Id(mjtObj type, const char* name) const;
  int JointQposAdr(const char* joint) const { return m_->jnt_qposadr[Id(mjOBJ_JOINT, joint)]; }
  int JointDofAdr(const char* joint) const { return m_->jnt_dofadr[Id(mjOBJ_JOINT, joint)]; }
  int SensorAdr(const char* sensor) const { return m_->sensor_adr[Id(mjOBJ_SENSOR, sensor)]; }

  NumpyRandom random_;
  // The episode's random draws (Finish's draws_name), set by the task in
  // InitializeEpisode; reported with expose_state.
  std::vector<double> draws_;

 private:
  // The domain's model, shared by every env on the same XML, and its copy
  // with actuation disabled.
  struct SharedModels {
    const mjModel* model;
    const mjModel* noact;
  };
  static SharedModels LoadDomain(const Config& c, const std::string& domain, const char* asset_dir);
  DmcEnv(const Config& c, const std::string& domain, bool own_model, const SharedModels& models);
  // physics.forward(), as after any edit in dm_control: the next legacy
  // step begins with mj_step2, which uses what mj_step1 computed, so this
  // recomputes that under the new model.
  void AfterSetArray() override { mj_forward(m_, d_); }
  void WriteState(const StateRow& out, const DmcSpec& s) const;

  std::string domain_;
  const mjModel* noact_ = nullptr;  // the shared model with actuation disabled
  int n_sub_steps_;
  double step_limit_;
  int64_t step_count_ = 0;
};

// The bench's raw ceiling: mujoco_env.h's bare stepper (a model copy,
// random ctrl in the ctrlrange, a reset every 1000 calls), n_sub_steps
// mj_steps per call.
std::function<void()> MakeRawStepper(const DmcEnv& env, uint64_t seed);

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_DMC_ENV_H_
