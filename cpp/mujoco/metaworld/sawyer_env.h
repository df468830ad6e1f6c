// Meta-World's shared Sawyer base (metaworld 3.1.1's SawyerXYZEnv on the
// MuJoCo family's MujocoEnv): the arm is a mocap body welded to the hand,
// moved by the first three action entries (1 cm per unit, clipped to the
// task's mocap box); the fourth drives the two gripper fingers.
//
// Observation (39 float64): hand position, gripper opening, up to 14 object
// entries (each object's position and scipy-convention xyzw quaternion),
// the same 18 numbers of the previous step, then the goal (zeros when
// partially_observable, Meta-World's "goal hidden"). Step observations are
// clipped to the reference's observation space; reset observations are not
// (as the reference).
//
// A task (one file each) gives its model file, bounds and random reset
// space (Task), the reference's reset_model after the hand reset
// (ResetTask), its objects (ObjectObs) and its evaluate_state (Evaluate).
//
// Options (besides the MuJoCo family's): partially_observable (EnvPool's),
// freeze_rand_vec (the task vector drawn at the first reset is kept, as
// metaworld's goal-observable / goal-hidden envs keep theirs; by default a
// fresh one is drawn at every reset, as EnvPool 1.2.5). info "rand_vec" is
// the episode's task vector.
#ifndef ENVPOOL_MUJOCO_METAWORLD_SAWYER_ENV_H_
#define ENVPOOL_MUJOCO_METAWORLD_SAWYER_ENV_H_

#include <array>
#include <string>
#include <vector>

#include "cpp/mujoco/metaworld/reward.h"
#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::metaworld {

using Vec3 = std::array<double, 3>;

// What a task's constructor fixes (the reference's __init__ arguments).
struct Task {
  Vec3 hand_low, hand_high;                  // the mocap box (SawyerXYZEnv's mocap_low/high default to these)
  Vec3 hand_init_pos;                        // init_config["hand_init_pos"]
  Vec3 goal_low, goal_high;                  // goal_space: the observed goal's clip bounds
  std::vector<double> rand_low, rand_high;   // _random_reset_space
  const char* main_object_geom = "objGeom";  // nullptr: a task that never asks
};

// Every task's config table: xml_file (relative to Meta-World's assets
// folder, assets_dir, set by envpool/tasks/metaworld.py), frame_skip, the
// options above and the MuJoCo family's keys.
Config SawyerDefaults(const std::string& xml_file);

// The reference's info, in its order.
struct Eval {
  double reward = 0, success = 0, near_object = 0, grasp_success = 0, grasp_reward = 0, in_place_reward = 0,
         obj_to_target = 0;
};

class SawyerEnv : public MujocoEnv {
 public:
  struct Spec : MujocoSpec {
    StateKey<double> success, near_object, grasp_success, grasp_reward, in_place_reward, obj_to_target, unscaled_reward,
        rand_vec;
    explicit Spec(const SawyerEnv& e);
  };
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  SawyerEnv(const Config& c, Task task);

  // The reference's resampling loop: a drawn task vector is kept when this
  // holds (e.g. Reach's object and goal at least 15 cm apart).
  virtual bool Accept(const double* /*rand_vec*/) const { return true; }
  // The model edits reset_model makes from the task vector (e.g. a box's
  // body_pos), made before the hand reset (see ResetModel).
  virtual void PlaceModel(const double* /*rand_vec*/) {}
  // reset_model after _reset_hand and the draw: place the objects and the
  // goal (target_pos_), set obj_init_pos_ and the task's reward constants.
  virtual void ResetTask(const double* rand_vec) = 0;
  // The object entries (position, quaternion per object) into o[0..14).
  virtual void ObjectObs(double* o) const = 0;
  // evaluate_state on the clipped observation and the raw action.
  virtual Eval Evaluate(const double* obs, const float* action) = 0;
  // _get_pos_goal.
  virtual Vec3 GoalPos() const { return target_pos_; }

