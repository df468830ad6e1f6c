// MetaWorld/Sweep-v3: metaworld's SawyerSweepEnvV3 (sweep the puck off the
// table's edge; the task vector places the puck, the goal follows its y).
#ifndef ENVPOOL_MUJOCO_METAWORLD_SWEEP_H_
#define ENVPOOL_MUJOCO_METAWORLD_SWEEP_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class Sweep : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_sweep_v3.xml"); }
  explicit Sweep(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {0.49, 0.6, 0.00},
                      {0.51, 0.7, 0.02},
                      {-0.1, 0.6, 0.02},
                      {0.1, 0.7, 0.02}}),
        obj_(BodyId("obj")) {}

 protected:
  void ResetTask(const double* v) override {
    target_pos_ = {0.5, v[1], 0.01};
    obj_init_pos_ = {v[0], v[1], 0.02};  // init_config's height
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    for (int i = 0; i < 4; ++i) o[3 + i] = d_->xquat[4 * obj_ + i];
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const double obj_to_target = Dist(obj, target_pos_);
    const double tcp_to_obj = Dist(obj, tcp);
    const double in_place_margin = Dist(obj_init_pos_, target_pos_);
    const double in_place = Tolerance(obj_to_target, 0, kRadius, in_place_margin);
    const double object_grasped = PadCagingReward(obj, 0.02, 0.01, 0.005);
    const double grasped_in_place = HamacherProduct(object_grasped, in_place);
    double reward = (2 * object_grasped) + (6 * grasped_in_place);
    if (obj_to_target < kRadius) reward = 10.0;
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.05 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_SWEEP_H_
