// pygame's drawing on an RGB frame, for the renderers of classic control,
// Box2D and toy text. Gymnasium draws their rgb_array frames with pygame:
// pygame.gfxdraw (SDL_gfx's filled_polygon, aapolygon, filled_circle,
// aacircle, hline, vline), pygame.draw (line, aalines, rect),
// pygame.math.Vector2.rotate_rad and Surface.blit. Each routine here ports
// the integer (and, where pygame uses it, float) arithmetic of pygame 2.6's
// implementation, so the frames match gymnasium's pixel for pixel, the
// anti-aliased edges included (tests/families/classic_control/test_classic_control_render.py,
// tests/families/box2d/ and tests/families/toy_text/ check them). Image transforms are in
// transform.h, PNG art in image.h.
//
// Coordinates are pygame's surface coordinates (x right, y down). Classic
// control and Box2D flip the finished surface vertically
// (pygame.transform.flip(surf, False, True)) before returning it, so their
// canvas (Rows::kFlipped) stores surface row y at image row height - 1 - y;
// toy text returns the surface as drawn (Rows::kAsDrawn).
#ifndef ENVPOOL_DRAW_CANVAS_H_
#define ENVPOOL_DRAW_CANVAS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <numbers>
#include <vector>

#include "cpp/draw/image.h"

namespace envpool::draw {

struct Rgb {
  int r, g, b;
};

struct Vec2 {
  double x, y;
};

// Python's int(v) (truncation toward zero), as pygame converts the float
// coordinates it is given; gfxdraw then stores them as Sint16.
inline int PyInt(double v) {
  if (!(v == v)) return 0;  // NaN (Python would raise)
  return static_cast<int>(std::clamp(v, -2147483648.0, 2147483647.0));
}
inline int GfxInt(double v) { return static_cast<int16_t>(PyInt(v)); }

// pygame.math.Vector2(p).rotate_rad(angle), exact rotations by multiples of
// 90 degrees included.
inline Vec2 RotateRad(Vec2 p, double angle) {
  constexpr double kEpsilon = 1e-6, kTwoPi = 2. * std::numbers::pi;
  angle = std::fmod(angle, kTwoPi);
  if (angle < 0) angle += kTwoPi;
  if (std::fmod(angle + kEpsilon, (std::numbers::pi / 2)) < 2 * kEpsilon) {
    switch (static_cast<int>((angle + kEpsilon) / (std::numbers::pi / 2))) {
      case 1:
        return {-p.y, p.x};
      case 2:
        return {-p.x, -p.y};
      case 3:
        return {p.y, -p.x};
      default:  // 0 or 360 degrees
        return p;
    }
  }
  const double s = std::sin(angle), c = std::cos(angle);
  return {c * p.x - s * p.y, s * p.x + c * p.y};
}

// Python's round() of a non-negative float: halves to even, as the default
// floating-point rounding mode does.
inline int RoundHalfEven(double v) { return static_cast<int>(std::nearbyint(v)); }

// Where surface row y lies in the frame (see the top of this file).
enum class Rows { kFlipped, kAsDrawn };

class Canvas {
 public:
  // rgb: height x width x 3, row-major. Invariant: At(x, y) is surface
  // pixel (x, y) for 0 <= x < width, 0 <= y < height, in either row order.
  Canvas(uint8_t* rgb, int width, int height, Rows rows = Rows::kFlipped)
      : rgb_(rgb),
        w_(width),
        h_(height),
        row0_(rows == Rows::kFlipped ? rgb + static_cast<ptrdiff_t>(height - 1) * width * 3 : rgb),
        row_step_(rows == Rows::kFlipped ? -static_cast<ptrdiff_t>(width) * 3 : static_cast<ptrdiff_t>(width) * 3) {}

  void Fill(Rgb c) {
    const size_t n = static_cast<size_t>(w_) * h_;
    for (size_t i = 0; i < n; ++i) {
      rgb_[3 * i] = static_cast<uint8_t>(c.r);
      rgb_[3 * i + 1] = static_cast<uint8_t>(c.g);
      rgb_[3 * i + 2] = static_cast<uint8_t>(c.b);
    }
  }

  bool Inside(int x, int y) const { return x >= 0 && x < w_ && y >= 0 && y < h_; }

