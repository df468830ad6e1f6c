// FrozenLake: gymnasium 1.4's FrozenLakeEnv (maps, is_slippery,
// success_rate, reward_schedule; a random map when neither desc nor
// map_name is given, drawn from the env's own generator).
#ifndef ENVPOOL_TOY_TEXT_FROZEN_LAKE_H_
#define ENVPOOL_TOY_TEXT_FROZEN_LAKE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/draw/canvas.h"
#include "cpp/draw/transform.h"
#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

using draw::Canvas;
using draw::Image;
using draw::LoadImage;
using draw::RoundHalfEven;
using draw::Rows;
using draw::Scale;

class FrozenLake : public ToyTextEnv {
 public:
  static constexpr int kLeft = 0, kDown = 1, kRight = 2, kUp = 3;
  // generate_random_map()'s defaults, what gymnasium draws when desc and map_name are None.
  static constexpr int kRandomSize = 8;
  static constexpr double kRandomFrozen = 0.8;

  static Config Defaults() {
    // desc: the map's rows joined by '\n' ("" = None); map_name: "" = None.
    return {{"max_episode_steps", int64_t{100}},
            {"desc", std::string("")},
            {"map_name", std::string("4x4")},
            {"is_slippery", true},
            {"success_rate", 1.0 / 3.0},
            {"reward_schedule", std::vector<double>{1.0, 0.0, 0.0}},
            {"report_draws", false},
            {"img_dir", std::string("")}};
  }

  // The map the config names; empty: a random map (drawn at the first seeding).
  static std::vector<std::string> ConfigMap(const Config& c) {
    const std::string desc = c.Get<std::string>("desc");
    const std::string name = c.Get<std::string>("map_name");
    std::vector<std::string> rows;
    if (!desc.empty()) {
      std::size_t b = 0;
      while (true) {
        const std::size_t e = desc.find('\n', b);
        rows.push_back(desc.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) break;
        b = e + 1;
      }
      for (const std::string& r : rows) {
        if (r.empty() || r.size() != rows[0].size())
          throw std::invalid_argument("desc: every row must have the same (non-zero) length, got " +
                                      std::to_string(r.size()) + " and " + std::to_string(rows[0].size()));
        if (r.find_first_not_of("SFHG") != std::string::npos)
          throw std::invalid_argument("desc: tiles must be 'S', 'F', 'H' or 'G', got row '" + r + "'");
      }
      bool start = false;
      for (const std::string& r : rows) start = start || r.find('S') != std::string::npos;
      if (!start) throw std::invalid_argument("desc: the map needs a start tile 'S'");
    } else if (name == "4x4") {
      rows = {"SFFF", "FHFH", "FFFH", "HFFG"};
    } else if (name == "8x8") {
      rows = {"SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF", "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG"};
    } else if (!name.empty()) {
      throw std::invalid_argument("map_name must be '4x4', '8x8' or None, got '" + name + "'");
    }
    if (rows.size() > 1024 || (!rows.empty() && rows[0].size() > 1024))
      throw std::invalid_argument("desc: at most 1024 x 1024 tiles");
    return rows;
  }

  struct Spec : EnvSpec {
    int nrow, ncol;
    StateKey<int32_t> obs;
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {3});
    StateKey<double> prob = AddState<double>("info:prob", {});
    DrawKeys draws;
    StateKey<uint8_t> desc;  // report_draws: the map, as ASCII codes
    explicit Spec(const Config& c) {
      const std::vector<std::string> rows = ConfigMap(c);
      nrow = rows.empty() ? kRandomSize : static_cast<int>(rows.size());
      ncol = rows.empty() ? kRandomSize : static_cast<int>(rows[0].size());
      obs = AddState<int32_t>("obs", {}, {0}, {static_cast<double>(nrow * ncol - 1)});
      draws = AddDrawKeys(*this, c);
      if (c.Get<bool>("report_draws")) desc = AddState<uint8_t>("info:desc", {nrow, ncol});
      CheckProbability(c, "success_rate");
      if (c.Get<std::vector<double>>("reward_schedule").size() != 3)
        throw std::invalid_argument("reward_schedule must hold 3 rewards (goal, hole, frozen)");
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit FrozenLake(const Config& c)
      : spec_(c),
        map_(ConfigMap(c)),
        slippery_(c.Get<bool>("is_slippery")),
        success_rate_(c.Get<double>("success_rate")),
        reward_schedule_(c.Get<std::vector<double>>("reward_schedule")),
        img_dir_(c.Get<std::string>("img_dir")) {
    if (!map_.empty()) Build();
  }

  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    if (map_.empty()) {
      map_ = RandomMap();
      Build();
    }
  }

