// Fetch{Reach,Push,Slide,PickAndPlace}[Dense]-v4: gymnasium-robotics'
// MujocoFetchEnv (a 7-dof arm moved through a mocap body welded to its
// gripper; the block tasks place a block and a goal at each reset).
//
// The task's constants (the reference hard codes them per class) are config
// keys set per id by envpool/tasks/robotics.py: has_object, block_gripper,
// target_in_the_air, gripper_extra_height, target_offset, obj_range,
// target_range, distance_threshold, initial_slide (the three base slides)
// and initial_object (the block's free joint).
#ifndef ENVPOOL_MUJOCO_ROBOTICS_FETCH_H_
#define ENVPOOL_MUJOCO_ROBOTICS_FETCH_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics {

class Fetch : public GoalEnv {
 public:
  static constexpr int kSubsteps = 20;
  static Config Defaults(int version) {
    return GymDefaults(version, "fetch/reach.xml", kSubsteps,
                       {{"reward_type", std::string("sparse")},
                        {"has_object", false},
                        {"block_gripper", true},
                        {"target_in_the_air", true},
                        {"gripper_extra_height", 0.2},
                        {"target_offset", std::vector<double>{0.0, 0.0, 0.0}},
                        {"obj_range", 0.15},
                        {"target_range", 0.15},
                        {"distance_threshold", 0.05},
                        {"initial_slide", std::vector<double>{0.4049, 0.48, 0.0}},
                        {"initial_object", std::vector<double>{1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0}},
                        {"report_draws", false}});
  }
  // fetch_env.DEFAULT_CAMERA_CONFIG.
  static const char* DefaultCameraConfig(int /*version*/) {
    return "distance=2.5;azimuth=132.0;elevation=-14.0;lookat=1.3,0.75,0.55";
  }

  struct Spec : GoalSpec {
    StateKey<double> is_success;
    Spec(const Fetch& e, const Config& c) : GoalSpec(c, e.has_object_ ? 25 : 10, 3) {
      is_success = Info("is_success");
      FinishBox(e, 4);
    }
  };

  Fetch(const Config& c, int /*version*/)
      : GoalEnv(c, kSubsteps, 15, 15),
        dense_(ReadRewardType(c)),
        has_object_(c.Get<bool>("has_object")),
        block_gripper_(c.Get<bool>("block_gripper")),
        target_in_the_air_(c.Get<bool>("target_in_the_air")),
        gripper_extra_height_(c.Get<double>("gripper_extra_height")),
        obj_range_(c.Get<double>("obj_range")),
        target_range_(c.Get<double>("target_range")),
        distance_threshold_(c.Get<double>("distance_threshold")),
        spec_(*this, c) {
    const auto offset = c.Get<std::vector<double>>("target_offset");
    const auto slide = c.Get<std::vector<double>>("initial_slide");
    const auto object = c.Get<std::vector<double>>("initial_object");
    if (offset.size() != 3) throw std::invalid_argument("target_offset must have 3 values");
    if (slide.size() != 3) throw std::invalid_argument("initial_slide must have 3 values");
    if (object.size() != 7) throw std::invalid_argument("initial_object must have 7 values (position, quaternion)");
    std::copy(offset.begin(), offset.end(), target_offset_.begin());
    if (!(distance_threshold_ >= 0.0) || !std::isfinite(distance_threshold_))
      throw std::invalid_argument("distance_threshold must be a non-negative number, got " +
                                  std::to_string(distance_threshold_));
    if (!(obj_range_ >= 0.0) || !(target_range_ >= 0.0) || !std::isfinite(obj_range_) || !std::isfinite(target_range_))
      throw std::invalid_argument("obj_range and target_range must be non-negative numbers");
    // With a zero obj_range the block never leaves the gripper's 0.1 disc
    // and the reference's placement loop never ends.
    if (has_object_ && !(obj_range_ > 0.1 / std::sqrt(2.0)))
      throw std::invalid_argument("obj_range must exceed 0.0708 (the block is placed at least 0.1 from the gripper)");
    grip_site_ = Id(mjOBJ_SITE, "robot0:grip");
    gripper_body_ = Id(mjOBJ_BODY, "robot0:gripper_link");
    mocap_body_ = Id(mjOBJ_BODY, "robot0:mocap");
    for (int j = 0; j < m_->njnt; ++j) {
      const char* name = mj_id2name(m_, mjOBJ_JOINT, j);
      if (name != nullptr && std::string(name).rfind("robot", 0) == 0) robot_joints_.push_back(j);
    }
    if (robot_joints_.size() < 2) throw std::invalid_argument("the model has no robot0 gripper joints");
    l_finger_ = Id(mjOBJ_JOINT, "robot0:l_gripper_finger_joint");
    r_finger_ = Id(mjOBJ_JOINT, "robot0:r_gripper_finger_joint");
    if (has_object_) {
      object_site_ = Id(mjOBJ_SITE, "object0");
      object_joint_ = Id(mjOBJ_JOINT, "object0:joint");
      if (m_->jnt_type[object_joint_] != mjJNT_FREE) throw std::invalid_argument("object0:joint must be a free joint");
    }
    jac_.resize(6 * static_cast<std::size_t>(m_->nv));
    Setup(slide, object);
  }
  const MujocoSpec& spec() const override { return spec_; }
  ~Fetch() override {
    if (start_ != nullptr) mj_deleteData(start_);
  }
  // From the state after the setup, the mocap holding the gripper there.
  std::function<void()> RawStepper(uint64_t seed) const override {
    return MakeRawStepperFrom(m_, start_, kSubsteps, 50, seed);
  }