  // Opaque pixel, clipped.
  void Set(int x, int y, Rgb c) {
    if (Inside(x, y)) Put(x, y, c);
  }

  // SDL_gfx's pixelColor on a 32-bit surface: opaque at alpha 255, else
  // d + ((s - d) * alpha >> 8) per channel (an arithmetic shift).
  void Blend(int x, int y, Rgb c, int alpha) {
    if (!Inside(x, y)) return;
    if (alpha == 255) return Put(x, y, c);
    uint8_t* p = At(x, y);
    p[0] = static_cast<uint8_t>(p[0] + (((c.r - p[0]) * alpha) >> 8));
    p[1] = static_cast<uint8_t>(p[1] + (((c.g - p[1]) * alpha) >> 8));
    p[2] = static_cast<uint8_t>(p[2] + (((c.b - p[2]) * alpha) >> 8));
  }

  // SDL_gfx's pixelColorWeight: alpha 255 scaled by weight / 256.
  void BlendWeight(int x, int y, Rgb c, uint32_t weight) { Blend(x, y, c, static_cast<int>((255u * weight) >> 8)); }

  // --- pygame.gfxdraw (SDL_gfx) ---

  // hline: inclusive, either order, clipped.
  void HLine(int x1, int x2, int y, Rgb c) {
    if (x1 > x2) std::swap(x1, x2);
    if (x2 < 0 || x1 >= w_ || y < 0 || y >= h_) return;
    x1 = std::max(x1, 0);
    x2 = std::min(x2, w_ - 1);
    uint8_t* p = At(x1, y);
    for (int x = x1; x <= x2; ++x, p += 3) {
      p[0] = static_cast<uint8_t>(c.r);
      p[1] = static_cast<uint8_t>(c.g);
      p[2] = static_cast<uint8_t>(c.b);
    }
  }

  void VLine(int x, int y1, int y2, Rgb c) {
    if (y1 > y2) std::swap(y1, y2);
    if (x < 0 || x >= w_ || y2 < 0 || y1 >= h_) return;
    y1 = std::max(y1, 0);
    y2 = std::min(y2, h_ - 1);
    for (int y = y1; y <= y2; ++y) Put(x, y, c);
  }

  // filled_polygon: SDL_gfx's scanline fill in 16.16 fixed point.
  void FilledPolygon(const int* vx, const int* vy, int n, Rgb c) {
    if (n < 3) return;
    int miny = vy[0], maxy = vy[0];
    for (int i = 1; i < n; ++i) {
      if (vy[i] < miny) {
        miny = vy[i];
      } else if (vy[i] > maxy) {
        maxy = vy[i];
      }
    }
    std::vector<int> ints;
    ints.reserve(n);
    // SDL_gfx scans every row from miny to maxy and its hline drops the rows
    // off the surface; each row's spans depend on that row alone, so only
    // the surface's rows are scanned here (CarRacing's field polygon spans
    // about 13 window heights).
    for (int y = std::max(miny, 0), last = std::min(maxy, h_ - 1); y <= last; ++y) {
      ints.clear();
      for (int i = 0; i < n; ++i) {
        const int ind1 = i == 0 ? n - 1 : i - 1, ind2 = i == 0 ? 0 : i;
        int y1 = vy[ind1], y2 = vy[ind2], x1, x2;
        if (y1 < y2) {
          x1 = vx[ind1];
          x2 = vx[ind2];
        } else if (y1 > y2) {
          y2 = vy[ind1];
          y1 = vy[ind2];
          x2 = vx[ind1];
          x1 = vx[ind2];
        } else {
          continue;
        }
        if ((y >= y1 && y < y2) || (y == maxy && y > y1 && y <= y2)) {
          // In 64 bits, wrapped to SDL_gfx's 32 (only far-off-screen polygons overflow).
          const int64_t v = ((int64_t{65536} * (y - y1)) / (y2 - y1)) * (x2 - x1) + int64_t{65536} * x1;
          ints.push_back(static_cast<int32_t>(static_cast<uint32_t>(v)));
        }
      }
      std::sort(ints.begin(), ints.end());
      for (size_t i = 0; i + 1 < ints.size(); i += 2) {
        int xa = static_cast<int32_t>(static_cast<uint32_t>(ints[i]) + 1u);
        xa = (xa >> 16) + ((xa & 32768) >> 15);
        int xb = static_cast<int32_t>(static_cast<uint32_t>(ints[i + 1]) - 1u);
        xb = (xb >> 16) + ((xb & 32768) >> 15);
        HLine(static_cast<int16_t>(xa), static_cast<int16_t>(xb), y, c);
      }
    }
  }

