// A pool call's arguments from Python: env ids, seeds and actions, checked
// with checks.h's checks and messages (TypeError for a wrong type, else
// checks.h's std::invalid_argument, a ValueError) and converted for the
// engine. The same functions back _envpool.check_* (RegisterChecks), which
// src/envpool/ray.py and src/envpool/xla.py call instead of repeating the checks.
#ifndef ENVPOOL_BINDING_ARGS_H_
#define ENVPOOL_BINDING_ARGS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cpp/core/spec.h"

namespace envpool::binding {

namespace py = pybind11;

// Fills `ids` from an int or a 1-D integer sequence, each in [0, num_envs).
void ToIds(const py::object& env_id, int num_envs, std::vector<int>& ids);

// Fills `seeds` for a reset of `ids` (an int seed s gives env i of the call
// s + i; a list gives one per env); false, leaving it empty, for None.
bool ToSeeds(const py::object& seed, const std::vector<int>& ids, int num_envs, std::vector<uint64_t>& seeds);

// A pool's action keys, looked up once.
struct __attribute__((visibility("hidden"))) ActionKeys {  // holds pybind11 types, which are hidden
  explicit ActionKeys(std::vector<ArraySpec> specs);
  std::vector<ArraySpec> specs;
  std::vector<std::string> names;  // the dict keys ("" for an array action)
  std::vector<py::dtype> dtypes;
  std::vector<bool> discrete;
  bool array = false;  // one array, not a dict
};

// Every key of an action for n envs (an array, or a dict of arrays), in
// spec order: checked (keys, dtype, shape, the range of a discrete key, on
// the values as given) and cast to the key's dtype without copying when it
// matches.
void ConvertActions(const ActionKeys& keys, const py::object& action, int n, std::vector<py::array>& out);

// _envpool.check_env_ids, check_seeds, check_action, check_action_array,
// check_action_keys, is_discrete and the messages Python reuses.
void RegisterChecks(py::module_& m);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_ARGS_H_