 protected:
  void ResetModel() override {
    ClearDraws();
    // _reset_sim: the state after setup, then the block placed at least 0.1
    // from the gripper.
    d_->time = initial_time_;
    std::copy(initial_qpos_.begin(), initial_qpos_.end(), d_->qpos);
    std::copy(initial_qvel_.begin(), initial_qvel_.end(), d_->qvel);
    if (has_object_) {
      double ox = initial_grip_[0], oy = initial_grip_[1];
      while (Norm2(ox - initial_grip_[0], oy - initial_grip_[1]) < 0.1) {
        ox = initial_grip_[0] + DrawUniform(-obj_range_, obj_range_);
        oy = initial_grip_[1] + DrawUniform(-obj_range_, obj_range_);
      }
      double* q = d_->qpos + m_->jnt_qposadr[object_joint_];
      q[0] = ox;
      q[1] = oy;
    }
    // _sample_goal (drawn before the forward pass; it reads none of it).
    for (int i = 0; i < 3; ++i) goal_[i] = initial_grip_[i] + DrawUniform(-target_range_, target_range_);
    if (has_object_) {
      for (int i = 0; i < 3; ++i) goal_[i] += target_offset_[i];
      goal_[2] = height_offset_;
      if (target_in_the_air_ && DrawUniform(0.0, 1.0) < 0.5) goal_[2] += DrawUniform(0.0, 0.45);
    }
  }

  void WriteReset(const StateRow& out) override {
    WriteObs(out);
    WriteDraws(out, spec_.draw_keys);
    PlaceTarget();
  }

  StepResult StepModel(const float* action, const StateRow& out) override {
    ClearDraws();
    // np.clip to the Box (a NaN stays NaN, as in the reference).
    float a[4];
    for (int i = 0; i < 4; ++i) a[i] = std::isnan(action[i]) ? action[i] : std::clamp(action[i], -1.0f, 1.0f);
    // _set_action: float32 position deltas, the fixed rotation, the
    // gripper (zero when blocked) on both fingers.
    const float gripper = block_gripper_ ? 0.0f : a[3];
    for (int i = 0; i < m_->nu && i < 2; ++i) {
      if (m_->actuator_biastype[i] == mjBIAS_NONE) {
        d_->ctrl[i] = gripper;
      } else {
        d_->ctrl[i] = d_->qpos[m_->jnt_qposadr[m_->actuator_trnid[2 * i]]] + static_cast<double>(gripper);
      }
    }
    // mocap_set_action: the mocap moved to its welded body, then by the delta.
    MocapToBodies();
    if (m_->nmocap > 0) {
      for (int i = 0; i < 3; ++i) d_->mocap_pos[i] += static_cast<double>(a[i] * 0.05f);
      static constexpr double kRot[4] = {1.0, 0.0, 1.0, 0.0};
      for (int i = 0; i < 4; ++i) d_->mocap_quat[i] += kRot[i];
    }
    for (int k = 0; k < kSubsteps; ++k) mj_step(m_, d_);
    if (block_gripper_) {
      d_->qpos[m_->jnt_qposadr[l_finger_]] = 0.0;
      d_->qpos[m_->jnt_qposadr[r_finger_]] = 0.0;
      mj_forward(m_, d_);
    }
    WriteObs(out);
    const double* ag = out[spec_.achieved_goal];
    const double dist = GoalDistance(ag);
    *out[spec_.is_success] = dist < distance_threshold_ ? 1.0 : 0.0;
    WriteDraws(out, spec_.draw_keys);
    PlaceTarget();
    StepResult r;
    r.reward = dense_ ? -dist : (dist > distance_threshold_ ? -1.0 : 0.0);
    return r;
  }

