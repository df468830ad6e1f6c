// What the classic-control envs share: a small float64 state vector that
// can be exposed as info["state"] so tests can put a reference env in
// exactly our state (observations are float32 and lose precision).
#ifndef ENVPOOL_CLASSIC_CONTROL_STATE_ENV_H_
#define ENVPOOL_CLASSIC_CONTROL_STATE_ENV_H_

#include <array>
#include <cmath>
#include <random>

#include "cpp/core/env.h"

namespace envpool::classic_control {

template <int N>
class StateEnv : public Env {
 public:
  // Appends the optional state key; obs must be key 0.
  static EnvSpec WithState(const Config& c, EnvSpec spec) {
    if (c.Get<bool>("expose_state")) spec.state.push_back(Spec<double>("info:state", {N}));
    return spec;
  }

 protected:
  explicit StateEnv(const Config& c) : expose_(c.Get<bool>("expose_state")) {}

  void WriteState(const StateRow& out) const {
    if (!expose_) return;
    double* p = out.Out<double>(1);
    for (int i = 0; i < N; ++i) p[i] = s_[i];
  }

  double Uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  std::array<double, N> s_{};

 private:
  bool expose_;
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_STATE_ENV_H_
