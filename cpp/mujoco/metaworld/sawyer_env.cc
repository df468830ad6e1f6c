// Meta-World's Sawyer base; see sawyer_env.h.
#include "cpp/mujoco/metaworld/sawyer_env.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace envpool::mujoco::metaworld {
namespace {

// SawyerXYZEnv._HAND_SPACE: the observed hand position's clip bounds.
constexpr Vec3 kHandSpaceLow{-0.525, 0.348, -0.0525};
constexpr Vec3 kHandSpaceHigh{0.525, 1.025, 0.7};
constexpr int kObjObs = 14;
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

Config SawyerDefaults(const std::string& xml_file) {
  Config c = GymDefaults(5, xml_file, 5, {{"partially_observable", true}, {"freeze_rand_vec", false}});
  AddRenderDefaults(&c, "");
  return c;
}

SawyerEnv::Spec::Spec(const SawyerEnv& e) : MujocoSpec(39) {
  success = Info("success");
  near_object = Info("near_object");
  grasp_success = Info("grasp_success");
  grasp_reward = Info("grasp_reward");
  in_place_reward = Info("in_place_reward");
  obj_to_target = Info("obj_to_target");
  unscaled_reward = Info("unscaled_reward");
  rand_vec = AddState<double>("info:rand_vec", {static_cast<int>(e.task_.rand_low.size())});
  Finish(e);
  // The action is Meta-World's (dx, dy, dz, grip) in [-1, 1], not the two
  // finger actuators' ctrl.
  EnvSpec::action[action.index] = envpool::Spec<float>("action", {4}, {-1.0}, {1.0});
}

SawyerEnv::SawyerEnv(const Config& c, Task task)
    : MujocoEnv(c, 5, 10, 10),
      task_(std::move(task)),
      hand_(BodyId("hand")),
      left_claw_(BodyId("leftclaw")),
      right_claw_(BodyId("rightclaw")),
      left_pad_(BodyId("leftpad")),
      right_pad_(BodyId("rightpad")),
      left_pad_geom_(GeomId("leftpad_geom")),
      right_pad_geom_(GeomId("rightpad_geom")),
      main_geom_(task_.main_object_geom != nullptr ? GeomId(task_.main_object_geom) : -1),
      left_ee_(SiteId("leftEndEffector")),
      right_ee_(SiteId("rightEndEffector")),
      goal_site_(mj_name2id(m_, mjOBJ_SITE, "goal")),
      partially_observable_(c.Get<bool>("partially_observable")),
      freeze_rand_vec_(c.Get<bool>("freeze_rand_vec")),
      rand_vec_(task_.rand_low.size(), 0.0),
      spec_(*this) {
  if (m_->nmocap < 1 || m_->nu != 2)
    throw std::invalid_argument("not a Meta-World Sawyer model (mocap arm, 2 fingers)");
  // reset_mocap_welds: the weld's relative pose and torque scale, written
  // into the fields metaworld 3.1.1 wrote under mujoco 3.3.0's eq_data
  // layout (11 numbers; mujoco 3.17 has a 12th, kept).
  // SetArray of an unchanged field outside mj_setConst's inputs (mj_setConst it would recompute the
  // weld's relative pose, which the reference does not) gives this env its
  // own model copy; the welds are then written there directly.
  const std::vector<float> rgba(m_->geom_rgba, m_->geom_rgba + 4 * m_->ngeom);
  SetArray("geom_rgba", rgba.data());
  mjModel* own = OwnModel();
  constexpr double kWeld[11] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 5.0};
  for (int i = 0; i < own->neq; ++i)
    if (own->eq_type[i] == mjEQ_WELD) std::copy(kWeld, kWeld + 11, own->eq_data + i * mjNEQDATA);
  mj_resetData(m_, d_);
  mj_forward(m_, d_);
  // The observation space: hand, gripper, objects; twice; goal.
  for (int k = 0; k < 2; ++k) {
    const int at = 18 * k;
    for (int i = 0; i < 3; ++i) {
      obs_lo_[at + i] = kHandSpaceLow[i];
      obs_hi_[at + i] = kHandSpaceHigh[i];
    }
    obs_lo_[at + 3] = -1.0;
    obs_hi_[at + 3] = 1.0;
    for (int i = 0; i < kObjObs; ++i) {
      obs_lo_[at + 4 + i] = -kInf;
      obs_hi_[at + 4 + i] = kInf;
    }
  }
  for (int i = 0; i < 3; ++i) {
    obs_lo_[36 + i] = partially_observable_ ? 0.0 : task_.goal_low[i];
    obs_hi_[36 + i] = partially_observable_ ? 0.0 : task_.goal_high[i];
  }
}

