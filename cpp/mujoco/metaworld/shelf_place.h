// MetaWorld/ShelfPlace-v3: metaworld's SawyerShelfPlaceEnvV3 (put the block
// on a shelf; the task vector places the block and the shelf).
#ifndef ENVPOOL_MUJOCO_METAWORLD_SHELF_PLACE_H_
#define ENVPOOL_MUJOCO_METAWORLD_SHELF_PLACE_H_

#include <algorithm>

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class ShelfPlace : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_shelf_placing.xml"); }
  explicit ShelfPlace(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      // init_config's float32 hand position.
                      {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
                      {-0.1, 0.8, 0.299},
                      {0.1, 0.9, 0.301},
                      {-0.1, 0.5, 0.019, -0.1, 0.8, 0.299},
                      {0.1, 0.6, 0.021, 0.1, 0.9, 0.301}}),
        obj_(BodyId("obj")),
        shelf_(BodyId("shelf")) {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.1); }

  // The shelf 30 cm under the goal (the vector's last three entries).
  void PlaceModel(const double* v) override { SetModelBodyPos(shelf_, {v[3], v[4], v[5] - 0.3}); }

  void ResetTask(const double* v) override {
    // The block's height is where the hand reset left it.
    obj_init_pos_ = {v[0], v[1], BodyPos(obj_)[2]};
    for (int i = 0; i < 3; ++i) target_pos_[i] = m_->site_pos[3 * goal_site_ + i] + m_->body_pos[3 * shelf_ + i];
    SetObjXyz(obj_init_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = BodyPos(obj_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(main_geom_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3& target = target_pos_;
    const double tcp_opened = obs[3];
    const double obj_to_target = Dist(obj, target);
    const double tcp_to_obj = Dist(obj, TcpCenter());
    const double in_place_margin = Dist(obj_init_pos_, target);
    double in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    const Scalar object_grasped = GripperCagingReward(action, obj, 0.02, 0.05, 0.01, 0.01);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    // Under the shelf (or behind it) the placing term is cut.
    const bool under = 0.0 < obj[2] && obj[2] < 0.24 && target[0] - 0.15 < obj[0] && obj[0] < target[0] + 0.15;
    if (under && (target[1] - 3 * kTargetRadius) < obj[1] && obj[1] < target[1]) {
      const double z_scaling = (0.24 - obj[2]) / 0.24;
      const double y_scaling = (obj[1] - (target[1] - 3 * kTargetRadius)) / (3 * kTargetRadius);
      const double bound_loss = HamacherProduct(y_scaling, z_scaling);
      in_place = std::min(std::max(in_place - bound_loss, 0.0), 1.0);
    }
    if (under && obj[1] > target[1]) in_place = 0.0;
    if (tcp_to_obj < 0.025 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2])
      reward = reward + Py(1.0 + 5.0 * in_place);
    if (obj_to_target < kTargetRadius) reward = Py(10.0);
    return {reward.v,
            Flag(obj_to_target <= 0.07),
            Flag(tcp_to_obj <= 0.03),
            Flag(TouchingMainObject() && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2]),
            object_grasped.v,
            in_place,
            obj_to_target};
  }

 private:
  int obj_, shelf_;
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_SHELF_PLACE_H_
