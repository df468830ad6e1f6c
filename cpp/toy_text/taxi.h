// Taxi: gymnasium 1.4's TaxiEnv (v4: is_rainy, fickle_passenger,
// rainy_probability, fickle_probability; info["action_mask"]).
#ifndef ENVPOOL_TOY_TEXT_TAXI_H_
#define ENVPOOL_TOY_TEXT_TAXI_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/draw/canvas.h"
#include "cpp/draw/transform.h"
#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

using draw::Canvas;
using draw::Flip;
using draw::Image;
using draw::LoadImage;
using draw::Rows;

class Taxi : public ToyTextEnv {
 public:
  static constexpr int kStates = 500, kActions = 6, kMaxRow = 4, kMaxCol = 4;
  static constexpr const char* kMap[7] = {"+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |",
                                          "| | : | : |", "|Y| : |B: |", "+---------+"};
  static constexpr std::pair<int, int> kLocs[4] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{200}}, {"is_rainy", false},         {"fickle_passenger", false},
            {"rainy_probability", 0.8},          {"fickle_probability", 0.3}, {"report_draws", false},
            {"img_dir", std::string("")}};
  }
  struct Spec : EnvSpec {
    StateKey<int32_t> obs = AddState<int32_t>("obs", {}, {0}, {kStates - 1});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {kActions - 1});
    StateKey<double> prob = AddState<double>("info:prob", {});
    // gymnasium's is int8; the engine's smallest integer type is uint8.
    StateKey<uint8_t> action_mask = AddState<uint8_t>("info:action_mask", {kActions}, {0}, {1});
    DrawKeys draws;
    explicit Spec(const Config& c) : draws(AddDrawKeys(*this, c)) {
      CheckProbability(c, "rainy_probability");
      CheckProbability(c, "fickle_probability");
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit Taxi(const Config& c)
      : spec_(c),
        rainy_(c.Get<bool>("is_rainy")),
        fickle_(c.Get<bool>("fickle_passenger")),
        rainy_p_(c.Get<double>("rainy_probability")),
        rainy_lateral_p_((1.0 - rainy_p_) / 2.0),
        fickle_p_(c.Get<double>("fickle_probability")),
        img_dir_(c.Get<std::string>("img_dir")) {
    // %a: the probability's exact bits.
    char key[96];
    std::snprintf(key, sizeof(key), "Taxi %d %a", static_cast<int>(rainy_), rainy_ ? rainy_p_ : 0.0);
    model_ = SharedModel(key, [this] { return Build(); });
  }

  static int Encode(int row, int col, int pass, int dest) { return ((row * 5 + col) * 5 + pass) * 4 + dest; }
  static std::array<int, 4> Decode(int i) { return {i / 100, i / 20 % 5, i / 4 % 5, i % 4}; }

  void Reset(const StateRow& out) override {
    ClearDraws();
    s_ = model_->initial.Sample(Random());
    last_action_ = -1;
    fickle_step_ = fickle_ && Random() < fickle_p_;
    orientation_ = 0;
    Write(out, 1.0);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    const int a = action[spec_.action][0];
    const Outcome& o = model_->table.Sample(s_, a, Random());
    last_action_ = a;
    int s = o.s;
    const auto [row0, col0, pass0, dest0] = Decode(s_);
    const auto [row, col, pass, dest] = Decode(s);
    // The passenger may change destination on the first move after the pickup.
    if (fickle_ && fickle_step_ && pass0 == 4 && (row != row0 || col != col0)) {
      fickle_step_ = false;
      int others[3], n = 0;
      for (int i = 0; i < 4; ++i)
        if (i != dest0) others[n++] = i;
      s = Encode(row, col, pass, others[Choice(3)]);
    }
    (void)dest;
    s_ = s;
    Write(out, o.p);
    StepResult r;
    r.reward = o.r;
    r.terminated = o.t;
    return r;
  }

  static constexpr int kWidth = 536, kHeight = 456;
  std::array<int, 2> RenderSize() const override { return {kHeight, kWidth}; }
  void Render(uint8_t* rgb) override;

 private:
  static char Wall(int r, int c) { return kMap[r][c]; }

  // gymnasium's P and initial_state_distrib.
  Model Build() {
    Model m;
    table_ = &m.table;
    m.table = Table(kStates, kActions);
    std::vector<double> dist(kStates, 0.0);
    for (int row = 0; row < 5; ++row)
      for (int col = 0; col < 5; ++col)
        for (int pass = 0; pass < 5; ++pass)
          for (int dest = 0; dest < 4; ++dest) {
            if (pass < 4 && pass != dest) dist[Encode(row, col, pass, dest)] += 1.0;
            for (int a = 0; a < kActions; ++a) {
              if (rainy_)
                RainyTransitions(row, col, pass, dest, a);
              else
                DryTransitions(row, col, pass, dest, a);
              m.table.EndAction();
            }
          }
    double total = 0.0;
    for (double p : dist) total += p;
    for (double& p : dist) p /= total;
    m.initial = Initial(dist);
    table_ = nullptr;
    return m;
  }

  void Pickup(std::pair<int, int> taxi, int& pass, double& reward) const {
    if (pass < 4 && taxi == kLocs[pass])
      pass = 4;
    else
      reward = -10;
  }

  void Dropoff(std::pair<int, int> taxi, int& pass, int dest, double& reward, bool& terminated) const {
    int at = -1;
    for (int i = 0; i < 4; ++i)
      if (taxi == kLocs[i] && at < 0) at = i;
    if (taxi == kLocs[dest] && pass == 4) {
      pass = dest;
      terminated = true;
      reward = 20;
    } else if (at >= 0 && pass == 4) {
      pass = at;
    } else {
      reward = -10;
    }
  }

  void DryTransitions(int row, int col, int pass, int dest, int a) {
    int nrow = row, ncol = col, npass = pass;
    double reward = -1;
    bool terminated = false;
    if (a == 0) nrow = std::min(row + 1, kMaxRow);
    if (a == 1) nrow = std::max(row - 1, 0);
    if (a == 2 && Wall(1 + row, 2 * col + 2) == ':')
      ncol = std::min(col + 1, kMaxCol);
    else if (a == 3 && Wall(1 + row, 2 * col) == ':')
      ncol = std::max(col - 1, 0);
    else if (a == 4)
      Pickup({row, col}, npass, reward);
    else if (a == 5)
      Dropoff({row, col}, npass, dest, reward, terminated);
    table_->Add({1.0, Encode(nrow, ncol, npass, dest), reward, terminated});
  }

  // gymnasium's _calc_new_position: a lateral move, blocked by the walls.
  static std::pair<int, int> Lateral(int row, int col, int dr, int dc) {
    const int nrow = std::clamp(row + dr, 0, kMaxRow), ncol = std::clamp(col + dc, 0, kMaxCol);
    if (dc == 1 && Wall(1 + nrow, 2 * ncol) != ':') return {row, col};
    if (dc == -1 && Wall(1 + nrow, 2 * ncol + 2) != ':') return {row, col};
    return {nrow, ncol};
  }

  void RainyTransitions(int row, int col, int pass, int dest, int a) {
    // (forward, left, right) for south, north, east, west.
    static constexpr int kMoves[4][3][2] = {
        {{1, 0}, {0, 1}, {0, -1}}, {{-1, 0}, {0, -1}, {0, 1}}, {{0, 1}, {-1, 0}, {1, 0}}, {{0, -1}, {1, 0}, {-1, 0}}};
    std::pair<int, int> left{row, col}, right{row, col};
    int nrow = row, ncol = col, npass = pass;
    double reward = -1;
    bool terminated = false;
    if ((a == 0 && row < kMaxRow) || (a == 1 && row > 0) || (a == 2 && Wall(1 + row, 2 * col + 2) == ':') ||
        (a == 3 && Wall(1 + row, 2 * col) == ':')) {
      nrow = std::clamp(row + kMoves[a][0][0], 0, kMaxRow);
      ncol = std::clamp(col + kMoves[a][0][1], 0, kMaxCol);
      left = Lateral(row, col, kMoves[a][1][0], kMoves[a][1][1]);
      right = Lateral(row, col, kMoves[a][2][0], kMoves[a][2][1]);
    } else if (a == 4) {
      Pickup({row, col}, npass, reward);
    } else if (a == 5) {
      Dropoff({row, col}, npass, dest, reward, terminated);
    }
    const int intended = Encode(nrow, ncol, npass, dest);
    if (a <= 3) {
      table_->Add({rainy_p_, intended, -1, terminated});
      table_->Add({rainy_lateral_p_, Encode(left.first, left.second, npass, dest), -1, terminated});
      table_->Add({rainy_lateral_p_, Encode(right.first, right.second, npass, dest), -1, terminated});
    } else {
      table_->Add({1.0, intended, reward, terminated});
    }
  }

  // gymnasium's action_mask(s).
  void Mask(uint8_t* m) const {
    const auto [row, col, pass, dest] = Decode(s_);
    const std::pair<int, int> taxi{row, col};
    bool at_loc = false;
    for (const auto& l : kLocs) at_loc = at_loc || taxi == l;
    m[0] = row < 4;
    m[1] = row > 0;
    m[2] = col < 4 && Wall(row + 1, 2 * col + 2) == ':';
    m[3] = col > 0 && Wall(row + 1, 2 * col) == ':';
    m[4] = pass < 4 && taxi == kLocs[pass];
    m[5] = pass == 4 && (taxi == kLocs[dest] || at_loc);
  }

  void Write(const StateRow& out, double prob) {
    *out[spec_.obs] = s_;
    *out[spec_.prob] = prob;
    Mask(out[spec_.action_mask]);
    WriteDraws(out, spec_.draws);
  }

  struct Sprites {
    Image taxi[4], taxi_full[4];
    std::shared_ptr<const Image> passenger, destination, house, background;
  };

  Spec spec_;
  bool rainy_, fickle_;
  double rainy_p_, rainy_lateral_p_, fickle_p_;
  std::string img_dir_;
  std::shared_ptr<const Model> model_;
  Table* table_ = nullptr;  // the table Build() fills
  int s_ = 0;
  int last_action_ = -1;
  bool fickle_step_ = false;
  // The taxi's heading in the frames: as gymnasium, set from the last
  // action when a frame is drawn after a move (reset: south).
  int orientation_ = 0;
  std::unique_ptr<Sprites> sprites_;
};

