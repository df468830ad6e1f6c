// AdroitHand{Door,Hammer,Pen,Relocate}[Sparse]-v1: gymnasium-robotics'
// Adroit envs (gymnasium's MujocoEnv with the 24/26/28/30-actuator
// ShadowHand of the DAPG tasks), adroit_task choosing which.
//
// As in the reference, the env edits its model: the hand's position gains
// and biases once at make, and the task's randomized body or site at each
// reset (the env's own copy, written without mj_setConst as the reference
// writes it).
#ifndef ENVPOOL_MUJOCO_ROBOTICS_ADROIT_H_
#define ENVPOOL_MUJOCO_ROBOTICS_ADROIT_H_

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics {

class Adroit : public GoalEnv {
 public:
  enum class Task { kDoor, kHammer, kPen, kRelocate };
  static constexpr int kFrameSkip = 5;
  static Config Defaults(int version) {
    return GymDefaults(
        version, "adroit_hand/adroit_door.xml", kFrameSkip,
        {{"adroit_task", std::string("door")}, {"reward_type", std::string("dense")}, {"report_draws", false}});
  }
  // The adroit envs' DEFAULT_CAMERA_CONFIG.
  static const char* DefaultCameraConfig(int /*version*/) { return "distance=1.5;azimuth=90.0"; }

  struct Spec : MujocoSpec {
    StateKey<double> success;
    DrawKeys draw_keys;
    Spec(const Adroit& e, const Config& c) : MujocoSpec(e.ObsSize()), draw_keys(this, c) {
      success = Info("success");
      FinishBox(this, e, e.model()->nu);
    }
  };

  Adroit(const Config& c, int /*version*/)
      : GoalEnv(c, kFrameSkip, 30, 30), task_(ReadTask(c)), sparse_(ReadSparse(c)), spec_(Ids(), c) {
    // The position servos: the wrist's gain 10, the fingers' 1.
    mjModel* own = OwnModel();
    const auto servo = [&](const char* first, const char* last, double gain) {
      const int a = Id(mjOBJ_ACTUATOR, first), b = Id(mjOBJ_ACTUATOR, last);
      for (int i = a; i <= b; ++i) {
        own->actuator_gainprm[i * mjNGAIN] = gain;
        own->actuator_gainprm[i * mjNGAIN + 1] = own->actuator_gainprm[i * mjNGAIN + 2] = 0.0;
        own->actuator_biasprm[i * mjNBIAS] = 0.0;
        own->actuator_biasprm[i * mjNBIAS + 1] = -gain;
        own->actuator_biasprm[i * mjNBIAS + 2] = 0.0;
      }
    };
    servo("A_WRJ1", "A_WRJ0", 10.0);
    servo("A_FFJ3", "A_THJ0", 1.0);
    act_mean_.resize(m_->nu);
    act_rng_.resize(m_->nu);
    for (int i = 0; i < m_->nu; ++i) {
      const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
      act_mean_[i] = (lo + hi) / 2.0;
      act_rng_[i] = 0.5 * (hi - lo);
    }
  }
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    ClearDraws();
    mjModel* own = OwnModel();
    switch (task_) {
      case Task::kDoor:
        own->body_pos[3 * body_a_] = DrawUniform(-0.3, -0.2);
        own->body_pos[3 * body_a_ + 1] = DrawUniform(0.25, 0.35);
        own->body_pos[3 * body_a_ + 2] = DrawUniform(0.252, 0.35);
        break;
      case Task::kHammer:
        own->body_pos[3 * body_a_ + 2] = DrawUniform(0.1, 0.25);
        break;
      case Task::kPen: {
        const double e0 = DrawUniform(-1.0, 1.0), e1 = DrawUniform(-1.0, 1.0);
        Euler2Quat(e0, e1, 0.0, own->body_quat + 4 * body_b_);
        break;
      }
      case Task::kRelocate:
        own->body_pos[3 * body_a_] = DrawUniform(-0.15, 0.15);
        own->body_pos[3 * body_a_ + 1] = DrawUniform(-0.15, 0.3);
        own->site_pos[3 * site_a_] = DrawUniform(-0.2, 0.2);
        own->site_pos[3 * site_a_ + 1] = DrawUniform(-0.2, 0.2);
        own->site_pos[3 * site_a_ + 2] = DrawUniform(0.15, 0.35);
        break;
    }
    // set_state(init_qpos, init_qvel): the model's qpos0, zero velocity.
    std::copy(m_->qpos0, m_->qpos0 + m_->nq, d_->qpos);
    std::fill(d_->qvel, d_->qvel + m_->nv, 0.0);
  }

  void WriteReset(const StateRow& out) override {
    if (task_ == Task::kPen) {
      // measured after set_state's forward pass
      pen_length_ = SiteDistance(site_b_, site_c_);
      tar_length_ = SiteDistance(site_d_, site_e_);
    }
    WriteObs(StateObs(out));
    WriteDraws(out, spec_.draw_keys);
  }

  StepResult StepModel(const float* action, const StateRow& out) override {
    ClearDraws();
    for (int i = 0; i < m_->nu; ++i) {
      // np.clip (NaN stays NaN), then act_mean + a * act_rng in float64
      const float a = std::isnan(action[i]) ? action[i] : std::clamp(action[i], -1.0f, 1.0f);
      d_->ctrl[i] = act_mean_[i] + static_cast<double>(a) * act_rng_[i];
    }
    for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
    WriteObs(StateObs(out));
    StepResult r;
    bool success = false;
    r.reward = Reward(&success);
    *out[spec_.success] = success ? 1.0 : 0.0;
    WriteDraws(out, spec_.draw_keys);
    return r;
  }

 private:
  static Task ReadTask(const Config& c) {
    const std::string t = c.Get<std::string>("adroit_task");
    if (t == "door") return Task::kDoor;
    if (t == "hammer") return Task::kHammer;
    if (t == "pen") return Task::kPen;
    if (t == "relocate") return Task::kRelocate;
    throw std::invalid_argument("adroit_task must be 'door', 'hammer', 'pen' or 'relocate', got '" + t + "'");
  }
  // The reference lower-cases reward_type.
  static bool ReadSparse(const Config& c) {
    std::string t = c.Get<std::string>("reward_type");
    for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    CheckRewardType(t);
    return t == "sparse";
  }

  int Id(mjtObj type, const char* name) const {
    const int id = mj_name2id(m_, type, name);
    if (id < 0) throw std::invalid_argument(std::string("the Adroit model has no '") + name + "'");
    return id;
  }

  // The task's bodies, sites and joints, looked up before the spec is made
  // (its observation size depends on the model).
  const Adroit& Ids() {
    grasp_ = Id(mjOBJ_SITE, "S_grasp");
    switch (task_) {
      case Task::kDoor:
        // the reference reads qpos at the hinge's dof address
        hinge_dof_ = m_->jnt_dofadr[Id(mjOBJ_JOINT, "door_hinge")];
        site_a_ = Id(mjOBJ_SITE, "S_handle");
        body_a_ = Id(mjOBJ_BODY, "frame");
        break;
      case Task::kHammer:
        site_a_ = Id(mjOBJ_SITE, "S_target");
        body_b_ = Id(mjOBJ_BODY, "Object");
        site_b_ = Id(mjOBJ_SITE, "tool");
        site_c_ = Id(mjOBJ_SITE, "nail_goal");
        body_a_ = Id(mjOBJ_BODY, "nail_board");
        sensor_ = Id(mjOBJ_SENSOR, "S_nail");
        break;
      case Task::kPen:
        body_b_ = Id(mjOBJ_BODY, "target");
        body_a_ = Id(mjOBJ_BODY, "Object");
        site_a_ = Id(mjOBJ_SITE, "eps_ball");
        site_b_ = Id(mjOBJ_SITE, "object_top");
        site_c_ = Id(mjOBJ_SITE, "object_bottom");
        site_d_ = Id(mjOBJ_SITE, "target_top");
        site_e_ = Id(mjOBJ_SITE, "target_bottom");
        break;
      case Task::kRelocate:
        site_a_ = Id(mjOBJ_SITE, "target");
        body_a_ = Id(mjOBJ_BODY, "Object");
        break;
    }
    return *this;
  }

  int ObsSize() const {
    switch (task_) {
      case Task::kDoor:
        return (m_->nq - 3) + 1 + 1 + 9 + 1;
      case Task::kHammer:
        return (m_->nq - 6) + 6 + 3 + 3 + 3 + 3 + 1;
      case Task::kPen:
        return (m_->nq - 6) + 3 + 6 + 3 + 3 + 3 + 3;
      case Task::kRelocate:
        return (m_->nq - 6) + 9;
    }
    return 0;
  }

  const double* Site(int s) const { return d_->site_xpos + 3 * s; }
  const double* Body(int b) const { return d_->xpos + 3 * b; }
  // np.linalg.norm(a - b) of 3-vectors (a dot product: an FMA chain).
  static double Dist(const double* a, const double* b) { return Norm3(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
  double SiteDistance(int a, int b) const { return Dist(Site(a), Site(b)); }
  // (top - bottom) / length
  void Orientation(int top, int bottom, double length, double* o) const {
    for (int i = 0; i < 3; ++i) o[i] = (Site(top)[i] - Site(bottom)[i]) / length;
  }

  void WriteObs(double* o) {
    ObsWriter w(o);
    const double* qpos = d_->qpos;
    const int nq = m_->nq;
    switch (task_) {
      case Task::kDoor: {
        const double* palm = Site(grasp_);
        const double* handle = Site(site_a_);
        const double door = qpos[hinge_dof_];
        w.Put(qpos + 1, nq - 3);
        w.Put(qpos[nq - 1]);
        w.Put(door);
        w.Put(palm, 3);
        w.Put(handle, 3);
        for (int i = 0; i < 3; ++i) w.Put(palm[i] - handle[i]);
        w.Put(door > 1.0 ? 1.0 : -1.0);
        break;
      }
      case Task::kHammer: {
        const int nv = m_->nv;
        w.Put(qpos, nq - 6);
        for (int i = nv - 6; i < nv; ++i) w.Put(Clip(d_->qvel[i], -1.0, 1.0));
        w.Put(Site(grasp_), 3);
        w.Put(Body(body_b_), 3);
        double euler[3];
        Quat2Euler(d_->xquat + 4 * body_b_, euler);
        w.Put(euler, 3);
        w.Put(Site(site_a_), 3);
        w.Put(Clip(d_->sensordata[sensor_], -1.0, 1.0));
        break;
      }
      case Task::kPen: {
        double obj_o[3], tar_o[3];
        Orientation(site_b_, site_c_, pen_length_, obj_o);
        Orientation(site_d_, site_e_, tar_length_, tar_o);
        const double* obj = Body(body_a_);
        const double* desired = Site(site_a_);
        w.Put(qpos, nq - 6);
        w.Put(obj, 3);
        w.Put(d_->qvel + m_->nv - 6, 6);
        w.Put(obj_o, 3);
        w.Put(tar_o, 3);
        for (int i = 0; i < 3; ++i) w.Put(obj[i] - desired[i]);
        for (int i = 0; i < 3; ++i) w.Put(obj_o[i] - tar_o[i]);
        break;
      }
      case Task::kRelocate: {
        const double* obj = Body(body_a_);
        const double* palm = Site(grasp_);
        const double* target = Site(site_a_);
        w.Put(qpos, nq - 6);
        for (int i = 0; i < 3; ++i) w.Put(palm[i] - obj[i]);
        for (int i = 0; i < 3; ++i) w.Put(palm[i] - target[i]);
        for (int i = 0; i < 3; ++i) w.Put(obj[i] - target[i]);
        break;
      }
    }
  }

  double Reward(bool* success) {
    switch (task_) {
      case Task::kDoor: {
        const double g = d_->qpos[hinge_dof_];
        *success = g >= 1.35;
        if (sparse_) return *success ? 10.0 : -0.1;
        double r = 0.1 * Dist(Site(grasp_), Site(site_a_));
        r += -0.1 * (g - 1.57) * (g - 1.57);
        r += -1e-5 * SquareSum(d_->qvel, m_->nv);
        if (g > 0.2) r += 2;
        if (g > 1.0) r += 8;
        if (g > 1.35) r += 10;
        return r;
      }
      case Task::kHammer: {
        const double* hamm = Body(body_b_);
        const double* palm = Site(grasp_);
        const double* head = Site(site_b_);
        const double* nail = Site(site_a_);
        const double* goal = Site(site_c_);
        const double gd = Dist(nail, goal);
        *success = gd < 0.01;
        if (sparse_) return *success ? 10.0 : -0.1;
        double r = 0.1 * Dist(palm, hamm);
        r -= Dist(head, nail);
        r -= 10 * gd;
        r -= 1e-2 * std::sqrt(DotSelf(d_->qvel, m_->nv));
        if (hamm[2] > 0.04 && head[2] > 0.04) r += 2;
        if (gd < 0.020) r += 25;
        if (gd < 0.010) r += 75;
        return r;
      }
      case Task::kPen: {
        const double* obj = Body(body_a_);
        const double* desired = Site(site_a_);
        double obj_o[3], tar_o[3];
        Orientation(site_b_, site_c_, pen_length_, obj_o);
        Orientation(site_d_, site_e_, tar_length_, tar_o);
        const double gd = Dist(obj, desired);
        const double os = std::fma(obj_o[2], tar_o[2], std::fma(obj_o[1], tar_o[1], obj_o[0] * tar_o[0]));
        *success = gd < 0.075 && os > 0.95;
        if (sparse_) return *success ? 10.0 : -0.1;
        double r = -gd + os;
        if (gd < 0.075 && os > 0.9) r += 10;
        if (gd < 0.075 && os > 0.95) r += 50;
        if (obj[2] < 0.075) r -= 5;
        return r;
      }
      case Task::kRelocate: {
        const double* obj = Body(body_a_);
        const double* palm = Site(grasp_);
        const double* target = Site(site_a_);
        const double gd = Dist(obj, target);
        *success = gd < 0.1;
        if (sparse_) return *success ? 10.0 : -0.1;
        double r = 0.1 * Dist(palm, obj);
        if (obj[2] > 0.04) {
          r += 1.0;
          r += -0.5 * Dist(palm, target);
          r += -0.5 * Dist(obj, target);
        }
        if (gd < 0.1) r += 10.0;
        if (gd < 0.05) r += 20.0;
        return r;
      }
    }
    return 0.0;
  }

  // np.linalg.norm of a long vector squares and sums it (BLAS's order;
  // within rounding of this one).
  static double DotSelf(const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return s;
  }

  // rotations.euler2quat
  static void Euler2Quat(double e0, double e1, double e2, double* q) {
    const double ai = e2 / 2, aj = -e1 / 2, ak = e0 / 2;
    const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
    const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
    const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
    q[0] = cj * cc + sj * ss;
    q[3] = cj * sc - sj * cs;
    q[2] = -(cj * ss + sj * cc);
    q[1] = cj * cs - sj * sc;
  }

  // rotations.quat2euler: mat2euler(quat2mat(q)).
  static void Quat2Euler(const double* q, double* e) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double nq = ((w * w + x * x) + y * y) + z * z;
    double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (nq > std::numeric_limits<double>::epsilon()) {
      const double s = 2.0 / nq;
      const double X = x * s, Y = y * s, Z = z * s;
      const double wX = w * X, wY = w * Y, wZ = w * Z;
      const double xX = x * X, xY = x * Y, xZ = x * Z;
      const double yY = y * Y, yZ = y * Z, zZ = z * Z;
      const double mm[9] = {1.0 - (yY + zZ), xY - wZ, xZ + wY, xY + wZ,        1.0 - (xX + zZ),
                            yZ - wX,         xZ - wY, yZ + wX, 1.0 - (xX + yY)};
      std::copy(mm, mm + 9, m);
    }
    const double cy = std::sqrt(m[8] * m[8] + m[5] * m[5]);
    const bool cond = cy > std::numeric_limits<double>::epsilon() * 4.0;
    e[2] = cond ? -std::atan2(m[1], m[0]) : -std::atan2(-m[3], m[4]);
    e[1] = -std::atan2(-m[2], cy);
    e[0] = cond ? -std::atan2(m[5], m[8]) : 0.0;
  }

  Task task_;
  bool sparse_;
  int grasp_ = -1, site_a_ = -1, site_b_ = -1, site_c_ = -1, site_d_ = -1, site_e_ = -1;
  int body_a_ = -1, body_b_ = -1, sensor_ = -1, hinge_dof_ = -1;
  double pen_length_ = 1.0, tar_length_ = 1.0;
  std::vector<double> act_mean_, act_rng_;
  Spec spec_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_ADROIT_H_
