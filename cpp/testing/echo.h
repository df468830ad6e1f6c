// A test-only family with a dict observation and a dict action of mixed
// dtypes, so the generic binding's dict paths are exercised. Not a task:
// it is reachable only as envpool._envpool.Pool("Echo", {...}).
#ifndef ENVPOOL_TESTING_ECHO_H_
#define ENVPOOL_TESTING_ECHO_H_

#include <stdexcept>

#include "cpp/core/env.h"

namespace envpool::testing {

class Echo : public Env {
 public:
  explicit Echo(const Config&) {}
  static Config Defaults() { return {{"max_episode_steps", int64_t{0}}}; }
  static EnvSpec MakeSpec(const Config&) {
    return {{Spec<double>("obs:pos", {2}), Spec<int32_t>("obs:last_pick", {}), Spec<float>("info:seed_draw", {})},
            {Spec<float>("action:move", {2}, {-1.0}, {1.0}), Spec<int32_t>("action:pick", {}, {0}, {3})}};
  }

  void Reset(const StateRow& out) override {
    pos_[0] = pos_[1] = 0.0;
    Write(out, -1, static_cast<float>(rng_() % 1000));
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const float* move = action.In<float>(0);
    const int pick = action.In<int32_t>(1)[0];
    // A way to make an env fail from Python, to test error reporting.
    if (move[0] != move[0]) throw std::runtime_error("Echo: move is NaN");
    pos_[0] += move[0];
    pos_[1] += move[1];
    Write(out, pick, 0.0f);
    StepResult r;
    r.reward = pick;
    r.terminated = pick == 3;
    return r;
  }

 private:
  void Write(const StateRow& out, int pick, float draw) {
    out.Out<double>(0)[0] = pos_[0];
    out.Out<double>(0)[1] = pos_[1];
    out.Out<int32_t>(1)[0] = pick;
    out.Out<float>(2)[0] = draw;
  }
  double pos_[2] = {0, 0};
};

}  // namespace envpool::testing

#endif  // ENVPOOL_TESTING_ECHO_H_
