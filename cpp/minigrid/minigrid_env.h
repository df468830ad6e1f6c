// minigrid's MiniGridEnv (minigrid_env.py): the agent, its actions, the
// random helpers that draw from numpy's Generator in minigrid's order
// (_rand_int, _rand_elem, _rand_subset, place_obj's rejection loop,
// place_agent), the partial view (gen_obs) and the full render. An env
// family derives from it and writes GenGrid (_gen_grid) and, where minigrid
// overrides step(), Step's extra rules in AfterStep.
#ifndef ENVPOOL_MINIGRID_MINIGRID_ENV_H_
#define ENVPOOL_MINIGRID_MINIGRID_ENV_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/minigrid/core/grid.h"
#include "cpp/minigrid/core/render.h"
#include "cpp/minigrid/core/world_object.h"
#include "cpp/random/numpy_generator.h"

namespace envpool::minigrid {

// minigrid's Actions.
enum Action : int { kLeft = 0, kRight = 1, kForward = 2, kPickup = 3, kDrop = 4, kToggle = 5, kDone = 6 };

// What make() refuses (std::invalid_argument: ValueError in Python).
inline int CheckInt(const Config& c, const std::string& key, int lo, int hi = std::numeric_limits<int>::max()) {
  const int64_t v = c.Get<int64_t>(key);
  if (v < lo || v > hi)
    throw std::invalid_argument("minigrid: " + key + " must be in [" + std::to_string(lo) + ", " +
                                (hi == std::numeric_limits<int>::max() ? std::string("inf") : std::to_string(hi)) +
                                "], got " + std::to_string(v));
  return static_cast<int>(v);
}

class MiniGridEnv : public Env {
 public:
  // The keys every MiniGrid env takes; a family adds its own (and its
  // max_episode_steps, minigrid's max_steps default) in its Defaults().
  static Config BaseDefaults(int64_t max_steps, bool see_through_walls) {
    return {{"max_episode_steps", max_steps}, {"agent_view_size", int64_t{7}}, {"see_through_walls", see_through_walls},
            {"mission_bytes", int64_t{96}},   {"tile_size", int64_t{32}},      {"highlight", true}};
  }

  struct Spec : EnvSpec {
    StateKey<uint8_t> image;
    StateKey<int32_t> direction = AddState<int32_t>("obs:direction", {}, {0}, {3});
    StateKey<uint8_t> mission;
    StateKey<int32_t> agent_pos;
    ActionKey<int32_t> action;
    // minigrid sets no limit on a grid's size; one of a billion cells a side
    // would only fail to allocate (a cell is a pointer), so make refuses it.
    static constexpr int kMaxGridSide = 4096;

    Spec(const Config& c, int num_actions, int max_coord) {
      if (max_coord > kMaxGridSide)
        throw std::invalid_argument("minigrid: the grid would be " + std::to_string(max_coord) +
                                    " cells a side; at most " + std::to_string(kMaxGridSide));
      const int n = c.Get<int>("agent_view_size");
      if (n < 3 || n % 2 == 0)
        throw std::invalid_argument("minigrid: agent_view_size must be odd and >= 3, got " + std::to_string(n));
      image = AddState<uint8_t>("obs:image", {n, n, 3}, {0}, {255});
      mission = AddState<uint8_t>("obs:mission", {CheckInt(c, "mission_bytes", 1, 1 << 16)}, {0}, {255});
      agent_pos = AddState<int32_t>("info:agent_pos", {2}, {0}, {static_cast<double>(max_coord)});
      action = AddAction<int32_t>("action", {}, {0}, {static_cast<double>(num_actions - 1)});
      if (c.Get<int64_t>("max_episode_steps") < 1)
        throw std::invalid_argument("minigrid: max_steps (max_episode_steps) must be >= 1, got " +
                                    std::to_string(c.Get<int64_t>("max_episode_steps")));
      CheckInt(c, "tile_size", 1, 4096);
    }
  };

  MiniGridEnv(const Config& c, int width, int height, int num_actions = 7)
      : spec_(c, num_actions, std::max(width, height)),
        width_(width),
        height_(height),
        max_steps_(c.Get<int64_t>("max_episode_steps")),
        view_size_(c.Get<int>("agent_view_size")),
        see_through_walls_(c.Get<bool>("see_through_walls")),
        highlight_(c.Get<bool>("highlight")),
        mission_bytes_(c.Get<int>("mission_bytes")),
        tiles_(c.Get<int>("tile_size")),
        grid_(width, height) {}

  void Seed(uint64_t seed) override { np_ = std::make_unique<random::NumpyGenerator>(seed); }

