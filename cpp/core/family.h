// The family table: what the engine knows about each family of envs, and how a
// family folder registers itself (one static FamilyRegistrar in its register.cc).
#ifndef ENVPOOL_CORE_FAMILY_H_
#define ENVPOOL_CORE_FAMILY_H_

#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
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
  // Its envs draw their frames at a size and from a camera that its options
  // choose (MuJoCo's width, height, camera_id). Otherwise its frames have one
  // size, and Python resizes them to EnvPool 1.2.5's render_width/render_height.
  bool sized_frames = false;
  // What Python and the bench learn about the family (_envpool.families()):
  // its kind, required ("classic_control", "atari", "mujoco", "dmc",
  // "testing"; families of one kind share their Python options and tests),
  // the Python module whose import registers its task ids ("" for none),
  // and the bench's defaults for it (e.g. "quick_num_envs": the --num-envs
  // of the short default run).
  std::string kind = "";  // empty: refused by RegisterFamily
  std::string task_module = "";
  Config bench = {};
};

// The family of env class E, named `name`, of kind `kind` (see Family::kind),
// whose task ids the Python module `task_module` registers: every
// register.cc makes its families with it, then sets what else they have
// (bench, make_raw_stepper, ...) before RegisterFamily. From E it takes
//   static Config E::Defaults(args...)         its config keys and defaults;
//   static EnvSpec E::MakeSpec(const Config&)  its spec (without one: the spec()
//                                              of an E made for the config);
//   E(const Config&, int env_id, args...) or E(const Config&, args...)
//                                              its constructor (the first gets
//                                              the env's id in the pool).
// args are the family's own constants (e.g. MuJoCo's gymnasium version).
template <class E, class... Args>
Family FamilyOf(std::string name, std::string kind, std::string task_module, Args... args) {
  Family f;
  f.name = std::move(name);
  f.defaults = E::Defaults(args...);
  if constexpr (requires(const Config& c) { E::MakeSpec(c); }) {
    f.make_spec = [](const Config& c) -> EnvSpec { return E::MakeSpec(c); };
  } else {
    f.make_spec = [args...](const Config& c) -> EnvSpec { return E(c, args...).spec(); };
  }
  f.make_env = [args...](const Config& c, int env_id) -> std::unique_ptr<Env> {
    if constexpr (std::is_constructible_v<E, const Config&, int, Args...>) {
      return std::make_unique<E>(c, env_id, args...);
    } else {
      (void)env_id;
      return std::make_unique<E>(c, args...);
    }
  };
  f.kind = std::move(kind);
  f.task_module = std::move(task_module);
  return f;
}

// The process-wide table of families, filled at module load and by loaded
// extension modules. A deque: appending keeps references to the families
// already there valid (pools hold a Family* while they are built).
inline std::deque<Family>& Families() {
  static std::deque<Family> families;
  return families;
}

inline const Family* FindFamily(const std::string& name) {
  for (const Family& f : Families())
    if (f.name == name) return &f;
  return nullptr;
}

// Refuses a family without a name or a kind, and a second family of a
// name already taken (a pool names its family by name, so the later one
// would be unreachable).
inline void RegisterFamily(Family family) {
  if (family.name.empty()) throw std::invalid_argument("RegisterFamily: a family needs a name");
  if (family.kind.empty())
    throw std::invalid_argument("RegisterFamily: family '" + family.name + "' has no kind (set Family::kind)");
  if (FindFamily(family.name) != nullptr)
    throw std::invalid_argument("RegisterFamily: a family named '" + family.name + "' is already registered");
  Families().push_back(std::move(family));
}

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

}  // namespace envpool

#endif  // ENVPOOL_CORE_FAMILY_H_