  // aapolygon: SDL_gfx's Wu lines between consecutive vertices (no endpoints).
  void AAPolygon(const int* vx, const int* vy, int n, Rgb c) {
    if (n < 3) return;
    for (int i = 1; i < n; ++i) AALineNoEndpoint(vx[i - 1], vy[i - 1], vx[i], vy[i], c);
    AALineNoEndpoint(vx[n - 1], vy[n - 1], vx[0], vy[0], c);
  }

  // filled_circle: SDL_gfx's midpoint circle of hlines.
  void FilledCircle(int x, int y, int rad, Rgb c) {
    if (rad < 0) return;
    if (rad == 0) return Set(x, y, c);
    if (x + rad < 0 || x - rad >= w_ || y + rad < 0 || y - rad >= h_) return;
    int cx = 0, cy = rad, ocx = -1, ocy = -1;
    int df = 1 - rad, d_e = 3, d_se = -2 * rad + 5;
    do {
      const int xpcx = x + cx, xmcx = x - cx, xpcy = x + cy, xmcy = x - cy;
      if (ocy != cy) {
        if (cy > 0) {
          HLine(xmcx, xpcx, y + cy, c);
          HLine(xmcx, xpcx, y - cy, c);
        } else {
          HLine(xmcx, xpcx, y, c);
        }
        ocy = cy;
      }
      if (ocx != cx) {
        if (cx != cy) {
          if (cx > 0) {
            HLine(xmcy, xpcy, y - cx, c);
            HLine(xmcy, xpcy, y + cx, c);
          } else {
            HLine(xmcy, xpcy, y, c);
          }
        }
        ocx = cx;
      }
      if (df < 0) {
        df += d_e;
        d_e += 2;
        d_se += 2;
      } else {
        df += d_se;
        d_e += 2;
        d_se += 4;
        cy--;
      }
      cx++;
    } while (cx <= cy);
  }

  // aacircle: SDL_gfx's aaellipseColor with rx = ry = rad.
  void AACircle(int x, int y, int rad, Rgb c) {
    if (rad < 0) return;
    if (rad == 0) return VLine(x, y, y, c);
    if (x + rad < 0 || x - rad >= w_ || y + rad < 0 || y - rad >= h_) return;
    const int rx = rad, ry = rad;
    const int a2 = rx * rx, b2 = ry * ry, ds = 2 * a2, dt = 2 * b2;
    const int xc2 = 2 * x, yc2 = 2 * y;
    const double sab = std::sqrt(static_cast<double>(a2 + b2));
    const int dxt = static_cast<int16_t>(std::lrint(static_cast<double>(a2) / sab));
    int t = 0, s = -2 * a2 * ry, d = 0;
    int xp = x, yp = y - ry, xs, ys;
    Set(xp, yp, c);
    Set(xc2 - xp, yp, c);
    Set(xp, yc2 - yp, c);
    Set(xc2 - xp, yc2 - yp, c);
    for (int i = 1; i <= dxt; ++i) {
      xp--;
      d += t - b2;
      if (d >= 0) {
        ys = yp - 1;
      } else if ((d - s - a2) > 0) {
        if ((2 * d - s - a2) >= 0) {
          ys = yp + 1;
        } else {
          ys = yp;
          yp++;
          d -= s + a2;
          s += ds;
        }
      } else {
        yp++;
        ys = yp + 1;
        d -= s + a2;
        s += ds;
      }
      t -= dt;
      const uint32_t weight = CircleWeight(d, s), iweight = 255 - weight;
      const int xx = xc2 - xp;
      BlendWeight(xp, yp, c, iweight);
      BlendWeight(xx, yp, c, iweight);
      BlendWeight(xp, ys, c, weight);
      BlendWeight(xx, ys, c, weight);
      int yy = yc2 - yp;
      BlendWeight(xp, yy, c, iweight);
      BlendWeight(xx, yy, c, iweight);
      yy = yc2 - ys;
      BlendWeight(xp, yy, c, weight);
      BlendWeight(xx, yy, c, weight);
    }
    const int dyt = static_cast<int16_t>(std::lrint(static_cast<double>(b2) / sab));
    for (int i = 1; i <= dyt; ++i) {
      yp++;
      d -= s + a2;
      if (d <= 0) {
        xs = xp + 1;
      } else if ((d + t - b2) < 0) {
        if ((2 * d + t - b2) <= 0) {
          xs = xp - 1;
        } else {
          xs = xp;
          xp--;
          d += t - b2;
          t -= dt;
        }
      } else {
        xp--;
        xs = xp - 1;
        d += t - b2;
        t -= dt;
      }
      s += ds;
      const uint32_t weight = CircleWeight(d, t), iweight = 255 - weight;
      int xx = xc2 - xp;
      const int yy = yc2 - yp;
      BlendWeight(xp, yp, c, iweight);
      BlendWeight(xx, yp, c, iweight);
      BlendWeight(xp, yy, c, iweight);
      BlendWeight(xx, yy, c, iweight);
      xx = xc2 - xs;
      BlendWeight(xs, yp, c, weight);
      BlendWeight(xx, yp, c, weight);
      BlendWeight(xs, yy, c, weight);
      BlendWeight(xx, yy, c, weight);
    }
  }

