// Registers the MuJoCo families: one per gymnasium task and version
// ("Ant-v4", "Ant-v5", ...) and one per dm_control domain ("DmcCartpole",
// whose tasks are its task_name values). A new task is a file in gym/ (or a
// domain in dmc/) and one line here.
#include <memory>
#include <string>
#include <utility>

#include "cpp/core/family.h"
#include "cpp/mujoco/dmc/acrobot.h"
#include "cpp/mujoco/dmc/ball_in_cup.h"
#include "cpp/mujoco/dmc/cartpole.h"
#include "cpp/mujoco/dmc/cheetah.h"
#include "cpp/mujoco/dmc/dmc_env.h"
#include "cpp/mujoco/dmc/dog.h"
#include "cpp/mujoco/dmc/finger.h"
#include "cpp/mujoco/dmc/fish.h"
#include "cpp/mujoco/dmc/hopper.h"
#include "cpp/mujoco/dmc/humanoid.h"
#include "cpp/mujoco/dmc/humanoid_cmu.h"
#include "cpp/mujoco/dmc/lqr.h"
#include "cpp/mujoco/dmc/manipulator.h"
#include "cpp/mujoco/dmc/pendulum.h"
#include "cpp/mujoco/dmc/point_mass.h"
#include "cpp/mujoco/dmc/quadruped.h"
#include "cpp/mujoco/dmc/reacher.h"
#include "cpp/mujoco/dmc/stacker.h"
#include "cpp/mujoco/dmc/swimmer.h"
#include "cpp/mujoco/dmc/walker.h"
#include "cpp/mujoco/gym/ant.h"
#include "cpp/mujoco/gym/half_cheetah.h"
#include "cpp/mujoco/gym/hopper.h"
#include "cpp/mujoco/gym/humanoid.h"
#include "cpp/mujoco/gym/humanoid_standup.h"
#include "cpp/mujoco/gym/inverted_double_pendulum.h"
#include "cpp/mujoco/gym/inverted_pendulum.h"
#include "cpp/mujoco/gym/pusher.h"
#include "cpp/mujoco/gym/reacher.h"
#include "cpp/mujoco/gym/swimmer.h"
#include "cpp/mujoco/gym/walker2d.h"
#include "cpp/mujoco/mujoco_env.h"
#include "cpp/mujoco/robotics/adroit.h"
#include "cpp/mujoco/robotics/fetch.h"
#include "cpp/mujoco/robotics/hand.h"
#include "cpp/mujoco/robotics/kitchen.h"
#include "cpp/mujoco/robotics/point_maze.h"

namespace {

using envpool::Config;

// A gymnasium task in its v4 and v5 flavours.
template <class Task>
void RegisterGym(const std::string& name) {
  for (int version : {4, 5}) {
    envpool::Family f =
        envpool::FamilyOf<Task>(name + "-v" + std::to_string(version), "mujoco", "envpool.tasks.mujoco", version);
    envpool::mujoco::AddRenderDefaults(&f.defaults, Task::DefaultCameraConfig(version));
    f.make_raw_stepper = [version](const Config& c, uint64_t seed) {
      return envpool::mujoco::MakeRawStepper(Task(c, version), seed);
    };
    f.sized_frames = true;
    f.id_or_name_keys = {"main_body"};
    f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
    envpool::RegisterFamily(std::move(f));
  }
}

// A Gymnasium-Robotics task: one family (its ids, e.g. the mazes and reward
// types, are registered in envpool/tasks/robotics.py).
template <class Task>
void RegisterRobotics(const std::string& name) {
  envpool::Family f = envpool::FamilyOf<Task>(name, "robotics", "envpool.tasks.robotics", 4);
  envpool::mujoco::AddRenderDefaults(&f.defaults, Task::DefaultCameraConfig(4));
  f.make_raw_stepper = [](const Config& c, uint64_t seed) { return Task(c, 4).RawStepper(seed); };
  f.sized_frames = true;
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  envpool::RegisterFamily(std::move(f));
}

// A dm_control domain: one family, its tasks selected by task_name.
template <class Domain>
void RegisterDmc(const std::string& name) {
  envpool::Family f = envpool::FamilyOf<Domain>("Dmc" + name, "dmc", "envpool.tasks.dmc");
  f.make_raw_stepper = [](const Config& c, uint64_t seed) {
    return envpool::mujoco::dmc::MakeRawStepper(Domain(c), seed);
  };
  f.sized_frames = true;
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  envpool::RegisterFamily(std::move(f));
}

void Register() {
  namespace mj = envpool::mujoco;
  mj::CheckMujocoVersion();
  mj::InstallMujocoHandlers();
  RegisterGym<mj::gym::Ant>("Ant");
  RegisterGym<mj::gym::HalfCheetah>("HalfCheetah");
  RegisterGym<mj::gym::Hopper>("Hopper");
  RegisterGym<mj::gym::Humanoid>("Humanoid");
  RegisterGym<mj::gym::HumanoidStandup>("HumanoidStandup");
  RegisterGym<mj::gym::InvertedDoublePendulum>("InvertedDoublePendulum");
  RegisterGym<mj::gym::InvertedPendulum>("InvertedPendulum");
  RegisterGym<mj::gym::Pusher>("Pusher");
  RegisterGym<mj::gym::Reacher>("Reacher");
  RegisterGym<mj::gym::Swimmer>("Swimmer");
  RegisterGym<mj::gym::Walker2d>("Walker2d");
  RegisterRobotics<mj::robotics::Adroit>("Adroit");
  RegisterRobotics<mj::robotics::Fetch>("Fetch");
  RegisterRobotics<mj::robotics::HandReach>("HandReach");
  RegisterRobotics<mj::robotics::HandManipulate>("HandManipulate");
  RegisterRobotics<mj::robotics::Kitchen>("Kitchen");
  RegisterRobotics<mj::robotics::PointMaze>("PointMaze");
  RegisterDmc<mj::dmc::Acrobot>("Acrobot");
  RegisterDmc<mj::dmc::BallInCup>("BallInCup");
  RegisterDmc<mj::dmc::Cartpole>("Cartpole");
  RegisterDmc<mj::dmc::Cheetah>("Cheetah");
  RegisterDmc<mj::dmc::Dog>("Dog");
  RegisterDmc<mj::dmc::Finger>("Finger");
  RegisterDmc<mj::dmc::Fish>("Fish");
  RegisterDmc<mj::dmc::Hopper>("Hopper");
  RegisterDmc<mj::dmc::Humanoid>("Humanoid");
  RegisterDmc<mj::dmc::HumanoidCMU>("HumanoidCMU");
  RegisterDmc<mj::dmc::Lqr>("Lqr");
  RegisterDmc<mj::dmc::Manipulator>("Manipulator");
  RegisterDmc<mj::dmc::Pendulum>("Pendulum");
  RegisterDmc<mj::dmc::PointMass>("PointMass");
  RegisterDmc<mj::dmc::Quadruped>("Quadruped");
  RegisterDmc<mj::dmc::Reacher>("Reacher");
  RegisterDmc<mj::dmc::Stacker>("Stacker");
  RegisterDmc<mj::dmc::Swimmer>("Swimmer");
  RegisterDmc<mj::dmc::Walker>("Walker");
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
