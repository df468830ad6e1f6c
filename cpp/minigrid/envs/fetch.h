// minigrid's FetchEnv (envs/fetch.py): picking anything up ends the episode.
#ifndef ENVPOOL_MINIGRID_ENVS_FETCH_H_
#define ENVPOOL_MINIGRID_ENVS_FETCH_H_

#include <string>
#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class Fetch : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(5 * 8 * 8, true);
    c.Set("size", int64_t{8});
    c.Set("num_objs", int64_t{3});
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 4, 1000);
    CheckInt(c, "num_objs", 1, (s - 2) * (s - 2) - 1);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Fetch>(c); }
  explicit Fetch(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)), num_objs_(c.Get<int>("num_objs")) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);  // minigrid's four horz_wall / vert_wall calls
    static const std::vector<Type> kTypes = {kKey, kBall};
    std::vector<Obj*> objs;
    while (static_cast<int>(objs.size()) < num_objs_) {
      const Type t = RandElem(kTypes);
      const Color c = RandColor();
      Obj* o = objs_.Make(t, c);
      PlaceObj(o);
      objs.push_back(o);
    }
    PlaceAgent();
    const Obj* target = objs[RandInt(0, static_cast<int>(objs.size()))];
    target_type_ = target->type;
    target_color_ = target->color;
    static const char* kSyntax[5] = {"get a", "go get a", "fetch a", "go fetch a", "you must fetch a"};
    mission_ = std::string(kSyntax[RandInt(0, 5)]) + " " + ColorName(target_color_) + " " + TypeName(target_type_);
  }

  StepResult StepAction(int a) override {
    StepResult r = BaseStep(a);
    if (carrying_) {
      r.reward = (carrying_->color == target_color_ && carrying_->type == target_type_) ? Reward() : 0;
      r.terminated = true;
    }
    return r;
  }

  int num_objs_;
  Type target_type_ = kKey;
  Color target_color_ = kRed;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_FETCH_H_
