// minigrid's FourRoomsEnv (envs/fourrooms.py), with its default agent_pos and
// goal_pos (None: random).
#ifndef ENVPOOL_MINIGRID_ENVS_FOURROOMS_H_
#define ENVPOOL_MINIGRID_ENVS_FOURROOMS_H_

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class FourRooms : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() { return BaseDefaults(100, false); }
  static void Check(const Config&) {}
  static int GridWidth(const Config&) { return 19; }
  static int GridHeight(const Config&) { return 19; }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<FourRooms>(c); }
  explicit FourRooms(const Config& c) : MiniGridEnv(c, 19, 19) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);  // minigrid's four horz_wall / vert_wall calls
    const int rw = w / 2, rh = h / 2;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const int xl = i * rw, yt = j * rh, xr = xl + rw, yb = yt + rh;
        if (i + 1 < 2) {
          grid_.VertWall(xr, yt, rh);
          grid_.Set(xr, RandInt(yt + 1, yb), nullptr);
        }
        if (j + 1 < 2) {
          grid_.HorzWall(xl, yb, rw);
          grid_.Set(RandInt(xl + 1, xr), yb, nullptr);
        }
      }
    PlaceAgent();
    PlaceObj(ObjPool::Goal());
    mission_ = "reach the goal";
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_FOURROOMS_H_
