// Process-shared futex words for Python code (worker processes that step envs
// through a shared-memory segment): _envpool._futex_wake, and the worker's
// serving loop _envpool._serve_slots.
#ifndef ENVPOOL_BINDING_PYTHON_ENV_WORKER_H_
#define ENVPOOL_BINDING_PYTHON_ENV_WORKER_H_

#include <pybind11/pybind11.h>

namespace envpool::binding {

void RegisterPythonEnvWorker(pybind11::module_& m);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_PYTHON_ENV_WORKER_H_
