// CarRacing's frames as gymnasium's _render draws them with pygame: the road
// (gfxdraw.aapolygon + filled_polygon, cpp/draw's ports), the car
// (pygame.draw.polygon: draw.c's draw_fillpoly, ported here), a vertical
// flip, the indicators (draw.polygon again), the score (SDL_ttf's layout of
// pygame's default font, car_racing_font.h) and transform.smoothscale
// (cpp/draw's port of pygame's SSE shrink filters).
#ifndef ENVPOOL_BOX2D_CAR_RACING_DRAW_H_
#define ENVPOOL_BOX2D_CAR_RACING_DRAW_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cpp/box2d/car_dynamics.h"
#include "cpp/box2d/car_racing_font.h"
#include "cpp/draw/canvas.h"
#include "cpp/draw/transform.h"

namespace envpool::box2d::car_racing {

using draw::PyInt;
using draw::Rgb;
using draw::RotateRad;
using draw::Vec2;

// pygame.transform.smoothscale of an RGB image to a smaller one (both
// sides shrink), channel by channel as pygame's filters work.
inline void Smoothscale(const uint8_t* src, int sw, int sh, uint8_t* dst, int dw, int dh) {
  const std::vector<uint8_t> out = draw::ShrinkChannels<3>(src, sw, sh, dw, dh);
  std::copy(out.begin(), out.end(), dst);
}

// The 1000x800 window surface of gymnasium's _render. Before FlipVertically
// it is drawn in pygame's (pre-flip) surface coordinates through
// the drawing room's Canvas (Rows::kFlipped), which stores surface row y at image row
// h - 1 - y: the buffer then already holds the flipped surface, and the
// indicators and score, drawn after gymnasium's flip, go in unflipped.
class Frame {
 public:
  static constexpr double kScale = 6.0, kZoom = 2.7;
  static constexpr double kGrassDim = 2000 / kScale / 20.0, kTrackWidth = 40 / kScale, kTrackDetailStep = 21 / kScale;

  Frame(uint8_t* rgb, int w, int h) : rgb_(rgb), w_(w), h_(h), canvas_(rgb, w, h) {}

  void Clear() { std::memset(rgb_, 0, static_cast<size_t>(w_) * h_ * 3); }

  // _draw_colored_polygon: gfxdraw.aapolygon + filled_polygon, skipped
  // (clip) when no vertex lies in the window grown by MAX_SHAPE_DIM.
  void ColoredPolygon(const Vec2* poly, int n, const std::array<double, 3>& color, double zoom, Vec2 trans,
                      double angle, bool clip) {
    static const double kMaxShapeDim =
        std::max({kGrassDim, kTrackWidth, kTrackDetailStep}) * std::sqrt(2.0) * kZoom * kScale;
    std::array<Vec2, 8> pts;
    bool inside = !clip;
    for (int i = 0; i < n; ++i) {
      const Vec2 r = RotateRad(poly[i], angle);
      pts[i] = {r.x * zoom + trans.x, r.y * zoom + trans.y};
      inside = inside || ((-kMaxShapeDim <= pts[i].x && pts[i].x <= w_ + kMaxShapeDim) &&
                          (-kMaxShapeDim <= pts[i].y && pts[i].y <= h_ + kMaxShapeDim));
    }
    if (!inside) return;
    canvas_.Polygon(pts.data(), n, {PyInt(color[0]), PyInt(color[1]), PyInt(color[2])});
  }