  void Reset(const StateRow& out) override {
    ClearDraws();
    s_ = model_->initial.Sample(Random());
    Write(out, 1.0);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    const int a = action[spec_.action][0];
    const Outcome& o = model_->table.Sample(s_, a, Random());
    s_ = o.s;
    Write(out, o.p);
    StepResult r;
    r.reward = o.r;
    r.terminated = o.t;
    return r;
  }

  // gymnasium's window: 64 pixels a tile, at most 512 a side.
  std::array<int, 2> RenderSize() const override {
    return {std::min(64 * spec_.nrow, 512), std::min(64 * spec_.ncol, 512)};
  }
  void Render(uint8_t* rgb) override;

 private:
  // generate_random_map(size=8, p=0.8): tiles frozen with probability p,
  // redrawn until the goal is reachable from the start.
  std::vector<std::string> RandomMap() {
    const int n = kRandomSize;
    std::vector<std::string> board(n, std::string(n, 'F'));
    do {
      for (auto& row : board)
        for (char& t : row) t = static_cast<double>(rng_() >> 11) * 0x1.0p-53 < kRandomFrozen ? 'F' : 'H';
      board[0][0] = 'S';
      board[n - 1][n - 1] = 'G';
    } while (!Reachable(board));
    return board;
  }

  // gymnasium's is_valid: a 'G' reachable from (0, 0) through tiles that are not holes.
  static bool Reachable(const std::vector<std::string>& board) {
    const int nr = static_cast<int>(board.size()), nc = static_cast<int>(board[0].size());
    std::vector<char> seen(static_cast<std::size_t>(nr) * nc, 0);
    std::vector<std::pair<int, int>> stack{{0, 0}};
    seen[0] = 1;
    while (!stack.empty()) {
      auto [r, c] = stack.back();
      stack.pop_back();
      const int dr[4] = {1, 0, -1, 0}, dc[4] = {0, 1, 0, -1};
      for (int k = 0; k < 4; ++k) {
        const int rn = r + dr[k], cn = c + dc[k];
        if (rn < 0 || rn >= nr || cn < 0 || cn >= nc) continue;
        if (board[rn][cn] == 'G') return true;
        if (board[rn][cn] != 'H' && !seen[rn * nc + cn]) {
          seen[rn * nc + cn] = 1;
          stack.emplace_back(rn, cn);
        }
      }
    }
    return false;
  }

  // The model of map_, shared by every env with the same map and keywords.
  void Build() {
    std::string key = "FrozenLake " + std::to_string(slippery_);
    char num[32];
    for (double v : {success_rate_, reward_schedule_[0], reward_schedule_[1], reward_schedule_[2]}) {
      std::snprintf(num, sizeof(num), " %a", v);  // the exact bits
      key += num;
    }
    for (const std::string& row : map_) key += "\n" + row;
    model_ = SharedModel(key, [this] { return BuildModel(); });
  }

  // gymnasium's P and initial_state_distrib for map_.
  Model BuildModel() const {
    Model m;
    Table& table = m.table;
    const int nr = spec_.nrow, nc = spec_.ncol;
    const double fail_rate = (1.0 - success_rate_) / 2.0;
    table = Table(nr * nc, 4);
    auto outcome = [&](int row, int col, int a, double p) {
      if (a == kLeft) col = std::max(col - 1, 0);
      if (a == kDown) row = std::min(row + 1, nr - 1);
      if (a == kRight) col = std::min(col + 1, nc - 1);
      if (a == kUp) row = std::max(row - 1, 0);
      const char t = map_[row][col];
      const double r = reward_schedule_[t == 'G' ? 0 : t == 'H' ? 1 : 2];
      return Outcome{p, row * nc + col, r, t == 'G' || t == 'H'};
    };
    std::vector<double> dist(static_cast<std::size_t>(nr) * nc, 0.0);
    double starts = 0.0;
    for (int row = 0; row < nr; ++row)
      for (int col = 0; col < nc; ++col) {
        const int s = row * nc + col;
        if (map_[row][col] == 'S') dist[s] = 1.0, starts += 1.0;
        for (int a = 0; a < 4; ++a) {
          if (map_[row][col] == 'G' || map_[row][col] == 'H') {
            table.Add({1.0, s, 0.0, true});
          } else if (slippery_) {
            for (int b : {(a + 3) % 4, a, (a + 1) % 4})
              table.Add(outcome(row, col, b, b == a ? success_rate_ : fail_rate));
          } else {
            table.Add(outcome(row, col, a, 1.0));
          }
          table.EndAction();
        }
      }
    for (double& p : dist) p /= starts;
    m.initial = Initial(dist);
    return m;
  }