int SawyerEnv::SiteId(const char* name) const {
  const int id = mj_name2id(m_, mjOBJ_SITE, name);
  if (id < 0) throw std::invalid_argument(std::string("the model has no site '") + name + "'");
  return id;
}

int SawyerEnv::GeomId(const char* name) const {
  const int id = mj_name2id(m_, mjOBJ_GEOM, name);
  if (id < 0) throw std::invalid_argument(std::string("the model has no geom '") + name + "'");
  return id;
}

int SawyerEnv::JointQposAdr(const char* name) const {
  const int id = mj_name2id(m_, mjOBJ_JOINT, name);
  if (id < 0) throw std::invalid_argument(std::string("the model has no joint '") + name + "'");
  return m_->jnt_qposadr[id];
}

void SawyerEnv::MatQuat(const double* m, double* q) {
  // scipy's branch on the largest of the diagonal and the trace (the first
  // on ties), then normalization; xyzw order.
  auto at = [m](int i, int j) { return m[3 * i + j]; };
  const double trace = at(0, 0) + at(1, 1) + at(2, 2);
  const double decision[4] = {at(0, 0), at(1, 1), at(2, 2), trace};
  int choice = 0;
  for (int k = 1; k < 4; ++k)
    if (decision[k] > decision[choice]) choice = k;
  if (choice != 3) {
    const int i = choice, j = (i + 1) % 3, k = (j + 1) % 3;
    q[i] = 1 - trace + 2 * at(i, i);
    q[j] = at(j, i) + at(i, j);
    q[k] = at(k, i) + at(i, k);
    q[3] = at(k, j) - at(j, k);
  } else {
    q[0] = at(2, 1) - at(1, 2);
    q[1] = at(0, 2) - at(2, 0);
    q[2] = at(1, 0) - at(0, 1);
    q[3] = 1 + trace;
  }
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= n;
}

Vec3 SawyerEnv::TcpCenter() const {
  const Vec3 r = SitePos(right_ee_), l = SitePos(left_ee_);
  return {(r[0] + l[0]) / 2.0, (r[1] + l[1]) / 2.0, (r[2] + l[2]) / 2.0};
}

void SawyerEnv::SetObjXyz(const Vec3& pos) {
  for (int i = 0; i < 3; ++i) d_->qpos[9 + i] = pos[i];
  for (int i = 9; i < 15; ++i) d_->qvel[i] = 0.0;
  mj_forward(m_, d_);
}

mjModel* SawyerEnv::OwnModel() {
  // SetArray at construction gave this env its own model copy (model_params.h's
  // EnvModel), which m_ points to: the reference edits its model the same way,
  // with no mj_setConst (SetArray would run it after a body_pos write).
  if (!env_model().owned()) throw std::logic_error("Meta-World env without its own model copy");
  return const_cast<mjModel*>(m_);
}

void SawyerEnv::SetModelSitePos(int site, const Vec3& pos) {
  if (site < 0) return;  // a model without the site (the reference would raise)
  mjModel* m = OwnModel();
  for (int i = 0; i < 3; ++i) m->site_pos[3 * site + i] = pos[i];
}

void SawyerEnv::SetModelBodyPos(int body, const Vec3& pos) {
  mjModel* m = OwnModel();
  for (int i = 0; i < 3; ++i) m->body_pos[3 * body + i] = pos[i];
}

bool SawyerEnv::TouchingObject(int geom) const {
  // The reference sums efc_force[contact.efc_address] with Python indexing:
  // a contact outside the constraints (address -1) reads the last force.
  auto force = [&](int pad) {
    double sum = 0.0;
    for (int i = 0; i < d_->ncon; ++i) {
      const mjContact& c = d_->contact[i];
      if (!((c.geom[0] == pad || c.geom[1] == pad) && (c.geom[0] == geom || c.geom[1] == geom))) continue;
      int a = c.efc_address;
      if (a < 0) a += d_->nefc;
      if (a < 0 || a >= d_->nefc) throw std::runtime_error("touching_object: efc_force index out of range");
      sum += d_->efc_force[a];
    }
    return sum;
  };
  return 0 < force(left_pad_geom_) && 0 < force(right_pad_geom_);
}

