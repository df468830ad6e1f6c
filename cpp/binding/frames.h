// Frame kernels for Python: _envpool.resize_linear, the drawing room's
// OpenCV-exact bilinear resize (cpp/draw/resize.h) over frame batches.
#ifndef ENVPOOL_BINDING_FRAMES_H_
#define ENVPOOL_BINDING_FRAMES_H_

#include <pybind11/pybind11.h>

namespace envpool::binding {

void RegisterFrames(pybind11::module_& m);

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_FRAMES_H_