  void Write(const StateRow& out, double prob) {
    *out[spec_.obs] = s_;
    *out[spec_.prob] = prob;
    WriteDraws(out, spec_.draws);
    if (spec_.desc.index >= 0) {
      uint8_t* d = out[spec_.desc];
      for (const std::string& row : map_)
        for (char t : row) *d++ = static_cast<uint8_t>(t);
    }
  }

  struct Sprites {
    Image ice, hole, crack[2], agent, flag, letter_s, letter_g;
  };

  Spec spec_;
  std::vector<std::string> map_;
  bool slippery_;
  double success_rate_;
  std::vector<double> reward_schedule_;
  std::string img_dir_;
  std::shared_ptr<const Model> model_;
  int s_ = 0;
  std::unique_ptr<Sprites> sprites_;
};

// gymnasium's FrozenLakeEnv._render_gui (rgb_array).
inline void FrozenLake::Render(uint8_t* rgb) {
  const auto [height, width] = RenderSize();
  const int cw = width / spec_.ncol, ch = height / spec_.nrow;
  if (!sprites_) {
    if (img_dir_.empty()) throw std::runtime_error("FrozenLake render: no img_dir (gymnasium's toy_text/img folder)");
    auto sp = std::make_unique<Sprites>();
    auto tile = [&](const char* name) { return Scale(*LoadImage(img_dir_ + "/" + name), cw, ch); };
    // Overlays keep their proportions (the art is drawn for a 64-pixel cell).
    const double scale = std::min(cw, ch) / 64.0;
    auto overlay = [&](const char* name, int w, int h) {
      return Scale(*LoadImage(img_dir_ + "/" + name), std::max(1, RoundHalfEven(w * scale)),
                   std::max(1, RoundHalfEven(h * scale)));
    };
    sp->ice = tile("tile_ice.png");
    sp->hole = tile("tile_hole.png");
    sp->crack[0] = tile("tile_ice_crack_a.png");
    sp->crack[1] = tile("tile_ice_crack_b.png");
    sp->agent = overlay("agent.png", 40, 36);
    sp->flag = overlay("goal_flag.png", 24, 32);
    sp->letter_s = overlay("letter_s.png", 12, 20);
    sp->letter_g = overlay("letter_g.png", 12, 20);
    sprites_ = std::move(sp);
  }
  const Sprites& sp = *sprites_;
  Canvas cv(rgb, width, height, Rows::kAsDrawn);
  // Surface() starts black; cells cover all of it unless 512 is not a
  // multiple of the map's size.
  cv.Fill({0, 0, 0});
  enum Anchor { kCorner, kFlag, kCenter };
  // blit truncates the float positions gymnasium computes.
  auto overlay = [&](const Image& img, int col, int row, Anchor anchor) {
    const int cx = col * cw, cy = row * ch;
    if (anchor == kCorner) {
      const int margin = RoundHalfEven(cw * 0.06);
      cv.Blit(img, cx + margin, cy + margin);
    } else if (anchor == kFlag) {
      cv.Blit(img, static_cast<int>(cx + (cw - img.w) / 2.0),
              static_cast<int>(cy + ch - img.h - RoundHalfEven(ch * 0.12)));
    } else {
      cv.Blit(img, static_cast<int>(cx + (cw - img.w) / 2.0), static_cast<int>(cy + (ch - img.h) / 2.0));
    }
  };
  for (int y = 0; y < spec_.nrow; ++y)
    for (int x = 0; x < spec_.ncol; ++x) {
      const int px = x * cw, py = y * ch;
      const char t = map_[y][x];
      if (t == 'H') {
        cv.Blit(sp.hole, px, py);
      } else {
        cv.Blit(sp.ice, px, py);
        if (t == 'F') {
          const int crack = (x * 3 + y * 5) % 7;
          if (crack < 2) cv.Blit(sp.crack[crack], px, py);
        } else if (t == 'S') {
          overlay(sp.letter_s, x, y, kCorner);
        } else if (t == 'G') {
          overlay(sp.flag, x, y, kFlag);
          overlay(sp.letter_g, x, y, kCorner);
        }
      }
      cv.RectOutline(px, py, cw, ch, {180, 200, 230});
    }
  const int row = s_ / spec_.ncol, col = s_ % spec_.ncol;
  if (map_[row][col] != 'H') overlay(sp.agent, col, row, kCenter);
}

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_FROZEN_LAKE_H_
