// Registers the MuJoCo families (one per task and version, e.g. "Ant-v4",
// "Ant-v5") from the task table in cpp/mujoco/mujoco_env.h.
#include <memory>

#include "cpp/core/env.h"
#include "cpp/mujoco/mujoco_env.h"

namespace {

void Register() {
  namespace mj = envpool::mujoco;
  mj::CheckMujocoVersion();
  mj::InstallMujocoErrorHandler();
  for (const mj::TaskDef& def : mj::TaskDefs()) {
    const mj::TaskDef* d = &def;  // the table lives for the process
    envpool::Family f{
        def.name,
        def.defaults,
        [d](const envpool::Config& c) { return mj::MakeSpec(*d, c); },
        [d](const envpool::Config& c, int env_id) { return mj::MakeEnv(*d, c, env_id); },
        [d](const envpool::Config& c, uint64_t seed) { return mj::MakeRawStepper(*d, c, seed); },
        {"main_body"},
    };
    f.kind = "mujoco";
    f.task_module = "envpool.tasks.mujoco";
    f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
    envpool::RegisterFamily(std::move(f));
  }
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
