// Registers Meta-World's v3 tasks: one family per task ("MetaWorld/Reach-v3",
// ...). A new task is a file here and one line below.
#include <memory>
#include <string>
#include <utility>

#include "cpp/core/family.h"
#include "cpp/mujoco/metaworld/basketball.h"
#include "cpp/mujoco/metaworld/bin_picking.h"
#include "cpp/mujoco/metaworld/box_close.h"
#include "cpp/mujoco/metaworld/button_press.h"
#include "cpp/mujoco/metaworld/coffee_button.h"
#include "cpp/mujoco/metaworld/coffee_mug.h"
#include "cpp/mujoco/metaworld/dial_turn.h"
#include "cpp/mujoco/metaworld/door.h"
#include "cpp/mujoco/metaworld/door_lock.h"
#include "cpp/mujoco/metaworld/drawer.h"
#include "cpp/mujoco/metaworld/faucet.h"
#include "cpp/mujoco/metaworld/hammer.h"
#include "cpp/mujoco/metaworld/hand_insert.h"
#include "cpp/mujoco/metaworld/handle.h"
#include "cpp/mujoco/metaworld/lever_pull.h"
#include "cpp/mujoco/metaworld/nut.h"
#include "cpp/mujoco/metaworld/peg_insert_side.h"
#include "cpp/mujoco/metaworld/peg_unplug_side.h"
#include "cpp/mujoco/metaworld/pick_out_of_hole.h"
#include "cpp/mujoco/metaworld/pick_place.h"
#include "cpp/mujoco/metaworld/pick_place_wall.h"
#include "cpp/mujoco/metaworld/plate_slide.h"
#include "cpp/mujoco/metaworld/push.h"
#include "cpp/mujoco/metaworld/push_back.h"
#include "cpp/mujoco/metaworld/push_wall.h"
#include "cpp/mujoco/metaworld/reach.h"
#include "cpp/mujoco/metaworld/reach_wall.h"
#include "cpp/mujoco/metaworld/shelf_place.h"
#include "cpp/mujoco/metaworld/soccer.h"
#include "cpp/mujoco/metaworld/stick.h"
#include "cpp/mujoco/metaworld/sweep.h"
#include "cpp/mujoco/metaworld/sweep_into.h"
#include "cpp/mujoco/metaworld/window.h"
#include "cpp/mujoco/mujoco_env.h"

namespace {

using envpool::Config;

template <class Task>
void RegisterTask(const std::string& name) {
  envpool::Family f = envpool::FamilyOf<Task>("MetaWorld/" + name + "-v3", "metaworld", "envpool.tasks.metaworld");
  f.make_raw_stepper = [](const Config& c, uint64_t seed) { return envpool::mujoco::MakeRawStepper(Task(c), seed); };
  f.sized_frames = true;
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  envpool::RegisterFamily(std::move(f));
}

void Register() {
  namespace mw = envpool::mujoco::metaworld;
  envpool::mujoco::CheckMujocoVersion();
  envpool::mujoco::InstallMujocoHandlers();
  RegisterTask<mw::Assembly>("Assembly");
  RegisterTask<mw::Basketball>("Basketball");
  RegisterTask<mw::BinPicking>("BinPicking");
  RegisterTask<mw::BoxClose>("BoxClose");
  RegisterTask<mw::ButtonPress>("ButtonPress");
  RegisterTask<mw::ButtonPressTopdown>("ButtonPressTopdown");
  RegisterTask<mw::ButtonPressTopdownWall>("ButtonPressTopdownWall");
  RegisterTask<mw::ButtonPressWall>("ButtonPressWall");
  RegisterTask<mw::CoffeeButton>("CoffeeButton");
  RegisterTask<mw::CoffeePull>("CoffeePull");
  RegisterTask<mw::CoffeePush>("CoffeePush");
  RegisterTask<mw::DialTurn>("DialTurn");
  RegisterTask<mw::Disassemble>("Disassemble");
  RegisterTask<mw::DoorClose>("DoorClose");
  RegisterTask<mw::DoorLock>("DoorLock");
  RegisterTask<mw::DoorOpen>("DoorOpen");
  RegisterTask<mw::DoorUnlock>("DoorUnlock");
  RegisterTask<mw::DrawerClose>("DrawerClose");
  RegisterTask<mw::DrawerOpen>("DrawerOpen");
  RegisterTask<mw::FaucetClose>("FaucetClose");
  RegisterTask<mw::FaucetOpen>("FaucetOpen");
  RegisterTask<mw::Hammer>("Hammer");
  RegisterTask<mw::HandInsert>("HandInsert");
  RegisterTask<mw::HandlePress>("HandlePress");
  RegisterTask<mw::HandlePressSide>("HandlePressSide");
  RegisterTask<mw::HandlePull>("HandlePull");
  RegisterTask<mw::HandlePullSide>("HandlePullSide");
  RegisterTask<mw::LeverPull>("LeverPull");
  RegisterTask<mw::PegInsertSide>("PegInsertSide");
  RegisterTask<mw::PegUnplugSide>("PegUnplugSide");
  RegisterTask<mw::PickOutOfHole>("PickOutOfHole");
  RegisterTask<mw::PickPlace>("PickPlace");
  RegisterTask<mw::PickPlaceWall>("PickPlaceWall");
  RegisterTask<mw::PlateSlide>("PlateSlide");
  RegisterTask<mw::PlateSlideBack>("PlateSlideBack");
  RegisterTask<mw::PlateSlideBackSide>("PlateSlideBackSide");
  RegisterTask<mw::PlateSlideSide>("PlateSlideSide");
  RegisterTask<mw::Push>("Push");
  RegisterTask<mw::PushBack>("PushBack");
  RegisterTask<mw::PushWall>("PushWall");
  RegisterTask<mw::Reach>("Reach");
  RegisterTask<mw::ReachWall>("ReachWall");
  RegisterTask<mw::ShelfPlace>("ShelfPlace");
  RegisterTask<mw::Soccer>("Soccer");
  RegisterTask<mw::StickPull>("StickPull");
  RegisterTask<mw::StickPush>("StickPush");
  RegisterTask<mw::Sweep>("Sweep");
  RegisterTask<mw::SweepInto>("SweepInto");
  RegisterTask<mw::WindowClose>("WindowClose");
  RegisterTask<mw::WindowOpen>("WindowOpen");
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
