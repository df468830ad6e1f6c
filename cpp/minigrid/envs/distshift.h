// minigrid's DistShiftEnv (envs/distshift.py).
#ifndef ENVPOOL_MINIGRID_ENVS_DISTSHIFT_H_
#define ENVPOOL_MINIGRID_ENVS_DISTSHIFT_H_

#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class DistShift : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(4 * 9 * 7, true);
    c.Set("width", int64_t{9});
    c.Set("height", int64_t{7});
    c.Set("agent_start_pos", std::vector<double>{1, 1});
    c.Set("agent_start_dir", int64_t{0});
    c.Set("strip2_row", int64_t{2});
    return c;
  }
  static void Check(const Config& c) {
    const int w = CheckInt(c, "width", 6), h = CheckInt(c, "height", 3);
    CheckInt(c, "strip2_row", 0, h - 1);
    CheckStart(c, w, h);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("width"); }
  static int GridHeight(const Config& c) { return c.Get<int>("height"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<DistShift>(c); }
  explicit DistShift(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)),
        start_(StartOf(c)),
        start_dir_(c.Get<int>("agent_start_dir")),
        strip2_row_(c.Get<int>("strip2_row")) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_);
    PutObj(ObjPool::Goal(), width_ - 2, 1);
    for (int i = 0; i < width_ - 6; ++i) {
      grid_.Set(3 + i, 1, ObjPool::Lava());
      grid_.Set(3 + i, strip2_row_, ObjPool::Lava());
    }
    if (start_.x >= 0) {
      agent_pos_ = start_;
      agent_dir_ = start_dir_;
    } else {
      PlaceAgent();
    }
    mission_ = "get to the green goal square";
  }
  Pos start_;
  int start_dir_, strip2_row_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_DISTSHIFT_H_
