// What gymnasium's toy-text renderers do with pygame, for rgb_array frames:
// load the PNG art from gymnasium's package (8-bit RGB(A), decoded here with
// zlib), scale it as pygame.transform.scale does, flip it, and blit it onto
// an RGB surface with per-pixel alpha.
#ifndef ENVPOOL_TOY_TEXT_RENDER_H_
#define ENVPOOL_TOY_TEXT_RENDER_H_

#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::toy_text {

struct Rgb {
  uint8_t r, g, b;
};

// Row-major RGBA pixels.
struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> rgba;
  const uint8_t* At(int x, int y) const { return &rgba[(static_cast<std::size_t>(y) * w + x) * 4]; }
};

namespace detail {

inline uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

inline int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace detail

// Decodes a non-interlaced 8-bit RGBA or RGB PNG (what gymnasium's toy-text
// art is); anything else is refused by name.
inline Image DecodePng(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("toy_text render: cannot open " + path);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) { return std::runtime_error("toy_text render: " + path + ": " + why); };
  static const uint8_t kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (d.size() < 8 || !std::equal(kSig, kSig + 8, d.begin())) throw bad("not a PNG file");
  std::size_t pos = 8;
  int w = 0, h = 0, channels = 0;
  std::vector<uint8_t> idat;
  bool end = false;
  while (!end) {
    if (pos + 12 > d.size()) throw bad("truncated");
    const uint32_t n = detail::Be32(&d[pos]);
    if (n > d.size() - pos - 12) throw bad("truncated chunk");
    const std::string type(reinterpret_cast<const char*>(&d[pos + 4]), 4);
    const uint8_t* body = &d[pos + 8];
    if (type == "IHDR") {
      if (n != 13) throw bad("bad IHDR");
      w = static_cast<int>(detail::Be32(body));
      h = static_cast<int>(detail::Be32(body + 4));
      const int depth = body[8], color = body[9], interlace = body[12];
      if (depth != 8 || (color != 6 && color != 2) || interlace != 0)
        throw bad("only non-interlaced 8-bit RGB/RGBA PNGs are supported (bit depth " + std::to_string(depth) +
                  ", color type " + std::to_string(color) + ", interlace " + std::to_string(interlace) + ")");
      if (w <= 0 || h <= 0 || w > 16384 || h > 16384) throw bad("bad size");
      channels = color == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), body, body + n);
    } else if (type == "IEND") {
      end = true;
    }
    pos += 12 + n;
  }
  if (channels == 0) throw bad("no IHDR");
  const std::size_t stride = static_cast<std::size_t>(w) * channels;
  std::vector<uint8_t> raw((stride + 1) * h);
  uLongf len = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &len, idat.data(), static_cast<uLong>(idat.size())) != Z_OK || len != raw.size())
    throw bad("corrupt image data");
  Image img;
  img.w = w;
  img.h = h;
  img.rgba.resize(static_cast<std::size_t>(w) * h * 4);
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  for (int y = 0; y < h; ++y) {
    const uint8_t* line = &raw[y * (stride + 1)];
    const int filter = line[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int x = line[1 + i];
      const int a = i >= static_cast<std::size_t>(channels) ? cur[i - channels] : 0;
      const int b = prev[i];
      const int c = i >= static_cast<std::size_t>(channels) ? prev[i - channels] : 0;
      int v;
      switch (filter) {
        case 0:
          v = x;
          break;
        case 1:
          v = x + a;
          break;
        case 2:
          v = x + b;
          break;
        case 3:
          v = x + (a + b) / 2;
          break;
        case 4:
          v = x + detail::Paeth(a, b, c);
          break;
        default:
          throw bad("bad filter type " + std::to_string(filter));
      }
      cur[i] = static_cast<uint8_t>(v);
    }
    for (int px = 0; px < w; ++px) {
      uint8_t* o = &img.rgba[(static_cast<std::size_t>(y) * w + px) * 4];
      for (int ch = 0; ch < channels; ++ch) o[ch] = cur[px * channels + ch];
      if (channels == 3) o[3] = 255;
    }
    std::swap(prev, cur);
  }
  return img;
}

// Decoded images, shared by every env of the process (decoded once).
inline std::shared_ptr<const Image> LoadImage(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Image>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  auto img = std::make_shared<const Image>(DecodePng(path));
  cache.emplace(path, img);
  return img;
}

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

// An RGB frame (height x width x 3, row-major), drawn as a pygame Surface.
class Canvas {
 public:
  Canvas(uint8_t* rgb, int w, int h) : rgb_(rgb), w_(w), h_(h) {}

  void Fill(Rgb c) {
    for (int i = 0; i < w_ * h_; ++i) Put(i, c.r, c.g, c.b);
  }

  // Surface.blit of a per-pixel-alpha image at (x, y), clipped: an opaque
  // pixel is copied, a transparent one leaves the surface. gymnasium's art
  // has no other alphas (a test checks); were there any, they blend as
  // d + (s - d) * a / 255, which nothing compares with SDL's blitter.
  void Blit(const Image& img, int x0, int y0) {
    for (int y = std::max(0, -y0); y < img.h && y0 + y < h_; ++y)
      for (int x = std::max(0, -x0); x < img.w && x0 + x < w_; ++x) {
        const uint8_t* s = img.At(x, y);
        const int a = s[3];
        if (a == 0) continue;
        uint8_t* d = &rgb_[(static_cast<std::size_t>(y0 + y) * w_ + x0 + x) * 3];
        if (a == 255) {
          d[0] = s[0], d[1] = s[1], d[2] = s[2];
        } else {
          for (int ch = 0; ch < 3; ++ch) d[ch] = static_cast<uint8_t>(d[ch] + (s[ch] - d[ch]) * a / 255);
        }
      }
  }

  // pygame.draw.rect(surface, color, (x, y, w, h), 1): the 1-pixel outline.
  void RectOutline(int x, int y, int w, int h, Rgb c) {
    for (int i = x; i < x + w; ++i) Pixel(i, y, c), Pixel(i, y + h - 1, c);
    for (int j = y; j < y + h; ++j) Pixel(x, j, c), Pixel(x + w - 1, j, c);
  }

 private:
  void Pixel(int x, int y, Rgb c) {
    if (x >= 0 && x < w_ && y >= 0 && y < h_) Put(y * w_ + x, c.r, c.g, c.b);
  }
  void Put(int i, uint8_t r, uint8_t g, uint8_t b) {
    uint8_t* d = &rgb_[static_cast<std::size_t>(i) * 3];
    d[0] = r, d[1] = g, d[2] = b;
  }
  uint8_t* rgb_;
  int w_, h_;
};

// A Python round() of a non-negative float: halves to even, as the default
// floating-point rounding mode does.
inline int RoundHalfEven(double v) { return static_cast<int>(std::nearbyint(v)); }

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_RENDER_H_
