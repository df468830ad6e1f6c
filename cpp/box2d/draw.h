// What the Box2D renders share: gymnasium draws each fixture from pybox2d's
// float32 arithmetic (trans * v * SCALE: b2Mul in float32, then a float32
// product) with pygame, whose routines the drawing room ports (cpp/draw/canvas.h).
#ifndef ENVPOOL_BOX2D_DRAW_H_
#define ENVPOOL_BOX2D_DRAW_H_

#include <Box2D/Box2D.h>

#include <vector>

#include "cpp/draw/canvas.h"

namespace envpool::box2d {

using draw::Canvas;
using draw::GfxInt;
using draw::PyInt;
using draw::Rgb;

// A fixture's polygon in surface pixels, as pybox2d hands it to pygame.
struct Path {
  std::vector<float> x, y;
};

inline Path FixturePath(const b2Fixture* f, float scale) {
  const auto* poly = static_cast<const b2PolygonShape*>(f->GetShape());
  const b2Transform& t = f->GetBody()->GetTransform();
  Path p;
  for (int i = 0; i < poly->m_count; ++i) {
    const b2Vec2 v = b2Mul(t, poly->m_vertices[i]);
    p.x.push_back(v.x * scale);
    p.y.push_back(v.y * scale);
  }
  return p;
}

// pygame.draw.polygon(width=0): the points truncated to int.
inline void FillPath(Canvas& cv, const Path& p, Rgb c) {
  const int n = static_cast<int>(p.x.size());
  std::vector<int> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = PyInt(p.x[i]), y[i] = PyInt(p.y[i]);
  cv.FillPoly(x.data(), y.data(), n, c);
}

// gfxdraw.aapolygon: the points truncated to Sint16.
inline void AAPolygonPath(Canvas& cv, const Path& p, Rgb c) {
  const int n = static_cast<int>(p.x.size());
  std::vector<int> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = GfxInt(p.x[i]), y[i] = GfxInt(p.y[i]);
  cv.AAPolygon(x.data(), y.data(), n, c);
}

// pygame.draw.aalines: the points as C floats; closed adds the last-to-first
// segment (for more than 2 points).
inline void AALinesPath(Canvas& cv, const Path& p, Rgb c, bool closed) {
  if (!closed || p.x.size() <= 2) return cv.AALines(p.x, p.y, c);
  Path q = p;
  q.x.push_back(p.x[0]);
  q.y.push_back(p.y[0]);
  cv.AALines(q.x, q.y, c);
}

// pygame.draw.circle(center=trans * pos * SCALE, radius=radius * SCALE).
inline void CircleFixture(Canvas& cv, const b2Fixture* f, float scale, Rgb c) {
  const auto* circle = static_cast<const b2CircleShape*>(f->GetShape());
  const b2Vec2 v = b2Mul(f->GetBody()->GetTransform(), circle->m_p);
  cv.FillCircle(PyInt(v.x * scale), PyInt(v.y * scale), PyInt(static_cast<double>(circle->m_radius) * scale), c);
}

}  // namespace envpool::box2d

#endif  // ENVPOOL_BOX2D_DRAW_H_
