// MetaWorld/CoffeePush-v3 and CoffeePull-v3: metaworld's mug tasks (push the
// mug under the coffee machine, or pull it out from under it).
#ifndef ENVPOOL_MUJOCO_METAWORLD_COFFEE_MUG_H_
#define ENVPOOL_MUJOCO_METAWORLD_COFFEE_MUG_H_

#include <vector>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

template <bool kPush>
class CoffeeMugTask : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_coffee.xml"); }
  explicit CoffeeMugTask(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.4, 0.2},
                      kPush ? Vec3{-0.05, 0.7, -0.001} : Vec3{-0.1, 0.55, -0.001},
                      kPush ? Vec3{0.05, 0.75, +0.001} : Vec3{0.1, 0.65, +0.001},
                      kPush ? std::vector<double>{-0.1, 0.55, -0.001, -0.05, 0.7, -0.001}
                            : std::vector<double>{-0.05, 0.7, -0.001, -0.1, 0.55, -0.001},
                      kPush ? std::vector<double>{0.1, 0.65, +0.001, 0.05, 0.75, +0.001}
                            : std::vector<double>{0.05, 0.75, +0.001, 0.1, 0.65, +0.001},
                      "mug"}),
        machine_(BodyId("coffee_machine")),
        obj_(BodyId("obj")),
        mug_goal_(SiteId("mug_goal")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.15); }

  // The machine behind the mug's goal (push) or its start (pull).
  void PlaceModel(const double* v) override {
    const double* at = kPush ? v + 3 : v;
    SetModelBodyPos(machine_, {at[0] + 0.0, at[1] + 0.22, at[2] + 0.0});
  }

  void ResetTask(const double* v) override {
    // The reference's _set_obj_xyz writes the mug position into qpos[0:3]
    // (the arm's first joints) and zeroes qvel[9:15]; reproduced as is.
    for (int i = 0; i < 3; ++i) d_->qpos[i] = v[i];
    for (int i = 9; i < 15 && i < m_->nv; ++i) d_->qvel[i] = 0.0;
    mj_forward(m_, d_);
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[3], v[4], v[5]};
    SetModelSitePos(mug_goal_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = ObsVec(obs, 4);
    const double target_to_obj =
        Norm3((obj[0] - target_pos_[0]) * 2.0, (obj[1] - target_pos_[1]) * 2.0, (obj[2] - target_pos_[2]) * 1.0);
    const double target_to_obj_init =
        Norm3((obj_init_pos_[0] - target_pos_[0]) * 2.0, (obj_init_pos_[1] - target_pos_[1]) * 2.0,
              (obj_init_pos_[2] - target_pos_[2]) * 1.0);
    const double in_place = Tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.02, 0.05, 0.04, 0.05, 0.7, false, true);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    if (tcp_to_obj < 0.04 && tcp_opened > 0) reward = reward + Py(1.0 + 5.0 * in_place);
    if (target_to_obj < 0.05) reward = Py(10.0);
    const double obj_to_target = Dist(obj, target_pos_);
    Eval e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_success = (TouchingMainObject() && tcp_opened > 0) ? 1.0 : 0.0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int machine_, obj_, mug_goal_;
};

using CoffeePush = CoffeeMugTask<true>;
using CoffeePull = CoffeeMugTask<false>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_COFFEE_MUG_H_
