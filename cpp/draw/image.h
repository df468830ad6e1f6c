// PNG art as pygame.image.load gives it to gymnasium's toy-text renderers:
// 8-bit RGB(A) PNGs from gymnasium's package, decoded here with zlib into
// RGBA images (transform.h scales and flips them, Canvas::Blit draws them).
#ifndef ENVPOOL_DRAW_IMAGE_H_
#define ENVPOOL_DRAW_IMAGE_H_

#include <zlib.h>

#include <algorithm>
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

namespace envpool::draw {

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
  if (!f) throw std::runtime_error("PNG: cannot open " + path);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) { return std::runtime_error("PNG: " + path + ": " + why); };
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

}  // namespace envpool::draw

#endif  // ENVPOOL_DRAW_IMAGE_H_
