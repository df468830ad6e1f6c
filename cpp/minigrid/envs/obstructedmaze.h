// minigrid's ObstructedMaze envs (envs/obstructedmaze.py: 1Dlhb and Full;
// envs/obstructedmaze_v1.py: Full_V1, which places the keys after both
// locked doors of a side room): locked doors whose keys may be in boxes,
// balls blocking them, a blue ball to pick up.
#ifndef ENVPOOL_MINIGRID_ENVS_OBSTRUCTEDMAZE_H_
#define ENVPOOL_MINIGRID_ENVS_OBSTRUCTEDMAZE_H_

#include <string>
#include <vector>

#include "cpp/minigrid/core/roomgrid.h"
#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class ObstructedMazeBase : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;
  // variant: 0 1Dlhb (1 x 2 rooms), 1 Full, 2 Full_V1.
  static Config Defaults() {
    Config c = MiniGridEnv::BaseDefaults(4 * 25 * 36, false);
    c.Set("room_size", int64_t{6});
    c.Set("num_rows", int64_t{3});
    c.Set("num_cols", int64_t{3});
    c.Set("variant", int64_t{1});
    c.Set("agent_room", std::vector<double>{1, 1});
    c.Set("key_in_box", true);
    c.Set("blocked", true);
    c.Set("num_quarters", int64_t{4});
    return c;
  }
  static void Check(const Config& c) {
    CheckRooms(c);
    const int v = CheckInt(c, "variant", 0, 2);
    if (c.Get<int>("room_size") != 6 || c.Get<int>("num_rows") != (v == 0 ? 1 : 3) ||
        c.Get<int>("num_cols") != (v == 0 ? 2 : 3))
      throw std::invalid_argument("minigrid: ObstructedMaze's rooms are fixed");
    CheckInt(c, "num_quarters", 1, 4);
    const auto& r = c.Get<std::vector<double>>("agent_room");
    if (r.size() != 2 || r[0] < 0 || r[0] > 2 || r[1] < 0 || r[1] > 2 || r[0] != static_cast<int>(r[0]) ||
        r[1] != static_cast<int>(r[1]))
      throw std::invalid_argument("minigrid: agent_room must be (i, j) with i, j in 0..2");
  }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<ObstructedMazeBase>(c); }
  explicit ObstructedMazeBase(const Config& c)
      : RoomGridEnv(c),
        variant_(c.Get<int>("variant")),
        key_in_box_(c.Get<bool>("key_in_box")),
        blocked_(c.Get<bool>("blocked")),
        num_quarters_(c.Get<int>("num_quarters")) {
    const auto& r = c.Get<std::vector<double>>("agent_room");
    agent_room_ = {static_cast<int>(r[0]), static_cast<int>(r[1])};
  }

 protected:
  // COLOR_NAMES[0..2]: the ball to find, the blocking balls, the boxes.
  static constexpr Color kBallColor = kBlue, kBlockColor = kGreen, kBoxColor = kGrey;

  // ObstructedMazeEnv.add_door.
  void AddMazeDoor(int i, int j, int door_idx, Color color, bool locked, bool key_in_box, bool blocked) {
    Pos pos;
    Obj* door = AddDoor(i, j, door_idx, color, locked ? 1 : 0, &pos);
    if (blocked) grid_.Set(pos.x - kDirVec[door_idx][0], pos.y - kDirVec[door_idx][1], objs_.Ball(kBlockColor));
    if (locked) AddKey(i, j, door->color, key_in_box);
  }
  // Full_V1's add_locked_door.
  void AddLockedDoor(int i, int j, int door_idx, Color color, bool blocked) {
    Pos pos;
    AddDoor(i, j, door_idx, color, 1, &pos);
    if (blocked) grid_.Set(pos.x - kDirVec[door_idx][0], pos.y - kDirVec[door_idx][1], objs_.Ball(kBlockColor));
  }
  void AddKey(int i, int j, Color color, bool key_in_box) {
    Obj* o = objs_.Key(color);
    if (key_in_box) {
      Obj* box = objs_.Box(kBoxColor);
      box->contains = o;
      o = box;
    }
    PlaceInRoom(i, j, o);
  }

  void GenGrid() override {
    GenRooms();
    std::vector<Color> all(kColorNames.begin(), kColorNames.end());
    const std::vector<Color> colors = RandSubset(all, 6);
    mission_ = "pick up the blue ball";
    if (variant_ == 0) {
      AddMazeDoor(0, 0, 0, colors[0], true, key_in_box_, blocked_);
      obj_ = AddObject(1, 0, kBall, kBallColor);
      PlaceAgentInRoom(0, 0);
      return;
    }
    static constexpr int kSide[4][2] = {{2, 1}, {1, 2}, {0, 1}, {1, 0}};
    for (int i = 0; i < num_quarters_; ++i) {
      const int si = kSide[i][0], sj = kSide[i][1];
      AddMazeDoor(1, 1, i, colors[i], false, false, false);
      // door_idx (i + k) % 4 and color door_colors[(i + k) % 6], Python's modulo.
      for (int k : {-1, 1}) {
        const int d = (i + k + 4) % 4;
        const Color c = colors[(i + k + 6) % 6];
        if (variant_ == 1)
          AddMazeDoor(si, sj, d, c, true, key_in_box_, blocked_);
        else
          AddLockedDoor(si, sj, d, c, blocked_);
      }
      if (variant_ == 2)
        for (int k : {-1, 1}) AddKey(si, sj, colors[(i + k + 6) % 6], key_in_box_);
    }
    static constexpr int kCorners[4][2] = {{2, 0}, {2, 2}, {0, 2}, {0, 0}};
    const int c = RandInt(0, num_quarters_);
    obj_ = AddObject(kCorners[c][0], kCorners[c][1], kBall, kBallColor);
    PlaceAgentInRoom(agent_room_.x, agent_room_.y);
  }

  StepResult StepAction(int a) override { return PickupStep(a, obj_); }

  int variant_;
  bool key_in_box_, blocked_;
  int num_quarters_;
  Pos agent_room_;
  Obj* obj_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_OBSTRUCTEDMAZE_H_
