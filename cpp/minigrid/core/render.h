// minigrid's tile renderer (utils/rendering.py, Grid.render_tile and
// Grid.render): each tile is drawn at 3x its size by testing every pixel
// centre against minigrid's shapes (fill_coords with point_in_rect /
// point_in_circle / point_in_line / point_in_triangle), in minigrid's float
// widths (float32 where it builds float32 arrays), then highlighted and
// averaged down 3x3 (downsample), truncating to uint8 as numpy does.
// Fill, the shapes and Downsample3 know nothing of MiniGrid: they could move
// to a shared raster folder.
#ifndef ENVPOOL_MINIGRID_CORE_RENDER_H_
#define ENVPOOL_MINIGRID_CORE_RENDER_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <unordered_map>
#include <vector>

#include "cpp/minigrid/core/world_object.h"

namespace envpool::minigrid {

struct Rgb {
  uint8_t r, g, b;
};

// fill_coords: every pixel whose centre ((x + 0.5) / w, (y + 0.5) / h) is in
// the shape takes the color.
template <class Fn>
void Fill(uint8_t* img, int size, Fn&& in, Rgb c) {
  for (int y = 0; y < size; ++y) {
    const double yf = (y + 0.5) / size;
    for (int x = 0; x < size; ++x) {
      const double xf = (x + 0.5) / size;
      if (in(xf, yf)) {
        uint8_t* p = img + (static_cast<std::size_t>(y) * size + x) * 3;
        p[0] = c.r, p[1] = c.g, p[2] = c.b;
      }
    }
  }
}

inline auto InRect(double xmin, double xmax, double ymin, double ymax) {
  return [=](double x, double y) { return x >= xmin && x <= xmax && y >= ymin && y <= ymax; };
}
inline auto InCircle(double cx, double cy, double r) {
  return [=](double x, double y) { return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r; };
}
// point_in_line: its end points are float32 arrays, so the direction and
// length are float32, and the distance is taken in float64.
inline auto InLine(double x0, double y0, double x1, double y1, double r) {
  const float p0x = static_cast<float>(x0), p0y = static_cast<float>(y0);
  const float p1x = static_cast<float>(x1), p1y = static_cast<float>(y1);
  float dx = p1x - p0x, dy = p1y - p0y;
  const float dist = std::sqrt(dx * dx + dy * dy);
  dx = dx / dist, dy = dy / dist;
  const double xmin = std::min(x0, x1) - r, xmax = std::max(x0, x1) + r;
  const double ymin = std::min(y0, y1) - r, ymax = std::max(y0, y1) + r;
  return [=](double x, double y) {
    if (x < xmin || x > xmax || y < ymin || y > ymax) return false;
    const double pqx = x - p0x, pqy = y - p0y;
    double a = pqx * static_cast<double>(dx) + pqy * static_cast<double>(dy);
    a = std::clamp(a, 0.0, static_cast<double>(dist));
    const double px = p0x + a * dx, py = p0y + a * dy;
    const double ex = x - px, ey = y - py;
    return std::sqrt(ex * ex + ey * ey) <= r;
  };
}
// point_in_triangle (float32 corners: the corner-only dot products are
// float32, those with the point float64), rotated about (cx, cy) by theta as
// rotate_fn does.
inline auto InRotatedTriangle(double ax, double ay, double bx, double by, double cx_, double cy_, double cx, double cy,
                              double theta) {
  const float a0 = static_cast<float>(ax), a1 = static_cast<float>(ay);
  const float v0x = static_cast<float>(cx_) - a0, v0y = static_cast<float>(cy_) - a1;
  const float v1x = static_cast<float>(bx) - a0, v1y = static_cast<float>(by) - a1;
  const float dot00 = v0x * v0x + v0y * v0y, dot01 = v0x * v1x + v0y * v1y, dot11 = v1x * v1x + v1y * v1y;
  const float inv_denom = 1.0f / (dot00 * dot11 - dot01 * dot01);
  const double c = std::cos(-theta), s = std::sin(-theta);
  return [=](double x, double y) {
    x = x - cx, y = y - cy;
    const double x2 = cx + x * c - y * s, y2 = cy + y * c + x * s;
    const double v2x = x2 - a0, v2y = y2 - a1;
    const double dot02 = v0x * v2x + v0y * v2y, dot12 = v1x * v2x + v1y * v2y;
    const double u = (static_cast<double>(dot11) * dot02 - static_cast<double>(dot01) * dot12) * inv_denom;
    const double v = (static_cast<double>(dot00) * dot12 - static_cast<double>(dot01) * dot02) * inv_denom;
    return u >= 0 && v >= 0 && (u + v) < 1;
  };
}

// highlight_img: img + 0.3 * (255 - img) in float64, truncated.
inline void Highlight(uint8_t* img, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) img[i] = static_cast<uint8_t>(img[i] + 0.3 * (255 - img[i]));
}