 private:
  static bool ReadRewardType(const Config& c) {
    const std::string t = c.Get<std::string>("reward_type");
    CheckRewardType(t);
    return t == "dense";
  }

  int Id(mjtObj type, const char* name) const {
    const int id = mj_name2id(m_, type, name);
    if (id < 0) throw std::invalid_argument(std::string("the Fetch model has no '") + name + "'");
    return id;
  }

  // _env_setup, run once per env as the reference runs it in __init__: the
  // initial joints, reset_mocap_welds (the weld's relative pose zeroed: the
  // env's own model), the gripper moved by its mocap for 10 agent steps.
  void Setup(const std::vector<double>& slide, const std::vector<double>& object) {
    if (m_->nmocap > 0 && m_->neq > 0) {
      // Written as the reference writes it: mj_setConst (set_model's) would
      // recompute the relative pose from qpos0.
      mjModel* own = OwnModel();
      for (int i = 0; i < own->neq; ++i) {
        if (own->eq_type[i] != mjEQ_WELD) continue;
        static constexpr double kWeld[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0};
        std::copy(kWeld, kWeld + 7, own->eq_data + static_cast<std::ptrdiff_t>(i) * mjNEQDATA);
      }
    }
    static const char* kSlides[3] = {"robot0:slide0", "robot0:slide1", "robot0:slide2"};
    for (int i = 0; i < 3; ++i) d_->qpos[m_->jnt_qposadr[Id(mjOBJ_JOINT, kSlides[i])]] = slide[i];
    if (has_object_) std::copy(object.begin(), object.end(), d_->qpos + m_->jnt_qposadr[object_joint_]);
    mj_forward(m_, d_);  // reset_mocap_welds' forward
    mj_forward(m_, d_);
    const double* grip = d_->site_xpos + 3 * grip_site_;
    const double target[3] = {-0.498 + grip[0], 0.005 + grip[1], (-0.431 + gripper_extra_height_) + grip[2]};
    const int mocap = m_->body_mocapid[mocap_body_];
    if (mocap < 0) throw std::invalid_argument("robot0:mocap is not a mocap body");
    std::copy(target, target + 3, d_->mocap_pos + 3 * mocap);
    static constexpr double kQuat[4] = {1.0, 0.0, 1.0, 0.0};
    std::copy(kQuat, kQuat + 4, d_->mocap_quat + 4 * mocap);
    for (int k = 0; k < 10 * kSubsteps; ++k) mj_step(m_, d_);
    std::copy(d_->site_xpos + 3 * grip_site_, d_->site_xpos + 3 * grip_site_ + 3, initial_grip_.begin());
    if (has_object_) height_offset_ = d_->site_xpos[3 * object_site_ + 2];
    start_ = mj_copyData(nullptr, m_, d_);
    if (start_ == nullptr) throw std::runtime_error("MuJoCo allocation failed");
    initial_time_ = d_->time;
    initial_qpos_.assign(d_->qpos, d_->qpos + m_->nq);
    initial_qvel_.assign(d_->qvel, d_->qvel + m_->nv);
  }

  // reset_mocap2body_xpos: each weld's mocap body on the body it holds.
  void MocapToBodies() {
    for (int i = 0; i < m_->neq; ++i) {
      if (m_->eq_type[i] != mjEQ_WELD) continue;
      const int b1 = m_->eq_obj1id[i], b2 = m_->eq_obj2id[i];
      int mocap = m_->body_mocapid[b1], body = b2;
      if (mocap == -1) {
        mocap = m_->body_mocapid[b2];
        body = b1;
      }
      if (mocap == -1) continue;  // the reference asserts
      std::copy(d_->xpos + 3 * body, d_->xpos + 3 * body + 3, d_->mocap_pos + 3 * mocap);
      std::copy(d_->xquat + 4 * body, d_->xquat + 4 * body + 4, d_->mocap_quat + 4 * mocap);
    }
  }

