// Pusher-v4/v5: gymnasium's PusherEnv (a 7-dof arm rewarded for pushing a
// cylinder to a goal).
#ifndef ENVPOOL_MUJOCO_GYM_PUSHER_H_
#define ENVPOOL_MUJOCO_GYM_PUSHER_H_

#include "cpp/mujoco/mujoco_env.h"

namespace envpool::mujoco::gym {

class Pusher : public MujocoEnv {
 public:
  static constexpr int kFrameSkip = 5;
  // v4 hard codes what v5 names.
  static constexpr double kNearWeight = 0.5, kDistWeight = 1.0, kControlWeight = 0.1;
  static Config Defaults(int version) {
    if (version < 5) return GymDefaults(version, "pusher.xml", kFrameSkip, {});
    return GymDefaults(version, "pusher_v5.xml", kFrameSkip,
                       {{"reward_near_weight", kNearWeight},
                        {"reward_dist_weight", kDistWeight},
                        {"reward_control_weight", kControlWeight}});
  }

  // gymnasium's DEFAULT_CAMERA_CONFIG (render.h's CameraConfig text).
  static const char* DefaultCameraConfig(int /*version*/) { return "trackbodyid=-1;distance=4.0"; }

  struct Spec : MujocoSpec {
    StateKey<double> reward_dist, reward_ctrl, reward_near;  // reward_near: v5 only
    explicit Spec(const Pusher& e) : MujocoSpec(7 + 7 + 3 + 3 + 3) {
      reward_dist = Info("reward_dist");
      reward_ctrl = Info("reward_ctrl");
      if (e.v5_) reward_near = Info("reward_near");
      Finish(e);
    }
  };

  Pusher(const Config& c, int version)
      : MujocoEnv(c, kFrameSkip, 7, 7),
        v5_(version >= 5),
        reward_near_weight_(v5_ ? c.Get<double>("reward_near_weight") : kNearWeight),
        reward_dist_weight_(v5_ ? c.Get<double>("reward_dist_weight") : kDistWeight),
        reward_control_weight_(v5_ ? c.Get<double>("reward_control_weight") : kControlWeight),
        tips_arm_(BodyId("tips_arm")),
        object_(BodyId("object")),
        goal_(BodyId("goal")),
        spec_(*this) {}
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    const int nq = m_->nq, nv = m_->nv;
    double* qpos = d_->qpos;
    double* qvel = d_->qvel;
    for (int i = 0; i < nq; ++i) qpos[i] = m_->qpos0[i];
    // The cylinder: uniform in a box, at least 0.17 from the origin.
    double cx, cy;
    do {
      cx = Uniform(-0.3, 0.0);
      cy = Uniform(-0.2, 0.2);
    } while (!(Norm2(cx - 0.0, cy - 0.0) > 0.17));
    qpos[nq - 4] = cx;
    qpos[nq - 3] = cy;
    qpos[nq - 2] = 0.0;
    qpos[nq - 1] = 0.0;
    for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + Uniform(-0.005, 0.005);
    for (int i = nv - 4; i < nv; ++i) qvel[i] = 0.0;
  }

  void WriteReset(const StateRow& out) override { WriteObs(StateObs(out)); }

  StepResult StepModel(const float* a, const StateRow& out) override {
    // gymnasium's v4 measures the reward terms before simulating, v5 after.
    const Terms before = v5_ ? Terms{} : Measure(a);
    Simulate(a);
    WriteObs(StateObs(out));
    const Terms t = v5_ ? Measure(a) : before;
    const double rn = t.near * reward_near_weight_;
    const double rd = t.dist * reward_dist_weight_;
    const float rc = t.ctrl * static_cast<float>(reward_control_weight_);
    StepResult r;
    r.reward = (rd + static_cast<double>(rc)) + rn;
    // v4 reports the unweighted terms.
    *out[spec_.reward_dist] = v5_ ? rd : t.dist;
    *out[spec_.reward_ctrl] = v5_ ? rc : t.ctrl;
    SetInfo(out, spec_.reward_near, rn);
    return r;
  }

 private:
  // The negative distances and control cost (float32, like gymnasium's).
  struct Terms {
    double near, dist;
    float ctrl;
  };
  Terms Measure(const float* a) {
    const double* ob = d_->xpos + 3 * object_;
    const double* tip = d_->xpos + 3 * tips_arm_;
    const double* gl = d_->xpos + 3 * goal_;
    return {-Norm3(ob[0] - tip[0], ob[1] - tip[1], ob[2] - tip[2]), -Norm3(ob[0] - gl[0], ob[1] - gl[1], ob[2] - gl[2]),
            -SquareSum32(a)};
  }

  void WriteObs(double* o) const {
    ObsWriter w(o);
    w.Put(d_->qpos, 7);
    w.Put(d_->qvel, 7);
    w.Put(d_->xpos + 3 * tips_arm_, 3);
    w.Put(d_->xpos + 3 * object_, 3);
    w.Put(d_->xpos + 3 * goal_, 3);
  }

  bool v5_;
  double reward_near_weight_, reward_dist_weight_, reward_control_weight_;
  int tips_arm_, object_, goal_;
  Spec spec_;
};

}  // namespace envpool::mujoco::gym

#endif  // ENVPOOL_MUJOCO_GYM_PUSHER_H_