  // Car.draw: the wheels then the hull, each body's fixtures in Box2D's
  // list order, and on each wheel its white stripe.
  void DrawCar(const Car& car, double zoom, Vec2 trans, double angle, bool draw_particles) {
    if (draw_particles) {
      for (const Particle& p : car.particles) {
        std::vector<int> xs, ys;
        for (const auto& c : p.poly) {
          const Vec2 r = RotateRad({c[0], c[1]}, angle);
          xs.push_back(PyInt(r.x * zoom + trans.x));
          ys.push_back(PyInt(r.y * zoom + trans.y));
        }
        const Rgb color = p.grass ? Rgb{102, 102, 0} : Rgb{0, 0, 0};  // MUD_COLOR, WHEEL_COLOR
        for (size_t i = 1; i < xs.size(); ++i) canvas_.WideLine(xs[i - 1], ys[i - 1], xs[i], ys[i], 2, color);
      }
    }
    auto to_screen = [&](b2Vec2 p) {
      const Vec2 r = RotateRad({p.x, p.y}, angle);
      return Vec2{r.x * zoom + trans.x, r.y * zoom + trans.y};
    };
    auto draw_body = [&](const b2Body* body, Rgb color, const Wheel* wheel) {
      const b2Transform& xf = body->GetTransform();
      for (const b2Fixture* f = body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
        const auto* shape = static_cast<const b2PolygonShape*>(f->GetShape());
        std::array<Vec2, b2_maxPolygonVertices> path;
        const int n = shape->m_count;
        for (int i = 0; i < n; ++i) path[i] = to_screen(b2Mul(xf, shape->m_vertices[i]));
        FillPoly(path.data(), n, color, false);
        if (wheel == nullptr) continue;
        const double a1 = wheel->phase, a2 = wheel->phase + 1.2;
        const double s1 = std::sin(a1), s2 = std::sin(a2);
        double c1 = std::cos(a1), c2 = std::cos(a2);
        if (s1 > 0 && s2 > 0) continue;
        if (s1 > 0) c1 = Sign(c1);
        if (s2 > 0) c2 = Sign(c2);
        const double white[4][2] = {{-kWheelW * kSize, +kWheelR * c1 * kSize},
                                    {+kWheelW * kSize, +kWheelR * c1 * kSize},
                                    {+kWheelW * kSize, +kWheelR * c2 * kSize},
                                    {-kWheelW * kSize, +kWheelR * c2 * kSize}};
        std::array<Vec2, 4> wp;
        for (int i = 0; i < 4; ++i)
          wp[i] = to_screen(b2Mul(xf, b2Vec2(static_cast<float>(white[i][0]), static_cast<float>(white[i][1]))));
        FillPoly(wp.data(), 4, {77, 77, 77}, false);
      }
    };
    for (const Wheel& w : car.wheels) draw_body(w.body, {0, 0, 0}, &w);
    draw_body(car.hull, {204, 0, 0}, nullptr);  // (0.8, 0, 0) * 255, truncated
  }

  // (Canvas has drawn the surface flipped already.)
  void FlipVertically() {}

  // _render_indicators(W, H), after the flip.
  void Indicators(const Car& car) {
    const double W = w_, H = h_, s = W / 40.0, h = H / 40.0;
    const Vec2 black[4] = {{W, H}, {W, H - 5 * h}, {0, H - 5 * h}, {0, H}};
    FillPoly(black, 4, {0, 0, 0}, true);
    auto vertical_ind = [&](double place, double val) {
      return std::array<Vec2, 4>{Vec2{place * s, H - (h + h * val)}, Vec2{(place + 1) * s, H - (h + h * val)},
                                 Vec2{(place + 1) * s, H - h}, Vec2{(place + 0) * s, H - h}};
    };
    auto horiz_ind = [&](double place, double val) {
      return std::array<Vec2, 4>{Vec2{(place + 0) * s, H - 4 * h}, Vec2{(place + val) * s, H - 4 * h},
                                 Vec2{(place + val) * s, H - 2 * h}, Vec2{(place + 0) * s, H - 2 * h}};
    };
    auto render_if_min = [&](double value, const std::array<Vec2, 4>& pts, Rgb color) {
      if (std::fabs(value) > 1e-4) FillPoly(pts.data(), 4, color, true);
    };
    const b2Vec2 v = car.hull->GetLinearVelocity();
    const double true_speed = std::sqrt(static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y);
    render_if_min(true_speed, vertical_ind(5, 0.02 * true_speed), {255, 255, 255});
    const Rgb abs_colors[4] = {{0, 0, 255}, {0, 0, 255}, {51, 0, 255}, {51, 0, 255}};
    for (int i = 0; i < 4; ++i)
      render_if_min(car.wheels[i].omega, vertical_ind(7 + i, 0.01 * car.wheels[i].omega), abs_colors[i]);
    const double steer = car.wheels[0].joint->GetJointAngle();
    render_if_min(steer, horiz_ind(20, -10.0 * steer), {0, 255, 0});
    const double spin = car.hull->GetAngularVelocity();
    render_if_min(spin, horiz_ind(30, -0.8 * spin), {255, 0, 0});
  }

