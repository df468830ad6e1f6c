// The Python module _envpool: the families compiled in, their specs and
// defaults, the bench's raw ceiling, and (from the other files of this
// folder) the Pool type, the argument checks Python reuses, the frame resize
// and the XLA handlers. Names no family: each registers itself (FamilyRegistrar).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "cpp/binding/args.h"
#include "cpp/binding/config.h"
#include "cpp/binding/exceptions.h"
#include "cpp/binding/extension.h"
#include "cpp/binding/frames.h"
#include "cpp/binding/pool_binding.h"
#include "cpp/binding/python_env_worker.h"
#include "cpp/binding/xla.h"
#include "cpp/core/family.h"
#include "cpp/core/layout.h"
#include "cpp/core/raw_ceiling.h"

namespace py = pybind11;
using envpool::ArraySpec;
using envpool::Config;
using namespace envpool::binding;  // NOLINT(build/namespaces): this file binds them

namespace {

py::tuple MakeSpec(const std::string& family_name, const py::dict& user_config) {
  const envpool::Family& family = GetFamily(family_name);
  Config c = BuildConfig(family, user_config);
  envpool::PoolOptions opt = ParseOptions(c);
  envpool::EnvSpec spec = family.make_spec(c);
  std::vector<ArraySpec> state = envpool::CommonStateSpecs();
  state.insert(state.end(), spec.state.begin(), spec.state.end());
  (void)opt;
  return py::make_tuple(ConfigDict(c), SpecList(state), SpecList(spec.action));
}

double RawCeiling(const std::string& family_name, const py::dict& user_config, int num_threads, double seconds,
                  int num_envs, bool sync_calls) {
  const envpool::Family& family = GetFamily(family_name);
  if (!family.make_raw_stepper) throw py::value_error("family '" + family_name + "' has no raw ceiling");
  if (num_threads < 1) throw py::value_error("num_threads must be >= 1");
  if (num_envs != 0 && num_envs < num_threads)
    throw py::value_error("num_envs must be 0 (one env per thread) or >= num_threads");
  Config c = BuildConfig(family, user_config);
  py::gil_scoped_release release;
  return envpool::RawCeiling(family, c, num_threads, seconds, static_cast<uint64_t>(c.Get<int64_t>("seed")), num_envs,
                             sync_calls);
}

}  // namespace

PYBIND11_MODULE(_envpool, m) {
  m.doc() = "envpool's C++ engine";
  // Every family compiled in registers itself (see FamilyRegistrar).
  envpool::RunFamilyRegistrations();

  RegisterExceptions(m);
  m.attr("Batch") = BatchTypeObject();
  m.def(
      "families",
      [] {
        py::dict out;
        for (const envpool::Family& f : envpool::Families()) {
          py::dict meta;
          meta["kind"] = f.kind;
          meta["task_module"] = f.task_module;
          meta["raw_ceiling"] = static_cast<bool>(f.make_raw_stepper);
          meta["sized_frames"] = f.sized_frames;
          meta["bench"] = ConfigDict(f.bench);
          out[py::str(f.name)] = meta;
        }
        return out;
      },
      "{family name: {kind, task_module, raw_ceiling, sized_frames, bench}} of the families compiled in or loaded");
  m.def(
      "engine_defaults", [] { return ConfigDict(EngineDefaults()); },
      "{key: default} of the engine's options, which every family takes (num_envs, batch_size, seed, ...)");
  m.def("family_defaults", [](const std::string& name) { return ConfigDict(AllDefaults(GetFamily(name))); });
  m.def("make_spec", &MakeSpec, py::arg("family"), py::arg("config"),
        "(config, state_spec, action_spec) of a family under a config, without making envs");
  m.def("check_engine_options", &CheckEngineOptions, py::arg("options"),
        "The engine's checks of the engine keys of options (num_envs, batch_size, seed, ...): its "
        "TypeError/ValueError, before any env is made");
  m.def("raw_ceiling", &RawCeiling, py::arg("family"), py::arg("config"), py::arg("num_threads"), py::arg("seconds"),
        py::arg("num_envs") = 0, py::arg("sync_calls") = false,
        "Steps/s of the bare emulator/simulator, no engine: one env per thread, or with num_envs, each thread "
        "stepping its block of num_envs envs in turn; with sync_calls, in calls of every env once (each thread "
        "its block first, then any env not yet begun), none begun before the last step of the one before");

  RegisterChecks(m);
  // load_families(): family modules built against the SDK (envpool.cpp_extension).
  RegisterExtensionLoader(m);
  RegisterPythonEnvWorker(m);
  RegisterFrames(m);
  RegisterXla(m);  // before Pool: Pool._engine returns its engine type
  RegisterPool(m);
}
