// Acrobot-v1: gymnasium's AcrobotEnv ("book" dynamics, RK4 over dt = 0.2).
#ifndef ENVPOOL_CLASSIC_CONTROL_ACROBOT_H_
#define ENVPOOL_CLASSIC_CONTROL_ACROBOT_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "cpp/classic_control/state_env.h"
#include "cpp/draw/canvas.h"

namespace envpool::classic_control {

using draw::Canvas;
using draw::GfxInt;
using draw::PyInt;
using draw::RotateRad;
using draw::Vec2;

class Acrobot : public StateEnv<4> {
 public:
  static constexpr double kDt = 0.2, kL1 = 1.0, kM1 = 1.0, kM2 = 1.0, kLc1 = 0.5, kLc2 = 0.5;
  static constexpr double kI1 = 1.0, kI2 = 1.0, kG = 9.8;
  static constexpr double kMaxVel1 = 4 * std::numbers::pi, kMaxVel2 = 9 * std::numbers::pi;

  static Config Defaults() { return {{"max_episode_steps", int64_t{500}}, {"expose_state", false}}; }
  struct Spec : EnvSpec {
    static constexpr double kV1 = static_cast<float>(kMaxVel1), kV2 = static_cast<float>(kMaxVel2);
    StateKey<float> obs = AddState<float>("obs", {6}, {-1, -1, -1, -1, -kV1, -kV2}, {1, 1, 1, 1, kV1, kV2});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {2});
    StateKey<double> state;
    // EnvPool's info["state"]: the two angles as float32 (gymnasium's info is
    // empty); expose_state replaces it by the whole float64 state.
    StateKey<float> angles;
    explicit Spec(const Config& c)
        : state(AddStateKey(*this, c)),
          angles(c.Get<bool>("expose_state") ? StateKey<float>{} : AddState<float>("info:state", {2})) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }
  explicit Acrobot(const Config& c) : StateEnv(c), spec_(c) {}

  void Reset(const StateRow& out) override {
    // gymnasium draws float64 and stores float32.
    for (double& v : s_) v = static_cast<float>(Uniform(-0.1, 0.1));
    Write(out);
  }

  std::array<int, 2> RenderSize() const override { return {kScreenDim, kScreenDim}; }
  void Render(uint8_t* rgb) override { Draw(s_, rgb); }

