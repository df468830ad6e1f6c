// minigrid's DynamicObstaclesEnv (envs/dynamicobstacles.py): three actions
// (left, right, forward); before each step every ball moves to a free cell
// of the 3x3 block around it (place_obj, 100 tries; it stays when they fail).
#ifndef ENVPOOL_MINIGRID_ENVS_DYNAMICOBSTACLES_H_
#define ENVPOOL_MINIGRID_ENVS_DYNAMICOBSTACLES_H_

#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class DynamicObstacles : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 3;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 8 * 8, true);
    c.Set("size", int64_t{8});
    c.Set("agent_start_pos", std::vector<double>{1, 1});
    c.Set("agent_start_dir", int64_t{0});
    c.Set("n_obstacles", int64_t{4});
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 3);
    CheckInt(c, "n_obstacles", 0);
    CheckStart(c, s, s);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<DynamicObstacles>(c); }
  explicit DynamicObstacles(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c), kNumActions),
        start_(StartOf(c)),
        start_dir_(c.Get<int>("agent_start_dir")) {
    const int size = c.Get<int>("size"), n = c.Get<int>("n_obstacles");
    n_obstacles_ = n <= size / 2.0 + 1 ? n : static_cast<int>(size / 2.0);
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_);
    grid_.Set(width_ - 2, height_ - 2, ObjPool::Goal());
    if (start_.x >= 0) {
      agent_pos_ = start_;
      agent_dir_ = start_dir_;
    } else {
      PlaceAgent();
    }
    obstacles_.clear();
    for (int i = 0; i < n_obstacles_; ++i) {
      obstacles_.push_back(objs_.Ball(kBlue));
      PlaceObj(obstacles_.back(), {0, 0}, {-1, -1}, 100);
    }
    mission_ = "get to the green goal square";
  }

  StepResult StepAction(int a) override {
    const Pos f = FrontPos();
    const Obj* front = grid_.Get(f.x, f.y);
    const bool not_clear = front != nullptr && front->type != kGoal;
    for (Obj* o : obstacles_) {
      const Pos old = o->cur_pos;
      if (TryPlaceObj(o, {old.x - 1, old.y - 1}, {3, 3}, [](Pos) { return false; }, 100, nullptr))
        grid_.Set(old.x, old.y, nullptr);
    }
    StepResult r = BaseStep(a);
    if (a == kForward && not_clear) {
      r.reward = -1;
      r.terminated = true;
    }
    return r;
  }

  Pos start_;
  int start_dir_, n_obstacles_;
  std::vector<Obj*> obstacles_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_DYNAMICOBSTACLES_H_
