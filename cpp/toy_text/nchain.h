// NChain: EnvPool 1.2.5's NChain-v0, gym 0.20's NChainEnv (n, slip, small,
// large): the action is flipped with probability slip; "backward" (1) pays
// small and returns to state 0, "forward" (0) advances, paying large at the
// end of the chain. Episodes end only at the time limit.
#ifndef ENVPOOL_TOY_TEXT_NCHAIN_H_
#define ENVPOOL_TOY_TEXT_NCHAIN_H_

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

class NChain : public ToyTextEnv {
 public:
  static Config Defaults() {
    return {{"max_episode_steps", int64_t{1000}},
            {"n", int64_t{5}},
            {"slip", 0.2},
            {"small", 2.0},
            {"large", 10.0},
            {"report_draws", false}};
  }
  struct Spec : EnvSpec {
    StateKey<int32_t> obs;
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {1});
    DrawKeys draws;
    explicit Spec(const Config& c) {
      const int64_t n = c.Get<int64_t>("n");
      if (n < 1 || n > (1 << 30)) throw std::invalid_argument("n must be in [1, 2**30], got " + std::to_string(n));
      obs = AddState<int32_t>("obs", {}, {0}, {static_cast<double>(n - 1)});
      draws = AddDrawKeys(*this, c);
      CheckProbability(c, "slip");
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit NChain(const Config& c)
      : spec_(c),
        n_(c.Get<int>("n")),
        slip_(c.Get<double>("slip")),
        small_(c.Get<double>("small")),
        large_(c.Get<double>("large")) {}

  void Reset(const StateRow& out) override {
    ClearDraws();
    s_ = 0;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    int a = action[spec_.action][0];
    if (Random() < slip_) a = 1 - a;
    StepResult r;
    if (a == 1) {
      r.reward = small_;
      s_ = 0;
    } else if (s_ < n_ - 1) {
      ++s_;
    } else {
      r.reward = large_;
    }
    Write(out);
    return r;
  }

 private:
  void Write(const StateRow& out) {
    *out[spec_.obs] = s_;
    WriteDraws(out, spec_.draws);
  }
  Spec spec_;
  int n_;
  double slip_, small_, large_;
  int s_ = 0;
};

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_NCHAIN_H_
