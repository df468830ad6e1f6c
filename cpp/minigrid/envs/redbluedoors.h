// minigrid's RedBlueDoorEnv (envs/redbluedoors.py): open red, then blue.
#ifndef ENVPOOL_MINIGRID_ENVS_REDBLUEDOORS_H_
#define ENVPOOL_MINIGRID_ENVS_REDBLUEDOORS_H_

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class RedBlueDoors : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(20 * 8 * 8, false);
    c.Set("size", int64_t{8});
    return c;
  }
  static void Check(const Config& c) { CheckInt(c, "size", 3, 1000); }
  static int GridWidth(const Config& c) { return 2 * c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<RedBlueDoors>(c); }
  explicit RedBlueDoors(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)), size_(c.Get<int>("size")) {}

 protected:
  void GenGrid() override {
    const int s = size_;
    grid_.WallRect(0, 0, 2 * s, s);
    grid_.WallRect(s / 2, 0, s, s);
    PlaceAgent({s / 2, 0}, {s, s});
    red_ = objs_.Door(kRed);
    grid_.Set(s / 2, RandInt(1, s - 1), red_);
    blue_ = objs_.Door(kBlue);
    grid_.Set(s / 2 + s - 1, RandInt(1, s - 1), blue_);
    mission_ = "open the red door then the blue door";
  }

  StepResult StepAction(int a) override {
    const bool red_before = red_->is_open, blue_before = blue_->is_open;
    StepResult r = BaseStep(a);
    if (blue_->is_open) {
      r.reward = red_before ? Reward() : 0;
      r.terminated = true;
    } else if (red_->is_open && blue_before) {
      r.reward = 0;
      r.terminated = true;
    }
    return r;
  }

  int size_;
  Obj* red_ = nullptr;
  Obj* blue_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_REDBLUEDOORS_H_