  // What gymnasium always pairs: gfxdraw.aapolygon then gfxdraw.filled_polygon
  // of the same float points.
  void Polygon(const Vec2* pts, int n, Rgb c) {
    std::vector<int> vx(n), vy(n);
    for (int i = 0; i < n; ++i) {
      vx[i] = GfxInt(pts[i].x);
      vy[i] = GfxInt(pts[i].y);
    }
    AAPolygon(vx.data(), vy.data(), n, c);
    FilledPolygon(vx.data(), vy.data(), n, c);
  }

  // gfxdraw.aacircle then gfxdraw.filled_circle.
  void Disc(int x, int y, int rad, Rgb c) {
    AACircle(x, y, rad, c);
    FilledCircle(x, y, rad, c);
  }

  // --- pygame.draw ---

  // line, width 1: Bresenham, pixels clipped one by one (pygame clips the
  // segment first, which gives the same pixels for the horizontal and
  // vertical lines drawn here).
  void Line(int x1, int y1, int x2, int y2, Rgb c) {
    if (x1 == x2 && y1 == y2) return Set(x1, y1, c);
    const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
    const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
    int err = (dx > dy ? dx : -dy) / 2;
    while (x1 != x2 || y1 != y2) {
      Set(x1, y1, c);
      const int e2 = err;
      if (e2 > -dx) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dy) {
        err += dx;
        y1 += sy;
      }
    }
    Set(x2, y2, c);
  }

  // pygame's clip_line (Liang-Barsky in double, rounded half away from
  // zero): false when the segment misses the surface.
  bool ClipSegment(int& x1, int& y1, int& x2, int& y2) const {
    const int p1 = x1 - x2, p2 = -p1, p3 = y1 - y2, p4 = -p3;
    const int q1 = x1, q2 = w_ - x1, q3 = y1, q4 = h_ - y1;
    double nmax = 0, pmin = 1;
    if ((p1 == 0 && q1 < 0) || (p2 == 0 && q2 < 0) || (p3 == 0 && q3 < 0) || (p4 == 0 && q4 < 0)) return false;
    auto bound = [&](int p, int q, int pn, int qn) {
      if (!p) return;
      const double r1 = static_cast<double>(q) / p, r2 = static_cast<double>(qn) / pn;
      if (p < 0) {
        nmax = std::max(nmax, r1);
        pmin = std::min(pmin, r2);
      } else {
        nmax = std::max(nmax, r2);
        pmin = std::min(pmin, r1);
      }
    };
    bound(p1, q1, p2, q2);
    bound(p3, q3, p4, q4);
    if (nmax > pmin) return false;
    auto round = [](double v) { return static_cast<int>(v < 0 ? v - 0.5 : v + 0.5); };
    const int x0 = x1, y0 = y1;
    x1 = x0 + round(p2 * nmax);
    y1 = y0 + round(p4 * nmax);
    x2 = x0 + round(p2 * pmin);
    y2 = y0 + round(p4 * pmin);
    return true;
  }

