// minigrid's PutNearEnv (envs/putnear.py).
#ifndef ENVPOOL_MINIGRID_ENVS_PUTNEAR_H_
#define ENVPOOL_MINIGRID_ENVS_PUTNEAR_H_

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class PutNear : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(5 * 6, true);
    c.Set("size", int64_t{6});
    c.Set("num_objs", int64_t{2});
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 5, 1000);
    // Objects keep a cell between them, so each rules out at most a 3x3 block: fewer than
    // ceil(n / 3)^2 of them (n = s - 2, the room) always leave a cell for the next one, where
    // more could leave none and minigrid's unbounded rejection loop would never end.
    const int k = (s - 2 + 2) / 3;
    CheckInt(c, "num_objs", 2, std::min(18, k * k));
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<PutNear>(c); }
  explicit PutNear(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)), num_objs_(c.Get<int>("num_objs")) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);  // minigrid's four horz_wall / vert_wall calls
    static const std::vector<Type> kTypes = {kKey, kBall, kBox};
    std::vector<std::pair<Type, Color>> objs;
    std::vector<Pos> pos;
    auto is_near = [&pos](Pos p) {
      for (const Pos& q : pos)
        if (std::abs(p.x - q.x) <= 1 && std::abs(p.y - q.y) <= 1) return true;
      return false;
    };
    while (static_cast<int>(objs.size()) < num_objs_) {
      const Type t = RandElem(kTypes);
      const Color c = RandColor();
      if (std::find(objs.begin(), objs.end(), std::make_pair(t, c)) != objs.end()) continue;
      pos.push_back(PlaceObjReject(objs_.Make(t, c), {0, 0}, {-1, -1}, is_near));
      objs.push_back({t, c});
    }
    PlaceAgent();
    const int obj_idx = RandInt(0, static_cast<int>(objs.size()));
    move_ = objs[obj_idx];
    int target_idx;
    do {
      target_idx = RandInt(0, static_cast<int>(objs.size()));
    } while (target_idx == obj_idx);
    target_pos_ = pos[target_idx];
    mission_ = std::string("put the ") + ColorName(move_.second) + " " + TypeName(move_.first) + " near the " +
               ColorName(objs[target_idx].second) + " " + TypeName(objs[target_idx].first);
  }

  StepResult StepAction(int a) override {
    Obj* pre = carrying_;
    StepResult r = BaseStep(a);
    const Pos o = FrontPos();
    if (a == kPickup && carrying_ && (carrying_->type != move_.first || carrying_->color != move_.second))
      r.terminated = true;
    if (a == kDrop && pre) {
      if (grid_.Get(o.x, o.y) == pre && std::abs(o.x - target_pos_.x) <= 1 && std::abs(o.y - target_pos_.y) <= 1)
        r.reward = Reward();
      r.terminated = true;
    }
    return r;
  }

  int num_objs_;
  std::pair<Type, Color> move_;
  Pos target_pos_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_PUTNEAR_H_
