// MetaWorld/PegInsertSide-v3: metaworld's SawyerPegInsertionSideEnvV3 (pick
// the peg up and insert it sideways into the box's hole; the task vector
// places the peg and the box).
#ifndef ENVPOOL_MUJOCO_METAWORLD_PEG_INSERT_SIDE_H_
#define ENVPOOL_MUJOCO_METAWORLD_PEG_INSERT_SIDE_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

class PegInsertSide : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerDefaults("sawyer_xyz/sawyer_peg_insertion_side.xml"); }
  explicit PegInsertSide(const Config& c)
      : SawyerEnv(c, {{-0.5, 0.40, 0.05},
                      {0.5, 1.0, 0.5},
                      {0.0, 0.6, 0.2},
                      // The goal space is the hole's, offset from the box's.
                      {-0.35 + 0.03, 0.4 + 0.0, -0.001 + 0.13},
                      {-0.25 + 0.03, 0.7 + 0.0, 0.001 + 0.13},
                      {0.0, 0.5, 0.02, -0.35, 0.4, -0.001},
                      {0.2, 0.7, 0.02, -0.25, 0.7, 0.001},
                      "peg"}),
        box_(BodyId("box")),
        peg_grasp_(SiteId("pegGrasp")),
        peg_head_(SiteId("pegHead")),
        corners_{SiteId("bottom_right_corner_collision_box_1"), SiteId("top_left_corner_collision_box_1"),
                 SiteId("bottom_right_corner_collision_box_2"), SiteId("top_left_corner_collision_box_2")} {}

 protected:
  bool Accept(const double* v) const override { return !(Norm2(v[0] - v[3], v[1] - v[4]) < 0.1); }

  void PlaceModel(const double* v) override { SetModelBodyPos(box_, {v[3], v[4], v[5]}); }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    peg_head_init_ = SitePos(peg_head_);  // before the peg is placed, as the reference reads it
    SetObjXyz(obj_init_pos_);
    target_pos_ = {v[3] + 0.03, v[4] + 0.0, v[5] + 0.13};
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = SitePos(peg_grasp_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    MatQuat(d_->site_xmat + 9 * peg_grasp_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.07;
    const Vec3 obj = ObsVec(obs, 4);
    const Vec3 head = SitePos(peg_head_);
    const double tcp_opened = obs[3];
    const Vec3& target = target_pos_;
    const double tcp_to_obj = Dist(obj, TcpCenter());
    // Insert, do not just touch: y and z errors count twice.
    const double obj_to_target =
        Norm3((head[0] - target[0]) * 1.0, (head[1] - target[1]) * 2.0, (head[2] - target[2]) * 2.0);
    const double in_place_margin = Norm3((peg_head_init_[0] - target[0]) * 1.0, (peg_head_init_[1] - target[1]) * 2.0,
                                         (peg_head_init_[2] - target[2]) * 2.0);
    double in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    Vec3 c[4];
    for (int i = 0; i < 4; ++i) c[i] = SitePos(corners_[i]);
    const double box_1 = RectPrismTolerance(head.data(), c[0].data(), c[1].data());
    const double box_2 = RectPrismTolerance(head.data(), c[2].data(), c[3].data());
    in_place = HamacherProduct(in_place, HamacherProduct(box_2, box_1));
    Scalar object_grasped = GripperCagingReward(action, obj, 0.0075, 0.03, 0.01, 0.005, 1.0, true);
    const bool held = tcp_to_obj < 0.08 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (held) object_grasped = Py(1.0);
    Scalar reward = HamacherProduct(object_grasped, Py(in_place));
    if (held) reward = reward + Py(1.0 + 5 * in_place);
    if (obj_to_target <= kTargetRadius) reward = Py(10.0);
    return {reward.v,
            Flag(obj_to_target <= 0.07),
            Flag(tcp_to_obj <= 0.03),
            Flag(tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2]),
            object_grasped.v,
            in_place,
            obj_to_target};
  }

 private:
  int box_, peg_grasp_, peg_head_;
  int corners_[4];
  Vec3 peg_head_init_{};
};

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PEG_INSERT_SIDE_H_