  // line(width=1): clip_line, then draw_line.
  void ClippedLine(int x1, int y1, int x2, int y2, Rgb c) {
    if (ClipSegment(x1, y1, x2, y2)) Line(x1, y1, x2, y2, c);
  }

  // line(width > 1), as lines() draws each segment: pygame's
  // draw_line_width (its Bresenham state from the unclipped segment, its
  // thickness across the minor axis, its tail drawn until it leaves the
  // surface).
  void WideLine(int x1, int y1, int x2, int y2, int width, Rgb c) {
    auto sign = [](int x, int y) { return x > 0 ? 1 : (x < 0 ? -1 : y); };
    auto column = [&](int x, int top, int bottom) {
      for (int y = top; y <= bottom; ++y) Set(x, y, c);
    };
    const int end_x = x2, end_y = y2;
    const bool xinc = std::abs(x1 - x2) <= std::abs(y1 - y2);
    const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
    const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
    int err = (dx > dy ? dx : -dy) / 2, e2;
    if (!ClipSegment(x1, y1, x2, y2)) return;
    int left_top = (xinc ? x1 : y1) - (width - 1) / 2, right_bottom = (xinc ? x1 : y1) + width / 2;
    while (sign(x1 - x2, sx) != sx || sign(y1 - y2, sy) != sy) {
      if (xinc) {
        HLine(left_top, right_bottom, y1, c);
      } else {
        column(x1, left_top, right_bottom);
      }
      e2 = err;
      if (e2 > -dx) {
        err -= dy;
        x1 += sx;
        if (xinc) left_top += sx, right_bottom += sx;
      }
      if (e2 < dy) {
        err += dx;
        y1 += sy;
        if (!xinc) left_top += sy, right_bottom += sy;
      }
    }
    if (xinc) {
      while (y1 != end_y && (Inside(left_top, y1) || Inside(right_bottom, y1))) {
        HLine(left_top, right_bottom, y1, c);
        e2 = err;
        if (e2 > -dx) {
          err -= dy;
          x1 += sx;
          left_top += sx;
          right_bottom += sx;
        }
        if (e2 < dy) {
          err += dx;
          y1 += sy;
        }
      }
      HLine(left_top, right_bottom, y1, c);
    } else {
      while (x1 != end_x && (Inside(x1, left_top) || Inside(x1, right_bottom))) {
        column(x1, left_top, right_bottom);
        e2 = err;
        if (e2 > -dx) {
          err -= dy;
          x1 += sx;
        }
        if (e2 < dy) {
          err += dx;
          y1 += sy;
          left_top += sy;
          right_bottom += sy;
        }
      }
      column(x1, left_top, right_bottom);
    }
  }

  // polygon(width=0): pygame 2.6's draw_fillpoly, a scanline fill whose
  // edge intersections are computed in double and truncated.
  void FillPoly(const int* px, const int* py, int n, Rgb c) {
    if (n < 3) return;
    int miny = py[0], maxy = py[0];
    for (int i = 1; i < n; ++i) {
      miny = std::min(miny, py[i]);
      maxy = std::max(maxy, py[i]);
    }
    if (miny == maxy) {
      int minx = px[0], maxx = px[0];
      for (int i = 1; i < n; ++i) {
        minx = std::min(minx, px[i]);
        maxx = std::max(maxx, px[i]);
      }
      return HLine(minx, maxx, miny, c);
    }
    std::vector<int> xs;
    xs.reserve(n);
    for (int y = miny; y <= maxy; ++y) {
      xs.clear();
      for (int i = 0; i < n; ++i) {
        const int ip = i ? i - 1 : n - 1;
        double y1 = py[ip], y2 = py[i], x1, x2;
        if (y1 < y2) {
          x1 = px[ip];
          x2 = px[i];
        } else if (y1 > y2) {
          y2 = py[ip];
          y1 = py[i];
          x2 = px[ip];
          x1 = px[i];
        } else {
          continue;
        }
        const double yd = y;
        if ((yd >= y1 && yd < y2) || (y == maxy && y2 == maxy))
          xs.push_back(static_cast<int>((yd - y1) * (x2 - x1) / (y2 - y1) + x1));
      }
      std::sort(xs.begin(), xs.end());
      for (size_t i = 0; i + 1 < xs.size(); i += 2) HLine(xs[i], xs[i + 1], y, c);
    }
    for (int i = 0; i < n; ++i) {
      const int ip = i ? i - 1 : n - 1;
      const int y = py[i];
      if (miny < y && py[ip] == y && y < maxy) HLine(px[i], px[ip], y, c);
    }
  }