// downsample(img, 3): the mean of each 3x3 block (means of rows of 3, then
// their mean, in float64), truncated to uint8.
inline void Downsample3(const uint8_t* img, int out_size, uint8_t* out) {
  const int s = out_size * 3;
  for (int y = 0; y < out_size; ++y)
    for (int x = 0; x < out_size; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        double m[3];
        for (int dy = 0; dy < 3; ++dy) {
          const uint8_t* row = img + (static_cast<std::size_t>(y * 3 + dy) * s + x * 3) * 3 + ch;
          m[dy] = (static_cast<double>(row[0]) + row[3] + row[6]) / 3;
        }
        out[(static_cast<std::size_t>(y) * out_size + x) * 3 + ch] = static_cast<uint8_t>((m[0] + m[1] + m[2]) / 3);
      }
}

inline Rgb ColorRgb(Color c) { return {kColorRgb[c][0], kColorRgb[c][1], kColorRgb[c][2]}; }

// WorldObj.render for each type, on a size x size canvas.
inline void DrawObj(const Obj& o, uint8_t* img, int size) {
  const Rgb c = ColorRgb(o.color), black{0, 0, 0};
  switch (o.type) {
    case kGoal:
    case kWall:
      Fill(img, size, InRect(0, 1, 0, 1), c);
      break;
    case kFloor:
      Fill(img, size, InRect(0.031, 1, 0.031, 1),
           Rgb{static_cast<uint8_t>(c.r / 2.0), static_cast<uint8_t>(c.g / 2.0), static_cast<uint8_t>(c.b / 2.0)});
      break;
    case kLava:
      Fill(img, size, InRect(0, 1, 0, 1), Rgb{255, 128, 0});
      for (int i = 0; i < 3; ++i) {
        const double ylo = 0.3 + 0.2 * i, yhi = 0.4 + 0.2 * i;
        Fill(img, size, InLine(0.1, ylo, 0.3, yhi, 0.03), black);
        Fill(img, size, InLine(0.3, yhi, 0.5, ylo, 0.03), black);
        Fill(img, size, InLine(0.5, ylo, 0.7, yhi, 0.03), black);
        Fill(img, size, InLine(0.7, yhi, 0.9, ylo, 0.03), black);
      }
      break;
    case kDoor:
      if (o.is_open) {
        Fill(img, size, InRect(0.88, 1.00, 0.00, 1.00), c);
        Fill(img, size, InRect(0.92, 0.96, 0.04, 0.96), black);
      } else if (o.is_locked) {
        Fill(img, size, InRect(0.00, 1.00, 0.00, 1.00), c);
        Fill(img, size, InRect(0.06, 0.94, 0.06, 0.94),
             Rgb{static_cast<uint8_t>(0.45 * c.r), static_cast<uint8_t>(0.45 * c.g), static_cast<uint8_t>(0.45 * c.b)});
        Fill(img, size, InRect(0.52, 0.75, 0.50, 0.56), c);
      } else {
        Fill(img, size, InRect(0.00, 1.00, 0.00, 1.00), c);
        Fill(img, size, InRect(0.04, 0.96, 0.04, 0.96), black);
        Fill(img, size, InRect(0.08, 0.92, 0.08, 0.92), c);
        Fill(img, size, InRect(0.12, 0.88, 0.12, 0.88), black);
        Fill(img, size, InCircle(0.75, 0.50, 0.08), c);
      }
      break;
    case kKey:
      Fill(img, size, InRect(0.50, 0.63, 0.31, 0.88), c);
      Fill(img, size, InRect(0.38, 0.50, 0.59, 0.66), c);
      Fill(img, size, InRect(0.38, 0.50, 0.81, 0.88), c);
      Fill(img, size, InCircle(0.56, 0.28, 0.190), c);
      Fill(img, size, InCircle(0.56, 0.28, 0.064), black);
      break;
    case kBall:
      Fill(img, size, InCircle(0.5, 0.5, 0.31), c);
      break;
    case kBox:
      Fill(img, size, InRect(0.12, 0.88, 0.12, 0.88), c);
      Fill(img, size, InRect(0.18, 0.82, 0.18, 0.82), black);
      Fill(img, size, InRect(0.16, 0.84, 0.47, 0.53), c);
      break;
    default:
      break;
  }
}

