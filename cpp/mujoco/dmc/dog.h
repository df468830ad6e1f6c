// dm_control.suite.dog: a detailed dog model (stand; walk, trot, run: move
// at a speed; fetch: bring a thrown ball to a target). The floor size and
// the ball, target, walls and cameras are XML edits made in
// src/envpool/tasks/dmc.py; the meshes and textures come from dm_control's
// dog_assets folder.
#ifndef ENVPOOL_MUJOCO_DMC_DOG_H_
#define ENVPOOL_MUJOCO_DMC_DOG_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Dog : public DmcEnv {
 public:
  static constexpr const char* kTasks[] = {"stand", "walk", "trot", "run", "fetch"};
  // control_timestep .015 over the model's .005.
  static Config Defaults() { return DmcDefaults("stand", 15.0, 3); }

  struct Spec : DmcSpec {
    StateKey<double> joint_angles, joint_velocites, torso_pelvis_height, z_projection, torso_com_velocity;
    StateKey<double> inertial_sensors, foot_forces, touch_sensors, actuator_state, ball_state, target_position;
    explicit Spec(const Dog& e) {
      const auto n = static_cast<int64_t>(e.hinge_qpos_.size());
      joint_angles = Obs("joint_angles", {n});
      joint_velocites = Obs("joint_velocites", {n});  // sic: dm_control's key
      torso_pelvis_height = Obs("torso_pelvis_height", {2});
      z_projection = Obs("z_projection", {9});
      torso_com_velocity = Obs("torso_com_velocity", {3});
      inertial_sensors = Obs("inertial_sensors", {static_cast<int64_t>(e.inertial_.size())});
      foot_forces = Obs("foot_forces", {static_cast<int64_t>(e.foot_forces_.size())});
      touch_sensors = Obs("touch_sensors", {static_cast<int64_t>(e.touch_.size())});
      actuator_state = Obs("actuator_state", {e.m_->na});
      if (e.fetch_) {
        ball_state = Obs("ball_state", {6});
        target_position = Obs("target_position", {3});
      }
      Finish(e, "act0", e.m_->na);  // the random initial actuator state
    }
  };

  explicit Dog(const Config& c) : DmcEnv(c, "dog", false, "dog_assets"), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    mj_resetData(m_, d_);  // physics.reset()
    ForwardWithoutActuation();
    stand_height_[0] = d_->xpos[3 * torso_ + 2] * 0.9;
    stand_height_[1] = d_->xpos[3 * pelvis_ + 2] * 0.9;
    body_weight_ = -m_->opt.gravity[2] * m_->body_subtreemass[torso_];
    const double azimuth = random_.Uniform(0, 2 * std::numbers::pi);
    double* root = d_->qpos + root_qpos_;
    root[3] = std::cos(azimuth / 2);
    root[4] = 0;
    root[5] = 0;
    root[6] = std::sin(azimuth / 2);
    d_->qvel[0] = 2 * random_.Gauss();
    d_->qvel[1] = 2 * random_.Gauss();
    d_->qvel[5] = 2 * random_.Gauss();
    for (int i = 0; i < m_->nu; ++i)
      d_->act[i] = random_.Uniform(m_->actuator_ctrlrange[2 * i], m_->actuator_ctrlrange[2 * i + 1]);
    draws_.assign(d_->act, d_->act + m_->na);
    if (!fetch_) return;
    const double radius = 0.75 * m_->geom_size[3 * floor_];
    const double az = random_.Uniform(0, 2 * std::numbers::pi);
    double* ball = d_->qpos + ball_qpos_;
    ball[0] = radius * std::sin(az);
    ball[1] = radius * std::cos(az);
    ball[2] = 0.05;
    const double vertical_height = random_.Uniform(0, 3);
    const double gravity = -m_->opt.gravity[2];
    const double vertical_velocity = std::sqrt(2 * gravity * vertical_height);
    const double horizontal_speed = random_.Uniform(0, 5);
    const double dx = -std::sin(az) + 0.05 * random_.Gauss();
    const double dy = -std::cos(az) + 0.05 * random_.Gauss();
    double* v = d_->qvel + ball_dof_;
    v[0] = horizontal_speed * dx;
    v[1] = horizontal_speed * dy;
    v[2] = vertical_velocity;
  }

  void Observe(const StateRow& out) override {
    double* a = out[spec_.joint_angles];
    for (int q : hinge_qpos_) *a++ = d_->qpos[q];
    double* v = out[spec_.joint_velocites];
    for (int q : hinge_dof_) *v++ = d_->qvel[q];
    double* h = out[spec_.torso_pelvis_height];
    h[0] = d_->xpos[3 * torso_ + 2];
    h[1] = d_->xpos[3 * pelvis_ + 2];
    double* z = out[spec_.z_projection];
    for (int b : {skull_, torso_, pelvis_}) z = std::copy(d_->xmat + 9 * b + 6, d_->xmat + 9 * b + 9, z);
    InFrame(d_->sensordata + torso_linvel_, d_->xmat + 9 * torso_, out[spec_.torso_com_velocity]);
    Gather(inertial_, out[spec_.inertial_sensors]);
    Gather(foot_forces_, out[spec_.foot_forces]);
    Gather(touch_, out[spec_.touch_sensors]);
    std::copy(d_->act, d_->act + m_->na, out[spec_.actuator_state]);
    if (fetch_) {
      const double* frame = d_->site_xmat + 9 * head_site_;
      const double* head = d_->site_xpos + 3 * head_site_;
      const double* ball = d_->geom_xpos + 3 * ball_geom_;
      const double to_ball[3] = {ball[0] - head[0], ball[1] - head[1], ball[2] - head[2]};
      // object_velocity: MuJoCo's (angular, linear); the linear half.
      double head_vel[6], ball_vel[6];
      mj_objectVelocity(m_, d_, mjOBJ_SITE, head_site_, head_vel, 0);
      mj_objectVelocity(m_, d_, mjOBJ_GEOM, ball_geom_, ball_vel, 0);
      const double to_ball_vel[3] = {ball_vel[3] - head_vel[3], ball_vel[4] - head_vel[4], ball_vel[5] - head_vel[5]};
      double* s = out[spec_.ball_state];
      InFrame(to_ball, frame, s);
      InFrame(to_ball_vel, frame, s + 3);
      const double* target = d_->geom_xpos + 3 * target_geom_;
      const double to_target[3] = {target[0] - head[0], target[1] - head[1], target[2] - head[2]};
      InFrame(to_target, frame, out[spec_.target_position]);
    }
  }

  double Reward() override {
    // np.prod of the reward factors, in order.
    double r = Tolerance(d_->xpos[3 * torso_ + 2], stand_height_[0], kInf, stand_height_[0]);
    r *= Tolerance(d_->xpos[3 * pelvis_ + 2], stand_height_[1], kInf, stand_height_[1]);
    static const double kMinUprightCosine = std::cos(30 * (std::numbers::pi / 180.0));
    for (int b : {skull_, torso_, pelvis_})
      r *= Tolerance(d_->xmat[9 * b + 8], kMinUprightCosine, kInf, kMinUprightCosine + 1, Sigmoid::kLinear, 0);
    double touch = 0;
    for (int a : touch_) touch += d_->sensordata[a];
    r *= Tolerance(touch, body_weight_, kInf, body_weight_, Sigmoid::kLinear, 0.9);
    if (move_speed_ > 0) {
      double vel[3];
      InFrame(d_->sensordata + torso_linvel_, d_->xmat + 9 * torso_, vel);
      const double forward =
          Tolerance(vel[0], move_speed_, 2 * move_speed_, std::max(1.0, move_speed_), Sigmoid::kLinear, 0);
      r *= (4 * forward + 1) / 5;
    }
    if (fetch_) {
      const double* ball = d_->geom_xpos + 3 * ball_geom_;
      const double* upper = d_->site_xpos + 3 * upper_bite_;
      const double* lower = d_->site_xpos + 3 * lower_bite_;
      const double upper_dist = Norm({ball[0] - upper[0], ball[1] - upper[1], ball[2] - upper[2]});
      const double lower_dist = Norm({ball[0] - lower[0], ball[1] - lower[1], ball[2] - lower[2]});
      const double to_mouth = 0.5 * (upper_dist + lower_dist);
      double reach_ball = Tolerance(to_mouth, 0, m_->site_size[3 * upper_bite_], 2, Sigmoid::kReciprocal);
      reach_ball = (6 * reach_ball + 1) / 7;
      const double target_radius = m_->geom_size[3 * target_geom_];
      const double* target = d_->geom_xpos + 3 * target_geom_;
      const double to_target = Norm({ball[0] - target[0], ball[1] - target[1], ball[2] - target[2]});
      const double near_target =
          Tolerance(to_target, 0, target_radius, m_->geom_size[3 * floor_], Sigmoid::kReciprocal);
      const double fetch_ball = (near_target + 1) / 2;
      if (to_target < 2 * target_radius) reach_ball = 1;
      r *= reach_ball;
      r *= fetch_ball;
    }
    return r;
  }

 private:
  void Init(const Config& c) {
    const std::string task = CheckTask(c, kTasks);
    fetch_ = task == "fetch";
    move_speed_ = task == "walk" ? 1 : task == "trot" ? 3 : task == "run" ? 9 : 0;
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_type[j] != mjJNT_HINGE) continue;
      hinge_qpos_.push_back(m_->jnt_qposadr[j]);
      hinge_dof_.push_back(m_->jnt_dofadr[j]);
    }
    auto sensors = [&](std::vector<int>* dst, std::initializer_list<const char*> names) {
      for (const char* name : names) {
        const int s = Id(mjOBJ_SENSOR, name);
        for (int k = 0; k < m_->sensor_dim[s]; ++k) dst->push_back(m_->sensor_adr[s] + k);
      }
    };
    sensors(&inertial_, {"accelerometer", "velocimeter", "gyro"});
    sensors(&foot_forces_, {"foot_L", "foot_R", "hand_L", "hand_R"});
    sensors(&touch_, {"palm_L", "palm_R", "sole_L", "sole_R"});
    torso_linvel_ = SensorAdr("torso_linvel");
    torso_ = Id(mjOBJ_BODY, "torso");
    pelvis_ = Id(mjOBJ_BODY, "pelvis");
    skull_ = Id(mjOBJ_BODY, "skull");
    root_qpos_ = JointQposAdr("root");
    floor_ = Id(mjOBJ_GEOM, "floor");
    if (fetch_) {
      ball_qpos_ = JointQposAdr("ball_root");
      ball_dof_ = JointDofAdr("ball_root");
      ball_geom_ = Id(mjOBJ_GEOM, "ball");
      target_geom_ = Id(mjOBJ_GEOM, "target");
      head_site_ = Id(mjOBJ_SITE, "head");
      upper_bite_ = Id(mjOBJ_SITE, "upper_bite");
      lower_bite_ = Id(mjOBJ_SITE, "lower_bite");
    }
  }

  void Gather(const std::vector<int>& adr, double* out) const {
    for (int a : adr) *out++ = d_->sensordata[a];
  }
  // A row vector times a 3x3 frame (numpy's vector-matrix dot: in order).
  static void InFrame(const double* v, const double* r, double* out) {
    for (int j = 0; j < 3; ++j) out[j] = (v[0] * r[j] + v[1] * r[3 + j]) + v[2] * r[6 + j];
  }

  bool fetch_ = false;
  double move_speed_ = 0;
  std::vector<int> hinge_qpos_, hinge_dof_, inertial_, foot_forces_, touch_;
  int torso_linvel_ = 0, torso_ = 0, pelvis_ = 0, skull_ = 0, root_qpos_ = 0, floor_ = 0;
  int ball_qpos_ = 0, ball_dof_ = 0, ball_geom_ = 0, target_geom_ = 0, head_site_ = 0, upper_bite_ = 0, lower_bite_ = 0;
  std::array<double, 2> stand_height_{};
  double body_weight_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_DOG_H_
