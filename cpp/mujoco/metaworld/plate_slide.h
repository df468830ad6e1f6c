// MetaWorld/PlateSlide-v3, PlateSlideSide-v3, PlateSlideBack-v3 and
// PlateSlideBackSide-v3: metaworld's four plate tasks (slide a puck on a
// two-joint slide into a goal, forward, sideways, back, back sideways).
// They differ in constants, in where reset_model starts the puck and in
// one reward's shape, so one class takes the variant.
#ifndef ENVPOOL_MUJOCO_METAWORLD_PLATE_SLIDE_H_
#define ENVPOOL_MUJOCO_METAWORLD_PLATE_SLIDE_H_

#include "cpp/mujoco/metaworld/sawyer_env.h"

namespace envpool::mujoco::metaworld {

enum class Plate { kSlide, kSide, kBack, kBackSide };

template <Plate kVariant>
class PlateSlideTask : public SawyerEnv {
 public:
  static Config Defaults() {
    const bool sideway = kVariant == Plate::kSide || kVariant == Plate::kBackSide;
    return SawyerDefaults(sideway ? "sawyer_xyz/sawyer_plate_slide_sideway.xml" : "sawyer_xyz/sawyer_plate_slide.xml");
  }
  explicit PlateSlideTask(const Config& c)
      : SawyerEnv(c, MakeTask()), puck_(GeomId("puck")), puck_goal_(BodyId("puck_goal")) {}

 protected:
  static Task MakeTask() {
    Task t{{-0.5, 0.40, 0.05},
           {0.5, 1.0, 0.5},
           // init_config's float32 hand position.
           {0.0, static_cast<float>(0.6), static_cast<float>(0.2)},
           {},
           {},
           {},
           {},
           "puck"};
    auto set = [&t](Vec3 obj_lo, Vec3 obj_hi, Vec3 goal_lo, Vec3 goal_hi) {
      t.goal_low = goal_lo;
      t.goal_high = goal_hi;
      t.rand_low = {obj_lo[0], obj_lo[1], obj_lo[2], goal_lo[0], goal_lo[1], goal_lo[2]};
      t.rand_high = {obj_hi[0], obj_hi[1], obj_hi[2], goal_hi[0], goal_hi[1], goal_hi[2]};
    };
    switch (kVariant) {
      case Plate::kSlide:
        set({0.0, 0.6, 0.0}, {0.0, 0.6, 0.0}, {-0.1, 0.85, 0.0}, {0.1, 0.9, 0.0});
        break;
      case Plate::kSide:
        set({0.0, 0.6, 0.0}, {0.0, 0.6, 0.0}, {-0.3, 0.54, 0.0}, {-0.25, 0.66, 0.0});
        break;
      case Plate::kBack:
        set({0.0, 0.85, 0.0}, {0.0, 0.85, 0.0}, {-0.1, 0.6, 0.015}, {0.1, 0.6, 0.015});
        break;
      case Plate::kBackSide:
      default:
        set({-0.25, 0.6, 0.0}, {-0.25, 0.6, 0.0}, {-0.05, 0.6, 0.015}, {0.15, 0.6, 0.015});
    }
    return t;
  }

  // PlateSlide puts the goal body at the target, PlateSlideBackSide at the
  // start (the other two move only data.xpos, which mj_forward overwrites).
  void PlaceModel(const double* v) override {
    if (kVariant == Plate::kSlide) SetModelBodyPos(puck_goal_, {v[3], v[4], v[5]});
    if (kVariant == Plate::kBackSide) SetModelBodyPos(puck_goal_, {v[0], v[1], v[2]});
  }

  void ResetTask(const double* v) override {
    obj_init_pos_ = {v[0], v[1], v[2]};
    target_pos_ = {v[3], v[4], v[5]};
    // _set_obj_xyz: the puck's two slide joints (velocities kept).
    double q0 = 0.0, q1 = 0.0;
    if (kVariant == Plate::kBack) q1 = 0.15;
    if (kVariant == Plate::kBackSide) q0 = -0.15;
    d_->qpos[9] = q0;
    d_->qpos[10] = q1;
    mj_forward(m_, d_);
    SetModelSitePos(goal_site_, target_pos_);
  }

  void ObjectObs(double* o) const override {
    const Vec3 p = GeomPos(puck_);
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    GeomQuat(puck_, o + 3);
  }

  Eval Evaluate(const double* obs, const float* /*action*/) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = ObsVec(obs, 4);
    const double obj_to_target = Dist(obj, target_pos_);
    const double in_place_margin = Dist(obj_init_pos_, target_pos_);
    const double tcp_to_obj = Dist(tcp, obj);
    const double obj_grasped_margin = Dist(init_tcp_, obj_init_pos_);
    double reward, in_place, object_grasped;
    if (kVariant == Plate::kSlide) {
      in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
      object_grasped = Tolerance(tcp_to_obj, 0, kTargetRadius, obj_grasped_margin);
      reward = 8 * HamacherProduct(object_grasped, in_place);
    } else {
      in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin - kTargetRadius);
      object_grasped = Tolerance(tcp_to_obj, 0, kTargetRadius, obj_grasped_margin - kTargetRadius);
      reward = 1.5 * object_grasped;
      if (tcp[2] <= 0.03 && tcp_to_obj < 0.07) reward = 2.0 + (7.0 * in_place);
    }
    if (obj_to_target < kTargetRadius) reward = 10.0;
    Eval e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07 ? 1.0 : 0.0;
    e.near_object = tcp_to_obj <= 0.03 ? 1.0 : 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int puck_, puck_goal_;
};

using PlateSlide = PlateSlideTask<Plate::kSlide>;
using PlateSlideSide = PlateSlideTask<Plate::kSide>;
using PlateSlideBack = PlateSlideTask<Plate::kBack>;
using PlateSlideBackSide = PlateSlideTask<Plate::kBackSide>;

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_PLATE_SLIDE_H_
