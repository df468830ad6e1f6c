// minigrid's KeyCorridorEnv (envs/keycorridor.py).
#ifndef ENVPOOL_MINIGRID_ENVS_KEYCORRIDOR_H_
#define ENVPOOL_MINIGRID_ENVS_KEYCORRIDOR_H_

#include <string>

#include "cpp/minigrid/core/roomgrid.h"
#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

class KeyCorridor : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() {
    Config c = BaseDefaults(30 * 6 * 6, false);
    c.Set("num_rows", int64_t{3});
    c.Set("num_cols", int64_t{3});
    c.Set("room_size", int64_t{6});
    c.Set("obj_type", std::string("ball"));
    return c;
  }
  static void Check(const Config& c) {
    CheckRooms(c);
    if (c.Get<int>("num_cols") != 3) throw std::invalid_argument("minigrid: KeyCorridor has 3 columns of rooms");
    ObjTypeOf(c.Get<std::string>("obj_type"));
  }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<KeyCorridor>(c); }
  explicit KeyCorridor(const Config& c) : RoomGridEnv(c), obj_type_(ObjTypeOf(c.Get<std::string>("obj_type"))) {}

 protected:
  void GenGrid() override {
    GenRooms();
    for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
    const int room_idx = RandInt(0, num_rows_);
    Obj* door = AddDoor(2, room_idx, 2, -1, 1);
    obj_ = AddObject(2, room_idx, obj_type_);
    AddObject(0, RandInt(0, num_rows_), kKey, door->color);
    PlaceAgentInRoom(1, num_rows_ / 2);
    ConnectAll();
    mission_ = std::string("pick up the ") + ColorName(obj_->color) + " " + TypeName(obj_->type);
  }

  StepResult StepAction(int a) override { return PickupStep(a, obj_); }

  Type obj_type_;
  Obj* obj_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_KEYCORRIDOR_H_
