// minigrid's RoomGrid (core/roomgrid.py): a num_rows x num_cols lattice of
// rooms sharing walls, with its door, object and agent helpers in
// minigrid's draw order.
#ifndef ENVPOOL_MINIGRID_CORE_ROOMGRID_H_
#define ENVPOOL_MINIGRID_CORE_ROOMGRID_H_

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/minigrid/minigrid_env.h"

namespace envpool::minigrid {

struct Room {
  Pos top, size;
  // doors[k]: none, a removed wall (minigrid's True) or a door.
  enum Side : uint8_t { kNone, kOpening, kDoorHere };
  Side doors[4] = {kNone, kNone, kNone, kNone};
  Obj* door_obj[4] = {nullptr, nullptr, nullptr, nullptr};
  bool has_door_pos[4] = {false, false, false, false};
  Pos door_pos[4];
  int neighbors[4] = {-1, -1, -1, -1};  // index into rooms_
  bool locked = false;
  std::vector<Obj*> objs;
};

class RoomGridEnv : public MiniGridEnv {
 public:
  static int GridWidth(const Config& c) { return (c.Get<int>("room_size") - 1) * c.Get<int>("num_cols") + 1; }
  static int GridHeight(const Config& c) { return (c.Get<int>("room_size") - 1) * c.Get<int>("num_rows") + 1; }
  static void CheckRooms(const Config& c) {
    CheckInt(c, "room_size", 3, 64);
    CheckInt(c, "num_rows", 1, 64);
    CheckInt(c, "num_cols", 1, 64);
  }

  explicit RoomGridEnv(const Config& c)
      : MiniGridEnv(c, GridWidth(c), GridHeight(c)),
        room_size_(c.Get<int>("room_size")),
        num_rows_(c.Get<int>("num_rows")),
        num_cols_(c.Get<int>("num_cols")) {}

 protected:
  Room& GetRoom(int i, int j) { return rooms_[static_cast<std::size_t>(j) * num_cols_ + i]; }
  int RoomIndex(int i, int j) const { return j * num_cols_ + i; }
  int RoomFromPos(Pos p) const { return RoomIndex(p.x / (room_size_ - 1), p.y / (room_size_ - 1)); }

  // RoomGrid._gen_grid.
  void GenRooms() {
    rooms_.assign(static_cast<std::size_t>(num_rows_) * num_cols_, Room{});
    for (int j = 0; j < num_rows_; ++j)
      for (int i = 0; i < num_cols_; ++i) {
        Room& r = GetRoom(i, j);
        r.top = {i * (room_size_ - 1), j * (room_size_ - 1)};
        r.size = {room_size_, room_size_};
        grid_.WallRect(r.top.x, r.top.y, r.size.x, r.size.y);
      }
    for (int j = 0; j < num_rows_; ++j)
      for (int i = 0; i < num_cols_; ++i) {
        Room& r = GetRoom(i, j);
        const int xl = r.top.x + 1, yl = r.top.y + 1;
        const int xm = r.top.x + r.size.x - 1, ym = r.top.y + r.size.y - 1;
        if (i < num_cols_ - 1) {
          r.neighbors[0] = RoomIndex(i + 1, j);
          r.door_pos[0] = {xm, RandInt(yl, ym)};
          r.has_door_pos[0] = true;
        }
        if (j < num_rows_ - 1) {
          r.neighbors[1] = RoomIndex(i, j + 1);
          r.door_pos[1] = {RandInt(xl, xm), ym};
          r.has_door_pos[1] = true;
        }
        if (i > 0) {
          r.neighbors[2] = RoomIndex(i - 1, j);
          r.door_pos[2] = rooms_[r.neighbors[2]].door_pos[0];
          r.has_door_pos[2] = true;
        }
        if (j > 0) {
          r.neighbors[3] = RoomIndex(i, j - 1);
          r.door_pos[3] = rooms_[r.neighbors[3]].door_pos[1];
          r.has_door_pos[3] = true;
        }
      }
    agent_pos_ = {num_cols_ / 2 * (room_size_ - 1) + room_size_ / 2, num_rows_ / 2 * (room_size_ - 1) + room_size_ / 2};
    agent_dir_ = 0;
  }

  // place_in_room (reject_next_to: not within Manhattan distance 1 of the agent).
  Pos PlaceInRoom(int i, int j, Obj* obj) {
    Room& r = GetRoom(i, j);
    const Pos p = PlaceObjReject(
        obj, r.top, r.size, [this](Pos q) { return std::abs(agent_pos_.x - q.x) + std::abs(agent_pos_.y - q.y) < 2; },
        1000);
    r.objs.push_back(obj);
    return p;
  }

  // add_object: kind kEmpty and color -1 draw them.
  Obj* AddObject(int i, int j, Type kind = kEmpty, int color = -1, Pos* where = nullptr) {
    if (kind == kEmpty) {
      static const std::vector<Type> kKinds = {kKey, kBall, kBox};
      kind = RandElem(kKinds);
    }
    const Color c = color < 0 ? RandColor() : static_cast<Color>(color);
    Obj* o = objs_.Make(kind, c);
    const Pos p = PlaceInRoom(i, j, o);
    if (where) *where = p;
    return o;
  }