  // circle(width=0) at an integer centre and radius: circle()'s early outs,
  // then draw_circle_filled's midpoint hlines.
  void FillCircle(int x0, int y0, int radius, Rgb c) {
    if (radius < 1) return;
    if (x0 > w_ + radius || x0 < -radius || y0 > h_ + radius || y0 < -radius) return;
    int f = 1 - radius, ddf_x = 0, ddf_y = -2 * radius, x = 0, y = radius;
    while (x < y) {
      if (f >= 0) {
        y--;
        ddf_y += 2;
        f += ddf_y;
      }
      x++;
      ddf_x += 2;
      f += ddf_x + 1;
      if (f >= 0) {
        HLine(x0 - x, x0 + x - 1, y0 + y - 1, c);
        HLine(x0 - x, x0 + x - 1, y0 - y, c);
      }
      HLine(x0 - y, x0 + y - 1, y0 + x - 1, c);
      HLine(x0 - y, x0 + y - 1, y0 - x, c);
    }
  }

  // aalines(closed=False, blend=1): pygame's float Wu line per segment; the
  // points arrive as C floats.
  void AALines(const std::vector<float>& xs, const std::vector<float>& ys, Rgb c) {
    for (size_t i = 1; i < xs.size(); ++i) AALine(xs[i - 1], ys[i - 1], xs[i], ys[i], c);
  }

  // --- the Pendulum arrow: smoothscale + alpha blit ---

