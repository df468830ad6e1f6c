// dm_control.suite.manipulator: a planar arm bringing a ball or a peg to a
// target, or inserting it into a cup or slot (bring_ball, bring_peg,
// insert_ball, insert_peg). The unused props are removed by XML edits made in
// src/envpool/tasks/dmc.py; the target moves per episode (its own model copy).
// Observations are the fully observable ones (dm_control's default).
#ifndef ENVPOOL_MUJOCO_DMC_MANIPULATOR_H_
#define ENVPOOL_MUJOCO_DMC_MANIPULATOR_H_

#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "cpp/mujoco/dmc/planar_arm.h"

namespace envpool::mujoco::dmc {

class Manipulator : public PlanarArm {
 public:
  static constexpr const char* kTasks[] = {"bring_ball", "bring_peg", "insert_ball", "insert_peg"};
  static constexpr const char* kTouch[] = {"palm_touch", "finger_touch", "thumb_touch", "fingertip_touch",
                                           "thumbtip_touch"};
  // control_timestep .01 over the model's .001.
  static Config Defaults() { return DmcDefaults("bring_ball", 10.0, 10); }

  struct Spec : ArmSpec {
    StateKey<double> touch = Obs("touch", {5});
    StateKey<double> hand_pos = Obs("hand_pos", {4});
    StateKey<double> object_pos = Obs("object_pos", {4});
    StateKey<double> object_vel = Obs("object_vel", {3});
    StateKey<double> target_pos = Obs("target_pos", {4});
    // random_info: target x, z, angle, the object's start (0 in hand, 1 in
    // the target, 2 free), its x, z, angle and x velocity.
    explicit Spec(const Manipulator& e) { Finish(e, "random_info", 8); }
  };

  explicit Manipulator(const Config& c) : PlanarArm(c, "manipulator"), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    bool penetrating = true;
    while (penetrating) {
      RandomArm();
      const double target_x = random_.Uniform(-.4, .4);
      const double target_z = random_.Uniform(.1, .4);
      double target_angle;
      if (insert_) {
        target_angle = random_.Uniform(-std::numbers::pi / 3, std::numbers::pi / 3);
        SetPose(receptacle_, target_x, target_z, target_angle);
      } else {
        target_angle = random_.Uniform(-std::numbers::pi, std::numbers::pi);
      }
      SetPose(target_, target_x, target_z, target_angle);
      // choice(['in_hand', 'in_target', 'uniform'], p=[.1, .1, .8]): one
      // random_sample against the normalised cumulative sum.
      const double c0 = .1, c1 = c0 + .1, c2 = c1 + (1 - .1 - .1);
      const double u = random_.RandomSample();
      const int init_type = (u >= c0 / c2) + (u >= c1 / c2) + (u >= c2 / c2);
      double object_x, object_z, object_angle;
      if (init_type == 1) {  // in_target
        object_x = target_x;
        object_z = target_z;
        object_angle = target_angle;
      } else if (init_type == 0) {  // in_hand
        ForwardWithoutActuation();
        object_x = d_->site_xpos[3 * grasp_];
        object_z = d_->site_xpos[3 * grasp_ + 2];
        const double* r = d_->site_xmat + 9 * grasp_;
        object_angle = std::numbers::pi - std::atan2(r[6], r[0]);
      } else {
        object_x = random_.Uniform(-.5, .5);
        object_z = random_.Uniform(0, .7);
        object_angle = random_.Uniform(0, 2 * std::numbers::pi);
        d_->qvel[object_dof_[0]] = random_.Uniform(-5, 5);
      }
      d_->qpos[object_qpos_[0]] = object_x;
      d_->qpos[object_qpos_[1]] = object_z;
      d_->qpos[object_qpos_[2]] = object_angle;
      draws_ = {target_x, target_z, target_angle, static_cast<double>(init_type),
                object_x, object_z, object_angle, d_->qvel[object_dof_[0]]};
      ForwardWithoutActuation();
      penetrating = d_->ncon > 0;
    }
  }

