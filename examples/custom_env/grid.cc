// A complete out-of-tree family: a grid world. The agent starts on a random
// cell of a size x size grid and walks (0 up, 1 right, 2 down, 3 left; walls
// stop it) to the goal in the far corner: reward 1 and the episode ends
// there, -step_cost on every other step. The observation is a dict
// {"agent": (row, col), "goal": (row, col)}; info["distance"] is the
// Manhattan distance left. It renders as cell x cell pixel squares.
#include <envpool/envpool.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>

namespace {

using namespace envpool;

class Grid : public Env {
 public:
  static constexpr int kCell = 8;  // pixels per cell in render()

  static Config Defaults() { return {{"size", int64_t{5}}, {"step_cost", 0.1}}; }
  struct Spec : EnvSpec {
    explicit Spec(const Config& c) : n(c.Get<int>("size")) {}
    int n;
    StateKey<int32_t> agent = AddState<int32_t>("obs:agent", {2}, {0}, {n - 1.0});
    StateKey<int32_t> goal = AddState<int32_t>("obs:goal", {2}, {0}, {n - 1.0});
    StateKey<int32_t> distance = AddState<int32_t>("info:distance", {});
    ActionKey<int32_t> move = AddAction<int32_t>("action", {}, {0}, {3});
  };
  static EnvSpec MakeSpec(const Config& c) {
    if (c.Get<int>("size") < 2) throw std::invalid_argument("size must be >= 2");
    return Spec(c);
  }
  explicit Grid(const Config& c) : spec_(c), n_(spec_.n), step_cost_(c.Get<double>("step_cost")) {}

  void Reset(const StateRow& out) override {
    std::uniform_int_distribution<int> cell(0, n_ * n_ - 2);  // any cell but the goal
    int i = cell(rng_);
    r_ = i / n_, c_ = i % n_;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const int a = action[spec_.move][0];  // the engine checked it is in [0, 3]
    static constexpr int kDr[4] = {-1, 0, 1, 0}, kDc[4] = {0, 1, 0, -1};
    r_ = std::clamp(r_ + kDr[a], 0, n_ - 1), c_ = std::clamp(c_ + kDc[a], 0, n_ - 1);
    Write(out);
    StepResult res;
    res.terminated = r_ == n_ - 1 && c_ == n_ - 1;
    res.reward = res.terminated ? 1.0 : -step_cost_;
    return res;
  }

  std::array<int, 2> RenderSize() const override { return {n_ * kCell, n_ * kCell}; }
  void Render(uint8_t* rgb) override {
    const int w = n_ * kCell;
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) {
        const int r = y / kCell, c = x / kCell;
        const bool agent = r == r_ && c == c_, goal = r == n_ - 1 && c == n_ - 1;
        uint8_t* px = rgb + 3 * (y * w + x);
        px[0] = agent ? 255 : goal ? 0 : 255;
        px[1] = agent ? 0 : 255;
        px[2] = agent ? 0 : goal ? 0 : 255;
      }
  }

 private:
  void Write(const StateRow& out) {
    int32_t* agent = out[spec_.agent];
    agent[0] = r_, agent[1] = c_;
    int32_t* goal = out[spec_.goal];
    goal[0] = goal[1] = n_ - 1;
    *out[spec_.distance] = (n_ - 1 - r_) + (n_ - 1 - c_);
  }
  Spec spec_;
  int n_, r_ = 0, c_ = 0;
  double step_cost_;
};

void Register() {
  // Grid::Defaults, Grid::MakeSpec and Grid(config); kind "custom", no task module.
  RegisterFamily(FamilyOf<Grid>("Grid", "custom", ""));
}

const FamilyRegistrar registrar(&Register);

}  // namespace
