// minigrid's DoorKeyEnv (envs/doorkey.py).
#ifndef ENVPOOL_MINIGRID_ENVS_DOORKEY_H_
#define ENVPOOL_MINIGRID_ENVS_DOORKEY_H_

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class DoorKey : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(10 * 8 * 8, false);
    c.Set("size", int64_t{8});
    return c;
  }
  // Its _rand_int(2, width - 2) needs width >= 5.
  static void Check(const Config& c) { CheckInt(c, "size", 5); }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<DoorKey>(c); }
  explicit DoorKey(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);
    PutObj(ObjPool::Goal(), w - 2, h - 2);
    const int split = RandInt(2, w - 2);
    grid_.VertWall(split, 0);
    PlaceAgent({0, 0}, {split, h});
    const int door = RandInt(1, h - 2);
    PutObj(objs_.Door(kYellow, true), split, door);
    PlaceObj(objs_.Key(kYellow), {0, 0}, {split, h});
    mission_ = "use the key to open the door and then get to the goal";
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_DOORKEY_H_
