// minigrid's GoToDoorEnv (envs/gotodoor.py): the room is a random
// rectangle of at least 5x5 inside the grid; done next to the named door wins.
#ifndef ENVPOOL_MINIGRID_ENVS_GOTODOOR_H_
#define ENVPOOL_MINIGRID_ENVS_GOTODOOR_H_

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

// The done rule of GoToDoor and GoToObject: next to the target (not diagonal).
inline bool NextTo(Pos a, Pos t) {
  return (a.x == t.x && std::abs(a.y - t.y) == 1) || (a.y == t.y && std::abs(a.x - t.x) == 1);
}

// GoToDoor and GoToObject: toggle ends the episode, done ends it with the reward when next to
// the target.
class GoToTargetEnv : public MiniGridEnv {
 public:
  using MiniGridEnv::MiniGridEnv;

 protected:
  StepResult StepAction(int a) override {
    StepResult r = BaseStep(a);
    if (a == kToggle) r.terminated = true;
    if (a == kDone) {
      if (NextTo(agent_pos_, target_)) r.reward = Reward();
      r.terminated = true;
    }
    return r;
  }
  Pos target_;
};

class GoToDoor : public GoToTargetEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 5 * 5, true);
    c.Set("size", int64_t{5});
    return c;
  }
  static void Check(const Config& c) { CheckInt(c, "size", 5); }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<GoToDoor>(c); }
  explicit GoToDoor(const Config& c) : GoToTargetEnv(c, GridWidth(c), GridHeight(c)) {}

 protected:
  void GenGrid() override {
    const int w = RandInt(5, width_ + 1), h = RandInt(5, height_ + 1);
    grid_.WallRect(0, 0, w, h);
    Pos door_pos[4];
    door_pos[0] = {RandInt(2, w - 2), 0};
    door_pos[1] = {RandInt(2, w - 2), h - 1};
    door_pos[2] = {0, RandInt(2, h - 2)};
    door_pos[3] = {w - 1, RandInt(2, h - 2)};
    std::vector<Color> colors;
    while (colors.size() < 4) {
      const Color c = RandColor();
      if (std::find(colors.begin(), colors.end(), c) != colors.end()) continue;
      colors.push_back(c);
    }
    for (int i = 0; i < 4; ++i) grid_.Set(door_pos[i].x, door_pos[i].y, objs_.Door(colors[i]));
    PlaceAgent({0, 0}, {w, h});
    const int idx = RandInt(0, 4);
    target_ = door_pos[idx];
    mission_ = std::string("go to the ") + ColorName(colors[idx]) + " door";
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_GOTODOOR_H_
