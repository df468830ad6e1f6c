// minigrid's Grid (core/grid.py): a width x height table of object pointers
// (nullptr: empty) with its wall helpers, and the visibility pass
// (process_vis) and encoding of the agent's view.
#ifndef ENVPOOL_MINIGRID_CORE_GRID_H_
#define ENVPOOL_MINIGRID_CORE_GRID_H_

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/minigrid/core/world_object.h"

namespace envpool::minigrid {

// The objects of one episode. Walls, lava, goals and floors never change, so
// every cell shares one of each; the others are made per episode (a deque:
// pointers stay valid as it grows) and dropped at the next reset.
class ObjPool {
 public:
  static Obj Of(Type type, Color color, bool is_open = false, bool is_locked = false) {
    Obj o;
    o.type = type, o.color = color, o.is_open = is_open, o.is_locked = is_locked;
    return o;
  }
  static Obj* Wall() {
    static Obj wall = Of(kWall, kGrey);
    return &wall;
  }
  static Obj* Lava() {
    static Obj lava = Of(kLava, kRed);
    return &lava;
  }
  static Obj* Goal() {
    static Obj goal = Of(kGoal, kGreen);
    return &goal;
  }
  static bool Shared(const Obj* o) { return o == Wall() || o == Lava() || o == Goal(); }

  Obj* Make(Type type, Color color, bool is_open = false, bool is_locked = false) {
    objs_.push_back(Of(type, color, is_open, is_locked));
    return &objs_.back();
  }
  Obj* Door(Color c, bool locked = false) { return Make(kDoor, c, false, locked); }
  Obj* Key(Color c) { return Make(kKey, c); }
  Obj* Ball(Color c) { return Make(kBall, c); }
  Obj* Box(Color c) { return Make(kBox, c); }
  void Clear() { objs_.clear(); }

 private:
  std::deque<Obj> objs_;
};

class Grid {
 public:
  Grid() = default;
  Grid(int width, int height) { Reset(width, height); }
  void Reset(int width, int height) {
    width_ = width;
    height_ = height;
    cells_.assign(static_cast<std::size_t>(width) * height, nullptr);
  }
  int width() const { return width_; }
  int height() const { return height_; }
  bool Contains(int i, int j) const { return i >= 0 && i < width_ && j >= 0 && j < height_; }

  // minigrid asserts the index (an AssertionError there); out of the grid is
  // a bug of the env here too.
  void Set(int i, int j, Obj* v) {
    Check(i, j);
    cells_[static_cast<std::size_t>(j) * width_ + i] = v;
  }
  Obj* Get(int i, int j) const {
    Check(i, j);
    return cells_[static_cast<std::size_t>(j) * width_ + i];
  }
  Obj* At(int i, int j) const { return cells_[static_cast<std::size_t>(j) * width_ + i]; }

  // length < 0: to the grid's edge (minigrid's length=None).
  void HorzWall(int x, int y, int length = -1, Obj* obj = ObjPool::Wall()) {
    if (length < 0) length = width_ - x;
    for (int i = 0; i < length; ++i) Set(x + i, y, obj);
  }
  void VertWall(int x, int y, int length = -1, Obj* obj = ObjPool::Wall()) {
    if (length < 0) length = height_ - y;
    for (int j = 0; j < length; ++j) Set(x, y + j, obj);
  }
  void WallRect(int x, int y, int w, int h) {
    HorzWall(x, y, w);
    HorzWall(x, y + h - 1, w);
    VertWall(x, y, h);
    VertWall(x + w - 1, y, h);
  }

 private:
  void Check(int i, int j) const {
    if (!Contains(i, j))
      throw std::logic_error("minigrid: cell (" + std::to_string(i) + ", " + std::to_string(j) + ") is outside the " +
                             std::to_string(width_) + "x" + std::to_string(height_) + " grid");
  }
  int width_ = 0, height_ = 0;
  std::vector<Obj*> cells_;
};

// The agent's view as gen_obs_grid builds it (slice, then agent_dir + 1 left
// rotations): view cell (i, j) of an n x n view is the world cell
// agent + f * (n - 1 - j) + r * (i - n / 2) (f the facing vector, r the one
// to its right), a wall outside the grid.
struct View {
  int n = 0;
  std::vector<Obj*> cells;    // [j * n + i]
  std::vector<uint8_t> mask;  // [j * n + i]
  Obj* Get(int i, int j) const { return cells[static_cast<std::size_t>(j) * n + i]; }
};

inline void FillView(const Grid& g, Pos agent, int dir, int n, View* v) {
  v->n = n;
  v->cells.resize(static_cast<std::size_t>(n) * n);
  const int fx = kDirVec[dir][0], fy = kDirVec[dir][1], rx = -fy, ry = fx;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int wx = agent.x + fx * (n - 1 - j) + rx * (i - n / 2);
      const int wy = agent.y + fy * (n - 1 - j) + ry * (i - n / 2);
      v->cells[static_cast<std::size_t>(j) * n + i] = g.Contains(wx, wy) ? g.At(wx, wy) : ObjPool::Wall();
    }
}

// Grid.process_vis on the view, from the agent's cell (n / 2, n - 1): light
// spreads up, left and right from visible cells the agent can see behind.
// (minigrid also empties the cells it cannot see; encode() reads the mask.)
inline void ProcessVis(View* v) {
  const int n = v->n;
  auto& m = v->mask;
  m.assign(static_cast<std::size_t>(n) * n, 0);
  auto at = [&](int i, int j) -> uint8_t& { return m[static_cast<std::size_t>(j) * n + i]; };
  at(n / 2, n - 1) = 1;
  for (int j = n - 1; j >= 0; --j) {
    for (int i = 0; i < n - 1; ++i) {
      if (!at(i, j)) continue;
      const Obj* c = v->Get(i, j);
      if (c && !c->SeeBehind()) continue;
      at(i + 1, j) = 1;
      if (j > 0) {
        at(i + 1, j - 1) = 1;
        at(i, j - 1) = 1;
      }
    }
    for (int i = n - 1; i >= 1; --i) {
      if (!at(i, j)) continue;
      const Obj* c = v->Get(i, j);
      if (c && !c->SeeBehind()) continue;
      at(i - 1, j) = 1;
      if (j > 0) {
        at(i - 1, j - 1) = 1;
        at(i, j - 1) = 1;
      }
    }
  }
}

// Grid.encode(vis_mask) into an n x n x 3 image indexed [i][j][channel].
inline void EncodeView(const View& v, uint8_t* img) {
  const int n = v.n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      uint8_t* p = img + (static_cast<std::size_t>(i) * n + j) * 3;
      const std::size_t k = static_cast<std::size_t>(j) * n + i;
      if (!v.mask[k]) {
        p[0] = p[1] = p[2] = 0;
      } else if (const Obj* o = v.cells[k]) {
        p[0] = o->type;
        p[1] = o->color;
        p[2] = o->State();
      } else {
        p[0] = kEmpty;
        p[1] = p[2] = 0;
      }
    }
}

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_CORE_GRID_H_
