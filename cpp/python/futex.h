// Process-shared futex words for Python code (worker processes that step envs
// through a shared-memory segment): _envpool._futex_wake, and the worker's
// serving loop _envpool._serve_slots.
#ifndef ENVPOOL_PYTHON_FUTEX_H_
#define ENVPOOL_PYTHON_FUTEX_H_

#include <pybind11/pybind11.h>

namespace envpool::python {

void RegisterFutex(pybind11::module_& m);

}  // namespace envpool::python

#endif  // ENVPOOL_PYTHON_FUTEX_H_
