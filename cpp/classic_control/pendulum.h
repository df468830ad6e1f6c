// Pendulum-v1: gymnasium's PendulumEnv.
#ifndef ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_
#define ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numbers>
#include <vector>

#include "cpp/classic_control/clockwise_alpha.h"
#include "cpp/classic_control/state_env.h"
#include "cpp/draw/canvas.h"
#include "cpp/draw/transform.h"

namespace envpool::classic_control {

using draw::Canvas;
using draw::GfxInt;
using draw::PyInt;
using draw::Rgb;
using draw::RotateRad;
using draw::ShrinkChannel;
using draw::Vec2;

// The arrow's alpha (kClockwiseWidth x kClockwiseHeight), decoded once.
inline const std::vector<uint8_t>& ClockwiseAlpha() {
  static const std::vector<uint8_t> alpha = [] {
    std::vector<uint8_t> a;
    a.reserve(static_cast<size_t>(kClockwiseWidth) * kClockwiseHeight);
    const size_t n = sizeof(kClockwiseAlphaRle);
    for (size_t i = 0; i < n; ++i) {
      const uint8_t v = kClockwiseAlphaRle[i];
      if ((v == 0 || v == 255) && i + 1 < n) {
        a.insert(a.end(), kClockwiseAlphaRle[++i], v);
      } else {
        a.push_back(v);
      }
    }
    a.resize(static_cast<size_t>(kClockwiseWidth) * kClockwiseHeight, 0);
    return a;
  }();
  return alpha;
}

// NumPy's float modulo: the result takes the divisor's sign.
inline double PyMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0.0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

class Pendulum : public StateEnv<2> {
 public:
  static constexpr double kMaxSpeed = 8, kMaxTorque = 2.0, kDt = 0.05, kM = 1.0, kL = 1.0;

  static Config Defaults() { return {{"max_episode_steps", int64_t{200}}, {"g", 10.0}, {"expose_state", false}}; }
  struct Spec : EnvSpec {
    StateKey<float> obs = AddState<float>("obs", {3}, {-1.0, -1.0, -kMaxSpeed}, {1.0, 1.0, kMaxSpeed});
    ActionKey<float> action = AddAction<float>("action", {1}, {-kMaxTorque}, {kMaxTorque});
    StateKey<double> state;
    explicit Spec(const Config& c) : state(AddStateKey(*this, c)) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }
  explicit Pendulum(const Config& c) : StateEnv(c), spec_(c), g_(c.Get<double>("g")) {}

  void Reset(const StateRow& out) override {
    s_ = {Uniform(-std::numbers::pi, std::numbers::pi), Uniform(-1.0, 1.0)};
    has_last_u_ = false;  // gymnasium's last_u = None: no torque arrow
    Write(out);
  }

  std::array<int, 2> RenderSize() const override { return {kScreenDim, kScreenDim}; }
  void Render(uint8_t* rgb) override { Draw(s_[0], has_last_u_, last_u_, rgb); }

  // What gymnasium's PendulumEnv.render() draws (rgb_array) for angle th
  // after the clipped action last_u (has_last_u false: just after reset).
  static constexpr int kScreenDim = 500;

  // smoothscale(clockwise.png, (size, size))'s alpha, computed once per size.
  static const std::vector<uint8_t>& ScaledArrow(int size) {
    static std::array<std::once_flag, kClockwiseHeight> once;
    static std::array<std::vector<uint8_t>, kClockwiseHeight> scaled;
    std::call_once(once[size], [size] {
      scaled[size] = ShrinkChannel(ClockwiseAlpha(), kClockwiseWidth, kClockwiseHeight, size, size);
    });
    return scaled[size];
  }

  static void Draw(double th, bool has_last_u, float last_u, uint8_t* rgb) {
    constexpr Rgb kRed{204, 77, 77}, kBlack{0, 0, 0};
    Canvas cv(rgb, kScreenDim, kScreenDim);
    cv.Fill({255, 255, 255});
    const double bound = 2.2, scale = kScreenDim / (bound * 2);
    const int offset = kScreenDim / 2;
    const double rod_length = 1 * scale, rod_width = 0.2 * scale;
    const double l = 0, r = rod_length, t = rod_width / 2, b = -rod_width / 2;
    Vec2 rod[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    for (Vec2& c : rod) {
      c = RotateRad(c, th + std::numbers::pi / 2);
      c = {c.x + offset, c.y + offset};
    }
    cv.Polygon(rod, 4, kRed);
    cv.Disc(offset, offset, GfxInt(rod_width / 2), kRed);
    const Vec2 rod_end = RotateRad({rod_length, 0}, th + std::numbers::pi / 2);
    cv.Disc(GfxInt(PyInt(rod_end.x + offset)), GfxInt(PyInt(rod_end.y + offset)), GfxInt(rod_width / 2), kRed);
    if (has_last_u) {
      // smoothscale(img, (scale * |u| / 2,) * 2): float32 arithmetic (NumPy 2
      // keeps the float32 action), truncated to int by pygame.
      const int size = PyInt((static_cast<float>(scale) * std::fabs(last_u)) / 2.0f);
      if (size > 0 && size < kClockwiseHeight) {  // (|u| <= 2 keeps it below 114)
        const std::vector<uint8_t>& a = ScaledArrow(size);
        // flip(img, u > 0, True), blitted centred (Rect.centerx = x + w / 2).
        std::vector<uint8_t> flipped(a.size());
        for (int y = 0; y < size; ++y)
          for (int x = 0; x < size; ++x)
            flipped[static_cast<size_t>(y) * size + x] =
                a[static_cast<size_t>(size - 1 - y) * size + (last_u > 0 ? size - 1 - x : x)];
        cv.BlitBlack(flipped, size, size, offset - size / 2, offset - size / 2);
      }
    }
    cv.Disc(offset, offset, GfxInt(0.05 * scale), kBlack);  // the axle
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    auto [th, thdot] = s_;
    // gymnasium keeps u as float32, so (NumPy 2 promotion) 0.001 * u**2
    // and 3.0 / (m l^2) * u are float32 products.
    float u = std::clamp(action[spec_.action][0], static_cast<float>(-kMaxTorque), static_cast<float>(kMaxTorque));
    last_u_ = u;  // for rendering
    has_last_u_ = true;
    float u2 = u * u;
    float ctrl_cost = 0.001f * u2;
    float torque = static_cast<float>(3.0 / (kM * kL * kL)) * u;
    double an = PyMod(th + std::numbers::pi, 2 * std::numbers::pi) - std::numbers::pi;
    double costs = an * an + 0.1 * (thdot * thdot) + static_cast<double>(ctrl_cost);
    double newthdot = thdot + (3 * g_ / (2 * kL) * std::sin(th) + static_cast<double>(torque)) * kDt;
    newthdot = std::clamp(newthdot, -kMaxSpeed, kMaxSpeed);
    s_ = {th + newthdot * kDt, newthdot};
    Write(out);
    StepResult r;
    r.reward = -costs;
    return r;
  }

 private:
  void Write(const StateRow& out) const {
    float* obs = out[spec_.obs];
    obs[0] = static_cast<float>(std::cos(s_[0]));
    obs[1] = static_cast<float>(std::sin(s_[0]));
    obs[2] = static_cast<float>(s_[1]);
    WriteState(out, spec_.state);
  }
  Spec spec_;
  double g_;
  bool has_last_u_ = false;
  float last_u_ = 0;
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_
