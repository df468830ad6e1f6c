// Python <-> the engine's Config and specs: a user's config dict checked
// against a family's defaults, the engine options read from it, and specs
// and configs handed back to Python.
#ifndef ENVPOOL_BINDING_CONFIG_H_
#define ENVPOOL_BINDING_CONFIG_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/core/layout.h"
#include "cpp/core/spec.h"

namespace envpool::binding {

namespace py = pybind11;

// The family registered as `name`, or ValueError.
const Family& GetFamily(const std::string& name);

// The engine's config keys and the family's, with their defaults.
// The engine's options (every family's) with their defaults: the one list of them.
Config EngineDefaults();
Config AllDefaults(const Family& family);

// The defaults with the user's values, each converted to its default's
// type (TypeError for an unknown key or a value of the wrong type).
Config BuildConfig(const Family& family, const py::dict& user);

// The engine options of a config, range-checked (ValueError).
PoolOptions ParseOptions(const Config& c);

// The engine keys of `user` (other keys are the family's) converted and
// range-checked as ParseOptions checks them, with no family: a pool whose
// spec needs its envs made first (Python envs) refuses bad options before
// it makes any.
void CheckEngineOptions(const py::dict& user);

py::dict ConfigDict(const Config& c);
py::dtype ToNumpy(DType t);
// (name, dtype name, shape, low, high) tuples, as Python's specs are.
py::list SpecList(const std::vector<ArraySpec>& specs);
ArraySpec SpecFromPython(const py::handle& spec);

// Python ints and bools, NumPy's included (a bool is not an int here).
bool IsPyBool(const py::handle& o);
bool IsPyInt(const py::handle& o);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_CONFIG_H_
