// pygame.transform on RGBA images and interleaved 8-bit channels: scale and
// flip (toy text's art), smoothscale (Pendulum's arrow, CarRacing's frame),
// ported from pygame 2's arithmetic so the results are pygame's bytes.
#ifndef ENVPOOL_DRAW_TRANSFORM_H_
#define ENVPOOL_DRAW_TRANSFORM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpp/draw/image.h"

namespace envpool::draw {

// pygame.transform.scale as pygame 2 (gymnasium[toy-text]'s pygame, not
// pygame-ce) does it: its stretch() walks the source with a Bresenham-style
// error term, 2 * source size against 2 * destination size, per axis.
inline std::vector<int> StretchIndex(int src, int dst) {
  std::vector<int> index(dst);
  int at = 0, err = 2 * src - 2 * dst;
  for (int i = 0; i < dst; ++i) {
    index[i] = at;
    while (err >= 0) {
      ++at;
      err -= 2 * dst;
    }
    err += 2 * src;
  }
  return index;
}

inline Image Scale(const Image& src, int w, int h) {
  if (w == src.w && h == src.h) return src;
  Image dst;
  dst.w = w;
  dst.h = h;
  dst.rgba.resize(static_cast<std::size_t>(w) * h * 4);
  const std::vector<int> xs = StretchIndex(src.w, w), ys = StretchIndex(src.h, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = src.At(xs[x], ys[y]);
      std::copy(p, p + 4, &dst.rgba[(static_cast<std::size_t>(y) * w + x) * 4]);
    }
  return dst;
}

// pygame.transform.flip(img, flip_x, flip_y).
inline Image Flip(const Image& src, bool flip_x, bool flip_y) {
  Image dst = src;
  for (int y = 0; y < src.h; ++y)
    for (int x = 0; x < src.w; ++x) {
      const uint8_t* p = src.At(flip_x ? src.w - 1 - x : x, flip_y ? src.h - 1 - y : y);
      std::copy(p, p + 4, &dst.rgba[(static_cast<std::size_t>(y) * src.w + x) * 4]);
    }
  return dst;
}

// pygame.transform.smoothscale of one 8-bit channel when shrinking both ways
// (the arrow is at most a third of its size): pygame's area-averaging
// filter_shrink_X then filter_shrink_Y, in the arithmetic of the SSE
// versions that x86-64 builds of pygame use (2.14 fixed point, 16-bit
// lanes: wrapping adds, pmulhuw high products, saturation to 8 bits).
// (src: a row-major sw x sh image of NC interleaved 8-bit channels, each
// filtered on its own; the result is interleaved the same way.)
template <int NC>
std::vector<uint8_t> ShrinkChannels(const uint8_t* src, int sw, int sh, int dw, int dh) {
  static_assert(NC >= 1 && NC <= 4);
  auto mulhi = [](uint32_t a, uint32_t b) { return static_cast<uint16_t>(((a & 0xffff) * (b & 0xffff)) >> 16); };
  auto sat = [](uint32_t v) { return static_cast<uint8_t>(std::min<uint32_t>(v, 255)); };
  const int rw = dw * NC;  // a filtered row's bytes
  std::vector<uint8_t> tmp(static_cast<size_t>(rw) * sh), dst(static_cast<size_t>(rw) * dh);
  const uint32_t xspace = 0x4000 * sw / dw, xrecip = 0x40000000 / xspace;
  // The X pass's counter runs alike on every row: where each output pixel's
  // boundary source pixel falls, with its weights, is worked out once; the
  // source pixels between boundaries are summed whole.
  struct Cut {
    int x;
    uint32_t xcounter, xfrac;
  };
  std::vector<Cut> cuts;
  cuts.reserve(dw);
  uint32_t xcounter = xspace;
  for (int x = 0; x < sw && static_cast<int>(cuts.size()) < dw; ++x) {
    if (xcounter > 0x4000) {
      xcounter -= 0x4000;
    } else {
      cuts.push_back({x, xcounter, (0x4000 - xcounter) & 0xffff});
      xcounter += xspace - 0x4000;
    }
  }
  // The sums run in 32 bits, one register per channel (the row pass over
  // CarRacing's 1000x800 window: 0.80 -> 0.59 ms); only their low 16 bits
  // enter the 16-bit lane arithmetic, so they wrap as pygame's lanes do.
  for (int y = 0; y < sh; ++y) {
    const uint8_t* s = src + static_cast<size_t>(y) * sw * NC;
    uint8_t* d = &tmp[static_cast<size_t>(y) * rw];
    uint32_t acc[NC] = {};
    const uint8_t* p = s;
    for (const Cut& cut : cuts) {
      for (const uint8_t* end = s + static_cast<size_t>(cut.x) * NC; p < end; p += NC)
        for (int c = 0; c < NC; ++c) acc[c] += p[c];
      for (int c = 0; c < NC; ++c) {
        const uint32_t s4 = p[c] << 2;
        const uint16_t out = static_cast<uint16_t>(mulhi(s4, cut.xcounter) + acc[c]);
        acc[c] = mulhi(s4, cut.xfrac);
        *d++ = sat(mulhi(out, xrecip));
      }
      p += NC;
    }
  }
  // The Y pass filters every byte of a row alike: channels need no care.
  const uint32_t yspace = 0x4000 * sh / dh, yrecip = 0x40000000 / yspace;
  std::vector<uint16_t> acc(rw, 0);
  uint32_t ycounter = yspace;
  int dy = 0;
  for (int y = 0; y < sh; ++y) {
    const uint8_t* s = &tmp[static_cast<size_t>(y) * rw];
    if (ycounter > 0x4000) {
      for (int x = 0; x < rw; ++x) acc[x] = static_cast<uint16_t>(acc[x] + s[x]);
      ycounter -= 0x4000;
    } else {
      if (dy == dh) break;
      const uint32_t yfrac = (0x4000 - ycounter) & 0xffff;
      uint8_t* d = &dst[static_cast<size_t>(dy++) * rw];
      for (int x = 0; x < rw; ++x) {
        const uint32_t s4 = s[x] << 2;
        const uint16_t out = static_cast<uint16_t>(mulhi(s4, ycounter) + acc[x]);
        acc[x] = mulhi(s4, yfrac);
        d[x] = sat(mulhi(out, yrecip));
      }
      ycounter += yspace - 0x4000;
    }
  }
  return dst;
}

inline std::vector<uint8_t> ShrinkChannel(const std::vector<uint8_t>& src, int sw, int sh, int dw, int dh) {
  return ShrinkChannels<1>(src.data(), sw, sh, dw, dh);
}

}  // namespace envpool::draw

#endif  // ENVPOOL_DRAW_TRANSFORM_H_
