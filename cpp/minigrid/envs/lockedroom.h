// minigrid's LockedRoomEnv (envs/lockedroom.py): six side rooms, one locked,
// its key in another.
#ifndef ENVPOOL_MINIGRID_ENVS_LOCKEDROOM_H_
#define ENVPOOL_MINIGRID_ENVS_LOCKEDROOM_H_

#include <string>
#include <vector>

#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class LockedRoom : public MiniGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(10 * 19, false);
    c.Set("size", int64_t{19});
    return c;
  }
  // Rooms of (size // 3 + 1) cells with their door 3 below their top.
  static void Check(const Config& c) { CheckInt(c, "size", 13, 1000); }
  static int GridWidth(const Config& c) { return c.Get<int>("size"); }
  static int GridHeight(const Config& c) { return c.Get<int>("size"); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<LockedRoom>(c); }
  explicit LockedRoom(const Config& c) : MiniGridEnv(c, GridWidth(c), GridHeight(c)) {}

 protected:
  struct R {
    Pos top, size, door;
    Color color = kRed;
    bool locked = false;
  };
  Pos RandPos(const R& r) {
    const int x = RandInt(r.top.x + 1, r.top.x + r.size.x - 1);
    const int y = RandInt(r.top.y + 1, r.top.y + r.size.y - 1);
    return {x, y};
  }

  void GenGrid() override {
    const int w = width_, h = height_;
    for (int i = 0; i < w; ++i) {
      grid_.Set(i, 0, ObjPool::Wall());
      grid_.Set(i, h - 1, ObjPool::Wall());
    }
    for (int j = 0; j < h; ++j) {
      grid_.Set(0, j, ObjPool::Wall());
      grid_.Set(w - 1, j, ObjPool::Wall());
    }
    const int lw = w / 2 - 2, rw = w / 2 + 2;
    for (int j = 0; j < h; ++j) {
      grid_.Set(lw, j, ObjPool::Wall());
      grid_.Set(rw, j, ObjPool::Wall());
    }
    std::vector<R> rooms;
    for (int n = 0; n < 3; ++n) {
      const int j = n * (h / 3);
      for (int i = 0; i < lw; ++i) grid_.Set(i, j, ObjPool::Wall());
      for (int i = rw; i < w; ++i) grid_.Set(i, j, ObjPool::Wall());
      const int room_w = lw + 1, room_h = h / 3 + 1;
      rooms.push_back(R{{0, j}, {room_w, room_h}, {lw, j + 3}});
      rooms.push_back(R{{rw, j}, {room_w, room_h}, {rw, j + 3}});
    }
    const int locked = RandInt(0, static_cast<int>(rooms.size()));
    rooms[locked].locked = true;
    const Pos goal = RandPos(rooms[locked]);
    grid_.Set(goal.x, goal.y, ObjPool::Goal());
    std::vector<Color> colors(kColorNames.begin(), kColorNames.end());
    for (R& r : rooms) {
      const int k = RandInt(0, static_cast<int>(colors.size()));
      r.color = colors[k];
      colors.erase(colors.begin() + k);
      grid_.Set(r.door.x, r.door.y, objs_.Door(r.color, r.locked));
    }
    int key_room;
    do {
      key_room = RandInt(0, static_cast<int>(rooms.size()));
    } while (key_room == locked);
    const Pos key = RandPos(rooms[key_room]);
    grid_.Set(key.x, key.y, objs_.Key(rooms[locked].color));
    PlaceAgent({lw, 0}, {rw - lw, h});
    const std::string lc = ColorName(rooms[locked].color);
    mission_ = "get the " + lc + " key from the " + ColorName(rooms[key_room].color) + " room, unlock the " + lc +
               " door and go to the goal";
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_LOCKEDROOM_H_
