// Image resizing as OpenCV does it, on single-channel uint8 planes: the Atari
// preprocessing, and render()'s EnvPool 1.2.5 render_width/render_height
// (envpool/_frames.py, through the binding's resize_linear).
//
// The arithmetic follows OpenCV's cv::resize for 8-bit images step by step
// (same coefficient tables, same float/fixed-point accumulation order and
// rounding), so results are bitwise equal to
//   cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)   (kArea)
//   cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR) (kLinear)
// OpenCV treats channels independently, so a multi-channel image is resized
// plane by plane with identical results.
//
// All tables and scratch buffers are built once in the constructor; Run()
// does not allocate. The code is in resize.cc, the one translation unit
// compiled with strict IEEE floating point (cpp/draw/CMakeLists.txt). A
// Resizer is not thread-safe (it owns scratch space): use one per env.
#ifndef ENVPOOL_DRAW_RESIZE_H_
#define ENVPOOL_DRAW_RESIZE_H_

#include <cstdint>
#include <memory>

namespace envpool::draw {

enum class Interp { kArea, kLinear };

// Which code computes a non-integer area downscale (the 210x160 -> 84x84
// case): both give the same bytes (each output is the same sequence of IEEE
// float operations); kAvx512 is used when the CPU has AVX-512 (F, BW, VL)
// and every group of 16 output columns reads a window of at most 32 source
// pixels (true for the usual Atari sizes), else kPortable (SSE2/scalar).
enum class ResizePath { kPortable, kAvx512 };

ResizePath BestResizePath();

class Resizer {
 public:
  Resizer();
  // Throws std::invalid_argument unless every size is positive.
  Resizer(int src_h, int src_w, int dst_h, int dst_w, Interp interp, ResizePath path = BestResizePath());
  ~Resizer();
  Resizer(Resizer&&) noexcept;
  Resizer& operator=(Resizer&&) noexcept;

  // 0 for a default-constructed Resizer.
  int src_h() const { return src_h_; }
  int src_w() const { return src_w_; }
  int dst_h() const { return dst_h_; }
  int dst_w() const { return dst_w_; }
  // The path Run() takes for this size (kPortable unless an AVX-512 area
  // downscale was asked for and fits).
  ResizePath path() const;

  // src: src_h x src_w plane (row-major, contiguous); dst: dst_h x dst_w.
  void Run(const uint8_t* src, uint8_t* dst);

 private:
  class Impl;
  int src_h_ = 0, src_w_ = 0, dst_h_ = 0, dst_w_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace envpool::draw

#endif  // ENVPOOL_DRAW_RESIZE_H_
