// minigrid's UnlockEnv (envs/unlock.py): two 6x6 rooms, open the locked door.
#ifndef ENVPOOL_MINIGRID_ENVS_UNLOCK_H_
#define ENVPOOL_MINIGRID_ENVS_UNLOCK_H_

#include "cpp/minigrid/core/roomgrid.h"
#include "cpp/minigrid/envs/common.h"

namespace envpool::minigrid {

// The 1 x 2 rooms of 6 cells of Unlock, UnlockPickup and BlockedUnlockPickup.
inline Config TwoRoomDefaults(int64_t max_steps) {
  Config c = MiniGridEnv::BaseDefaults(max_steps, false);
  c.Set("room_size", int64_t{6});
  c.Set("num_rows", int64_t{1});
  c.Set("num_cols", int64_t{2});
  return c;
}

class Unlock : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;
  static Config Defaults() { return TwoRoomDefaults(8 * 6 * 6); }
  static void Check(const Config& c) { CheckRooms(c); }
  static EnvSpec MakeSpec(const Config& c) { return MakeSpecOf<Unlock>(c); }
  explicit Unlock(const Config& c) : RoomGridEnv(c) {}

 protected:
  void GenGrid() override {
    GenRooms();
    door_ = AddDoor(0, 0, 0, -1, 1);
    AddObject(0, 0, kKey, door_->color);
    PlaceAgentInRoom(0, 0);
    mission_ = "open the door";
  }

  StepResult StepAction(int a) override {
    StepResult r = BaseStep(a);
    if (a == kToggle && door_->is_open) {
      r.reward = Reward();
      r.terminated = true;
    }
    return r;
  }

  Obj* door_ = nullptr;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_UNLOCK_H_
