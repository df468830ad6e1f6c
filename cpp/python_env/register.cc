// Registers the PyProc family (kind "python"): no task id uses it directly;
// envpool.python_env makes its pools (envpool.make(env_fn, ...) and
// envpool.make("gymnasium:<id>", ...)).
#include <memory>

#include "cpp/core/family.h"
#include "cpp/python_env/proc_env.h"

namespace {

void Register() {
  using envpool::python_env::ProcEnv;
  envpool::Family f{"PyProc", ProcEnv::Defaults(), &ProcEnv::MakeSpec,
                    [](const envpool::Config& c, int id) -> std::unique_ptr<envpool::Env> {
                      return std::make_unique<ProcEnv>(c, id);
                    },
                    nullptr};
  f.kind = "python";
  // Its import adds the pools of a user's env_fn and "gymnasium:<id>" to make().
  f.task_module = "envpool.python_env";
  f.steps_elsewhere = true;
  envpool::RegisterFamily(std::move(f));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
