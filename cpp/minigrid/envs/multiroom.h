// minigrid's MultiRoomEnv (envs/multiroom.py): a chain of rooms placed by
// recursive rejection, the rooms' doors of changing colors.
#ifndef ENVPOOL_MINIGRID_ENVS_MULTIROOM_H_
#define ENVPOOL_MINIGRID_ENVS_MULTIROOM_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class MultiRoom : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(6 * 20, false);
    c.Set("min_num_rooms", int64_t{6});
    c.Set("max_num_rooms", int64_t{6});
    c.Set("max_room_size", int64_t{10});
    c.Set("width", int64_t{25});
    c.Set("height", int64_t{25});
    return c;
  }
  static void Check(const Config& c) {
    const int lo = CheckInt(c, "min_num_rooms", 1, 1000);
    CheckInt(c, "max_num_rooms", lo, 1000);
    CheckInt(c, "max_room_size", 4, 1000);
    CheckInt(c, "width", 5, 1000);
    CheckInt(c, "height", 5, 1000);
  }
  static int GridWidth(const Config& c) { return c.Get<int>("width"); }
  static int GridHeight(const Config& c) { return c.Get<int>("height"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<MultiRoom>(c); }
  explicit MultiRoom(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)),
        min_rooms_(c.Get<int>("min_num_rooms")),
        max_rooms_(c.Get<int>("max_num_rooms")),
        max_room_size_(c.Get<int>("max_room_size")) {}

 protected:
  struct R {
    Pos top, size, entry;
  };

  void GenGrid() override {
    const int w = width_;
    std::vector<R> rooms;
    const int num = RandInt(min_rooms_, max_rooms_ + 1);
    // minigrid retries forever; a chain that does not fit the grid would hang the env, so give
    // up (an error) after far more tries than any feasible chain takes.
    for (int tries = 0; static_cast<int>(rooms.size()) < num; ++tries) {
      if (tries >= kMaxChains)
        throw std::runtime_error("minigrid: MultiRoom could not place " + std::to_string(num) + " rooms in a " +
                                 std::to_string(width_) + "x" + std::to_string(height_) + " grid");
      std::vector<R> cur;
      const int ex = RandInt(0, w - 2), ey = RandInt(0, w - 2);
      PlaceRoom(num, &cur, 4, max_room_size_, 2, {ex, ey});
      if (cur.size() > rooms.size()) rooms = cur;
    }
    int prev_color = -1;
    for (std::size_t idx = 0; idx < rooms.size(); ++idx) {
      const R& r = rooms[idx];
      for (int i = 0; i < r.size.x; ++i) {
        grid_.Set(r.top.x + i, r.top.y, ObjPool::Wall());
        grid_.Set(r.top.x + i, r.top.y + r.size.y - 1, ObjPool::Wall());
      }
      for (int j = 0; j < r.size.y; ++j) {
        grid_.Set(r.top.x, r.top.y + j, ObjPool::Wall());
        grid_.Set(r.top.x + r.size.x - 1, r.top.y + j, ObjPool::Wall());
      }
      if (idx > 0) {
        std::vector<Color> colors;
        for (Color c : kColorNames)
          if (c != prev_color) colors.push_back(c);
        const Color c = RandElem(colors);
        grid_.Set(r.entry.x, r.entry.y, objs_.Door(c));
        prev_color = c;
      }
    }
    PlaceAgent(rooms.front().top, rooms.front().size);
    PlaceObj(ObjPool::Goal(), rooms.back().top, rooms.back().size);
    mission_ = "traverse the rooms to get to the goal";
  }

  // _placeRoom.
  bool PlaceRoom(int num_left, std::vector<R>* rooms, int min_sz, int max_sz, int entry_wall, Pos entry) {
    const int sx = RandInt(min_sz, max_sz + 1), sy = RandInt(min_sz, max_sz + 1);
    int tx, ty;
    if (rooms->empty()) {
      tx = entry.x, ty = entry.y;
    } else if (entry_wall == 0) {
      tx = entry.x - sx + 1;
      ty = RandInt(entry.y - sy + 2, entry.y);
    } else if (entry_wall == 1) {
      tx = RandInt(entry.x - sx + 2, entry.x);
      ty = entry.y - sy + 1;
    } else if (entry_wall == 2) {
      tx = entry.x;
      ty = RandInt(entry.y - sy + 2, entry.y);
    } else {
      tx = RandInt(entry.x - sx + 2, entry.x);
      ty = entry.y;
    }
    if (tx < 0 || ty < 0) return false;
    if (tx + sx > width_ || ty + sy >= height_) return false;
    for (std::size_t k = 0; k + 1 < rooms->size(); ++k) {
      const R& r = (*rooms)[k];
      const bool non_overlap =
          tx + sx < r.top.x || r.top.x + r.size.x <= tx || ty + sy < r.top.y || r.top.y + r.size.y <= ty;
      if (!non_overlap) return false;
    }
    rooms->push_back(R{{tx, ty}, {sx, sy}, entry});
    if (num_left == 1) return true;
    for (int i = 0; i < 8; ++i) {
      std::vector<int> walls;
      for (int k = 0; k < 4; ++k)
        if (k != entry_wall) walls.push_back(k);
      const int exit_wall = RandElem(walls);
      const int next_entry = (exit_wall + 2) % 4;
      Pos exit;
      if (exit_wall == 0)
        exit = {tx + sx - 1, ty + RandInt(1, sy - 1)};
      else if (exit_wall == 1)
        exit = {tx + RandInt(1, sx - 1), ty + sy - 1};
      else if (exit_wall == 2)
        exit = {tx, ty + RandInt(1, sy - 1)};
      else
        exit = {tx + RandInt(1, sx - 1), ty};
      if (PlaceRoom(num_left - 1, rooms, min_sz, max_sz, next_entry, exit)) break;
    }
    return true;
  }

  static constexpr int kMaxChains = 100000;
  int min_rooms_, max_rooms_, max_room_size_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_MULTIROOM_H_
