// minigrid's MemoryEnv (envs/memory.py): pickup acts as toggle; reaching the
// cell next to the object matching the start room's ends the episode.
#ifndef ENVPOOL_MINIGRID_ENVS_MEMORY_H_
#define ENVPOOL_MINIGRID_ENVS_MEMORY_H_

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class Memory : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(5 * 8 * 8, false);
    c.Set("size", int64_t{8});
    c.Set("random_length", false);
    return c;
  }
  static void Check(const Config& c) {
    const int s = CheckInt(c, "size", 7, 1000);
    if (s % 2 == 0) throw std::invalid_argument("minigrid: Memory's size must be odd, got " + std::to_string(s));
  }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Memory>(c); }
  explicit Memory(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)), random_length_(c.Get<bool>("random_length")) {}

 protected:
  void GenGrid() override {
    const int w = width_, h = height_;
    grid_.WallRect(0, 0, w, h);  // minigrid's four horz_wall / vert_wall calls
    const int upper = h / 2 - 2, lower = h / 2 + 2;
    const int end = random_length_ ? RandInt(4, w - 2) : w - 3;
    for (int i = 1; i < 5; ++i) {
      grid_.Set(i, upper, ObjPool::Wall());
      grid_.Set(i, lower, ObjPool::Wall());
    }
    grid_.Set(4, upper + 1, ObjPool::Wall());
    grid_.Set(4, lower - 1, ObjPool::Wall());
    for (int i = 5; i < end; ++i) {
      grid_.Set(i, upper + 1, ObjPool::Wall());
      grid_.Set(i, lower - 1, ObjPool::Wall());
    }
    for (int j = 0; j < h; ++j) {
      if (j != h / 2) grid_.Set(end, j, ObjPool::Wall());
      grid_.Set(end + 2, j, ObjPool::Wall());
    }
    agent_pos_ = {RandInt(1, end + 1), h / 2};
    agent_dir_ = 0;
    const Type start_obj = RandInt(0, 2) == 0 ? kKey : kBall;
    grid_.Set(1, h / 2 - 1, objs_.Make(start_obj, kGreen));
    // [[Ball, Key], [Key, Ball]]
    const bool ball_first = RandInt(0, 2) == 0;
    const Type o0 = ball_first ? kBall : kKey, o1 = ball_first ? kKey : kBall;
    const Pos p0{end + 1, h / 2 - 2}, p1{end + 1, h / 2 + 2};
    grid_.Set(p0.x, p0.y, objs_.Make(o0, kGreen));
    grid_.Set(p1.x, p1.y, objs_.Make(o1, kGreen));
    if (start_obj == o0) {
      success_ = {p0.x, p0.y + 1};
      failure_ = {p1.x, p1.y - 1};
    } else {
      success_ = {p1.x, p1.y - 1};
      failure_ = {p0.x, p0.y + 1};
    }
    mission_ = "go to the matching object at the end of the hallway";
  }

  StepResult StepAction(int a) override {
    StepResult r = BaseStep(a == kPickup ? kToggle : a);
    if (agent_pos_ == success_) {
      r.reward = Reward();
      r.terminated = true;
    }
    if (agent_pos_ == failure_) {
      r.reward = 0;
      r.terminated = true;
    }
    return r;
  }

  bool random_length_;
  Pos success_, failure_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_MEMORY_H_
