// Loading family modules built against the SDK (envpool.cpp_extension).
#ifndef ENVPOOL_BINDING_EXTENSION_H_
#define ENVPOOL_BINDING_EXTENSION_H_

#include <pybind11/pybind11.h>

// Adds load_families(path) and sdk_abi() to the module.
void RegisterExtensionLoader(pybind11::module_& m);

#endif  // ENVPOOL_BINDING_EXTENSION_H_
