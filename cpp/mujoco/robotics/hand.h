// The Shadow Dexterous Hand tasks of gymnasium-robotics (MujocoHandEnv):
// HandReach[Dense]-v3 (the fingertips to a goal; class HandReach) and
// HandManipulate{Block,Egg,Pen}*-v1 (an object in the palm to a goal pose;
// class HandManipulate), with the touch-sensor models' observations.
//
// The manipulate tasks' constants (the reference's class arguments and the
// ids' kwargs) are config keys set per id by envpool/tasks/robotics.py:
// target_position, target_rotation, target_position_range,
// randomize_initial_position, randomize_initial_rotation,
// distance_threshold, rotation_threshold, ignore_z_target_rotation and
// touch_get_obs ("" without touch sensors).
#ifndef ENVPOOL_MUJOCO_ROBOTICS_HAND_H_
#define ENVPOOL_MUJOCO_ROBOTICS_HAND_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics {

// rotations.py's quaternion and Euler helpers, in its arithmetic order.
namespace rot {
using Quat = std::array<double, 4>;
using Vec3 = std::array<double, 3>;

inline Quat Mul(const Quat& a, const Quat& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] + a[2] * b[0] + a[3] * b[1] - a[1] * b[3], a[0] * b[3] + a[3] * b[0] + a[1] * b[2] - a[2] * b[1]};
}
inline Quat Conjugate(const Quat& q) { return {q[0], -q[1], -q[2], -q[3]}; }

// rotations.euler2mat (row-major).
inline std::array<double, 9> Euler2Mat(const Vec3& e) {
  const double ai = -e[2], aj = -e[1], ak = -e[0];
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  return {cj * ci, cj * si, -sj, sj * cs - sc, sj * ss + cc, cj * sk, sj * cc + ss, sj * sc - cs, cj * ck};
}

inline Vec3 Mat2Euler(const std::array<double, 9>& m) {
  const double cy = std::sqrt(m[8] * m[8] + m[5] * m[5]);
  const bool cond = cy > std::numeric_limits<double>::epsilon() * 4.0;
  Vec3 e;
  e[2] = cond ? -std::atan2(m[1], m[0]) : -std::atan2(-m[3], m[4]);
  e[1] = -std::atan2(-m[2], cy);
  e[0] = cond ? -std::atan2(m[5], m[8]) : 0.0;
  return e;
}

inline Quat Euler2Quat(const Vec3& e) {
  const double ai = e[2] / 2, aj = -e[1] / 2, ak = e[0] / 2;
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  return {cj * cc + sj * ss, cj * cs - sj * sc, -(cj * ss + sj * cc), cj * sc - sj * cs};
}

inline std::array<double, 9> Quat2Mat(const Quat& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double nq = w * w + x * x + y * y + z * z;
  if (!(nq > std::numeric_limits<double>::epsilon())) return {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double s = 2.0 / nq;
  const double X = x * s, Y = y * s, Z = z * s;
  const double wX = w * X, wY = w * Y, wZ = w * Z, xX = x * X, xY = x * Y, xZ = x * Z;
  const double yY = y * Y, yZ = y * Z, zZ = z * Z;
  return {1.0 - (yY + zZ), xY - wZ, xZ + wY, xY + wZ, 1.0 - (xX + zZ), yZ - wX, xZ - wY, yZ + wX, 1.0 - (xX + yY)};
}

inline Vec3 Quat2Euler(const Quat& q) { return Mat2Euler(Quat2Mat(q)); }

inline double Norm(const double* v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return std::sqrt(s);
}

// manipulate.quat_from_angle_and_axis.
inline Quat FromAngleAxis(double angle, Vec3 axis) {
  const double na = Norm(axis.data(), 3);
  for (double& a : axis) a /= na;
  const double s = std::sin(angle / 2.0);
  Quat q{std::cos(angle / 2.0), s * axis[0], s * axis[1], s * axis[2]};
  const double nq = Norm(q.data(), 4);
  for (double& v : q) v /= nq;
  return q;
}

// rotations.get_parallel_rotations, each as euler2quat.
inline std::vector<Quat> ParallelQuats() {
  const double half = std::numbers::pi / 2;
  const double mult90[4] = {0.0, half, -half, std::numbers::pi};
  std::vector<Vec3> rots;
  for (double a : mult90)
    for (double b : mult90)
      for (double c : mult90) {
        Vec3 canon = Mat2Euler(Euler2Mat({a, b, c}));
        for (double& v : canon) v = std::nearbyint(v / half);
        if (canon[0] == -2) canon[0] = 2;
        if (canon[2] == -2) canon[2] = 2;
        for (double& v : canon) v *= half;
        if (std::none_of(rots.begin(), rots.end(), [&](const Vec3& r) { return r == canon; })) rots.push_back(canon);
      }
  if (rots.size() != 24) throw std::logic_error("the parallel rotations are not 24");
  std::vector<Quat> quats;
  for (const Vec3& r : rots) quats.push_back(Euler2Quat(r));
  return quats;
}
}  // namespace rot