// gymnasium's TaxiEnv._render_gui (rgb_array).
inline void Taxi::Render(uint8_t* rgb) {
  if (!sprites_) {
    if (img_dir_.empty()) throw std::runtime_error("Taxi render: no img_dir (gymnasium's toy_text/img folder)");
    auto load = [&](const std::string& name) { return LoadImage(img_dir_ + "/taxi/" + name + ".png"); };
    auto sp = std::make_unique<Sprites>();
    for (int full = 0; full < 2; ++full) {
      const std::string suffix = full ? "_full" : "";
      const Image& v = *load("taxi_v" + suffix);
      const Image& h = *load("taxi_h" + suffix);
      Image* imgs = full ? sp->taxi_full : sp->taxi;
      imgs[0] = Flip(v, false, true);
      imgs[1] = v;
      imgs[2] = h;
      imgs[3] = Flip(h, true, false);
    }
    sp->passenger = load("passenger");
    sp->destination = load("marker_destination");
    sp->house = load("house");
    sp->background = load("background");
    sprites_ = std::move(sp);
  }
  const Sprites& sp = *sprites_;
  Canvas cv(rgb, kWidth, kHeight, Rows::kAsDrawn);
  cv.Fill({250, 250, 246});
  cv.Blit(*sp.background, 0, 80);
  cv.Blit(*sp.house, 403, 36);
  const auto [row, col, pass, dest] = Decode(s_);
  auto loc = [](std::pair<int, int> l) { return std::pair<int, int>{48 + l.second * 88, 128 + l.first * 56}; };
  const auto [dx0, dy0] = loc(kLocs[dest]);
  cv.Blit(*sp.destination, dx0, dy0);
  if (pass < 4) {
    const auto [px, py] = loc(kLocs[pass]);
    cv.Blit(*sp.passenger, px + 35, py + 19);
  }
  if (last_action_ >= 0 && last_action_ <= 3) orientation_ = last_action_;
  const Image& taxi = pass == 4 ? sp.taxi_full[orientation_] : sp.taxi[orientation_];
  const int dx = orientation_ < 2 ? 25 : 15, dy = orientation_ < 2 ? 0 : 9;
  const auto [tx, ty] = loc({row, col});
  cv.Blit(taxi, tx + dx, ty + dy);
}

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_TAXI_H_
