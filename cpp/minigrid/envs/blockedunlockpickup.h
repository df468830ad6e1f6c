// minigrid's BlockedUnlockPickupEnv (envs/blockedunlockpickup.py): a ball
// blocks the locked door.
#ifndef ENVPOOL_MINIGRID_ENVS_BLOCKEDUNLOCKPICKUP_H_
#define ENVPOOL_MINIGRID_ENVS_BLOCKEDUNLOCKPICKUP_H_

#include <string>

#include "cpp/minigrid/envs/unlock.h"

namespace envpool::minigrid {

class BlockedUnlockPickup : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() { return TwoRoomDefaults(16 * 6 * 6); }
  static void Check(const Config& c) { CheckRooms(c); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<BlockedUnlockPickup>(c); }
  explicit BlockedUnlockPickup(const Config& c) : RoomGridEnv(c) {}

 protected:
  void GenGrid() override {
    GenRooms();
    obj_ = AddObject(1, 0, kBox);
    Pos pos;
    Obj* door = AddDoor(0, 0, 0, -1, 1, &pos);
    const Color c = RandColor();
    grid_.Set(pos.x - 1, pos.y, objs_.Ball(c));
    AddObject(0, 0, kKey, door->color);
    PlaceAgentInRoom(0, 0);
    mission_ = std::string("pick up the ") + ColorName(obj_->color) + " " + TypeName(obj_->type);
  }

  StepResult StepAction(int a) override { return PickupStep(a, obj_); }

  Obj* obj_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_BLOCKEDUNLOCKPICKUP_H_