// What both hand tasks share: the 20 position actuators driven by a Box
// action, and the robot joints' observation.
class HandBase : public GoalEnv {
 public:
  static constexpr int kSubsteps = 20;
  // hand_env.DEFAULT_CAMERA_CONFIG.
  static const char* DefaultCameraConfig(int /*version*/) {
    return "distance=0.5;azimuth=55.0;elevation=-25.0;lookat=1,0.96,0.14";
  }

 protected:
  explicit HandBase(const Config& c) : GoalEnv(c, kSubsteps, 24, 24), robot_joints_(RobotJoints(m_)) {
    if (m_->nu != 20) throw std::invalid_argument("the hand model must have 20 actuators");
  }

  static std::vector<int> RobotJoints(const mjModel* m) {
    std::vector<int> joints;
    for (int j = 0; j < m->njnt; ++j) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      if (name != nullptr && std::string(name).rfind("robot", 0) == 0) {
        if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)
          throw std::invalid_argument("the hand's robot joints must be hinges or slides");
        joints.push_back(j);
      }
    }
    return joints;
  }

  int Id(mjtObj type, const char* name) const {
    const int id = mj_name2id(m_, type, name);
    if (id < 0) throw std::invalid_argument(std::string("the hand model has no '") + name + "'");
    return id;
  }

  // MujocoHandEnv._set_action (absolute control) after step's np.clip: the
  // float32 action scaled about the ctrl range's center, clipped to it.
  void SetAction(const float* action) {
    for (int i = 0; i < 20; ++i) {
      const float a = std::isnan(action[i]) ? action[i] : std::clamp(action[i], -1.0f, 1.0f);
      const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
      const double v = (hi + lo) / 2.0 + static_cast<double>(a) * ((hi - lo) / 2.0);
      d_->ctrl[i] = std::isnan(v) ? v : std::clamp(v, lo, hi);
    }
  }

  // robot_get_obs: each robot joint's qpos, then each one's qvel.
  void PutRobot(ObsWriter* w) const {
    for (int j : robot_joints_) w->Put(d_->qpos[m_->jnt_qposadr[j]]);
    for (int j : robot_joints_) w->Put(d_->qvel[m_->jnt_dofadr[j]]);
  }

  // MujocoRobotEnv._initialize_simulation's record of the state after
  // _env_setup, and _reset_sim's return to it.
  void SaveInitialState() {
    initial_time_ = d_->time;
    initial_qpos_.assign(d_->qpos, d_->qpos + m_->nq);
    initial_qvel_.assign(d_->qvel, d_->qvel + m_->nv);
  }
  void RestoreInitialState() {
    d_->time = initial_time_;
    std::copy(initial_qpos_.begin(), initial_qpos_.end(), d_->qpos);
    std::copy(initial_qvel_.begin(), initial_qvel_.end(), d_->qvel);
  }

  std::vector<int> robot_joints_;

 private:
  double initial_time_ = 0.0;
  std::vector<double> initial_qpos_, initial_qvel_;
};

class HandReach : public HandBase {
 public:
  static Config Defaults(int version) {
    return GymDefaults(version, "hand/reach.xml", kSubsteps,
                       {{"reward_type", std::string("sparse")}, {"distance_threshold", 0.01}, {"report_draws", false}});
  }
  static const char* DefaultCameraConfig(int v) { return HandBase::DefaultCameraConfig(v); }

  struct Spec : GoalSpec {
    StateKey<double> is_success;
    Spec(const HandReach& e, const Config& c) : GoalSpec(c, 2 * static_cast<int>(e.robot_joints_.size()) + 15, 15) {
      is_success = Info("is_success");
      FinishBox(e, 20);
    }
  };

