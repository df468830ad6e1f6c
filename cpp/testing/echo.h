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
  struct Spec : EnvSpec {
    StateKey<double> pos = AddState<double>("obs:pos", {2});
    StateKey<int32_t> last_pick = AddState<int32_t>("obs:last_pick", {});
    StateKey<float> seed_draw = AddState<float>("info:seed_draw", {});
    ActionKey<float> move = AddAction<float>("action:move", {2}, {-1.0}, {1.0});
    ActionKey<int32_t> pick = AddAction<int32_t>("action:pick", {}, {0}, {3});
  };
  static EnvSpec MakeSpec(const Config&) { return Spec(); }

  void Reset(const StateRow& out) override {
    pos_[0] = pos_[1] = 0.0;
    Write(out, -1, static_cast<float>(rng_() % 1000));
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const float* move = action[spec_.move];
    const int pick = action[spec_.pick][0];
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
    out[spec_.pos][0] = pos_[0];
    out[spec_.pos][1] = pos_[1];
    out[spec_.last_pick][0] = pick;
    out[spec_.seed_draw][0] = draw;
  }
  Spec spec_;
  double pos_[2] = {0, 0};
};

}  // namespace envpool::testing

#endif  // ENVPOOL_TESTING_ECHO_H_
