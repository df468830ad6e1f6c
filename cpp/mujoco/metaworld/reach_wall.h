// MetaWorld/ReachWall-v3: metaworld's SawyerReachWallEnvV3 (Reach with a
// wall between the start and the goal).
#ifndef ENVPOOL_MUJOCO_METAWORLD_REACH_WALL_H_
#define ENVPOOL_MUJOCO_METAWORLD_REACH_WALL_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class ReachWall : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_reach_wall_v3.xml"); }
  explicit ReachWall(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      {-0.05, 0.85, 0.05},
                      {0.05, 0.9, 0.3},
                      {-0.05, 0.6, 0.015, -0.05, 0.85, 0.05},
                      {0.05, 0.65, 0.015, 0.05, 0.9, 0.3}}),
        obj_(BodyId("obj")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  void ResetTask(const double* v) override {
    target_pos_ = {v[3], v[4], v[5]};
    obj_init_pos_ = {v[0], v[1], v[2]};
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

  Eval Evaluate(const double* /*obs*/, const float* /*action*/) override {
    const double tcp_to_target = Dist(TcpCenter(), target_pos_);
    const double in_place_margin = Dist(task_.hand_init_pos, target_pos_);
    const double in_place = Tolerance(tcp_to_target, 0, 0.05, in_place_margin);
    Eval e;
    e.reward = 10 * in_place;
    e.success = tcp_to_target <= 0.05 ? 1.0 : 0.0;
    e.in_place_reward = in_place;
    e.obj_to_target = tcp_to_target;
    return e;
  }

 private:
  int obj_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_REACH_WALL_H_
