// minigrid's UnlockPickupEnv (envs/unlockpickup.py).
#ifndef ENVPOOL_MINIGRID_ENVS_UNLOCKPICKUP_H_
#define ENVPOOL_MINIGRID_ENVS_UNLOCKPICKUP_H_

#include <string>

#include "cpp/minigrid/envs/unlock.h"

namespace envpool::minigrid {

class UnlockPickup : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() { return TwoRoomDefaults(8 * 6 * 6); }
  static void Check(const Config& c) { CheckRooms(c); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<UnlockPickup>(c); }
  explicit UnlockPickup(const Config& c) : RoomGridEnv(c) {}

 protected:
  void GenGrid() override {
    GenRooms();
    obj_ = AddObject(1, 0, kBox);
    Obj* door = AddDoor(0, 0, 0, -1, 1);
    AddObject(0, 0, kKey, door->color);
    PlaceAgentInRoom(0, 0);
    mission_ = std::string("pick up the ") + ColorName(obj_->color) + " " + TypeName(obj_->type);
  }

  StepResult StepAction(int a) override { return PickupStep(a, obj_); }

  Obj* obj_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_UNLOCKPICKUP_H_
