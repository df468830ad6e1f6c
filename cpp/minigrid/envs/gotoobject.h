// minigrid's GoToObjectEnv (envs/gotoobject.py).
#ifndef ENVPOOL_MINIGRID_ENVS_GOTOOBJECT_H_
#define ENVPOOL_MINIGRID_ENVS_GOTOOBJECT_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cpp/minigrid/envs/gotodoor.h"

namespace envpool::minigrid {

class GoToObject : public GoToTargetEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(5 * 6 * 6, true);
    c.Set("size", int64_t{6});
    c.Set("num_objs", int64_t{2});
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 4, 1000);
    CheckInt(c, "num_objs", 1, std::min(18, (s - 2) * (s - 2) - 1));
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<GoToObject>(c); }
  explicit GoToObject(const Config& c)
      : GoToTargetEnv(c, GridWidth(c), GridHeight(c)), num_objs_(c.Get<int>("num_objs")) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_);
    static const std::vector<Type> kTypes = {kKey, kBall, kBox};
    std::vector<std::pair<Type, Color>> objs;
    std::vector<Pos> pos;
    while (static_cast<int>(objs.size()) < num_objs_) {
      const Type t = RandElem(kTypes);
      const Color c = RandColor();
      if (std::find(objs.begin(), objs.end(), std::make_pair(t, c)) != objs.end()) continue;
      pos.push_back(PlaceObj(objs_.Make(t, c)));
      objs.push_back({t, c});
    }
    PlaceAgent();
    const int idx = RandInt(0, static_cast<int>(objs.size()));
    target_ = pos[idx];
    mission_ = std::string("go to the ") + ColorName(objs[idx].second) + " " + TypeName(objs[idx].first);
  }

  int num_objs_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_GOTOOBJECT_H_