  HandReach(const Config& c, int /*version*/)
      : HandBase(c), dense_(ReadDense(c)), distance_threshold_(c.Get<double>("distance_threshold")), spec_(*this, c) {
    if (!(distance_threshold_ >= 0.0) || !std::isfinite(distance_threshold_))
      throw std::invalid_argument("distance_threshold must be a non-negative number, got " +
                                  std::to_string(distance_threshold_));
    static const char* kTips[5] = {"robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip",
                                   "robot0:S_thtip"};
    for (int i = 0; i < 5; ++i) tips_[i] = Id(mjOBJ_SITE, kTips[i]);
    // _env_setup: reach.DEFAULT_INITIAL_QPOS, a forward pass, the initial
    // fingertips and the palm's position.
    static const std::pair<const char*, double> kInitial[] = {
        {"robot0:WRJ1", -0.16514339750464327},   {"robot0:WRJ0", -0.31973286565062153},
        {"robot0:FFJ3", 0.14340512546557435},    {"robot0:FFJ2", 0.32028208333591573},
        {"robot0:FFJ1", 0.7126053607727917},     {"robot0:FFJ0", 0.6705281001412586},
        {"robot0:MFJ3", 0.000246444303701037},   {"robot0:MFJ2", 0.3152655251085491},
        {"robot0:MFJ1", 0.7659800313729842},     {"robot0:MFJ0", 0.7323156897425923},
        {"robot0:RFJ3", 0.00038520700007378114}, {"robot0:RFJ2", 0.36743546201985233},
        {"robot0:RFJ1", 0.7119514095008576},     {"robot0:RFJ0", 0.6699446327514138},
        {"robot0:LFJ4", 0.0525442258033891},     {"robot0:LFJ3", -0.13615534724474673},
        {"robot0:LFJ2", 0.39872030433433003},    {"robot0:LFJ1", 0.7415570009679252},
        {"robot0:LFJ0", 0.704096378652974},      {"robot0:THJ4", 0.003673823825070126},
        {"robot0:THJ3", 0.5506291436028695},     {"robot0:THJ2", -0.014515151997119306},
        {"robot0:THJ1", -0.0015229223564485414}, {"robot0:THJ0", -0.7894883021600622},
    };
    for (const auto& [name, value] : kInitial) d_->qpos[m_->jnt_qposadr[Id(mjOBJ_JOINT, name)]] = value;
    mj_forward(m_, d_);
    for (int i = 0; i < 5; ++i)
      std::copy(d_->site_xpos + 3 * tips_[i], d_->site_xpos + 3 * tips_[i] + 3, &initial_goal_[3 * i]);
    const int palm = Id(mjOBJ_BODY, "robot0:palm");
    std::copy(d_->xpos + 3 * palm, d_->xpos + 3 * palm + 3, palm_.begin());
    SaveInitialState();
  }
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    ClearDraws();
    RestoreInitialState();
    // _sample_goal (reads none of the state): a finger and the thumb meet
    // near the palm, or (1 in 10) the fingertips stay.
    const int finger = static_cast<int>(DrawInteger(0, 4));
    double meet[3] = {palm_[0] + 0.0, palm_[1] + -0.09, palm_[2] + 0.05};
    for (double& v : meet) v += DrawNormal(0.005);
    goal_ = initial_goal_;
    for (int idx : {4, finger}) {
      double off[3];
      for (int k = 0; k < 3; ++k) off[k] = meet[k] - goal_[3 * idx + k];
      const double n = rot::Norm(off, 3);
      for (int k = 0; k < 3; ++k) goal_[3 * idx + k] = meet[k] - 0.005 * (off[k] / n);
    }
    if (DrawUniform(0.0, 1.0) < 0.1) goal_ = initial_goal_;
  }

  void WriteReset(const StateRow& out) override {
    WriteObs(out);
    WriteDraws(out, spec_.draw_keys);
  }

  StepResult StepModel(const float* action, const StateRow& out) override {
    ClearDraws();
    SetAction(action);
    for (int k = 0; k < kSubsteps; ++k) mj_step(m_, d_);
    WriteObs(out);
    const double* ag = out[spec_.achieved_goal];
    double diff[15];
    for (int i = 0; i < 15; ++i) diff[i] = ag[i] - goal_[i];
    const double dist = rot::Norm(diff, 15);
    *out[spec_.is_success] = dist < distance_threshold_ ? 1.0 : 0.0;
    WriteDraws(out, spec_.draw_keys);
    StepResult r;
    r.reward = dense_ ? -dist : (dist > distance_threshold_ ? -1.0 : 0.0);
    return r;
  }

 private:
  void WriteObs(const StateRow& out) {
    ObsWriter w(StateObs(out));
    PutRobot(&w);
    double* ag = out[spec_.achieved_goal];
    for (int i = 0; i < 5; ++i) std::copy(d_->site_xpos + 3 * tips_[i], d_->site_xpos + 3 * tips_[i] + 3, ag + 3 * i);
    w.Put(ag, 15);
    std::copy(goal_.begin(), goal_.end(), out[spec_.desired_goal]);
  }

  bool dense_;
  double distance_threshold_;
  std::array<int, 5> tips_{};
  std::array<double, 15> initial_goal_{}, goal_{};
  std::array<double, 3> palm_{};
  Spec spec_;
};