  void Observe(const StateRow& out) override {
    ObserveArm(out, spec_);
    double* t = out[spec_.touch];
    for (int i = 0; i < 5; ++i) t[i] = std::log1p(d_->sensordata[touch_[i]]);
    Pose2d(hand_, out[spec_.hand_pos]);
    Pose2d(object_, out[spec_.object_pos]);
    double* ov = out[spec_.object_vel];
    for (int i = 0; i < 3; ++i) ov[i] = d_->qvel[object_dof_[i]];
    Pose2d(target_, out[spec_.target_pos]);
  }

  double Reward() override {
    if (!use_peg_) return IsClose(SiteDistance(obj_site_, target_site_));
    const double grasp = IsClose(SiteDistance(peg_grasp_, grasp_));
    const double pinch = IsClose(SiteDistance(peg_pinch_, pinch_));
    const double grasping = (grasp + pinch) / 2;
    const double bring = IsClose(SiteDistance(obj_site_, target_site_));
    const double bring_tip = IsClose(SiteDistance(target_peg_tip_, peg_tip_));
    const double bringing = (bring + bring_tip) / 2;
    return grasping / 3 > bringing ? grasping / 3 : bringing;  // Python's max
  }

 private:
  void Init(const Config& c) {
    const std::string task = CheckTask(c, kTasks);
    use_peg_ = task == "bring_peg" || task == "insert_peg";
    insert_ = task == "insert_ball" || task == "insert_peg";
    const std::string object = use_peg_ ? "peg" : "ball";
    const std::string target = use_peg_ ? "target_peg" : "target_ball";
    for (int i = 0; i < 5; ++i) touch_[i] = SensorAdr(kTouch[i]);
    const char* dims[] = {"_x", "_z", "_y"};
    for (int i = 0; i < 3; ++i) {
      object_qpos_[i] = JointQposAdr((object + dims[i]).c_str());
      object_dof_[i] = JointDofAdr((object + dims[i]).c_str());
    }
    object_ = Id(mjOBJ_BODY, object.c_str());
    target_ = Id(mjOBJ_BODY, target.c_str());
    if (insert_) receptacle_ = Id(mjOBJ_BODY, use_peg_ ? "slot" : "cup");
    grasp_ = Id(mjOBJ_SITE, "grasp");
    obj_site_ = Id(mjOBJ_SITE, object.c_str());
    target_site_ = Id(mjOBJ_SITE, target.c_str());
    if (use_peg_) {
      peg_grasp_ = Id(mjOBJ_SITE, "peg_grasp");
      peg_pinch_ = Id(mjOBJ_SITE, "peg_pinch");
      pinch_ = Id(mjOBJ_SITE, "pinch");
      target_peg_tip_ = Id(mjOBJ_SITE, "target_peg_tip");
      peg_tip_ = Id(mjOBJ_SITE, "peg_tip");
    }
  }

  // body_pos (x, z) and body_quat (qw, qy) of a body, turned by angle.
  void SetPose(int body, double x, double z, double angle) {
    m_->body_pos[3 * body] = x;
    m_->body_pos[3 * body + 2] = z;
    m_->body_quat[4 * body] = std::cos(angle / 2);
    m_->body_quat[4 * body + 2] = std::sin(angle / 2);
  }

  static double IsClose(double distance) { return Tolerance(distance, 0, .01, .02); }

  bool use_peg_ = false, insert_ = false;
  std::array<int, 5> touch_{};
  std::array<int, 3> object_qpos_{}, object_dof_{};
  int object_ = 0, target_ = 0, receptacle_ = 0;
  int grasp_ = 0, obj_site_ = 0, target_site_ = 0, peg_grasp_ = 0, peg_pinch_ = 0, pinch_ = 0;
  int target_peg_tip_ = 0, peg_tip_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_MANIPULATOR_H_
