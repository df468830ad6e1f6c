// CartPole: gymnasium's CartPoleEnv (v0/v1 differ only in episode length).
#ifndef ENVPOOL_CLASSIC_CONTROL_CARTPOLE_H_
#define ENVPOOL_CLASSIC_CONTROL_CARTPOLE_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "cpp/classic_control/state_env.h"
#include "cpp/draw/canvas.h"

namespace envpool::classic_control {

using draw::Canvas;
using draw::GfxInt;
using draw::RotateRad;
using draw::Vec2;

class CartPole : public StateEnv<4> {
 public:
  static constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart, kLength = 0.5;
  static constexpr double kPoleMassLength = kMassPole * kLength, kForceMag = 10.0;
  static constexpr double kTau = 0.02, kXThreshold = 2.4;
  static constexpr double kThetaThreshold = 12 * 2 * std::numbers::pi / 360;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{500}}, {"sutton_barto_reward", false}, {"expose_state", false}};
  }
  struct Spec : EnvSpec {
    // Bounds as gymnasium rounds them: float32 of the double thresholds.
    static constexpr double kHx = static_cast<float>(kXThreshold * 2), kHt = static_cast<float>(kThetaThreshold * 2);
    StateKey<float> obs = AddState<float>("obs", {4}, {-kHx, -kInf, -kHt, -kInf}, {kHx, kInf, kHt, kInf});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {1});
    StateKey<double> state;
    explicit Spec(const Config& c) : state(AddStateKey(*this, c)) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }
  explicit CartPole(const Config& c) : StateEnv(c), spec_(c), sutton_barto_(c.Get<bool>("sutton_barto_reward")) {}

  void Reset(const StateRow& out) override {
    for (double& v : s_) v = Uniform(-0.05, 0.05);
    Write(out);
  }

  std::array<int, 2> RenderSize() const override { return {kScreenHeight, kScreenWidth}; }
  void Render(uint8_t* rgb) override { Draw(s_, rgb); }

  // What gymnasium's CartPoleEnv.render() draws for this state (rgb_array).
  static constexpr int kScreenWidth = 600, kScreenHeight = 400;
  static void Draw(const std::array<double, 4>& s, uint8_t* rgb) {
    Canvas cv(rgb, kScreenWidth, kScreenHeight);
    cv.Fill({255, 255, 255});
    const double world_width = kXThreshold * 2, scale = kScreenWidth / world_width;
    const double polewidth = 10.0, polelen = scale * (2 * kLength), cartwidth = 50.0, cartheight = 30.0;
    double l = -cartwidth / 2, r = cartwidth / 2, t = cartheight / 2, b = -cartheight / 2;
    const double axleoffset = cartheight / 4.0;
    const double cartx = s[0] * scale + kScreenWidth / 2.0;  // middle of the cart
    const double carty = 100;                                // top of the cart
    Vec2 cart[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    for (Vec2& c : cart) c = {c.x + cartx, c.y + carty};
    cv.Polygon(cart, 4, {0, 0, 0});
    l = -polewidth / 2, r = polewidth / 2, t = polelen - polewidth / 2, b = -polewidth / 2;
    Vec2 pole[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    for (Vec2& c : pole) {
      c = RotateRad(c, -s[2]);
      c = {c.x + cartx, c.y + carty + axleoffset};
    }
    cv.Polygon(pole, 4, {202, 152, 101});
    cv.Disc(GfxInt(cartx), GfxInt(carty + axleoffset), GfxInt(polewidth / 2), {129, 132, 203});
    cv.HLine(0, kScreenWidth, static_cast<int>(carty), {0, 0, 0});
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    auto [x, x_dot, theta, theta_dot] = s_;
    double force = action[spec_.action][0] == 1 ? kForceMag : -kForceMag;
    double costheta = std::cos(theta), sintheta = std::sin(theta);
    double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    double thetaacc = (kGravity * sintheta - costheta * temp) /
                      (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
    // Gymnasium's default "euler" integrator.
    s_ = {x + kTau * x_dot, x_dot + kTau * xacc, theta + kTau * theta_dot, theta_dot + kTau * thetaacc};
    bool terminated =
        s_[0] < -kXThreshold || s_[0] > kXThreshold || s_[2] < -kThetaThreshold || s_[2] > kThetaThreshold;
    Write(out);
    StepResult r;
    r.terminated = terminated;
    r.reward = sutton_barto_ ? (terminated ? -1.0 : 0.0) : 1.0;
    return r;
  }

 private:
  void Write(const StateRow& out) {
    float* obs = out[spec_.obs];
    for (int i = 0; i < 4; ++i) obs[i] = static_cast<float>(s_[i]);
    WriteState(out, spec_.state);
  }
  Spec spec_;
  bool sutton_barto_;
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_CARTPOLE_H_
