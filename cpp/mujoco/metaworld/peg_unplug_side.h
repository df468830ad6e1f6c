// MetaWorld/PegUnplugSide-v3: metaworld's SawyerPegUnplugSideEnvV3 (pull the
// plug sideways out of its socket; the task vector places the box).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PEG_UNPLUG_SIDE_H_
#define ENVPOOL_MUJOCO_METAWORLD_PEG_UNPLUG_SIDE_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PegUnplugSide : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_peg_unplug_side.xml"); }
  explicit PegUnplugSide(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      // The goal space is the plug's, pulled out of the box.
                      {-0.25 + 0.194, 0.6 + 0.0, -0.001 + 0.131},
                      {-0.15 + 0.194, 0.8 + 0.0, 0.001 + 0.131},
                      {-0.25, 0.6, -0.001},
                      {-0.15, 0.8, 0.001},
                      nullptr}),
        box_(BodyId("box")),
        plug_(BodyId("plug1")),
        peg_end_(SiteId("pegEnd")) {}

 protected:
  void PlaceModel(const double* v) override { SetModelBodyPos(box_, {v[0], v[1], v[2]}); }

  void ResetTask(const double* v) override {
    const Vec3 plug{v[0] + 0.044, v[1] + 0.0, v[2] + 0.131};
    // The task's _set_obj_xyz: the plug's position, upright, at rest
    // (qvel[9:12] only).
    for (int i = 0; i < 3; ++i) d_->qpos[9 + i] = plug[i];
    d_->qpos[12] = 1.0;
    d_->qpos[13] = d_->qpos[14] = d_->qpos[15] = 0.0;
    for (int i = 9; i < 12; ++i) d_->qvel[i] = 0.0;
    mj_forward(m_, d_);
    obj_init_pos_ = SitePos(peg_end_);
    target_pos_ = {plug[0] + 0.15, plug[1] + 0.0, plug[2] + 0.0};
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(peg_end_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * plug_ + i];
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const double obj_to_target = Dist(obj, target_pos_);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.025, 0.05, 0.01, 0.005, 0.8, true);
    const double in_place = Tolerance(obj_to_target, 0, 0.05, Dist(obj_init_pos_, target_pos_));
    const bool grasp_success = tcp_opened > 0.5 && obj[0] - obj_init_pos_[0] > 0.015;
    Scalar reward = Py(2) * object_grasped;
    if (grasp_success && tcp_to_obj < 0.035) reward = Py(1) + Py(2) * object_grasped + Py(5 * in_place);
    if (obj_to_target <= 0.05) reward = Py(10.0);
    return {reward.v,
            Flag(obj_to_target <= 0.07),
            Flag(tcp_to_obj <= 0.03),
            Flag(grasp_success),
            object_grasped.v,
            in_place,
            obj_to_target};
  }

 private:
  int box_, plug_, peg_end_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PEG_UNPLUG_SIDE_H_
