// The pool binding (pool_binding.cc): the Python Pool type and its result
// type, Batch.
#ifndef ENVPOOL_BINDING_POOL_BINDING_H_
#define ENVPOOL_BINDING_POOL_BINDING_H_

#include <pybind11/pybind11.h>

namespace envpool::binding {

// The named tuple type of every pool call's result.
pybind11::object BatchTypeObject();

// Adds Pool (call after RegisterXla: Pool._engine returns its engine type).
void RegisterPool(pybind11::module_& m);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_POOL_BINDING_H_
