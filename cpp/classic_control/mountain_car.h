// MountainCar-v0 and MountainCarContinuous-v0: gymnasium's envs.
#ifndef ENVPOOL_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
#define ENVPOOL_CLASSIC_CONTROL_MOUNTAIN_CAR_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cpp/classic_control/state_env.h"
#include "cpp/draw/canvas.h"

namespace envpool::classic_control {

using draw::Canvas;
using draw::GfxInt;
using draw::PyInt;
using draw::Rgb;
using draw::RotateRad;
using draw::Vec2;

constexpr double kMinPosition = -1.2, kMaxPosition = 0.6, kMaxSpeed = 0.07;

inline std::vector<double> F32(std::vector<double> v) {
  for (double& x : v) x = static_cast<float>(x);
  return v;
}

// What gymnasium's MountainCarEnv.render() and Continuous_MountainCarEnv.render()
// draw (rgb_array) with the car at pos and the flag at goal_position. f32_state:
// gymnasium's continuous env holds a float32 state after a step, and NumPy 2
// then computes the car's coordinates in float32; reproduced here.
inline void DrawMountainCar(double pos, double goal_position, bool f32_state, uint8_t* rgb) {
  constexpr int kScreenWidth = 600, kScreenHeight = 400;
  constexpr Rgb kBlack{0, 0, 0};
  const double world_width = kMaxPosition - kMinPosition, scale = kScreenWidth / world_width;
  const double carwidth = 40, carheight = 20, clearance = 10;
  auto height = [](double x) { return std::sin(3 * x) * 0.45 + 0.55; };
  // White with the track, the same in every frame: drawn once.
  static const std::vector<uint8_t> background = [&] {
    std::vector<uint8_t> bg(static_cast<size_t>(kScreenWidth) * kScreenHeight * 3);
    Canvas cv(bg.data(), kScreenWidth, kScreenHeight);
    cv.Fill({255, 255, 255});
    // np.linspace(min, max, 100) (i * step + start, the end exact), handed to
    // aalines as C floats.
    std::vector<float> xs(100), ys(100);
    const double step = (kMaxPosition - kMinPosition) / 99;
    for (int i = 0; i < 100; ++i) {
      const double x = i == 99 ? kMaxPosition : i * step + kMinPosition;
      xs[i] = static_cast<float>((x - kMinPosition) * scale);
      ys[i] = static_cast<float>(height(x) * scale);
    }
    cv.AALines(xs, ys, kBlack);
    return bg;
  }();
  std::copy(background.begin(), background.end(), rgb);
  Canvas cv(rgb, kScreenWidth, kScreenHeight);
  // The car: at ((pos - min) * scale, height(pos) * scale), tilted by cos(3 pos).
  double px, py, angle;
  if (f32_state) {
    const float p = static_cast<float>(pos), sc = static_cast<float>(scale), p3 = 3.0f * p;
    px = (p - static_cast<float>(kMinPosition)) * sc;
    py = (std::sin(p3) * 0.45f + 0.55f) * sc;
    angle = std::cos(static_cast<double>(p3));
  } else {
    px = (pos - kMinPosition) * scale;
    py = height(pos) * scale;
    angle = std::cos(3 * pos);
  }
  // c[0] + px and c[1] + clearance + py, in float32 when px, py are float32.
  auto at = [&](Vec2 c) -> Vec2 {
    if (f32_state)
      return {static_cast<float>(c.x) + static_cast<float>(px),
              static_cast<float>(c.y + clearance) + static_cast<float>(py)};
    return {c.x + px, c.y + clearance + py};
  };
  const double l = -carwidth / 2, r = carwidth / 2, t = carheight, b = 0;
  Vec2 car[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
  for (Vec2& c : car) c = at(RotateRad(c, angle));
  cv.Polygon(car, 4, kBlack);
  for (Vec2 c : {Vec2{carwidth / 4, 0}, Vec2{-carwidth / 4, 0}}) {
    const Vec2 wheel = at(RotateRad(c, angle));
    cv.Disc(GfxInt(wheel.x), GfxInt(wheel.y), GfxInt(carheight / 2.5), {128, 128, 128});
  }
  const int flagx = PyInt((goal_position - kMinPosition) * scale);
  const int flagy1 = PyInt(height(goal_position) * scale), flagy2 = flagy1 + 50;
  cv.VLine(flagx, flagy1, flagy2, kBlack);
  const int vx[3] = {flagx, flagx, flagx + 25}, vy[3] = {flagy2, flagy2 - 10, flagy2 - 5};
  cv.AAPolygon(vx, vy, 3, {204, 204, 0});
  cv.FilledPolygon(vx, vy, 3, {204, 204, 0});
}

// What both versions share: observation, reset distribution, goal; A is the
// action's element type (int32 discrete, float32 continuous).
template <class A>
class MountainCarBase : public StateEnv<2> {
 public:
  static constexpr int kScreenWidth = 600, kScreenHeight = 400;
  std::array<int, 2> RenderSize() const override { return {kScreenHeight, kScreenWidth}; }

  static Config Defaults(int64_t max_episode_steps) {
    return {{"max_episode_steps", max_episode_steps}, {"goal_velocity", 0.0}, {"expose_state", false}};
  }
  struct Spec : EnvSpec {
    StateKey<float> obs = AddState<float>("obs", {2}, F32({kMinPosition, -kMaxSpeed}), F32({kMaxPosition, kMaxSpeed}));
    ActionKey<A> action;
    StateKey<double> state;
    Spec(const Config& c, std::vector<int> shape, double low, double high)
        : action(AddAction<A>("action", std::move(shape), {low}, {high})), state(AddStateKey(*this, c)) {}
  };

 protected:
  MountainCarBase(const Config& c, Spec spec)
      : StateEnv<2>(c), spec_(std::move(spec)), goal_velocity_(c.Get<double>("goal_velocity")) {}

  void Start(const StateRow& out) {
    s_ = {Uniform(-0.6, -0.4), 0.0};
    Write(out);
  }

  void Write(const StateRow& out) const {
    float* obs = out[spec_.obs];
    obs[0] = static_cast<float>(s_[0]);
    obs[1] = static_cast<float>(s_[1]);
    WriteState(out, spec_.state);
  }

  Spec spec_;
  double goal_velocity_;
};

class MountainCar : public MountainCarBase<int32_t> {
 public:
  static Config Defaults() { return MountainCarBase::Defaults(200); }
  static EnvSpec MakeSpec(const Config& c) { return Spec(c, {}, 0, 2); }
  explicit MountainCar(const Config& c) : MountainCarBase(c, Spec(c, {}, 0, 2)) {}

  static constexpr double kGoalPosition = 0.5;
  void Render(uint8_t* rgb) override { DrawMountainCar(s_[0], kGoalPosition, false, rgb); }

  void Reset(const StateRow& out) override { Start(out); }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    auto [position, velocity] = s_;
    int a = action[spec_.action][0];
    velocity += (a - 1) * 0.001 + std::cos(3 * position) * (-0.0025);
    velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
    position += velocity;
    position = std::clamp(position, kMinPosition, kMaxPosition);
    if (position == kMinPosition && velocity < 0) velocity = 0;
    s_ = {position, velocity};
    Write(out);
    StepResult r;
    r.terminated = position >= kGoalPosition && velocity >= goal_velocity_;
    r.reward = -1.0;
    return r;
  }
};

// gymnasium's continuous version mixes float32 and float64 (its state is
// stored as float32 after every step, and NumPy 2 keeps float32 when a
// float32 meets a Python float). To be bit-exact we follow the type of
// every intermediate: Num carries a value and whether it is float32, a
// float64 NumPy scalar, or a plain Python float.
class MountainCarContinuous : public MountainCarBase<float> {
 public:
  static Config Defaults() { return MountainCarBase::Defaults(999); }
  static EnvSpec MakeSpec(const Config& c) { return Spec(c, {1}, -1.0, 1.0); }
  explicit MountainCarContinuous(const Config& c) : MountainCarBase(c, Spec(c, {1}, -1.0, 1.0)) {}