  void Reset(const StateRow& out) override {
    if (!np_) np_ = std::make_unique<random::NumpyGenerator>(0);
    agent_pos_ = {-1, -1};
    agent_dir_ = -1;
    objs_.Clear();
    grid_.Reset(width_, height_);
    GenGrid();
    carrying_ = nullptr;
    step_count_ = 0;
    WriteObs(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const int a = action[spec_.action][0];
    StepResult r = StepAction(a);
    WriteObs(out);
    return r;
  }

  std::array<int, 2> RenderSize() const override { return {height_ * tiles_.tile_size(), width_ * tiles_.tile_size()}; }
  // get_full_render: the grid with the agent, the cells it sees highlighted.
  void Render(uint8_t* rgb) override {
    std::vector<uint8_t> hl(static_cast<std::size_t>(width_) * height_, 0);
    // Before the first reset: the empty grid the env was made with, no agent.
    if (highlight_ && agent_pos_.x >= 0) {
      View v;
      ViewOf(&v);
      const int n = view_size_, fx = kDirVec[agent_dir_][0], fy = kDirVec[agent_dir_][1], rx = -fy, ry = fx;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          if (!v.mask[static_cast<std::size_t>(j) * n + i]) continue;
          const int x = agent_pos_.x + fx * (n - 1 - j) + rx * (i - n / 2);
          const int y = agent_pos_.y + fy * (n - 1 - j) + ry * (i - n / 2);
          if (grid_.Contains(x, y)) hl[static_cast<std::size_t>(y) * width_ + x] = 1;
        }
    }
    tiles_.Render(
        width_, height_,
        [&](int i, int j, const Obj** o, int* dir, bool* h) {
          *o = grid_.At(i, j);
          *dir = (agent_pos_ == Pos{i, j}) ? agent_dir_ : -1;
          *h = hl[static_cast<std::size_t>(j) * width_ + i] != 0;
        },
        rgb);
  }

 protected:
  // _gen_grid: build grid_ (already width x height, empty), place the agent
  // and set mission_.
  virtual void GenGrid() = 0;

  // MiniGridEnv.step; families that override step() wrap it.
  virtual StepResult StepAction(int a) { return BaseStep(a); }

  StepResult BaseStep(int a) {
    ++step_count_;
    StepResult r;
    const Pos fwd = FrontPos();
    Obj* fwd_cell = grid_.Get(fwd.x, fwd.y);
    switch (a) {
      case kLeft:
        agent_dir_ = (agent_dir_ + 3) % 4;
        break;
      case kRight:
        agent_dir_ = (agent_dir_ + 1) % 4;
        break;
      case kForward:
        if (fwd_cell == nullptr || fwd_cell->CanOverlap()) agent_pos_ = fwd;
        if (fwd_cell != nullptr && fwd_cell->type == kGoal) {
          r.terminated = true;
          r.reward = Reward();
        }
        if (fwd_cell != nullptr && fwd_cell->type == kLava) r.terminated = true;
        break;
      case kPickup:
        if (fwd_cell && fwd_cell->CanPickup() && carrying_ == nullptr) {
          carrying_ = fwd_cell;
          carrying_->cur_pos = {-1, -1};
          grid_.Set(fwd.x, fwd.y, nullptr);
        }
        break;
      case kDrop:
        if (!fwd_cell && carrying_) {
          grid_.Set(fwd.x, fwd.y, carrying_);
          carrying_->cur_pos = fwd;
          carrying_ = nullptr;
        }
        break;
      case kToggle:
        if (fwd_cell) Toggle(fwd_cell, fwd);
        break;
      default:  // done
        break;
    }
    if (step_count_ >= max_steps_) r.truncated = true;
    return r;
  }

  // WorldObj.toggle (Door, Box; the others do nothing).
  bool Toggle(Obj* o, Pos pos) {
    if (o->type == kDoor) {
      if (o->is_locked) {
        if (carrying_ && carrying_->type == kKey && carrying_->color == o->color) {
          o->is_locked = false;
          o->is_open = true;
          return true;
        }
        return false;
      }
      o->is_open = !o->is_open;
      return true;
    }
    if (o->type == kBox) {
      grid_.Set(pos.x, pos.y, o->contains);
      return true;
    }
    return false;
  }

  double Reward() const { return 1 - 0.9 * (static_cast<double>(step_count_) / static_cast<double>(max_steps_)); }

  Pos FrontPos() const { return {agent_pos_.x + kDirVec[agent_dir_][0], agent_pos_.y + kDirVec[agent_dir_][1]}; }

