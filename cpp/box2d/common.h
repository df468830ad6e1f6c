// What the Box2D envs share: the env's own random draws, made as NumPy's
// Generator makes them (uniform(low, high) = low + (high - low) * u), and
// their optional report (report_draws=True) so that a test can replay them
// into gymnasium's env through a stand-in for its np_random.
#ifndef ENVPOOL_BOX2D_COMMON_H_
#define ENVPOOL_BOX2D_COMMON_H_

#include <Box2D/Box2D.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/env.h"

namespace envpool::box2d {

// Runs f, turning a failed Box2D assertion (pybox2d's b2AssertException,
// see third_party/box2d) into an error the engine reports as RuntimeError.
template <class F>
auto Box2DGuard(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const b2AssertException&) {
    throw std::runtime_error("Box2D: an internal assertion failed (the simulation diverged)");
  }
}

class Box2DEnv : public Env {
 public:
  // info["draws"] (float64[capacity]) and info["num_draws"] (int32): this
  // Reset's or Step's draws in gymnasium's call order, each the value
  // gymnasium's np_random call returned (an array call's values in order);
  // unused slots are 0.
  struct DrawKeys {
    StateKey<double> draws;
    StateKey<int32_t> num_draws;
  };
  static DrawKeys AddDrawKeys(EnvSpec& spec, const Config& c, int capacity) {
    if (!c.Get<bool>("report_draws")) return {};
    DrawKeys k;
    k.draws = spec.AddState<double>("info:draws", {capacity});
    k.num_draws = spec.AddState<int32_t>("info:num_draws", {}, {0}, {static_cast<double>(capacity)});
    return k;
  }

 protected:
  // np_random.uniform(low, high): NumPy's low + (high - low) * u, u with 53
  // random bits in [0, 1).
  double Uniform(double low, double high) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    const double v = low + (high - low) * u;
    Record(v);
    return v;
  }
  // np_random.random(): u itself.
  double Random() {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    Record(u);
    return u;
  }
  // np_random.integers(low, high): uniform in [low, high).
  int64_t Integers(int64_t low, int64_t high) {
    const int64_t v = std::uniform_int_distribution<int64_t>(low, high - 1)(rng_);
    Record(static_cast<double>(v));
    return v;
  }
  void ClearDraws() { draws_.clear(); }
  void WriteDraws(const StateRow& out, const DrawKeys& k) const {
    if (k.draws.index < 0) return;
    double* d = out[k.draws];
    const int cap = capacity_;
    if (static_cast<int>(draws_.size()) > cap)
      throw std::logic_error("box2d: more draws in one call than info['draws'] holds");
    for (int i = 0; i < cap; ++i) d[i] = i < static_cast<int>(draws_.size()) ? draws_[i] : 0.0;
    *out[k.num_draws] = static_cast<int32_t>(draws_.size());
  }
  // The draws array's length (the env's most draws in one Reset or Step).
  void SetDrawCapacity(int capacity, bool report) {
    capacity_ = capacity;
    record_ = report;
    if (report) draws_.reserve(capacity);
  }

 private:
  void Record(double v) {
    if (record_) draws_.push_back(v);
  }
  std::vector<double> draws_;
  int capacity_ = 0;
  bool record_ = false;
};

}  // namespace envpool::box2d

#endif  // ENVPOOL_BOX2D_COMMON_H_