  // Model lookups (throw at make when the model lacks the name).
  int SiteId(const char* name) const;
  int GeomId(const char* name) const;
  int JointQposAdr(const char* name) const;  // a joint's qpos address
  Vec3 BodyPos(int body) const { return {d_->xpos[3 * body], d_->xpos[3 * body + 1], d_->xpos[3 * body + 2]}; }
  Vec3 SitePos(int site) const {
    return {d_->site_xpos[3 * site], d_->site_xpos[3 * site + 1], d_->site_xpos[3 * site + 2]};
  }
  Vec3 GeomPos(int geom) const {
    return {d_->geom_xpos[3 * geom], d_->geom_xpos[3 * geom + 1], d_->geom_xpos[3 * geom + 2]};
  }
  // scipy's Rotation.from_matrix(xmat).as_quat() (x, y, z, w) of a geom.
  void GeomQuat(int geom, double* q) const { MatQuat(d_->geom_xmat + 9 * geom, q); }
  static void MatQuat(const double* xmat, double* q);
  // A body's position and MuJoCo quaternion (w, x, y, z) into o[0..7).
  void BodyObs(int body, double* o) const {
    for (int i = 0; i < 3; ++i) o[i] = d_->xpos[3 * body + i];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * body + i];
  }
  Vec3 TcpCenter() const;
  // _set_obj_xyz: qpos[9:12] = pos, qvel[9:15] = 0, mj_forward.
  void SetObjXyz(const Vec3& pos);
  // The env's own model copy, for reset_model's edits.
  mjModel* OwnModel();
  // model.site(name).pos = pos (the env's own model copy).
  void SetModelSitePos(int site, const Vec3& pos);
  // model.body(name).pos = pos.
  void SetModelBodyPos(int body, const Vec3& pos);
  // touching_object: both finger pads push on the geom.
  bool TouchingObject(int geom) const;
  bool TouchingMainObject() const { return TouchingObject(main_geom_); }
  // SawyerXYZEnv._gripper_caging_reward; its margins from obj_init_pos_, or
  // from init_pos (the stick tasks' override measures from the stick's start).
  Scalar GripperCagingReward(const float* action, const Vec3& obj_pos, double obj_radius, double pad_success_thresh,
                             double object_reach_radius, double xz_thresh, double desired_gripper_effort = 1.0,
                             bool high_density = false, bool medium_density = false,
                             const Vec3* init_pos = nullptr) const;

  // The pads-only caging reward several tasks define for themselves
  // (PushBack, SweepInto, ...): the pads caging and gripping the object in
  // y (grip bounds obj_radius + grip_extra), the gripper's x-z distance;
  // the action is not used.
  double PadCagingReward(const Vec3& obj, double obj_radius, double grip_extra, double x_z_success_margin = 0.01) const;

  // The reference's init_left_pad / init_right_pad are get_body_com views
  // of data.xpos: the pads' current positions, whatever they were set at.
  Vec3 InitLeftPad() const { return BodyPos(left_pad_); }
  Vec3 InitRightPad() const { return BodyPos(right_pad_); }

  static double Dist(const Vec3& a, const Vec3& b) { return Norm3(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
  static Vec3 Sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
  static Vec3 ObsVec(const double* obs, int at) { return {obs[at], obs[at + 1], obs[at + 2]}; }

  const Task task_;
  Vec3 target_pos_{};    // _target_pos
  Vec3 obj_init_pos_{};  // obj_init_pos
  Vec3 init_tcp_{};      // init_tcp, after the hand reset
  int hand_, left_claw_, right_claw_, left_pad_, right_pad_, left_pad_geom_, right_pad_geom_, main_geom_;
  int left_ee_, right_ee_;
  int goal_site_;  // -1: the model has none

 private:
  void ResetModel() final;
  void WriteReset(const StateRow& out) final;
  StepResult StepModel(const float* action, const StateRow& out) final;
  void ResetHand();
  void CurrentObs(double* o) const;  // _get_curr_obs_combined_no_goal
  void WriteObs(double* obs);        // _get_obs (moves prev_obs_ on)
  void WriteRandVec(const StateRow& out) const;

  bool partially_observable_, freeze_rand_vec_;
  bool have_rand_vec_ = false;
  std::vector<double> rand_vec_;
  std::array<double, 18> prev_obs_{};
  std::array<double, 39> reset_obs_{};
  std::array<double, 39> obs_lo_{}, obs_hi_{};
  Spec spec_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_SAWYER_ENV_H_