  // goal_distance: np.linalg.norm(axis=-1), squares summed in order.
  double GoalDistance(const double* ag) const {
    const double dx = ag[0] - goal_[0], dy = ag[1] - goal_[1], dz = ag[2] - goal_[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
  }

  // A site's linear (or angular) velocity: its Jacobian times qvel.
  void SiteVelocity(int site, double scale, double* velp, double* velr) {
    const int nv = m_->nv;
    mj_jacSite(m_, d_, jac_.data(), jac_.data() + 3 * nv, site);
    for (int r = 0; r < 3; ++r) {
      double sp = 0.0, sr = 0.0;
      for (int j = 0; j < nv; ++j) {
        sp += jac_[r * nv + j] * d_->qvel[j];
        sr += jac_[(3 + r) * nv + j] * d_->qvel[j];
      }
      velp[r] = sp * scale;
      if (velr != nullptr) velr[r] = sr * scale;
    }
  }

  void WriteObs(const StateRow& out) {
    const double dt = kSubsteps * m_->opt.timestep;
    const double* grip = d_->site_xpos + 3 * grip_site_;
    double grip_velp[3];
    SiteVelocity(grip_site_, dt, grip_velp, nullptr);
    const int nr = static_cast<int>(robot_joints_.size());
    const int jr = robot_joints_[nr - 2], jl = robot_joints_[nr - 1];
    const double gripper_state[2] = {d_->qpos[m_->jnt_qposadr[jr]], d_->qpos[m_->jnt_qposadr[jl]]};
    const double gripper_vel[2] = {d_->qvel[m_->jnt_dofadr[jr]] * dt, d_->qvel[m_->jnt_dofadr[jl]] * dt};
    ObsWriter w(StateObs(out));
    w.Put(grip, 3);
    double* ag = out[spec_.achieved_goal];
    if (has_object_) {
      const double* obj = d_->site_xpos + 3 * object_site_;
      double velp[3], velr[3];
      SiteVelocity(object_site_, dt, velp, velr);
      w.Put(obj, 3);
      for (int i = 0; i < 3; ++i) w.Put(obj[i] - grip[i]);
      w.Put(gripper_state, 2);
      double euler[3];
      Mat2Euler(d_->site_xmat + 9 * object_site_, euler);
      w.Put(euler, 3);
      for (int i = 0; i < 3; ++i) w.Put(velp[i] - grip_velp[i]);
      w.Put(velr, 3);
      std::copy(obj, obj + 3, ag);
    } else {
      w.Put(gripper_state, 2);
      std::copy(grip, grip + 3, ag);
    }
    w.Put(grip_velp, 3);
    w.Put(gripper_vel, 2);
    std::copy(goal_.begin(), goal_.end(), out[spec_.desired_goal]);
  }

  // rotations.mat2euler of a row-major 3x3 matrix.
  static void Mat2Euler(const double* m, double* e) {
    const double cy = std::sqrt(m[8] * m[8] + m[5] * m[5]);
    const bool cond = cy > std::numeric_limits<double>::epsilon() * 4.0;
    e[2] = cond ? -std::atan2(m[1], m[0]) : -std::atan2(-m[3], m[4]);
    e[1] = -std::atan2(-m[2], cy);
    e[0] = cond ? -std::atan2(m[5], m[8]) : 0.0;
  }

  // The reference moves the target site in the model (for rendering only);
  // the frame's site position is set here instead.
  void PlaceTarget() {
    const int site = mj_name2id(m_, mjOBJ_SITE, "target0");
    if (site < 0) return;
    std::copy(goal_.begin(), goal_.end(), d_->site_xpos + 3 * site);
  }

  bool dense_, has_object_, block_gripper_, target_in_the_air_;
  double gripper_extra_height_, obj_range_, target_range_, distance_threshold_;
  std::array<double, 3> target_offset_{};
  int grip_site_ = -1, gripper_body_ = -1, mocap_body_ = -1, object_site_ = -1, object_joint_ = -1;
  int l_finger_ = -1, r_finger_ = -1;
  std::vector<int> robot_joints_;
  std::vector<double> jac_;
  std::array<double, 3> initial_grip_{}, goal_{};
  double height_offset_ = 0.0, initial_time_ = 0.0;
  std::vector<double> initial_qpos_, initial_qvel_;
  mjData* start_ = nullptr;  // the state after Setup (the raw ceiling's start)
  Spec spec_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_FETCH_H_
