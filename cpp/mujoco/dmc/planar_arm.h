// What dm_control's manipulator and stacker domains share (their modules
// repeat it): the planar arm's joints and touch sensors, the arm's random
// initial angles, and the observations and distances built from them.
#ifndef ENVPOOL_MUJOCO_DMC_PLANAR_ARM_H_
#define ENVPOOL_MUJOCO_DMC_PLANAR_ARM_H_

#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "cpp/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class PlanarArm : public DmcEnv {
 public:
  static constexpr const char* kArmJoints[] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                                               "finger",   "fingertip",    "thumb",     "thumbtip"};
  // Observations of the arm: arm_pos (sin and cos of each joint), arm_vel.
  struct ArmSpec : DmcSpec {
    StateKey<double> arm_pos = Obs("arm_pos", {8, 2});
    StateKey<double> arm_vel = Obs("arm_vel", {8});
  };

 protected:
  PlanarArm(const Config& c, const std::string& domain) : DmcEnv(c, domain, /*own_model=*/true) {
    for (int i = 0; i < 8; ++i) {
      arm_jnt_[i] = Id(mjOBJ_JOINT, kArmJoints[i]);
      arm_qpos_[i] = m_->jnt_qposadr[arm_jnt_[i]];
      arm_dof_[i] = m_->jnt_dofadr[arm_jnt_[i]];
    }
    finger_ = JointQposAdr("finger");
    thumb_ = JointQposAdr("thumb");
    hand_ = Id(mjOBJ_BODY, "hand");
  }

  // Arm angles uniform in their limits (unlimited: [-pi, pi]), the finger
  // mirroring the thumb.
  void RandomArm() {
    for (int i = 0; i < 8; ++i) {
      const int j = arm_jnt_[i];
      const bool limited = m_->jnt_limited[j] != 0;
      const double lo = limited ? m_->jnt_range[2 * j] : -std::numbers::pi,
                   hi = limited ? m_->jnt_range[2 * j + 1] : std::numbers::pi;
      d_->qpos[arm_qpos_[i]] = random_.Uniform(lo, hi);
    }
    d_->qpos[finger_] = d_->qpos[thumb_];
  }

  void ObserveArm(const StateRow& out, const ArmSpec& s) const {
    double* ap = out[s.arm_pos];
    double* av = out[s.arm_vel];
    for (int i = 0; i < 8; ++i) {
      const double q = d_->qpos[arm_qpos_[i]];
      ap[2 * i] = std::sin(q);
      ap[2 * i + 1] = std::cos(q);
      av[i] = d_->qvel[arm_dof_[i]];
    }
  }

  // body_2d_pose: xpos x, z and (with orientation) xquat qw, qy.
  void Pose2d(int body, double* o, bool orientation = true) const {
    o[0] = d_->xpos[3 * body];
    o[1] = d_->xpos[3 * body + 2];
    if (!orientation) return;
    o[2] = d_->xquat[4 * body];
    o[3] = d_->xquat[4 * body + 2];
  }

  double SiteDistance(int site1, int site2) const {
    const double* a = d_->site_xpos + 3 * site1;
    const double* b = d_->site_xpos + 3 * site2;
    return Norm({a[0] - b[0], a[1] - b[1], a[2] - b[2]});
  }

  std::array<int, 8> arm_jnt_{}, arm_qpos_{}, arm_dof_{};
  int finger_ = 0, thumb_ = 0, hand_ = 0;
};

}  // namespace envpool::mujoco::dmc

#endif  // ENVPOOL_MUJOCO_DMC_PLANAR_ARM_H_
