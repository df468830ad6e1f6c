// FrankaKitchen-v1: gymnasium-robotics' KitchenEnv (FrankaRobot, gymnasium's
// MujocoEnv, on kitchen_env_model.xml): a 9-DoF Franka arm velocity-driven
// through position servos, rewarded one per kitchen task reached.
//
// The observation noise is part of the dynamics (the next ctrl is the noisy
// joint position plus velocity * dt), so the draws are numpy's arithmetic
// (goal_env.h) and reportable (report_draws) for a replay in the reference.
//
// A fixed layout (the reference's goals are dicts of the selected tasks): obs
// "observation" (59), "achieved_goal" and "desired_goal" (17 each: the seven
// tasks' joint values one after another in kTasks' order, whatever
// tasks_to_complete holds, so every interface, dm's namedtuple too, has plain
// arrays); info "tasks_to_complete", "step_task_completions" and
// "episode_task_completions" are 0/1 masks over the seven tasks in that order
// (the reference's lists of names), as EnvPool 1.2.5's.
#ifndef ENVPOOL_MUJOCO_ROBOTICS_KITCHEN_H_
#define ENVPOOL_MUJOCO_ROBOTICS_KITCHEN_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics {

class Kitchen : public GoalEnv {
 public:
  static constexpr int kFrameSkip = 40;
  static constexpr int kRobot = 9;  // the arm's and fingers' joints, first in qpos and qvel
  static constexpr int kNq = 30, kNv = 29;
  static constexpr int kTaskCount = 7;
  static constexpr double kBonusThresh = 0.3;

  struct Task {
    const char* name;
    int dim;
    std::array<int, 7> qpos;     // OBS_ELEMENT_INDICES
    std::array<double, 7> goal;  // OBS_ELEMENT_GOALS
  };
  static constexpr std::array<Task, kTaskCount> kTasks = {{
      {"bottom burner", 2, {11, 12}, {-0.88, -0.01}},
      {"top burner", 2, {15, 16}, {-0.92, -0.01}},
      {"light switch", 2, {17, 18}, {-0.69, -0.05}},
      {"slide cabinet", 1, {19}, {0.37}},
      {"hinge cabinet", 2, {20, 21}, {0.0, 1.45}},
      {"microwave", 1, {22}, {-0.75}},
      {"kettle", 7, {23, 24, 25, 26, 27, 28, 29}, {-0.23, 0.75, 1.62, 0.99, 0.0, 0.0, -0.06}},
  }};

  static Config Defaults(int version) {
    return GymDefaults(version, "kitchen_franka/kitchen_assets/kitchen_env_model.xml", kFrameSkip,
                       {{"tasks_to_complete", std::string("bottom burner,top burner,light switch,slide cabinet,"
                                                          "hinge cabinet,microwave,kettle")},
                        {"terminate_on_tasks_completed", true},
                        {"remove_task_when_completed", true},
                        {"object_noise_ratio", 0.0005},
                        {"robot_noise_ratio", 0.01},
                        {"report_draws", false}});
  }
  // franka_env's DEFAULT_CAMERA_CONFIG.
  static const char* DefaultCameraConfig(int /*version*/) {
    return "distance=2.2;azimuth=70.0;elevation=-35.0;lookat=-0.2,0.5,2.0";
  }

  // The seven tasks' goal values one after another (2+2+2+1+2+1+7).
  static constexpr int kGoalSize = 17;

  struct Spec : GoalSpec {
    StateKey<int32_t> to_complete, step_done, episode_done;
    Spec(const Kitchen& e, const Config& c) : GoalSpec(c, 2 * kRobot + (kNq - kRobot) + (kNv - kRobot), kGoalSize) {
      to_complete = AddState<int32_t>("info:tasks_to_complete", {kTaskCount}, {0}, {1});
      step_done = AddState<int32_t>("info:step_task_completions", {kTaskCount}, {0}, {1});
      episode_done = AddState<int32_t>("info:episode_task_completions", {kTaskCount}, {0}, {1});
      FinishBox(e, kRobot);
    }
  };