  // font.render(text, True, white, black) blitted with its centre at
  // (60, H - H * 2.5 / 40), after the flip. Characters the font table does
  // not hold (only "nan"/"inf" could appear) are skipped.
  void RewardText(const std::string& text) {
    struct Placed {
      int x, c;
    };
    std::vector<Placed> placed;
    std::vector<int> idx;
    for (char ch : text) {
      const char* p = std::strchr(font::kChars, ch);
      if (ch != '\0' && p != nullptr) idx.push_back(static_cast<int>(p - font::kChars));
    }
    int x = 0, minx = 0, maxx = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      const int c = idx[i];
      int adv = font::kAdvance[c], off = 0;
      if (i + 1 < idx.size()) adv += font::kKern[c][idx[i + 1]][0];
      if (i > 0) {
        adv += font::kKern[idx[i - 1]][c][1];
        off += font::kKern[idx[i - 1]][c][2];
      }
      const int gx = FtFloor(x + off) + font::kLeft[c];
      x += adv;
      placed.push_back({gx, c});
      minx = std::min(minx, gx);
      maxx = std::max(maxx, gx + font::kWidth[c]);
    }
    maxx = std::max(maxx, FtFloor(x));
    const int tw = maxx - minx, th = font::kHeight;
    std::vector<uint8_t> text_img(static_cast<size_t>(tw) * th, 0);
    for (const Placed& p : placed) {
      const int gw = font::kWidth[p.c];
      const uint8_t* bm = font::kBitmaps + font::kOffset[p.c];
      for (int r = 0; r < th; ++r)
        for (int k = 0; k < gw; ++k) text_img[static_cast<size_t>(r) * tw + (p.x - minx + k)] |= bm[r * gw + k];
    }
    // pygame's Rect.center = (cx, cy): x = cx - w / 2, y = cy - h / 2 (C division).
    const int x0 = 60 - tw / 2, y0 = static_cast<int>(h_ - h_ * 2.5 / 40.0) - th / 2;
    for (int r = 0; r < th; ++r) {
      const int yy = y0 + r;
      if (yy < 0 || yy >= h_) continue;
      for (int k = 0; k < tw; ++k) {
        const int xx = x0 + k;
        if (xx < 0 || xx >= w_) continue;
        uint8_t* p = rgb_ + (static_cast<size_t>(yy) * w_ + xx) * 3;
        p[0] = p[1] = p[2] = text_img[static_cast<size_t>(r) * tw + k];
      }
    }
  }

 private:
  static int FtFloor(int x) { return (x & -64) / 64; }

  // pygame.draw.polygon (filled) of float points (truncated to int).
  // flipped: the points are in post-flip coordinates, where only the
  // indicators' axis-aligned rectangles are drawn: their fill is the full
  // rectangle, the same set of pixels from either side of the flip.
  void FillPoly(const Vec2* pts, int n, Rgb color, bool flipped) {
    std::array<int, b2_maxPolygonVertices> px, py;
    for (int i = 0; i < n; ++i) {
      px[i] = PyInt(pts[i].x);
      py[i] = flipped ? h_ - 1 - PyInt(pts[i].y) : PyInt(pts[i].y);
    }
    canvas_.FillPoly(px.data(), py.data(), n, color);
  }

  uint8_t* rgb_;
  int w_, h_;
  draw::Canvas canvas_;
};

}  // namespace envpool::box2d::car_racing

#endif  // ENVPOOL_BOX2D_CAR_RACING_DRAW_H_