Scalar SawyerEnv::GripperCagingReward(const float* action, const Vec3& obj_pos, double obj_radius,
                                      double pad_success_thresh, double object_reach_radius, double xz_thresh,
                                      double desired_gripper_effort, bool high_density, bool medium_density,
                                      const Vec3* init_pos) const {
  const Vec3& obj_init = init_pos != nullptr ? *init_pos : obj_init_pos_;
  const Vec3 left_pad = BodyPos(left_pad_), right_pad = BodyPos(right_pad_);
  const double pad_y[2] = {left_pad[1], right_pad[1]};
  double caging_lr[2];
  for (int i = 0; i < 2; ++i) {
    const double to_obj = std::abs(pad_y[i] - obj_pos[1]);
    const double to_obj_init = std::abs(pad_y[i] - obj_init[1]);
    const double margin = std::abs(to_obj_init - pad_success_thresh);
    caging_lr[i] = Tolerance(to_obj, obj_radius, pad_success_thresh, margin);
  }
  const double caging_y = HamacherProduct(caging_lr[0], caging_lr[1]);
  const Vec3 tcp = TcpCenter();
  double caging_xz_margin = Norm2(obj_init[0] - init_tcp_[0], obj_init[2] - init_tcp_[2]);
  caging_xz_margin -= xz_thresh;
  const double caging_xz = Tolerance(Norm2(tcp[0] - obj_pos[0], tcp[2] - obj_pos[2]), 0, xz_thresh, caging_xz_margin);
  // min(max(0, action[-1]), effort) / effort: float32 when it is the action.
  const Scalar gripper_closed = GripEffort(action[3], desired_gripper_effort) / Py(desired_gripper_effort);
  const Scalar caging = Py(HamacherProduct(caging_y, caging_xz));
  const Scalar gripping = caging.v > 0.97 ? gripper_closed : Py(0.0);
  Scalar caging_and_gripping = HamacherProduct(caging, gripping);
  if (high_density) caging_and_gripping = (caging_and_gripping + caging) / Py(2);
  if (medium_density) {
    const double tcp_to_obj = Dist(obj_pos, tcp);
    const double tcp_to_obj_init = Dist(obj_init, init_tcp_);
    const double reach_margin = std::abs(tcp_to_obj_init - object_reach_radius);
    const double reach = Tolerance(tcp_to_obj, 0, object_reach_radius, reach_margin);
    caging_and_gripping = (caging_and_gripping + Py(reach)) / Py(2);
  }
  return caging_and_gripping;
}

double SawyerEnv::PadCagingReward(const Vec3& obj, double obj_radius, double grip_extra,
                                  double x_z_success_margin) const {
  const double pad_success_margin = 0.05, grip_success_margin = obj_radius + grip_extra;
  const Vec3 tcp = TcpCenter();
  const Vec3 left_pad = BodyPos(left_pad_), right_pad = BodyPos(right_pad_);
  const double delta_left = left_pad[1] - obj[1];
  const double delta_right = obj[1] - right_pad[1];
  const double right_margin = std::abs(std::abs(obj[1] - InitRightPad()[1]) - pad_success_margin);
  const double left_margin = std::abs(std::abs(obj[1] - InitLeftPad()[1]) - pad_success_margin);
  const double right_caging = Tolerance(delta_right, obj_radius, pad_success_margin, right_margin);
  const double left_caging = Tolerance(delta_left, obj_radius, pad_success_margin, left_margin);
  const double right_gripping = Tolerance(delta_right, obj_radius, grip_success_margin, right_margin);
  const double left_gripping = Tolerance(delta_left, obj_radius, grip_success_margin, left_margin);
  const double y_caging = HamacherProduct(right_caging, left_caging);
  const double y_gripping = HamacherProduct(right_gripping, left_gripping);
  // The reference zeroes y by subtracting it (y - y is 0 for finite y).
  const double tcp_obj_xz = Norm3(tcp[0] - obj[0], (tcp[1] - tcp[1]) - (obj[1] - obj[1]), tcp[2] - obj[2]);
  const double margin =
      Norm3(obj_init_pos_[0] - init_tcp_[0], (obj_init_pos_[1] - obj_init_pos_[1]) - (init_tcp_[1] - init_tcp_[1]),
            obj_init_pos_[2] - init_tcp_[2]) -
      x_z_success_margin;
  const double x_z_caging = Tolerance(tcp_obj_xz, 0, x_z_success_margin, margin);
  const double caging = HamacherProduct(y_caging, x_z_caging);
  const double gripping = caging > 0.95 ? y_gripping : 0.0;
  return (caging + gripping) / 2;
}

void SawyerEnv::ResetHand() {
  // _reset_hand: 50 frame-skipped steps holding the mocap at the start pose
  // with the gripper open.
  const int mocap = m_->body_mocapid[BodyId("mocap")];
  for (int step = 0; step < 50; ++step) {
    for (int i = 0; i < 3; ++i) d_->mocap_pos[3 * mocap + i] = task_.hand_init_pos[i];
    d_->mocap_quat[4 * mocap + 0] = 1.0;
    d_->mocap_quat[4 * mocap + 1] = 0.0;
    d_->mocap_quat[4 * mocap + 2] = 1.0;
    d_->mocap_quat[4 * mocap + 3] = 0.0;
    d_->ctrl[0] = -1.0;
    d_->ctrl[1] = 1.0;
    for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
  }
  init_tcp_ = TcpCenter();
}

