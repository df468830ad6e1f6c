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
  // The optional info["state"] key (expose_state=True); no key otherwise.
  static StateKey<double> AddStateKey(EnvSpec& spec, const Config& c) {
    return c.Get<bool>("expose_state") ? spec.AddState<double>("info:state", {N}) : StateKey<double>{};
  }

 protected:
  explicit StateEnv(const Config&) {}

  void WriteState(const StateRow& out, StateKey<double> key) const {
    if (key.index < 0) return;
    double* p = out[key];
    for (int i = 0; i < N; ++i) p[i] = s_[i];
  }

  double Uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  std::array<double, N> s_{};
};

}  // namespace envpool::classic_control

#endif  // ENVPOOL_CLASSIC_CONTROL_STATE_ENV_H_
