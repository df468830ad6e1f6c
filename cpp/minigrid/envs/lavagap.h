// minigrid's LavaGapEnv (envs/lavagap.py); obstacle_type "lava" or "wall".
#ifndef ENVPOOL_MINIGRID_ENVS_LAVAGAP_H_
#define ENVPOOL_MINIGRID_ENVS_LAVAGAP_H_

#include <string>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

inline Obj* ObstacleOf(const Config& c) {
  const std::string t = c.Get<std::string>("obstacle_type");
  if (t == "lava") return ObjPool::Lava();
  if (t == "wall") return ObjPool::Wall();
  throw std::invalid_argument("minigrid: obstacle_type must be 'lava' or 'wall', got '" + t + "'");
}

class LavaGap : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 5 * 5, false);
    c.Set("size", int64_t{5});
    c.Set("obstacle_type", std::string("lava"));
    return c;
  }
  static void Check(const Config& c) {
    CheckInt(c, "size", 5);
    ObstacleOf(c);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<LavaGap>(c); }
  explicit LavaGap(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)), obstacle_(ObstacleOf(c)) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    PutObj(ObjPool::Goal(), w - 2, h - 2);
    const int gx = RandInt(2, w - 2), gy = RandInt(1, h - 1);
    grid_.VertWall(gx, 1, h - 2, obstacle_);
    grid_.Set(gx, gy, nullptr);
    mission_ = obstacle_->type == kLava ? "avoid the lava and get to the green goal square"
                                        : "find the opening and get to the green goal square";
  }
  Obj* obstacle_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_LAVAGAP_H_