  // What gymnasium's AcrobotEnv.render() draws for this state (rgb_array).
  // (Just after a reset gymnasium's state is float32 and it computes the
  // link positions in float32; here they are float64 of the same values,
  // which moves them by about 1e-5 pixel.)
  static constexpr int kScreenDim = 500;
  static void Draw(const std::array<double, 4>& s, uint8_t* rgb) {
    constexpr double kLinkLength1 = 1.0, kLinkLength2 = 1.0;
    Canvas cv(rgb, kScreenDim, kScreenDim);
    cv.Fill({255, 255, 255});
    const double bound = kLinkLength1 + kLinkLength2 + 0.2, scale = kScreenDim / (bound * 2);
    const double offset = kScreenDim / 2.0;
    const double p1[2] = {-kLinkLength1 * std::cos(s[0]) * scale, kLinkLength1 * std::sin(s[0]) * scale};
    const Vec2 xys[2] = {{0, 0}, {p1[1], p1[0]}};
    const double thetas[2] = {s[0] - std::numbers::pi / 2, s[0] + s[1] - std::numbers::pi / 2};
    const double link_lengths[2] = {kLinkLength1 * scale, kLinkLength2 * scale};
    // pygame.draw.line from (-2.2 scale + offset, scale + offset) to (2.2 scale + offset, ...).
    const int line_y = PyInt(1 * scale + offset);
    cv.Line(PyInt(-2.2 * scale + offset), line_y, PyInt(2.2 * scale + offset), line_y, {0, 0, 0});
    for (int i = 0; i < 2; ++i) {
      const double x = xys[i].x + offset, y = xys[i].y + offset;
      const double l = 0, r = link_lengths[i], t = 0.1 * scale, b = -0.1 * scale;
      Vec2 link[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
      for (Vec2& c : link) {
        c = RotateRad(c, thetas[i]);
        c = {c.x + x, c.y + y};
      }
      cv.Polygon(link, 4, {0, 204, 204});
      cv.Disc(GfxInt(x), GfxInt(y), GfxInt(0.1 * scale), {204, 204, 0});
    }
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    static constexpr double kTorque[3] = {-1.0, 0.0, 1.0};
    const double torque = kTorque[action[spec_.action][0]];
    // Classic RK4 with the same operation order as gymnasium's rk4().
    using V = std::array<double, 4>;
    auto axpy = [](const V& y, double h, const V& k) {
      return V{y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2], y[3] + h * k[3]};
    };
    const double dt2 = kDt / 2.0;
    V k1 = Dsdt(s_, torque);
    V k2 = Dsdt(axpy(s_, dt2, k1), torque);
    V k3 = Dsdt(axpy(s_, dt2, k2), torque);
    V k4 = Dsdt(axpy(s_, kDt, k3), torque);
    V ns;
    for (int i = 0; i < 4; ++i) ns[i] = s_[i] + kDt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    ns[0] = Wrap(ns[0], -std::numbers::pi, std::numbers::pi);
    ns[1] = Wrap(ns[1], -std::numbers::pi, std::numbers::pi);
    ns[2] = std::min(std::max(ns[2], -kMaxVel1), kMaxVel1);
    ns[3] = std::min(std::max(ns[3], -kMaxVel2), kMaxVel2);
    s_ = ns;
    StepResult r;
    r.terminated = -std::cos(s_[0]) - std::cos(s_[1] + s_[0]) > 1.0;
    r.reward = r.terminated ? 0.0 : -1.0;
    Write(out);
    return r;
  }

 private:
  static double Wrap(double x, double m, double M) {
    const double diff = M - m;
    while (x > M) x = x - diff;
    while (x < m) x = x + diff;
    return x;
  }

  static std::array<double, 4> Dsdt(const std::array<double, 4>& s, double a) {
    const double theta1 = s[0], theta2 = s[1], dtheta1 = s[2], dtheta2 = s[3];
    const double d1 =
        kM1 * (kLc1 * kLc1) + kM2 * ((kL1 * kL1) + (kLc2 * kLc2) + 2 * kL1 * kLc2 * std::cos(theta2)) + kI1 + kI2;
    const double d2 = kM2 * ((kLc2 * kLc2) + kL1 * kLc2 * std::cos(theta2)) + kI2;
    const double phi2 = kM2 * kLc2 * kG * std::cos(theta1 + theta2 - std::numbers::pi / 2.0);
    const double phi1 = -kM2 * kL1 * kLc2 * (dtheta2 * dtheta2) * std::sin(theta2) -
                        2 * kM2 * kL1 * kLc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                        (kM1 * kLc1 + kM2 * kL1) * kG * std::cos(theta1 - std::numbers::pi / 2) + phi2;
    const double ddtheta2 = (a + d2 / d1 * phi1 - kM2 * kL1 * kLc2 * (dtheta1 * dtheta1) * std::sin(theta2) - phi2) /
                            (kM2 * (kLc2 * kLc2) + kI2 - (d2 * d2) / d1);
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    return {dtheta1, dtheta2, ddtheta1, ddtheta2};
  }

  void Write(const StateRow& out) const {
    float* obs = out[spec_.obs];
    const float v[6] = {static_cast<float>(std::cos(s_[0])), static_cast<float>(std::sin(s_[0])),
                        static_cast<float>(std::cos(s_[1])), static_cast<float>(std::sin(s_[1])),
                        static_cast<float>(s_[2]),           static_cast<float>(s_[3])};
    std::copy(v, v + 6, obs);
    WriteState(out, spec_.state);
    if (spec_.angles.index >= 0) {
      float* angles = out[spec_.angles];
      angles[0] = static_cast<float>(s_[0]);
      angles[1] = static_cast<float>(s_[1]);
    }
  }

  Spec spec_;
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_ACROBOT_H_
