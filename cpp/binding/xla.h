// The XLA side of the binding (see xla.cc): what module.cc needs from it.
#ifndef ENVPOOL_BINDING_XLA_H_
#define ENVPOOL_BINDING_XLA_H_

#include <pybind11/pybind11.h>

// Adds the engine handle type (what Pool._engine returns) and, when built
// with jaxlib's FFI headers, the XLA registry and handlers to the module.
void RegisterXla(pybind11::module_& m);

#endif  // ENVPOOL_BINDING_XLA_H_
