// CliffWalking: gymnasium 1.4's CliffWalkingEnv (v1: is_slippery).
#ifndef ENVPOOL_TOY_TEXT_CLIFF_WALKING_H_
#define ENVPOOL_TOY_TEXT_CLIFF_WALKING_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/draw/canvas.h"
#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

using draw::Canvas;
using draw::Image;
using draw::LoadImage;
using draw::Rows;

class CliffWalking : public ToyTextEnv {
 public:
  static constexpr int kRows = 4, kCols = 12, kStates = kRows * kCols, kStart = 3 * kCols;
  static constexpr int kCell = 64;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{0}},
            {"is_slippery", false},
            {"report_draws", false},
            {"img_dir", std::string("")}};
  }
  struct Spec : EnvSpec {
    StateKey<int32_t> obs = AddState<int32_t>("obs", {}, {0}, {kStates - 1});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {3});
    StateKey<double> prob = AddState<double>("info:prob", {});
    DrawKeys draws;
    explicit Spec(const Config& c) : draws(AddDrawKeys(*this, c)) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit CliffWalking(const Config& c) : spec_(c), img_dir_(c.Get<std::string>("img_dir")) {
    const bool slippery = c.Get<bool>("is_slippery");
    model_ = SharedModel(slippery ? "CliffWalking slippery" : "CliffWalking", [slippery] { return Build(slippery); });
  }

  void Reset(const StateRow& out) override {
    ClearDraws();
    s_ = model_->initial.Sample(Random());
    Write(out, 1.0);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    const Outcome& o = model_->table.Sample(s_, action[spec_.action][0], Random());
    s_ = o.s;
    Write(out, o.p);
    StepResult r;
    r.reward = o.r;
    r.terminated = o.t;
    return r;
  }

  std::array<int, 2> RenderSize() const override { return {kRows * kCell, kCols * kCell}; }
  void Render(uint8_t* rgb) override;

 private:
  // gymnasium's P (_calculate_transition_prob) and initial_state_distrib.
  static Model Build(bool slippery) {
    Model m;
    // UP, RIGHT, DOWN, LEFT as (row, col) deltas.
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    m.table = Table(kStates, 4);
    for (int s = 0; s < kStates; ++s)
      for (int a = 0; a < 4; ++a) {
        std::vector<int> moves = slippery ? std::vector<int>{(a + 3) % 4, a, (a + 1) % 4} : std::vector<int>{a};
        const double p = 1.0 / static_cast<double>(moves.size());
        for (int mv : moves) {
          const int row = std::clamp(s / kCols + dr[mv], 0, kRows - 1);
          const int col = std::clamp(s % kCols + dc[mv], 0, kCols - 1);
          if (Cliff(row, col))
            m.table.Add({p, kStart, -100.0, false});
          else
            m.table.Add({p, row * kCols + col, -1.0, row == kRows - 1 && col == kCols - 1});
        }
        m.table.EndAction();
      }
    std::vector<double> dist(kStates, 0.0);
    dist[kStart] = 1.0;
    m.initial = Initial(dist);
    return m;
  }

  static bool Cliff(int row, int col) { return row == kRows - 1 && col >= 1 && col <= kCols - 2; }

  void Write(const StateRow& out, double prob) {
    *out[spec_.obs] = s_;
    *out[spec_.prob] = prob;
    WriteDraws(out, spec_.draws);
  }

  struct Sprites {
    std::shared_ptr<const Image> ground, left, mid_a, mid_b, right, start, goal, flag, agent;
  };

  Spec spec_;
  std::string img_dir_;
  std::shared_ptr<const Model> model_;
  int s_ = kStart;
  std::unique_ptr<Sprites> sprites_;
};

// gymnasium's CliffWalkingEnv._render_gui (rgb_array). Its cells are the
// art's 64 pixels, so no image is scaled.
inline void CliffWalking::Render(uint8_t* rgb) {
  if (!sprites_) {
    if (img_dir_.empty()) throw std::runtime_error("CliffWalking render: no img_dir (gymnasium's toy_text/img folder)");
    auto load = [&](const char* name) { return LoadImage(img_dir_ + "/cliff_walking/" + name); };
    sprites_ = std::make_unique<Sprites>(Sprites{load("tile_ground.png"), load("tile_cliff_left.png"),
                                                 load("tile_cliff_mid_a.png"), load("tile_cliff_mid_b.png"),
                                                 load("tile_cliff_right.png"), load("letter_s.png"),
                                                 load("letter_g.png"), load("goal_flag.png"), load("agent.png")});
  }
  const Sprites& sp = *sprites_;
  Canvas cv(rgb, kCols * kCell, kRows * kCell, Rows::kAsDrawn);
  for (int s = 0; s < kStates; ++s) {
    const int row = s / kCols, col = s % kCols, x = col * kCell, y = row * kCell;
    cv.Blit(*sp.ground, x, y);
    if (Cliff(row, col)) {
      const Image& tile = col == 1 ? *sp.left : col == kCols - 2 ? *sp.right : col % 2 == 0 ? *sp.mid_a : *sp.mid_b;
      cv.Blit(tile, x, y);
    }
    if (s == kStart) cv.Blit(*sp.start, x + 8, y + 8);
    if (s == kStates - 1) {
      cv.Blit(*sp.goal, x + 8, y + 8);
      cv.Blit(*sp.flag, x + 28, y + 16);
    }
    if (s == s_) cv.Blit(*sp.agent, x + 20, y + 20);
  }
}

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_CLIFF_WALKING_H_