  // Blits a black image with the given alpha (w x h, row-major) at (x0, y0):
  // SDL's per-pixel alpha blit, d + ((0 - d) * a >> 8).
  void BlitBlack(const std::vector<uint8_t>& alpha, int w, int h, int x0, int y0) {
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        const int a = alpha[static_cast<size_t>(j) * w + i];
        if (a == 0 || !Inside(x0 + i, y0 + j)) continue;
        uint8_t* p = At(x0 + i, y0 + j);
        for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>(p[k] + (((0 - p[k]) * a) >> 8));
      }
    }
  }

  // --- toy text: Surface.blit of PNG art, pygame.draw.rect's outline ---

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
        uint8_t* d = At(x0 + x, y0 + y);
        if (a == 255) {
          d[0] = s[0], d[1] = s[1], d[2] = s[2];
        } else {
          for (int ch = 0; ch < 3; ++ch) d[ch] = static_cast<uint8_t>(d[ch] + (s[ch] - d[ch]) * a / 255);
        }
      }
  }

  // pygame.draw.rect(surface, color, (x, y, w, h), 1): the 1-pixel outline.
  void RectOutline(int x, int y, int w, int h, Rgb c) {
    for (int i = x; i < x + w; ++i) Set(i, y, c), Set(i, y + h - 1, c);
    for (int j = y; j < y + h; ++j) Set(x, j, c), Set(x + w - 1, j, c);
  }

 private:
  uint8_t* At(int x, int y) { return row0_ + y * row_step_ + static_cast<ptrdiff_t>(x) * 3; }
  void Put(int x, int y, Rgb c) {
    uint8_t* p = At(x, y);
    p[0] = static_cast<uint8_t>(c.r);
    p[1] = static_cast<uint8_t>(c.g);
    p[2] = static_cast<uint8_t>(c.b);
  }

  static uint32_t CircleWeight(int d, int s) {
    float cp = 1.0f;
    if (s != 0) {
      cp = static_cast<float>(std::abs(d)) / static_cast<float>(std::abs(s));
      if (cp > 1.0f) cp = 1.0f;
    }
    return static_cast<uint8_t>(cp * 255);
  }

  // SDL_gfx's Cohen-Sutherland clip (float slope, truncating casts).
  bool ClipLine(int& x1, int& y1, int& x2, int& y2) const {
    constexpr int kLeft = 1, kRight = 2, kBottom = 4, kTop = 8;
    const int left = 0, right = w_ - 1, top = 0, bottom = h_ - 1;
    auto encode = [&](int x, int y) {
      int code = 0;
      if (x < left) {
        code |= kLeft;
      } else if (x > right) {
        code |= kRight;
      }
      if (y < top) {
        code |= kTop;
      } else if (y > bottom) {
        code |= kBottom;
      }
      return code;
    };
    while (true) {
      int code1 = encode(x1, y1), code2 = encode(x2, y2);
      if (!(code1 | code2)) return true;
      if (code1 & code2) return false;
      if (!code1) {
        std::swap(x1, x2);
        std::swap(y1, y2);
        std::swap(code1, code2);
      }
      const float m = x2 != x1 ? static_cast<float>(y2 - y1) / static_cast<float>(x2 - x1) : 1.0f;
      if (code1 & kLeft) {
        y1 += static_cast<int16_t>(static_cast<float>(left - x1) * m);
        x1 = left;
      } else if (code1 & kRight) {
        y1 += static_cast<int16_t>(static_cast<float>(right - x1) * m);
        x1 = right;
      } else if (code1 & kBottom) {
        if (x2 != x1) x1 += static_cast<int16_t>(static_cast<float>(bottom - y1) / m);
        y1 = bottom;
      } else if (code1 & kTop) {
        if (x2 != x1) x1 += static_cast<int16_t>(static_cast<float>(top - y1) / m);
        y1 = top;
      }
    }
  }

  // SDL_gfx's _aalineColor(..., draw_endpoint = 0), as aapolygon uses it.
  void AALineNoEndpoint(int x1, int y1, int x2, int y2, Rgb c) {
    if (!ClipLine(x1, y1, x2, y2)) return;
    int xx0 = x1, yy0 = y1, xx1 = x2, yy1 = y2;
    if (yy0 > yy1) {
      std::swap(yy0, yy1);
      std::swap(xx0, xx1);
    }
    int dx = xx1 - xx0, dy = yy1 - yy0;
    if (dx == 0) {
      if (dy > 0) return VLine(x1, yy0, yy0 + dy, c);
      return Set(x1, y1, c);
    }
    if (dy == 0) return HLine(xx0, xx0 + dx, y1, c);
    int xdir = 1;
    if (dx < 0) {
      xdir = -1;
      dx = -dx;
    }
    uint32_t erracc = 0;
    Set(x1, y1, c);
    if (dy > dx) {
      const uint32_t erradj = static_cast<uint32_t>((dx << 16) / dy) << 16;
      int x0pxdir = xx0 + xdir;
      while (--dy) {
        const uint32_t erracctmp = erracc;
        erracc += erradj;
        if (erracc <= erracctmp) {
          xx0 = x0pxdir;
          x0pxdir += xdir;
        }
        yy0++;
        const uint32_t wgt = (erracc >> 24) & 255;
        BlendWeight(xx0, yy0, c, 255 - wgt);
        BlendWeight(x0pxdir, yy0, c, wgt);
      }
    } else {
      const uint32_t erradj = static_cast<uint32_t>((dy << 16) / dx) << 16;
      int y0p1 = yy0 + 1;
      while (--dx) {
        const uint32_t erracctmp = erracc;
        erracc += erradj;
        if (erracc <= erracctmp) {
          yy0 = y0p1;
          y0p1++;
        }
        xx0 += xdir;
        const uint32_t wgt = (erracc >> 24) & 255;
        BlendWeight(xx0, yy0, c, 255 - wgt);
        BlendWeight(xx0, y0p1, c, wgt);
      }
    }
  }

  // pygame's get_antialiased_color + set_at (blend=1): in float, truncated.
  void AAPixel(int x, int y, Rgb c, float brightness) {
    if (!Inside(x, y)) return;
    uint8_t* p = At(x, y);
    const int col[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; ++k) {
      const float v = brightness * static_cast<float>(col[k]) + (1 - brightness) * static_cast<float>(p[k]);
      p[k] = static_cast<uint8_t>(static_cast<int>(v));
    }
  }

  // pygame's draw_aaline (draw.c), float for float.
  void AALine(float from_x, float from_y, float to_x, float to_y, Rgb c) {
    float dx = to_x - from_x, dy = to_y - from_y;
    if (std::fabs(dx) < 0.0001 && std::fabs(dy) < 0.0001) {
      const int px = static_cast<int>(std::floor(from_x + 0.5)), py = static_cast<int>(std::floor(from_y + 0.5));
      return AAPixel(px, py, c, 1);
    }
    float clip_left = -1.0f, clip_right = clip_left + static_cast<float>(w_) + 1.0f;
    float clip_top = -1.0f, clip_bottom = clip_top + static_cast<float>(h_) + 1.0f;
    const bool steep = std::fabs(dx) < std::fabs(dy);
    if (steep) {
      std::swap(from_x, from_y);
      std::swap(to_x, to_y);
      std::swap(dx, dy);
      std::swap(clip_left, clip_top);
      std::swap(clip_right, clip_bottom);
    }
    if (dx < 0) {
      std::swap(from_x, to_x);
      std::swap(from_y, to_y);
      dx = -dx;
      dy = -dy;
    }
    if (to_x <= clip_left || from_x >= clip_right) return;
    const float gradient = dy / dx;
    if (from_x < clip_left) {
      from_y += gradient * (clip_left - from_x);
      from_x = clip_left;
    }
    if (to_x > clip_right) {
      to_y += gradient * (clip_right - to_x);
      to_x = clip_right;
    }
    if (gradient > 0.0f) {
      if (to_y <= clip_top || from_y >= clip_bottom) return;
      if (from_y < clip_top) {
        from_x += (clip_top - from_y) / gradient;
        from_y = clip_top;
      }
      if (to_y > clip_bottom) {
        to_x += (clip_bottom - to_y) / gradient;
        to_y = clip_bottom;
      }
    } else {
      if (from_y <= clip_top || to_y >= clip_bottom) return;
      if (to_y < clip_top) {
        to_x += (clip_top - to_y) / gradient;
        to_y = clip_top;
      }
      if (from_y > clip_bottom) {
        from_x += (clip_bottom - from_y) / gradient;
        from_y = clip_bottom;
      }
    }
    from_y += 1.0f;
    to_y += 1.0f;
    auto plot = [&](int px, int py, float b) {
      if (steep) std::swap(px, py);
      AAPixel(px, py, c, b);
    };
    // Endpoints: pixel (x, y) of the unswapped frame is (x_major, y_minor).
    int x_pixel_start = static_cast<int>(from_x);
    float intersect_y = from_y + gradient * static_cast<float>(x_pixel_start - from_x);
    float y_endpoint = intersect_y;
    if (to_x > clip_left + 1.0f) {
      const float x_gap = static_cast<float>(1 + x_pixel_start) - from_x;
      float brightness = y_endpoint - static_cast<float>(static_cast<int>(y_endpoint));
      const int minor = static_cast<int>(y_endpoint);
      if (static_cast<float>(minor) < y_endpoint) plot(x_pixel_start, minor, brightness * x_gap);
      brightness = 1 - brightness;
      plot(x_pixel_start, minor - 1, brightness * x_gap);
      intersect_y += gradient;
      x_pixel_start++;
    }
    const int x_pixel_end = static_cast<int>(std::ceil(to_x));
    if (from_x < clip_right - 1.0f) {
      y_endpoint = to_y + gradient * static_cast<float>(x_pixel_end - to_x);
      const float x_gap = static_cast<float>(1 - x_pixel_end) + to_x;
      float brightness = y_endpoint - static_cast<float>(static_cast<int>(y_endpoint));
      const int minor = static_cast<int>(y_endpoint);
      if (static_cast<float>(minor) < y_endpoint) plot(x_pixel_end, minor, brightness * x_gap);
      brightness = 1 - brightness;
      plot(x_pixel_end, minor - 1, brightness * x_gap);
    }
    for (int x = x_pixel_start; x < x_pixel_end; ++x) {
      const int y = static_cast<int>(intersect_y);
      float brightness = 1 - intersect_y + static_cast<float>(y);
      plot(x, y - 1, brightness);
      if (static_cast<float>(y) < intersect_y) {
        brightness = 1 - brightness;
        plot(x, y, brightness);
      }
      intersect_y += gradient;
    }
  }

  uint8_t* rgb_;
  int w_, h_;
  uint8_t* row0_;       // surface row 0
  ptrdiff_t row_step_;  // bytes from a surface row to the next
};

}  // namespace envpool::draw

#endif  // ENVPOOL_DRAW_CANVAS_H_
