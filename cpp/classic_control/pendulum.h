// Pendulum-v1: gymnasium's PendulumEnv.
#ifndef ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_
#define ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_

#include <algorithm>
#include <cmath>

#include "cpp/classic_control/state_env.h"

namespace envpool::classic_control {

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
    s_ = {Uniform(-M_PI, M_PI), Uniform(-1.0, 1.0)};
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    auto [th, thdot] = s_;
    // gymnasium keeps u as float32, so (NumPy 2 promotion) 0.001 * u**2
    // and 3.0 / (m l^2) * u are float32 products.
    float u = std::clamp(action[spec_.action][0], static_cast<float>(-kMaxTorque), static_cast<float>(kMaxTorque));
    float u2 = u * u;
    float ctrl_cost = 0.001f * u2;
    float torque = static_cast<float>(3.0 / (kM * kL * kL)) * u;
    double an = PyMod(th + M_PI, 2 * M_PI) - M_PI;
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
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_PENDULUM_H_
