// C++ exceptions as Python exceptions, by errors.h's one table: every C++
// exception that leaves the module (a pool call's, a config's, an env's)
// gets its Python type from ErrorKindOf.
#ifndef ENVPOOL_BINDING_EXCEPTIONS_H_
#define ENVPOOL_BINDING_EXCEPTIONS_H_

#include <pybind11/pybind11.h>

#include "cpp/core/errors.h"

namespace envpool::binding {

PyObject* PythonType(ErrorKind kind);

// Installs the module's exception translator (pybind11's own exception
// types, py::value_error and the like, keep theirs).
void RegisterExceptions(pybind11::module_& m);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_EXCEPTIONS_H_
