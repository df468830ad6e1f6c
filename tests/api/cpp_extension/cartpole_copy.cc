// An out-of-tree copy of cpp/classic_control/cartpole.h (without rendering),
// built only against the installed SDK: tests/api/test_cpp_extension.py
// checks it follows the in-tree CartPole bit for bit.
#include <envpool/envpool.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>

namespace {

using namespace envpool;

class CartPoleCopy : public Env {
 public:
  static constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart, kLength = 0.5;
  static constexpr double kPoleMassLength = kMassPole * kLength, kForceMag = 10.0;
  static constexpr double kTau = 0.02, kXThreshold = 2.4;
  static constexpr double kThetaThreshold = 12 * 2 * M_PI / 360;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{500}}, {"sutton_barto_reward", false}, {"expose_state", false}};
  }
  struct Spec : EnvSpec {
    static constexpr double kHx = static_cast<float>(kXThreshold * 2), kHt = static_cast<float>(kThetaThreshold * 2);
    StateKey<float> obs = AddState<float>("obs", {4}, {-kHx, -kInf, -kHt, -kInf}, {kHx, kInf, kHt, kInf});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {1});
    StateKey<double> state;
    explicit Spec(const Config& c)
        : state(c.Get<bool>("expose_state") ? AddState<double>("info:state", {4}) : StateKey<double>{}) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }
  explicit CartPoleCopy(const Config& c) : spec_(c), sutton_barto_(c.Get<bool>("sutton_barto_reward")) {}

  void Reset(const StateRow& out) override {
    for (double& v : s_) v = std::uniform_real_distribution<double>(-0.05, 0.05)(rng_);
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    auto [x, x_dot, theta, theta_dot] = s_;
    double force = action[spec_.action][0] == 1 ? kForceMag : -kForceMag;
    double costheta = std::cos(theta), sintheta = std::sin(theta);
    double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    double thetaacc = (kGravity * sintheta - costheta * temp) /
                      (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
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
    if (spec_.state.index >= 0) {
      double* p = out[spec_.state];
      for (int i = 0; i < 4; ++i) p[i] = s_[i];
    }
  }
  Spec spec_;
  bool sutton_barto_;
  std::array<double, 4> s_{};
};

void Register() {
  Family f{"CartPoleCopy", CartPoleCopy::Defaults(), &CartPoleCopy::MakeSpec,
           [](const Config& c, int) -> std::unique_ptr<Env> { return std::make_unique<CartPoleCopy>(c); }, nullptr};
  f.kind = "custom";
  RegisterFamily(std::move(f));
}

const FamilyRegistrar registrar(&Register);

}  // namespace