class HandManipulate : public HandBase {
 public:
  static constexpr int kResetAttempts = 100;
  static Config Defaults(int version) {
    return GymDefaults(version, "hand/manipulate_block.xml", kSubsteps,
                       {{"reward_type", std::string("sparse")},
                        {"target_position", std::string("random")},
                        {"target_rotation", std::string("xyz")},
                        {"target_position_range", std::vector<double>{-0.04, 0.04, -0.06, 0.02, 0.0, 0.06}},
                        {"randomize_initial_position", true},
                        {"randomize_initial_rotation", true},
                        {"distance_threshold", 0.01},
                        {"rotation_threshold", 0.1},
                        {"ignore_z_target_rotation", false},
                        {"touch_get_obs", std::string()},
                        {"report_draws", false}});
  }
  static const char* DefaultCameraConfig(int v) { return HandBase::DefaultCameraConfig(v); }

  struct Spec : GoalSpec {
    StateKey<double> is_success;
    Spec(const HandManipulate& e, const Config& c)
        : GoalSpec(c, 2 * static_cast<int>(e.robot_joints_.size()) + 13 + static_cast<int>(e.touch_.size()), 7) {
      is_success = Info("is_success");
      FinishBox(e, 20);
    }
  };

  HandManipulate(const Config& c, int /*version*/)
      : HandBase(c),
        dense_(ReadDense(c)),
        target_position_(c.Get<std::string>("target_position")),
        target_rotation_(c.Get<std::string>("target_rotation")),
        randomize_position_(c.Get<bool>("randomize_initial_position")),
        randomize_rotation_(c.Get<bool>("randomize_initial_rotation")),
        ignore_z_(c.Get<bool>("ignore_z_target_rotation")),
        distance_threshold_(c.Get<double>("distance_threshold")),
        rotation_threshold_(c.Get<double>("rotation_threshold")),
        touch_get_obs_(c.Get<std::string>("touch_get_obs")),
        touch_(TouchSensors(m_, touch_get_obs_)),
        spec_(*this, c) {
    if (target_position_ != "ignore" && target_position_ != "fixed" && target_position_ != "random")
      throw std::invalid_argument("target_position must be 'ignore', 'fixed' or 'random', got '" + target_position_ +
                                  "'");
    // 'ignore' and 'fixed' read data.get_joint_qpos, which the reference's
    // MjData lacks: they fail there.
    if (target_rotation_ != "xyz" && target_rotation_ != "z" && target_rotation_ != "parallel")
      throw std::invalid_argument("target_rotation must be 'xyz', 'z' or 'parallel', got '" + target_rotation_ + "'");
    if (!(distance_threshold_ >= 0.0) || !std::isfinite(distance_threshold_) || !(rotation_threshold_ >= 0.0) ||
        !std::isfinite(rotation_threshold_))
      throw std::invalid_argument("distance_threshold and rotation_threshold must be non-negative numbers");
    const auto range = c.Get<std::vector<double>>("target_position_range");
    if (range.size() != 6) throw std::invalid_argument("target_position_range must have 6 values (3 low/high pairs)");
    for (int i = 0; i < 3; ++i) {
      range_[i] = {range[2 * i], range[2 * i + 1]};
      if (!std::isfinite(range[2 * i]) || !std::isfinite(range[2 * i + 1]) || range[2 * i] > range[2 * i + 1])
        throw std::invalid_argument("target_position_range: each pair must be finite, low <= high");
    }
    object_joint_ = Id(mjOBJ_JOINT, "object:joint");
    if (m_->jnt_type[object_joint_] != mjJNT_FREE) throw std::invalid_argument("object:joint must be a free joint");
    object_center_ = Id(mjOBJ_SITE, "object:center");
    parallel_ = rot::ParallelQuats();
    // _env_setup sets no joint (initial_qpos is empty) and runs a forward
    // pass; the model's qpos0 is the initial state.
    mj_forward(m_, d_);
    SaveInitialState();
    warmstart_.assign(m_->nv, 0.0);
  }
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    ClearDraws();
    // The reference's _reset_sim does not mj_resetData: the solver's warm
    // start is the previous step's.
    std::copy(warmstart_.begin(), warmstart_.end(), d_->qacc_warmstart);
    // The reference retries without end; a model where the object can never
    // stay on the palm (set_model's gravity turned sideways, say) would hang
    // the pool's thread: refuse it after kResetAttempts tries instead.
    int attempts = 1;
    while (!ResetAttempt()) {
      if (++attempts > kResetAttempts)
        throw std::runtime_error("HandManipulate: the object fell off the palm in " + std::to_string(kResetAttempts) +
                                 " reset attempts in a row; the model (set_model?) cannot hold it");
    }
    SampleGoal();
  }

  void WriteReset(const StateRow& out) override {
    WriteObs(out);
    WriteDraws(out, spec_.draw_keys);
  }

  StepResult StepModel(const float* action, const StateRow& out) override {
    ClearDraws();
    SetAction(action);
    Substeps();
    WriteObs(out);
    const double* ag = out[spec_.achieved_goal];
    const auto [d_pos, d_rot] = GoalDistance(ag);
    const bool success = d_pos < distance_threshold_ && d_rot < rotation_threshold_;
    *out[spec_.is_success] = success ? 1.0 : 0.0;
    WriteDraws(out, spec_.draw_keys);
    StepResult r;
    r.reward = dense_ ? -(10.0 * d_pos + d_rot) : (success ? 0.0 : -1.0);
    return r;
  }

 private:
  // The touch sensors (named robot0:TS_*) in id order, for touch_get_obs.
  static std::vector<int> TouchSensors(const mjModel* m, const std::string& mode) {
    std::vector<int> ids;
    if (mode.empty()) return ids;
    if (mode != "sensordata" && mode != "boolean" && mode != "log")
      throw std::invalid_argument("touch_get_obs must be 'sensordata', 'boolean' or 'log', got '" + mode + "'");
    for (int s = 0; s < m->nsensor; ++s) {
      const char* name = mj_id2name(m, mjOBJ_SENSOR, s);
      if (name != nullptr && std::string(name).find("robot0:TS_") != std::string::npos) ids.push_back(s);
    }
    if (ids.empty()) throw std::invalid_argument("touch_get_obs needs a model with touch sensors (robot0:TS_*)");
    return ids;
  }

  void Substeps() {
    for (int k = 0; k < kSubsteps; ++k) mj_step(m_, d_);
    std::copy(d_->qacc_warmstart, d_->qacc_warmstart + m_->nv, warmstart_.begin());
  }

  double* ObjectQpos() { return d_->qpos + m_->jnt_qposadr[object_joint_]; }

  // One try of MujocoManipulateEnv._reset_sim: the initial state, the
  // object turned and moved, 10 agent steps with a zero action; false when
  // the object fell off the palm.
  bool ResetAttempt() {
    RestoreInitialState();
    mj_forward(m_, d_);
    double* q = ObjectQpos();
    rot::Vec3 pos{q[0], q[1], q[2]};
    rot::Quat quat{q[3], q[4], q[5], q[6]};
    if (randomize_rotation_) {
      if (target_rotation_ == "z") {
        const double angle = DrawUniform(-std::numbers::pi, std::numbers::pi);
        quat = rot::Mul(quat, rot::FromAngleAxis(angle, {0.0, 0.0, 1.0}));
      } else if (target_rotation_ == "parallel") {
        const double angle = DrawUniform(-std::numbers::pi, std::numbers::pi);
        const rot::Quat z = rot::FromAngleAxis(angle, {0.0, 0.0, 1.0});
        const rot::Quat& par = parallel_[DrawInteger(0, static_cast<int64_t>(parallel_.size()))];
        quat = rot::Mul(quat, rot::Mul(z, par));
      } else {  // xyz
        const double angle = DrawUniform(-std::numbers::pi, std::numbers::pi);
        rot::Vec3 axis;
        for (double& a : axis) a = DrawUniform(-1.0, 1.0);
        quat = rot::Mul(quat, rot::FromAngleAxis(angle, axis));
      }
    }
    if (randomize_position_ && target_position_ != "fixed")
      for (double& p : pos) p += DrawNormal(0.005);
    const double n = rot::Norm(quat.data(), 4);
    for (double& v : quat) v /= n;
    std::copy(pos.begin(), pos.end(), q);
    std::copy(quat.begin(), quat.end(), q + 3);
    const float zero[20] = {};
    for (int i = 0; i < 10; ++i) {
      SetAction(zero);
      Substeps();
    }
    mj_forward(m_, d_);
    return d_->site_xpos[3 * object_center_ + 2] > 0.04;
  }

  void SampleGoal() {
    const double* q = ObjectQpos();
    for (int i = 0; i < 3; ++i) goal_[i] = q[i];
    if (target_position_ == "random")
      for (int i = 0; i < 3; ++i) goal_[i] = q[i] + DrawUniform(range_[i].first, range_[i].second);
    rot::Quat quat;
    const double angle = DrawUniform(-std::numbers::pi, std::numbers::pi);
    if (target_rotation_ == "z") {
      quat = rot::FromAngleAxis(angle, {0.0, 0.0, 1.0});
    } else if (target_rotation_ == "parallel") {
      quat = rot::FromAngleAxis(angle, {0.0, 0.0, 1.0});
      quat = rot::Mul(quat, parallel_[DrawInteger(0, static_cast<int64_t>(parallel_.size()))]);
    } else {
      rot::Vec3 axis;
      for (double& a : axis) a = DrawUniform(-1.0, 1.0);
      quat = rot::FromAngleAxis(angle, axis);
    }
    const double n = rot::Norm(quat.data(), 4);
    for (int i = 0; i < 4; ++i) goal_[3 + i] = quat[i] / n;
  }

  // _goal_distance of one achieved goal against the goal.
  std::pair<double, double> GoalDistance(const double* ag) const {
    double d_pos = 0.0, d_rot = 0.0;
    if (target_position_ != "ignore") {
      const double dp[3] = {ag[0] - goal_[0], ag[1] - goal_[1], ag[2] - goal_[2]};
      d_pos = rot::Norm(dp, 3);
    }
    rot::Quat qa{ag[3], ag[4], ag[5], ag[6]};
    const rot::Quat qb{goal_[3], goal_[4], goal_[5], goal_[6]};
    if (ignore_z_) {
      rot::Vec3 ea = rot::Quat2Euler(qa);
      const rot::Vec3 eb = rot::Quat2Euler(qb);
      ea[2] = eb[2];
      qa = rot::Euler2Quat(ea);
    }
    const rot::Quat diff = rot::Mul(qa, rot::Conjugate(qb));
    d_rot = 2 * std::acos(std::clamp(diff[0], -1.0, 1.0));
    return {d_pos, d_rot};
  }

  void WriteObs(const StateRow& out) {
    ObsWriter w(StateObs(out));
    PutRobot(&w);
    w.Put(d_->qvel + m_->jnt_dofadr[object_joint_], 6);
    double* ag = out[spec_.achieved_goal];
    std::copy(ObjectQpos(), ObjectQpos() + 7, ag);
    w.Put(ag, 7);
    // data.sensordata indexed by the sensors' ids, as the reference does
    // (each touch sensor is one value).
    for (int s : touch_) {
      const double v = d_->sensordata[s];
      if (touch_get_obs_ == "boolean") {
        w.Put(v > 0.0 ? 1.0 : 0.0);
      } else if (touch_get_obs_ == "log") {
        w.Put(std::log(v + 1.0));
      } else {
        w.Put(v);
      }
    }
    std::copy(goal_.begin(), goal_.end(), out[spec_.desired_goal]);
  }

  bool dense_;
  std::string target_position_, target_rotation_;
  bool randomize_position_, randomize_rotation_, ignore_z_;
  double distance_threshold_, rotation_threshold_;
  std::string touch_get_obs_;
  std::vector<int> touch_;
  std::array<std::pair<double, double>, 3> range_{};
  int object_joint_ = -1, object_center_ = -1;
  std::vector<rot::Quat> parallel_;
  std::array<double, 7> goal_{};
  std::vector<double> warmstart_;
  Spec spec_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_HAND_H_