void SawyerEnv::ResetModel() {
  // The reference's reset runs reset_model, mj_resetData, reset_model with
  // the same task vector: the second call decides the episode, and it runs
  // on the model the first one edited (PlaceModel before the hand reset).
  // Drawing the task vector once per reset is EnvPool's per-reset sampling.
  if (!(freeze_rand_vec_ && have_rand_vec_)) {
    const int n = static_cast<int>(rand_vec_.size());
    do {
      for (int i = 0; i < n; ++i) rand_vec_[i] = Uniform(task_.rand_low[i], task_.rand_high[i]);
    } while (!Accept(rand_vec_.data()));
    have_rand_vec_ = true;
  }
  PlaceModel(rand_vec_.data());
  ResetHand();
  ResetTask(rand_vec_.data());
  // reset_model's _get_obs, now: some tasks leave data stale (a joint set
  // without mj_forward) and the reference observes it so; MujocoEnv::Reset
  // runs mj_forward next (no state change, so the first step is the same).
  WriteObs(reset_obs_.data());
  std::copy(reset_obs_.begin(), reset_obs_.begin() + 18, reset_obs_.begin() + 18);
}

void SawyerEnv::CurrentObs(double* o) const {
  const Vec3 hand = BodyPos(hand_);
  o[0] = hand[0];
  o[1] = hand[1];
  o[2] = hand[2];
  const Vec3 gap = Sub(BodyPos(right_claw_), BodyPos(left_claw_));
  o[3] = Clip(Norm3(gap[0], gap[1], gap[2]) / 0.1, 0.0, 1.0);
  std::fill(o + 4, o + 18, 0.0);
  ObjectObs(o + 4);
}

void SawyerEnv::WriteObs(double* obs) {
  CurrentObs(obs);
  std::copy(prev_obs_.begin(), prev_obs_.end(), obs + 18);
  const Vec3 goal = partially_observable_ ? Vec3{0.0, 0.0, 0.0} : GoalPos();
  std::copy(goal.begin(), goal.end(), obs + 36);
  std::copy(obs, obs + 18, prev_obs_.begin());
}

void SawyerEnv::WriteRandVec(const StateRow& out) const {
  std::copy(rand_vec_.begin(), rand_vec_.end(), out[spec_.rand_vec]);
}

void SawyerEnv::WriteReset(const StateRow& out) {
  // reset() observes the current frame twice (prev_obs = obs[:18]), unclipped.
  std::copy(reset_obs_.begin(), reset_obs_.end(), StateObs(out));
  WriteRandVec(out);
}

StepResult SawyerEnv::StepModel(const float* a, const StateRow& out) {
  // set_xyz_action: float32 clip and scale (numpy keeps the float32 action's
  // type), float64 mocap position clipped to the task's box. NaN passes
  // through both clips, as in numpy; MuJoCo then handles the bad state.
  for (int i = 0; i < 3; ++i) {
    const float clipped = std::min(std::max(a[i], -1.0f), 1.0f);
    const float delta = clipped * static_cast<float>(1.0 / 100);
    double& p = d_->mocap_pos[i];
    p = std::min(std::max(p + static_cast<double>(delta), task_.hand_low[i]), task_.hand_high[i]);
  }
  d_->mocap_quat[0] = 1.0;
  d_->mocap_quat[1] = 0.0;
  d_->mocap_quat[2] = 1.0;
  d_->mocap_quat[3] = 0.0;
  d_->ctrl[0] = a[3];
  d_->ctrl[1] = -a[3];
  for (int k = 0; k < frame_skip(); ++k) mj_step(m_, d_);
  mj_forward(m_, d_);
  double* obs = StateObs(out);
  WriteObs(obs);
  for (int i = 0; i < 39; ++i) obs[i] = std::min(std::max(obs[i], obs_lo_[i]), obs_hi_[i]);
  const Eval e = Evaluate(obs, a);
  *out[spec_.success] = e.success;
  *out[spec_.near_object] = e.near_object;
  *out[spec_.grasp_success] = e.grasp_success;
  *out[spec_.grasp_reward] = e.grasp_reward;
  *out[spec_.in_place_reward] = e.in_place_reward;
  *out[spec_.obj_to_target] = e.obj_to_target;
  *out[spec_.unscaled_reward] = e.reward;
  WriteRandVec(out);
  StepResult r;
  r.reward = e.reward;
  return r;
}

}  // namespace envpool::mujoco::metaworld
