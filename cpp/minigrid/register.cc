// Registers the MiniGrid families with the engine: one line per minigrid env
// class (the task ids and their options are in src/envpool/tasks/minigrid.py).

#include "cpp/core/family.h"
#include "cpp/core/raw_ceiling.h"
#include "cpp/minigrid/envs/blockedunlockpickup.h"
#include "cpp/minigrid/envs/crossing.h"
#include "cpp/minigrid/envs/distshift.h"
#include "cpp/minigrid/envs/doorkey.h"
#include "cpp/minigrid/envs/dynamicobstacles.h"
#include "cpp/minigrid/envs/empty.h"
#include "cpp/minigrid/envs/fetch.h"
#include "cpp/minigrid/envs/fourrooms.h"
#include "cpp/minigrid/envs/gotodoor.h"
#include "cpp/minigrid/envs/gotoobject.h"
#include "cpp/minigrid/envs/keycorridor.h"
#include "cpp/minigrid/envs/lavagap.h"
#include "cpp/minigrid/envs/lockedroom.h"
#include "cpp/minigrid/envs/memory.h"
#include "cpp/minigrid/envs/multiroom.h"
#include "cpp/minigrid/envs/obstructedmaze.h"
#include "cpp/minigrid/envs/playground.h"
#include "cpp/minigrid/envs/putnear.h"
#include "cpp/minigrid/envs/redbluedoors.h"
#include "cpp/minigrid/envs/unlock.h"
#include "cpp/minigrid/envs/unlockpickup.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  return envpool::RandomActionFamily<E>(name, "minigrid", "envpool.tasks.minigrid");
}

void Register() {
  using namespace envpool::minigrid;
  envpool::RegisterFamily(Make<Empty>("MiniGridEmpty"));
  envpool::RegisterFamily(Make<DoorKey>("MiniGridDoorKey"));
  envpool::RegisterFamily(Make<FourRooms>("MiniGridFourRooms"));
  envpool::RegisterFamily(Make<MultiRoom>("MiniGridMultiRoom"));
  envpool::RegisterFamily(Make<LavaGap>("MiniGridLavaGap"));
  envpool::RegisterFamily(Make<Crossing>("MiniGridCrossing"));
  envpool::RegisterFamily(Make<DistShift>("MiniGridDistShift"));
  envpool::RegisterFamily(Make<DynamicObstacles>("MiniGridDynamicObstacles"));
  envpool::RegisterFamily(Make<Fetch>("MiniGridFetch"));
  envpool::RegisterFamily(Make<GoToDoor>("MiniGridGoToDoor"));
  envpool::RegisterFamily(Make<GoToObject>("MiniGridGoToObject"));
  envpool::RegisterFamily(Make<PutNear>("MiniGridPutNear"));
  envpool::RegisterFamily(Make<RedBlueDoors>("MiniGridRedBlueDoors"));
  envpool::RegisterFamily(Make<Memory>("MiniGridMemory"));
  envpool::RegisterFamily(Make<LockedRoom>("MiniGridLockedRoom"));
  envpool::RegisterFamily(Make<Playground>("MiniGridPlayground"));
  envpool::RegisterFamily(Make<KeyCorridor>("MiniGridKeyCorridor"));
  envpool::RegisterFamily(Make<Unlock>("MiniGridUnlock"));
  envpool::RegisterFamily(Make<UnlockPickup>("MiniGridUnlockPickup"));
  envpool::RegisterFamily(Make<BlockedUnlockPickup>("MiniGridBlockedUnlockPickup"));
  envpool::RegisterFamily(Make<ObstructedMazeBase>("MiniGridObstructedMaze"));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
