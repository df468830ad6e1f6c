// minigrid's EmptyEnv (envs/empty.py); agent_start_pos [] is minigrid's None
// (a random start, the -Random- ids).
#ifndef ENVPOOL_MINIGRID_ENVS_EMPTY_H_
#define ENVPOOL_MINIGRID_ENVS_EMPTY_H_

#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class Empty : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 8 * 8, true);
    c.Set("size", int64_t{8});
    c.Set("agent_start_pos", std::vector<double>{1, 1});
    c.Set("agent_start_dir", int64_t{0});
    return c;
  }
  static void Check(const Config& c) {
    CheckInt(c, "size", 3);
    CheckStart(c, GridWidth(c), GridHeight(c));
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Empty>(c); }
  explicit Empty(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)), start_(StartOf(c)), start_dir_(c.Get<int>("agent_start_dir")) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_);
    PutObj(ObjPool::Goal(), width_ - 2, height_ - 2);
    if (start_.x >= 0) {
      agent_pos_ = start_;
      agent_dir_ = start_dir_;
    } else {
      PlaceAgent();
    }
    mission_ = "get to the green goal square";
  }

 private:
  Pos start_;
  int start_dir_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_EMPTY_H_
