// Registers the PythonEnv family (kind "python_env"): no task id uses it directly;
// envpool.python_env makes its pools (envpool.make(env_fn, ...) and
// envpool.make("gymnasium:<id>", ...)).
#include <memory>

#include "cpp/core/family.h"
#include "cpp/python_env/proc_env.h"

namespace {

void Register() {
  using envpool::python_env::ProcEnv;
  // Its task module's import adds the pools of a user's env_fn and
  // "gymnasium:<id>" to make().
  envpool::Family f = envpool::FamilyOf<ProcEnv>("PythonEnv", "python_env", "envpool.python_env");
  f.steps_elsewhere = true;
  envpool::RegisterFamily(std::move(f));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
