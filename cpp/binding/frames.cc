#include "cpp/binding/frames.h"

#include <pybind11/numpy.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpp/draw/resize.h"

namespace py = pybind11;

namespace envpool::binding {

namespace {

// frames: uint8 (n, h, w, c), C order. The Resizer works on planes, as
// OpenCV does on each channel, so each channel is gathered, resized and
// scattered back.
py::array_t<uint8_t> ResizeLinear(const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& frames,
                                  int height, int width) {
  if (frames.ndim() != 4) throw py::value_error("resize_linear: frames must be (n, height, width, channels)");
  if (height < 1 || width < 1) throw py::value_error("resize_linear: the size must be positive");
  const py::ssize_t n = frames.shape(0), h = frames.shape(1), w = frames.shape(2), c = frames.shape(3);
  py::array_t<uint8_t> out({n, static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width), c});
  if (n == 0 || c == 0) return out;
  if (h < 1 || w < 1) throw py::value_error("resize_linear: the frames are empty");
  const uint8_t* src = frames.data();
  uint8_t* dst = out.mutable_data();
  {
    py::gil_scoped_release release;
    draw::Resizer resizer(static_cast<int>(h), static_cast<int>(w), height, width, draw::Interp::kLinear);
    const std::size_t in_px = static_cast<std::size_t>(h) * w, out_px = static_cast<std::size_t>(height) * width;
    std::vector<uint8_t> plane(in_px), resized(out_px);
    for (py::ssize_t i = 0; i < n; ++i)
      for (py::ssize_t ch = 0; ch < c; ++ch) {
        const uint8_t* s = src + static_cast<std::size_t>(i) * in_px * c + ch;
        for (std::size_t p = 0; p < in_px; ++p) plane[p] = s[p * c];
        resizer.Run(plane.data(), resized.data());
        uint8_t* d = dst + static_cast<std::size_t>(i) * out_px * c + ch;
        for (std::size_t p = 0; p < out_px; ++p) d[p * c] = resized[p];
      }
  }
  return out;
}

}  // namespace

void RegisterFrames(py::module_& m) {
  m.def("resize_linear", &ResizeLinear, py::arg("frames"), py::arg("height"), py::arg("width"),
        "uint8 frames (n, h, w, c) resized to (n, height, width, c) as cv2.resize(frame, (width, height)) "
        "(INTER_LINEAR) does, byte for byte");
}

}  // namespace envpool::binding
