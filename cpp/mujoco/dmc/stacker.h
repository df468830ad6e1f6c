// dm_control.suite.stacker: the planar arm stacking boxes on a target
// (stack_2, stack_4: the unused boxes are removed by XML edits made in
// src/envpool/tasks/dmc.py; the target moves per episode, its own model copy).
// Observations are the fully observable ones (dm_control's default).
#ifndef ENVPOOL_MUJOCO_DMC_STACKER_H_
#define ENVPOOL_MUJOCO_DMC_STACKER_H_

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "cpp/mujoco/dmc/planar_arm.h"

namespace envpool::mujoco::dmc {

class Stacker : public PlanarArm {
 public:
  static constexpr const char* kTasks[] = {"stack_2", "stack_4"};
  // control_timestep .01 over the model's .001.
  static Config Defaults() { return DmcDefaults("stack_2", 10.0, 10); }

  struct Spec : ArmSpec {
    StateKey<double> touch, hand_pos, box_pos, box_vel, target_pos;
    explicit Spec(const Stacker& e) {
      const int n = static_cast<int>(e.boxes_.size());
      touch = Obs("touch", {e.m_->nsensordata});
      hand_pos = Obs("hand_pos", {4});
      box_pos = Obs("box_pos", {n, 4});
      box_vel = Obs("box_vel", {3 * n});
      target_pos = Obs("target_pos", {2});
      Finish(e, "random_info", 2);  // the target's x and z
    }
  };

  explicit Stacker(const Config& c) : PlanarArm(c, "stacker"), spec_((Init(c), *this)) {}
  const DmcSpec& spec() const override { return spec_; }

 protected:
  void InitializeEpisode() override {
    const int n = static_cast<int>(boxes_.size());
    bool penetrating = true;
    while (penetrating) {
      RandomArm();
      const int target_height = 2 * RandInt(n) + 1;
      const double box_size = m_->geom_size[3 * target_geom_];
      m_->body_pos[3 * target_ + 2] = box_size * target_height;
      m_->body_pos[3 * target_] = random_.Uniform(-.37, .37);
      for (const Box& b : boxes_) {
        d_->qpos[b.qpos_x] = random_.Uniform(.1, .3);
        d_->qpos[b.qpos_z] = random_.Uniform(0, .7);
        d_->qpos[b.qpos_y] = random_.Uniform(0, 2 * std::numbers::pi);
      }
      ForwardWithoutActuation();
      penetrating = d_->ncon > 0;
    }
    draws_ = {m_->body_pos[3 * target_], m_->body_pos[3 * target_ + 2]};
  }

  void Observe(const StateRow& out) override {
    ObserveArm(out, spec_);
    double* t = out[spec_.touch];
    for (int i = 0; i < m_->nsensordata; ++i) t[i] = std::log1p(d_->sensordata[i]);
    Pose2d(hand_, out[spec_.hand_pos]);
    double* bp = out[spec_.box_pos];
    double* bv = out[spec_.box_vel];
    for (const Box& b : boxes_) {
      Pose2d(b.body, bp);
      bp += 4;
      *bv++ = d_->qvel[b.dof_x];
      *bv++ = d_->qvel[b.dof_y];
      *bv++ = d_->qvel[b.dof_z];
    }
    Pose2d(target_, out[spec_.target_pos], /*orientation=*/false);
  }

  double Reward() override {
    const double box_size = m_->geom_size[3 * target_geom_];
    double min_dist = kInf;
    for (const Box& b : boxes_) min_dist = std::min(min_dist, SiteDistance(b.site, target_site_));
    const double box_is_close = Tolerance(min_dist, 0, 0, 2 * box_size);
    const double hand_is_far = Tolerance(SiteDistance(grasp_, target_site_), .1, kInf, .01);
    return box_is_close * hand_is_far;
  }

 private:
  struct Box {
    int body, site, qpos_x, qpos_z, qpos_y, dof_x, dof_y, dof_z;
  };

  void Init(const Config& c) {
    const int n = CheckTask(c, kTasks) == "stack_2" ? 2 : 4;
    for (int i = 0; i < n; ++i) {
      const std::string name = "box" + std::to_string(i);
      boxes_.push_back({Id(mjOBJ_BODY, name.c_str()), Id(mjOBJ_SITE, name.c_str()), JointQposAdr((name + "_x").c_str()),
                        JointQposAdr((name + "_z").c_str()), JointQposAdr((name + "_y").c_str()),
                        JointDofAdr((name + "_x").c_str()), JointDofAdr((name + "_y").c_str()),
                        JointDofAdr((name + "_z").c_str())});
    }
    target_ = Id(mjOBJ_BODY, "target");
    target_geom_ = Id(mjOBJ_GEOM, "target");
    target_site_ = Id(mjOBJ_SITE, "target");
    grasp_ = Id(mjOBJ_SITE, "grasp");
  }

  // RandomState.randint(n): masked rejection sampling on 32-bit draws.
  int RandInt(int n) {
    const uint32_t rng = static_cast<uint32_t>(n - 1);
    if (rng == 0) return 0;
    uint32_t mask = rng;
    for (int s = 1; s < 32; s <<= 1) mask |= mask >> s;
    uint32_t v;
    while ((v = random_.Next32() & mask) > rng) {
    }
    return static_cast<int>(v);
  }

  std::vector<Box> boxes_;
  int target_ = 0, target_geom_ = 0, target_site_ = 0, grasp_ = 0;
  Spec spec_;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_STACKER_H_
