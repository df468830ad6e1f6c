// What the Gymnasium-Robotics tasks share on the MuJoCo base: the goal
// environments' dict observation (obs "observation", "achieved_goal",
// "desired_goal") and their random draws, made in NumPy's Generator
// arithmetic and optionally reported (report_draws=True: info "draws" and
// "num_draws", each reset's or step's draws in the reference's call order)
// so that a test can replay them into gymnasium-robotics' np_random.
#ifndef ENVPOOL_MUJOCO_ROBOTICS_GOAL_ENV_H_
#define ENVPOOL_MUJOCO_ROBOTICS_GOAL_ENV_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::robotics {

// The most draws one reset or step reports.
inline constexpr int kDrawCapacity = 64;

// info "draws"/"num_draws" with report_draws (else absent, index -1).
struct DrawKeys {
  StateKey<double> draws;
  StateKey<int32_t> num_draws;
  DrawKeys() = default;
  DrawKeys(EnvSpec* spec, const Config& c) {
    if (!c.Get<bool>("report_draws")) return;
    draws = spec->AddState<double>("info:draws", {kDrawCapacity});
    num_draws = spec->AddState<int32_t>("info:num_draws", {}, {0}, {static_cast<double>(kDrawCapacity)});
  }
};

// MujocoSpec::Finish with the reference's action, Box(-1, 1, (action_dim,)),
// where it is not the actuators' ctrl range (Fetch moves a mocap body,
// Adroit scales the action to the ctrl range itself).
inline void FinishBox(MujocoSpec* s, const MujocoEnv& env, int action_dim) {
  const mjModel* m = env.model();
  if (env.expose_state()) {
    s->qpos0 = s->AddState<double>("info:qpos0", {static_cast<int>(m->nq)});
    s->qvel0 = s->AddState<double>("info:qvel0", {static_cast<int>(m->nv)});
  }
  if (env.model_info())
    for (const EnvModel::Randomized& r : env.env_model().randomized())
      s->model_info.push_back(s->AddState<double>(ModelInfoKey(r.field.name), r.field.shape));
  s->action = s->AddAction<float>("action", {action_dim}, std::vector<double>(action_dim, -1.0),
                                  std::vector<double>(action_dim, 1.0));
}

// The goal environments' dict observation.
struct GoalSpec : MujocoSpec {
  StateKey<double> achieved_goal, desired_goal;
  DrawKeys draw_keys;
  GoalSpec(const Config& c, int obs_size, int goal_size)
      : MujocoSpec("obs:observation", obs_size),
        achieved_goal(AddState<double>("obs:achieved_goal", {goal_size})),
        desired_goal(AddState<double>("obs:desired_goal", {goal_size})),
        draw_keys(this, c) {}
  void FinishBox(const MujocoEnv& env, int action_dim) { robotics::FinishBox(this, env, action_dim); }
};

// The bench's raw ceiling for a task whose episodes start from a state of
// its own (Fetch's arm after its setup): bare copies of the env's model and
// of that state, frame_skip mj_steps per call with random ctrl, back to the
// state every `episode` calls.
inline std::function<void()> MakeRawStepperFrom(const mjModel* model, const mjData* start, int frame_skip, int episode,
                                                uint64_t seed) {
  struct Raw {
    mjModel* m = nullptr;
    mjData* start = nullptr;
    mjData* d = nullptr;
    std::mt19937_64 rng;
    int steps = 0;
    ~Raw() {
      if (d) mj_deleteData(d);
      if (start) mj_deleteData(start);
      if (m) mj_deleteModel(m);
    }
  };
  auto raw = std::make_shared<Raw>();
  raw->m = mj_copyModel(nullptr, model);
  if (raw->m == nullptr) throw std::runtime_error("MuJoCo allocation failed");
  raw->start = mj_copyData(nullptr, raw->m, start);
  raw->d = mj_copyData(nullptr, raw->m, start);
  if (raw->start == nullptr || raw->d == nullptr) throw std::runtime_error("MuJoCo allocation failed");
  raw->rng.seed(seed);
  return [raw, frame_skip, episode] {
    mjModel* m = raw->m;
    mjData* d = raw->d;
    for (int i = 0; i < m->nu; ++i) {
      const double u = static_cast<double>(raw->rng() >> 11) * 0x1.0p-53;
      d->ctrl[i] = m->actuator_ctrlrange[2 * i] + (m->actuator_ctrlrange[2 * i + 1] - m->actuator_ctrlrange[2 * i]) * u;
    }
    for (int k = 0; k < frame_skip; ++k) mj_step(m, d);
    if (++raw->steps >= episode) {
      raw->steps = 0;
      mj_copyData(d, m, raw->start);
    }
  };
}

class GoalEnv : public MujocoEnv {
 public:
  // The bench's raw ceiling (Family::make_raw_stepper).
  virtual std::function<void()> RawStepper(uint64_t seed) const { return MakeRawStepper(*this, seed); }

 protected:
  GoalEnv(const Config& c, int frame_skip, int min_nq, int min_nv) : MujocoEnv(c, frame_skip, min_nq, min_nv) {
    // The pixel observation replaces "obs"; these tasks observe a dict.
    if (c.Get<bool>("from_pixels"))
      throw std::invalid_argument("from_pixels is not supported by the Gymnasium-Robotics tasks");
  }

  // np_random.uniform(low, high): low + (high - low) * u, u with 53 bits.
  double DrawUniform(double low, double high) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    const double v = low + (high - low) * u;
    draws_.push_back(v);
    return v;
  }
  // np_random.integers(low, high): uniform in [low, high).
  int64_t DrawInteger(int64_t low, int64_t high) {
    const int64_t v = std::uniform_int_distribution<int64_t>(low, high - 1)(rng_);
    draws_.push_back(static_cast<double>(v));
    return v;
  }
  // np_random.normal(scale=s): any normal draw (the tests replay ours).
  double DrawNormal(double scale) {
    const double v = scale * std::normal_distribution<double>(0.0, 1.0)(rng_);
    draws_.push_back(v);
    return v;
  }
  void ClearDraws() { draws_.clear(); }
  void WriteDraws(const StateRow& out, const DrawKeys& s) {
    if (s.draws.index < 0) return;
    // A continuing maze redraws a goal until it lies away from the ball:
    // the report keeps the first kDrawCapacity (a test's replay asks no more).
    double* d = out[s.draws];
    const int n = static_cast<int>(draws_.size());
    for (int i = 0; i < kDrawCapacity; ++i) d[i] = i < n ? draws_[i] : 0.0;
    *out[s.num_draws] = n < kDrawCapacity ? n : kDrawCapacity;
  }

  static void CheckRewardType(const std::string& t) {
    if (t != "sparse" && t != "dense")
      throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + t + "'");
  }
  // The config's reward_type, checked: true for "dense".
  static bool ReadDense(const Config& c) {
    const std::string t = c.Get<std::string>("reward_type");
    CheckRewardType(t);
    return t == "dense";
  }

 private:
  std::vector<double> draws_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_GOAL_ENV_H_
