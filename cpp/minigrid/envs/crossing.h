// minigrid's CrossingEnv (envs/crossing.py): rivers of lava or walls drawn
// by rng.shuffle, their openings by rng.choice.
#ifndef ENVPOOL_MINIGRID_ENVS_CROSSING_H_
#define ENVPOOL_MINIGRID_ENVS_CROSSING_H_

#include <algorithm>
#include <utility>
#include <vector>

#include "cpp/minigrid/envs/lavagap.h"

namespace envpool::minigrid {

class Crossing : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 9 * 9, false);
    c.Set("size", int64_t{9});
    c.Set("num_crossings", int64_t{1});
    c.Set("obstacle_type", std::string("lava"));
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 5);
    if (s % 2 == 0) throw std::invalid_argument("minigrid: Crossing's size must be odd, got " + std::to_string(s));
    CheckInt(c, "num_crossings", 0);
    ObstacleOf(c);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Crossing>(c); }
  explicit Crossing(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)),
        num_crossings_(c.Get<int>("num_crossings")),
        obstacle_(ObstacleOf(c)) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    PutObj(ObjPool::Goal(), w - 2, h - 2);
    // (vertical?, position)
    std::vector<std::pair<bool, int>> rivers;
    for (int i = 2; i < h - 2; i += 2) rivers.push_back({true, i});
    for (int j = 2; j < w - 2; j += 2) rivers.push_back({false, j});
    Np().Shuffle(rivers);
    rivers.resize(std::min<std::size_t>(rivers.size(), num_crossings_));
    std::vector<int> rv, rh;
    for (auto& [vert, p] : rivers) (vert ? rv : rh).push_back(p);
    std::sort(rv.begin(), rv.end());
    std::sort(rh.begin(), rh.end());
    for (int i = 1; i < w - 1; ++i)
      for (int j : rh) PutObj(obstacle_, i, j);
    for (int i : rv)
      for (int j = 1; j < h - 1; ++j) PutObj(obstacle_, i, j);
    // true: h (cross a vertical river), false: v.
    std::vector<bool> path(rv.size(), true);
    path.insert(path.end(), rh.size(), false);
    std::vector<uint8_t> p8(path.begin(), path.end());
    Np().Shuffle(p8);
    std::vector<int> lv = {0}, lh = {0};
    lv.insert(lv.end(), rv.begin(), rv.end());
    lv.push_back(h - 1);
    lh.insert(lh.end(), rh.begin(), rh.end());
    lh.push_back(w - 1);
    int ri = 0, rj = 0;
    for (uint8_t horizontal : p8) {
      int i, j;
      if (horizontal) {
        i = lv[ri + 1];
        const int lo = lh[rj] + 1, hi = lh[rj + 1];
        j = lo + static_cast<int>(Np().ChoiceIndex(hi - lo));
        ++ri;
      } else {
        const int lo = lv[ri] + 1, hi = lv[ri + 1];
        i = lo + static_cast<int>(Np().ChoiceIndex(hi - lo));
        j = lh[rj + 1];
        ++rj;
      }
      grid_.Set(i, j, nullptr);
    }
    mission_ = obstacle_->type == kLava ? "avoid the lava and get to the green goal square"
                                        : "find the opening and get to the green goal square";
  }
  int num_crossings_;
  Obj* obstacle_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_CROSSING_H_