  // add_door: door_idx -1, color -1, locked -1 draw them.
  Obj* AddDoor(int i, int j, int door_idx = -1, int color = -1, int locked = -1, Pos* where = nullptr) {
    Room& r = GetRoom(i, j);
    if (door_idx < 0) {
      for (;;) {
        door_idx = RandInt(0, 4);
        if (r.neighbors[door_idx] >= 0 && r.doors[door_idx] == Room::kNone) break;
      }
    }
    const Color c = color < 0 ? RandColor() : static_cast<Color>(color);
    const bool lock = locked < 0 ? RandBool() : locked != 0;
    if (r.doors[door_idx] != Room::kNone) throw std::logic_error("minigrid: door already exists");
    r.locked = lock;
    Obj* door = objs_.Door(c, lock);
    const Pos pos = r.door_pos[door_idx];
    grid_.Set(pos.x, pos.y, door);
    door->cur_pos = pos;
    Room& nb = rooms_[r.neighbors[door_idx]];
    r.doors[door_idx] = Room::kDoorHere;
    r.door_obj[door_idx] = door;
    nb.doors[(door_idx + 2) % 4] = Room::kDoorHere;
    nb.door_obj[(door_idx + 2) % 4] = door;
    if (where) *where = pos;
    return door;
  }

  void RemoveWall(int i, int j, int wall_idx) {
    Room& r = GetRoom(i, j);
    const int tx = r.top.x, ty = r.top.y, w = r.size.x, h = r.size.y;
    if (wall_idx == 0)
      for (int k = 1; k < h - 1; ++k) grid_.Set(tx + w - 1, ty + k, nullptr);
    else if (wall_idx == 1)
      for (int k = 1; k < w - 1; ++k) grid_.Set(tx + k, ty + h - 1, nullptr);
    else if (wall_idx == 2)
      for (int k = 1; k < h - 1; ++k) grid_.Set(tx, ty + k, nullptr);
    else
      for (int k = 1; k < w - 1; ++k) grid_.Set(tx + k, ty, nullptr);
    r.doors[wall_idx] = Room::kOpening;
    rooms_[r.neighbors[wall_idx]].doors[(wall_idx + 2) % 4] = Room::kOpening;
  }

  // RoomGrid.place_agent: i, j -1 draw the room; redrawn until the agent
  // faces an empty cell or a wall.
  Pos PlaceAgentInRoom(int i = -1, int j = -1, bool rand_dir = true) {
    if (i < 0) i = RandInt(0, num_cols_);
    if (j < 0) j = RandInt(0, num_rows_);
    const Room& r = GetRoom(i, j);
    for (;;) {
      PlaceAgent(r.top, r.size, rand_dir, 1000);
      const Pos f = FrontPos();
      const Obj* front = grid_.Get(f.x, f.y);
      if (front == nullptr || front->type == kWall) break;
    }
    return agent_pos_;
  }

  // The step of the envs won by picking up obj (minigrid's `carrying == self.obj`).
  StepResult PickupStep(int a, const Obj* obj) {
    StepResult r = BaseStep(a);
    if (a == kPickup && carrying_ && carrying_ == obj) {
      r.reward = Reward();
      r.terminated = true;
    }
    return r;
  }

  // connect_all with the default door colors (COLOR_NAMES).
  void ConnectAll(int max_itrs = 5000) {
    const int start = RoomFromPos(agent_pos_);
    const std::size_t n = rooms_.size();
    std::vector<uint8_t> seen(n);
    std::vector<int> stack;
    auto reach_all = [&]() {
      std::fill(seen.begin(), seen.end(), 0);
      stack.assign(1, start);
      std::size_t count = 0;
      while (!stack.empty()) {
        const int k = stack.back();
        stack.pop_back();
        if (seen[k]) continue;
        seen[k] = 1;
        ++count;
        for (int d = 0; d < 4; ++d)
          if (rooms_[k].doors[d] != Room::kNone) stack.push_back(rooms_[k].neighbors[d]);
      }
      return count == n;
    };
    int itrs = 0;
    for (;;) {
      if (itrs > max_itrs) throw std::runtime_error("minigrid: connect_all failed");
      ++itrs;
      if (reach_all()) break;
      const int i = RandInt(0, num_cols_), j = RandInt(0, num_rows_), k = RandInt(0, 4);
      Room& r = GetRoom(i, j);
      if (!r.has_door_pos[k] || r.doors[k] != Room::kNone) continue;
      if (r.locked || rooms_[r.neighbors[k]].locked) continue;
      const Color c = kColorNames[RandInt(0, 6)];
      AddDoorVirtual(i, j, k, c);
    }
  }
  // connect_all calls self.add_door (an override of it, where a family has one).
  virtual void AddDoorVirtual(int i, int j, int k, Color c) { AddDoor(i, j, k, c, 0); }

  int room_size_, num_rows_, num_cols_;
  std::vector<Room> rooms_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_CORE_ROOMGRID_H_