  static constexpr double kGoalPosition = 0.45;
  void Render(uint8_t* rgb) override { DrawMountainCar(s_[0], kGoalPosition, state_f32_, rgb); }

  void Reset(const StateRow& out) override {
    state_f32_ = false;  // reset builds a float64 array
    Start(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const Num::Kind sk = state_f32_ ? Num::kF32 : Num::kF64;
    Num position{s_[0], sk}, velocity{s_[1], sk};
    float a = action[spec_.action][0];
    // min(max(a, -1.0), 1.0) returns whichever object wins: a Python float
    // when clipped, the float32 otherwise.
    Num force{a, Num::kF32};
    if (-1.0 > a) force = {-1.0, Num::kPy};
    if (1.0 < force.v) force = {1.0, Num::kPy};
    Num drag{0.0025 * std::cos(3 * position.v), Num::kPy};
    // 3 * position keeps position's type before math.cos sees it.
    if (position.k == Num::kF32) drag.v = 0.0025 * std::cos(static_cast<double>(static_cast<float>(3 * position.v)));
    velocity = velocity + (force * Num{0.0015, Num::kPy} - drag);
    if (velocity.v > kMaxSpeed) velocity = {kMaxSpeed, Num::kPy};
    if (velocity.v < -kMaxSpeed) velocity = {-kMaxSpeed, Num::kPy};
    position = position + velocity;
    if (position.v > kMaxPosition) position = {kMaxPosition, Num::kPy};
    if (position.v < kMinPosition) position = {kMinPosition, Num::kPy};
    if (position.v == kMinPosition && velocity.v < 0) velocity = {0.0, Num::kPy};
    StepResult r;
    r.terminated = position.v >= kGoalPosition && velocity.v >= goal_velocity_;
    r.reward = (r.terminated ? 100.0 : 0.0) - std::pow(static_cast<double>(a), 2) * 0.1;
    s_ = {static_cast<float>(position.v), static_cast<float>(velocity.v)};
    state_f32_ = true;
    Write(out);
    return r;
  }

 private:
  struct Num {
    enum Kind { kF32, kF64, kPy };
    double v;
    Kind k;
    // NumPy 2 (NEP 50): a Python float takes the NumPy operand's type.
    static Kind Join(Kind a, Kind b) {
      if (a == kPy) return b;
      if (b == kPy) return a;
      return (a == kF32 && b == kF32) ? kF32 : kF64;
    }
    static Num Make(double v, Kind k) { return {k == kF32 ? static_cast<float>(v) : v, k}; }
    static double As(const Num& x, Kind k) { return k == kF32 ? static_cast<float>(x.v) : x.v; }
    friend Num operator+(Num a, Num b) {
      Kind k = Join(a.k, b.k);
      return Make(As(a, k) + As(b, k), k);
    }
    friend Num operator-(Num a, Num b) {
      Kind k = Join(a.k, b.k);
      return Make(As(a, k) - As(b, k), k);
    }
    friend Num operator*(Num a, Num b) {
      Kind k = Join(a.k, b.k);
      return Make(As(a, k) * As(b, k), k);
    }
  };

  bool state_f32_ = false;
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
