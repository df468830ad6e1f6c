// Registers the MuJoCo families: one per task and version ("Ant-v4",
// "Ant-v5", ...). A new task is a file in gym/ (or dmc/) and one line here.
#include <memory>
#include <string>
#include <utility>

#include "cpp/core/env.h"
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

namespace {

using envpool::Config;

// A gymnasium task in its v4 and v5 flavours.
template <class Task>
void RegisterGym(const std::string& name) {
  for (int version : {4, 5}) {
    Config defaults = Task::Defaults(version);
    envpool::mujoco::AddRenderDefaults(&defaults, Task::DefaultCameraConfig(version));
    envpool::Family f{
        name + "-v" + std::to_string(version),
        std::move(defaults),
        [version](const Config& c) -> envpool::EnvSpec { return Task(c, version).spec(); },
        [version](const Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<Task>(c, version); },
        [version](const Config& c, uint64_t seed) { return envpool::mujoco::MakeRawStepper(Task(c, version), seed); },
        {"main_body"},
    };
    f.kind = "mujoco";
    f.task_module = "envpool.tasks.mujoco";
    f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
    envpool::RegisterFamily(std::move(f));
  }
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
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
