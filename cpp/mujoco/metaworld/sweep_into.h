// MetaWorld/SweepInto-v3: metaworld's SawyerSweepIntoGoalEnvV3 (sweep the
// puck into a hole in the table; the goal is fixed, the task vector places
// the puck).
#ifndef ENVPOOL_MUJOCO_METAWORLD_SWEEP_INTO_H_
#define ENVPOOL_MUJOCO_METAWORLD_SWEEP_INTO_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class SweepInto : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_table_with_hole.xml"); }
  explicit SweepInto(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.001, 0.8399, 0.0199},
                      {+0.001, 0.8401, 0.0201},
                      {-0.1, 0.6, 0.02, -0.001, 0.8399, 0.0199},
                      {0.1, 0.7, 0.02, +0.001, 0.8401, 0.0201}}),
        obj_(BodyId("obj")) {}

 protected:
  // The puck at least 15 cm from the fixed goal (the vector's goal part is
  // drawn and unused, as in the reference).
  bool Accept(const double* v) const override { return !(Norm2(v[0] - kGoal[0], v[1] - kGoal[1]) < 0.15); }

  void ResetTask(const double* v) override {
    target_pos_ = kGoal;
    obj_init_pos_ = {v[0], v[1], BodyPos(obj_)[2]};
    SetObjXyz(obj_init_pos_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double tcp_opened = obs[3];
    const Vec3 target{target_pos_[0], target_pos_[1], obj[2]};
    const double obj_to_target = Dist(obj, target);
    const double tcp_to_obj = Dist(obj, tcp);
    const double in_place_margin = Dist(obj_init_pos_, target);
    const double in_place = Tolerance(obj_to_target, 0, kRadius, in_place_margin);
    const double object_grasped = PadCagingReward(obj, 0.02, 0.005);
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
  static constexpr Vec3 kGoal{0.0, 0.84, 0.02};
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_SWEEP_INTO_H_
