// The family table: what the engine knows about each family of envs, and how a
// family folder registers itself (one static FamilyRegistrar in its register.cc).
#ifndef ENVPOOL_CORE_FAMILY_H_
#define ENVPOOL_CORE_FAMILY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"

namespace envpool {

// Everything the engine needs to know about one family of envs.
struct Family {
  std::string name;
  // Family-specific config keys and their defaults. The engine adds its
  // own keys (num_envs, seed, max_episode_steps, ...).
  Config defaults;
  std::function<EnvSpec(const Config&)> make_spec;
  std::function<std::unique_ptr<Env>(const Config&, int env_id)> make_env;
  // Optional: the raw speed ceiling. Returns a closure that advances one
  // bare emulator/simulator by one agent step (e.g. frame_skip emulator
  // frames with a random action), with no preprocessing and no engine.
  std::function<std::function<void()>(const Config&, uint64_t seed)> make_raw_stepper;
  // Integer keys that also take a name (e.g. MuJoCo's main_body: a body id
  // or a body name); the env reads either alternative from the Config.
  std::vector<std::string> id_or_name_keys = {};
  // Its envs' steps run elsewhere (another process) and their threads only
  // wait: a call's envs are all started (Env::Prepare), then waited for, on
  // the calling thread, so that they run at once without a thread each.
  bool steps_elsewhere = false;
  // What Python and the bench learn about the family (_envpool.families()):
  // its kind ("classic_control", "atari", "mujoco", "testing"), the Python
  // module whose import registers its task ids ("" for none), and the
  // bench's defaults for it (e.g. "quick_num_envs": the --num-envs of the
  // short default run).
  std::string kind = "testing";
  std::string task_module = "";
  Config bench = {};
};

// The process-wide table of families, filled once at module load.
inline std::vector<Family>& Families() {
  static std::vector<Family> families;
  return families;
}

inline void RegisterFamily(Family family) { Families().push_back(std::move(family)); }

// A family folder's register.cc defines one static FamilyRegistrar, so no
// central list names the families. The functions run when the Python module
// loads (RunFamilyRegistrations), not during static initialisation: a
// registration may throw (e.g. MuJoCo's version check), which must become
// an ImportError, not std::terminate.
inline std::vector<void (*)()>& FamilyRegistrations() {
  static std::vector<void (*)()> fns;
  return fns;
}

struct FamilyRegistrar {
  explicit FamilyRegistrar(void (*fn)()) { FamilyRegistrations().push_back(fn); }
};

inline void RunFamilyRegistrations() {
  if (!Families().empty()) return;
  for (void (*fn)() : FamilyRegistrations()) fn();
}

inline const Family* FindFamily(const std::string& name) {
  for (const Family& f : Families())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace envpool

#endif  // ENVPOOL_CORE_FAMILY_H_
