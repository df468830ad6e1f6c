// minigrid's PlaygroundEnv (envs/playground.py): nine rooms, twelve objects,
// no goal (the mission is empty).
#ifndef ENVPOOL_MINIGRID_ENVS_PLAYGROUND_H_
#define ENVPOOL_MINIGRID_ENVS_PLAYGROUND_H_

#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class Playground : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() { return BaseDefaults(100, false); }
  static void Check(const Config&) {}
  static int GridWidth(const Config&) { return 19; }
  static int GridHeight(const Config&) { return 19; }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Playground>(c); }
  explicit Playground(const Config& c) : MiniGridEnv(c, 19, 19) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);  // minigrid's four horz_wall / vert_wall calls
    const int rw = w / 3, rh = h / 3;
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        const int xl = i * rw, yt = j * rh, xr = xl + rw, yb = yt + rh;
        if (i + 1 < 3) {
          grid_.VertWall(xr, yt, rh);
          const int y = RandInt(yt + 1, yb - 1);
          grid_.Set(xr, y, objs_.Door(RandColor()));
        }
        if (j + 1 < 3) {
          grid_.HorzWall(xl, yb, rw);
          const int x = RandInt(xl + 1, xr - 1);
          grid_.Set(x, yb, objs_.Door(RandColor()));
        }
      }
    PlaceAgent();
    static const std::vector<Type> kTypes = {kKey, kBall, kBox};
    for (int i = 0; i < 12; ++i) {
      const Type t = RandElem(kTypes);
      const Color c = RandColor();
      PlaceObj(objs_.Make(t, c));
    }
    mission_ = "";
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_PLAYGROUND_H_