  // The random helpers, drawing as minigrid's do.
  int RandInt(int low, int high) { return static_cast<int>(np_->Integers(low, high)); }
  bool RandBool() { return np_->Integers(0, 2) == 0; }
  template <class T>
  T RandElem(const std::vector<T>& v) {
    return v[RandInt(0, static_cast<int>(v.size()))];
  }
  Color RandColor() { return kColorNames[RandInt(0, 6)]; }
  // _rand_subset.
  template <class T>
  std::vector<T> RandSubset(std::vector<T> lst, int num) {
    std::vector<T> out;
    while (static_cast<int>(out.size()) < num) {
      const int i = RandInt(0, static_cast<int>(lst.size()));
      out.push_back(lst[i]);
      lst.erase(lst.begin() + i);
    }
    return out;
  }
  random::NumpyGenerator& Np() { return *np_; }

  // place_obj: uniform cells of the rectangle (clipped to the grid) until
  // one is empty, not the agent's and not rejected. Returns false after
  // max_tries + 1 tries (minigrid's RecursionError) with the grid unchanged.
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
  template <class Reject>
  bool TryPlaceObj(Obj* obj, Pos top, Pos size, Reject&& reject, int64_t max_tries, Pos* where) {
    top = {std::max(top.x, 0), std::max(top.y, 0)};
    if (size.x < 0) size = {grid_.width(), grid_.height()};
    int64_t tries = 0;
    Pos pos;
    for (;;) {
      if (tries > max_tries) return false;
      ++tries;
      pos.x = RandInt(top.x, std::min(top.x + size.x, grid_.width()));
      pos.y = RandInt(top.y, std::min(top.y + size.y, grid_.height()));
      if (grid_.Get(pos.x, pos.y) != nullptr) continue;
      if (pos == agent_pos_) continue;
      if (reject(pos)) continue;
      break;
    }
    grid_.Set(pos.x, pos.y, obj);
    if (obj != nullptr && !ObjPool::Shared(obj)) obj->cur_pos = pos;
    if (where) *where = pos;
    return true;
  }
  template <class Reject>
  Pos PlaceObjReject(Obj* obj, Pos top, Pos size, Reject&& reject, int64_t max_tries = kNoLimit) {
    Pos p;
    if (!TryPlaceObj(obj, top, size, reject, max_tries, &p))
      throw std::runtime_error("minigrid: rejection sampling failed in place_obj");
    return p;
  }
  Pos PlaceObj(Obj* obj, Pos top = {0, 0}, Pos size = {-1, -1}, int64_t max_tries = kNoLimit) {
    return PlaceObjReject(obj, top, size, [](Pos) { return false; }, max_tries);
  }
  void PutObj(Obj* obj, int i, int j) {
    grid_.Set(i, j, obj);
    if (!ObjPool::Shared(obj)) obj->cur_pos = {i, j};
  }
  // MiniGridEnv.place_agent.
  Pos PlaceAgent(Pos top = {0, 0}, Pos size = {-1, -1}, bool rand_dir = true, int64_t max_tries = kNoLimit) {
    agent_pos_ = {-1, -1};
    const Pos pos = PlaceObj(nullptr, top, size, max_tries);
    agent_pos_ = pos;
    if (rand_dir) agent_dir_ = RandInt(0, 4);
    return pos;
  }

  void ViewOf(View* v) const {
    FillView(grid_, agent_pos_, agent_dir_, view_size_, v);
    if (see_through_walls_)
      v->mask.assign(static_cast<std::size_t>(view_size_) * view_size_, 1);
    else
      ProcessVis(v);
  }

  // gen_obs, agent_pos and the mission (its bytes, zero padded).
  void WriteObs(const StateRow& out) {
    ViewOf(&view_);
    view_.cells[static_cast<std::size_t>(view_size_ - 1) * view_size_ + view_size_ / 2] = carrying_;
    EncodeView(view_, out[spec_.image]);
    *out[spec_.direction] = agent_dir_;
    uint8_t* m = out[spec_.mission];
    const std::size_t n = std::min<std::size_t>(mission_.size(), mission_bytes_);
    std::memcpy(m, mission_.data(), n);
    std::memset(m + n, 0, mission_bytes_ - n);
    int32_t* p = out[spec_.agent_pos];
    p[0] = agent_pos_.x;
    p[1] = agent_pos_.y;
  }

  Spec spec_;
  int width_, height_;
  int64_t max_steps_;
  int view_size_;
  bool see_through_walls_, highlight_;
  int mission_bytes_;
  TileRenderer tiles_;
  std::unique_ptr<random::NumpyGenerator> np_;
  ObjPool objs_;
  Grid grid_;
  View view_;
  Obj* carrying_ = nullptr;
  Pos agent_pos_;
  int agent_dir_ = -1;
  int64_t step_count_ = 0;
  std::string mission_;
};

// Spec and family glue for an env class E with a static Defaults(),
// constructed from its Config.
template <class E>
EnvSpec MakeSpecOf(const Config& c) {
  E::Check(c);
  return MiniGridEnv::Spec(c, E::kNumActions, std::max(E::GridWidth(c), E::GridHeight(c)));
}

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_MINIGRID_ENV_H_