  Kitchen(const Config& c, int /*version*/)
      : GoalEnv(c, kFrameSkip, kNq, kNv),
        goal_(ReadTasks(c.Get<std::string>("tasks_to_complete"))),
        terminate_(c.Get<bool>("terminate_on_tasks_completed")),
        remove_(c.Get<bool>("remove_task_when_completed")),
        object_noise_(ReadRatio(c, "object_noise_ratio")),
        robot_noise_(ReadRatio(c, "robot_noise_ratio")),
        spec_(Checked(), c) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    // set_state(init_qpos, zeros): KitchenEnv's fixed start.
    std::copy(kInitQpos.begin(), kInitQpos.end(), d_->qpos);
    std::fill(d_->qvel, d_->qvel + m_->nv, 0.0);
  }

  void WriteReset(const StateRow& out) override {
    ClearDraws();
    remaining_ = goal_;
    episode_.fill(false);
    step_.fill(false);
    WriteObs(out);
    WriteInfo(out);
  }

  StepResult StepModel(const float* action, const StateRow& out) override {
    ClearDraws();
    for (int i = 0; i < kRobot; ++i) {
      // np.clip (NaN stays NaN), * act_rng 2, then the velocity bound
      // (+-10: never binding), an Euler step from the last noisy joint
      // position and its position bound.
      const float a = std::isnan(action[i]) ? action[i] : std::clamp(action[i], -1.0f, 1.0f);
      const double v = NpClip(static_cast<double>(a) * 2.0, -kVelBound, kVelBound);
      d_->ctrl[i] = NpClip(last_robot_qpos_[i] + v * dt_, kPosBound[i][0], kPosBound[i][1]);
    }
    for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
    WriteObs(out);
    // compute_reward over the tasks not yet removed, on the exact joints.
    StepResult r;
    int done = 0;
    for (int t = 0; t < kTaskCount; ++t) {
      step_[t] = remaining_[t] && Distance(t) < kBonusThresh;
      if (!step_[t]) continue;
      ++done;
      episode_[t] = true;
      if (remove_) remaining_[t] = false;
    }
    r.reward = done;
    if (terminate_) r.terminated = episode_ == goal_;
    WriteInfo(out);
    return r;
  }

 private:
  // franka_config.xml's robot bounds and noise amplitudes (qpos0..qpos28).
  static constexpr double kVelBound = 10.0;
  static constexpr std::array<std::array<double, 2>, kRobot> kPosBound = {{{-2.9, 2.9},
                                                                           {-1.8, 1.8},
                                                                           {-2.9, 2.9},
                                                                           {-3.1, 0.0},
                                                                           {-2.9, 2.9},
                                                                           {0.0, 3.8},
                                                                           {-2.9, 2.9},
                                                                           {0.0, 0.04},
                                                                           {0.0, 0.04}}};
  static constexpr std::array<double, kNv> kPosNoiseAmp = {
      0.1,    0.1,    0.1,   0.1,   0.1,   0.1, 0.1, 0.1, 0.1,   0.005, 0.005, 0.0005, 0.0005, 0.0005, 0.0005,
      0.0005, 0.0005, 0.005, 0.005, 0.005, 0.1, 0.1, 0.1, 0.005, 0.005, 0.005, 0.1,    0.1,    0.1};
  static constexpr std::array<double, kNv> kVelNoiseAmp = {
      0.1,   0.1,   0.1,   0.1,   0.1,   0.1, 0.1, 0.1, 0.1,   0.005, 0.005, 0.005, 0.005, 0.005, 0.005,
      0.005, 0.005, 0.005, 0.005, 0.005, 0.1, 0.1, 0.1, 0.005, 0.005, 0.005, 0.1,   0.1,   0.1};
  // KitchenEnv's robot_env.init_qpos.
  static constexpr std::array<double, kNq> kInitQpos = {
      1.48388023e-01,  -1.76848573e00,  1.84390296e00,   -2.47685760e00,  2.60252026e-01,  7.12533105e-01,
      1.59515394e00,   4.79267505e-02,  3.71350919e-02,  -2.66279850e-04, -5.18043486e-05, 3.12877220e-05,
      -4.51199853e-05, -3.90842156e-06, -4.22629655e-05, 6.28065475e-05,  4.04984708e-05,  4.62730939e-04,
      -2.26906415e-04, -4.65501369e-04, -6.44129196e-03, -1.77048263e-03, 1.08009684e-03,  -2.69397440e-01,
      3.50383255e-01,  1.61944683e00,   1.00618764e00,   4.06395120e-03,  -6.62095997e-03, -2.68278933e-04};

  using Mask = std::array<bool, kTaskCount>;

  // Comma-separated task names (envpool/tasks/robotics.py joins the
  // reference's list); unknown names are refused as the reference refuses them.
  static Mask ReadTasks(const std::string& text) {
    Mask m{};
    size_t start = 0;
    while (start <= text.size() && !text.empty()) {
      const size_t end = std::min(text.find(',', start), text.size());
      const std::string name = text.substr(start, end - start);
      bool found = false;
      for (int t = 0; t < kTaskCount; ++t)
        if (name == kTasks[t].name) found = m[t] = true;
      if (!found)
        throw std::invalid_argument("tasks_to_complete: unknown task '" + name +
                                    "' (the tasks: bottom burner, top burner, light switch, slide cabinet, "
                                    "hinge cabinet, microwave, kettle)");
      start = end + 1;
    }
    return m;
  }
  static double ReadRatio(const Config& c, const char* key) {
    const double v = c.Get<double>(key);
    if (!(v >= 0.0) || !std::isfinite(v))
      throw std::invalid_argument(std::string(key) + " must be a non-negative number");
    return v;
  }
  const Kitchen& Checked() const {
    if (m_->nq != kNq || m_->nv != kNv || m_->nu != kRobot)
      throw std::invalid_argument("FrankaKitchen needs kitchen_env_model.xml (nq 30, nv 29, 9 actuators)");
    for (int j = 0; j < kRobot; ++j) {
      const char* name = mj_id2name(m_, mjOBJ_JOINT, j);
      if (name == nullptr || std::string(name).rfind("robot", 0) != 0 || m_->jnt_qposadr[j] != j)
        throw std::invalid_argument("FrankaKitchen: the model's first nine joints must be the robot's");
    }
    return *this;
  }

  static double NpClip(double x, double lo, double hi) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); }

  double Distance(int t) const {
    const Task& k = kTasks[t];
    double s = 0.0;
    for (int i = 0; i < k.dim; ++i) {
      const double e = d_->qpos[k.qpos[i]] - k.goal[i];
      s += e * e;
    }
    return std::sqrt(s);
  }

  // robot_env._get_obs then KitchenEnv._get_obs: qpos + (ratio * amp) * u,
  // drawn in that order (qpos's object noise takes amp[8:], the reference's).
  void WriteObs(const StateRow& out) {
    double* o = StateObs(out);
    int k = 0;
    std::array<double, kRobot> u{};
    for (int i = 0; i < kRobot; ++i) u[i] = DrawUniform(-1.0, 1.0);
    for (int i = 0; i < kRobot; ++i) o[k++] = last_robot_qpos_[i] = d_->qpos[i] + robot_noise_ * kPosNoiseAmp[i] * u[i];
    for (int i = 0; i < kRobot; ++i) u[i] = DrawUniform(-1.0, 1.0);
    for (int i = 0; i < kRobot; ++i) o[k++] = d_->qvel[i] + robot_noise_ * kVelNoiseAmp[i] * u[i];
    for (int i = kRobot; i < kNq; ++i) o[k + i - kRobot] = DrawUniform(-1.0, 1.0);
    for (int i = kRobot; i < kNq; ++i)
      o[k + i - kRobot] = d_->qpos[i] + object_noise_ * kPosNoiseAmp[i - 1] * o[k + i - kRobot];
    k += kNq - kRobot;
    for (int i = kRobot; i < kNv; ++i) o[k + i - kRobot] = DrawUniform(-1.0, 1.0);
    for (int i = kRobot; i < kNv; ++i)
      o[k + i - kRobot] = d_->qvel[i] + object_noise_ * kVelNoiseAmp[i] * o[k + i - kRobot];
    double* a = out[spec_.achieved_goal];
    double* g = out[spec_.desired_goal];
    for (const Task& t : kTasks)
      for (int i = 0; i < t.dim; ++i) {
        *a++ = d_->qpos[t.qpos[i]];
        *g++ = t.goal[i];
      }
  }

  void WriteInfo(const StateRow& out) {
    int32_t* rem = out[spec_.to_complete];
    int32_t* st = out[spec_.step_done];
    int32_t* ep = out[spec_.episode_done];
    for (int t = 0; t < kTaskCount; ++t) {
      rem[t] = remaining_[t];
      st[t] = step_[t];
      ep[t] = episode_[t];
    }
    WriteDraws(out, spec_.draw_keys);
  }

  Mask goal_;
  bool terminate_, remove_;
  double object_noise_, robot_noise_;
  Mask remaining_{}, step_{}, episode_{};
  std::array<double, kRobot> last_robot_qpos_{};
  Spec spec_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_KITCHEN_H_