// Grid.render_tile, cached by (object encoding, agent_dir, highlight) as
// minigrid caches it.
class TileRenderer {
 public:
  explicit TileRenderer(int tile_size) : ts_(tile_size) {}
  int tile_size() const { return ts_; }

  const std::vector<uint8_t>& Tile(const Obj* o, int agent_dir, bool highlight) {
    const uint32_t key = (o ? (o->type | (o->color << 4) | (o->State() << 8)) : 0xffu) |
                         (static_cast<uint32_t>(agent_dir + 1) << 12) | (highlight ? 1u << 16 : 0u);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const int s = ts_ * 3;
    std::vector<uint8_t> big(static_cast<std::size_t>(s) * s * 3, 0);
    Fill(big.data(), s, InRect(0, 0.031, 0, 1), Rgb{100, 100, 100});
    Fill(big.data(), s, InRect(0, 1, 0, 0.031), Rgb{100, 100, 100});
    if (o) DrawObj(*o, big.data(), s);
    if (agent_dir >= 0)
      Fill(big.data(), s,
           InRotatedTriangle(0.12, 0.19, 0.87, 0.50, 0.12, 0.81, 0.5, 0.5, 0.5 * std::numbers::pi * agent_dir),
           Rgb{255, 0, 0});
    if (highlight) Highlight(big.data(), big.size());
    std::vector<uint8_t> tile(static_cast<std::size_t>(ts_) * ts_ * 3);
    Downsample3(big.data(), ts_, tile.data());
    return cache_.emplace(key, std::move(tile)).first->second;
  }

  // Grid.render: a height x width grid of tiles, cell(i, j) giving each
  // cell's object, agent_dir (-1: none) and highlight.
  template <class CellFn>
  void Render(int width, int height, CellFn&& cell, uint8_t* rgb) {
    const int row = width * ts_ * 3;
    for (int j = 0; j < height; ++j)
      for (int i = 0; i < width; ++i) {
        const Obj* o;
        int dir;
        bool hl;
        cell(i, j, &o, &dir, &hl);
        const std::vector<uint8_t>& t = Tile(o, dir, hl);
        for (int y = 0; y < ts_; ++y)
          std::copy_n(t.data() + static_cast<std::size_t>(y) * ts_ * 3, ts_ * 3,
                      rgb + static_cast<std::size_t>(j * ts_ + y) * row + static_cast<std::size_t>(i) * ts_ * 3);
      }
  }

 private:
  int ts_;
  std::unordered_map<uint32_t, std::vector<uint8_t>> cache_;
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_CORE_RENDER_H_
