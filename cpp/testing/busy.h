// A test-only family whose step takes as long as its action says, and which
// throws on command, so tests can make stragglers and failing envs at will.
// Not a task: reachable only as envpool._envpool.Pool("Busy", {...}).
//
// action >= 0: busy-wait that many microseconds, then count the step.
// action -1 / -2 / -3 / -4 / -5 / -6: throw std::invalid_argument /
// std::out_of_range / std::runtime_error / a non-std exception /
// std::range_error / std::bad_alloc (before writing anything).
// The observation is (env id, steps since reset, reset count); reset takes
// `reset_micros`.
#ifndef ENVPOOL_TESTING_BUSY_H_
#define ENVPOOL_TESTING_BUSY_H_

#include <chrono>
#include <new>
#include <stdexcept>

#include "cpp/core/env.h"

namespace envpool::testing {

class Busy : public Env {
 public:
  Busy(const Config& c, int env_id) : env_id_(env_id), reset_micros_(c.Get<int64_t>("reset_micros")) {}
  static Config Defaults() { return {{"max_episode_steps", int64_t{0}}, {"reset_micros", int64_t{0}}}; }
  static EnvSpec MakeSpec(const Config& c) {
    if (c.Get<int64_t>("reset_micros") < 0 || c.Get<int64_t>("reset_micros") > 10'000'000)
      throw std::invalid_argument("Busy: reset_micros must be in [0, 10000000]");
    return Spec();
  }
  struct Spec : EnvSpec {
    StateKey<int64_t> obs = AddState<int64_t>("obs", {3});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {-6}, {10'000'000});
  };

  void Reset(const StateRow& out) override {
    Spin(reset_micros_);
    steps_ = 0;
    ++resets_;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const int a = action[spec_.action][0];
    switch (a) {
      case -1:
        throw std::invalid_argument("Busy: asked to fail with invalid_argument");
      case -2:
        throw std::out_of_range("Busy: asked to fail with out_of_range");
      case -3:
        throw std::runtime_error("Busy: asked to fail with runtime_error");
      case -4:
        throw 42;
      case -5:
        throw std::range_error("Busy: asked to fail with range_error");
      case -6:
        throw std::bad_alloc();
      default:
        break;
    }
    Spin(a);
    ++steps_;
    Write(out);
    return StepResult{};
  }

 private:
  static void Spin(int64_t micros) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  void Write(const StateRow& out) {
    int64_t* obs = out[spec_.obs];
    obs[0] = env_id_;
    obs[1] = steps_;
    obs[2] = resets_;
  }
  Spec spec_;
  int env_id_;
  int64_t reset_micros_;
  int64_t steps_ = 0;
  int64_t resets_ = 0;
};

}  // namespace envpool::testing

#endif  // ENVPOOL_TESTING_BUSY_H_
