// BipedalWalker: gymnasium 1.4's BipedalWalker (normal and hardcore terrain),
// on the Box2D library gymnasium's box2d wheel compiles. As gymnasium, one
// Box2D world lives as long as the env: each reset destroys the previous
// episode's bodies in gymnasium's order and builds the new ones in the same
// world (its broad-phase tree carries over, and with it the order in which
// contacts are found and solved). Every float operation follows gymnasium's:
// Box2D in float32, observation and shaping in float64 from Box2D's float32
// values, the torques and the energy cost in float32 (NumPy 2 keeps the
// float32 action's type), each Python float rounded to float32 where pybox2d
// hands it to Box2D.
#ifndef ENVPOOL_BOX2D_BIPEDAL_WALKER_H_
#define ENVPOOL_BOX2D_BIPEDAL_WALKER_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/box2d/common.h"
#include "cpp/box2d/draw.h"

namespace envpool::box2d {

class BipedalWalker : public Box2DEnv {
 public:
  static constexpr double kFps = 50, kScale = 30.0, kMotorsTorque = 80, kSpeedHip = 4, kSpeedKnee = 6;
  static constexpr double kLidarRange = 160 / kScale, kInitialRandom = 5;
  static constexpr double kLegDown = -8 / kScale, kLegW = 8 / kScale, kLegH = 34 / kScale;
  static constexpr double kViewportW = 600, kViewportH = 400;
  static constexpr double kTerrainStep = 14 / kScale, kTerrainHeight = kViewportH / kScale / 4;
  static constexpr int kTerrainLength = 200, kTerrainGrass = 10, kTerrainStartpad = 20;
  static constexpr double kFriction = 2.5;
  // Reset's most draws: per terrain step at most 6 (a stair's 3, a new
  // counter and state), 10 clouds of 11, the initial force.
  static constexpr int kMaxDraws = kTerrainLength * 6 + 10 * 11 + 1;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{1600}},
            {"hardcore", false},
            {"report_draws", false},
            {"render_advances_each_call", false}};
  }

  struct Spec : EnvSpec {
    static constexpr double kPi = std::numbers::pi;
    StateKey<float> obs =
        AddState<float>("obs", {24}, {-kPi, -5.0, -5.0, -5.0, -kPi, -5.0, -kPi, -5.0, -0.0, -kPi, -5.0, -kPi,
                                      -5.0, -0.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0},
                        {kPi, 5.0, 5.0, 5.0, kPi, 5.0, kPi, 5.0, 5.0, kPi, 5.0, kPi,
                         5.0, 5.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0});
    ActionKey<float> action = AddAction<float>("action", {4}, {-1.0, -1.0, -1.0, -1.0}, {1.0, 1.0, 1.0, 1.0});
    DrawKeys draws;
    explicit Spec(const Config& c) { draws = AddDrawKeys(*this, c, kMaxDraws); }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit BipedalWalker(const Config& c)
      : spec_(c),
        hardcore_(c.Get<bool>("hardcore")),
        advance_each_render_(c.Get<bool>("render_advances_each_call")),
        world_(std::make_unique<b2World>(b2Vec2(0.0f, -10.0f))) {
    SetDrawCapacity(kMaxDraws, c.Get<bool>("report_draws"));
  }

  void Reset(const StateRow& out) override {
    ClearDraws();
    new_frame_ = true;
    Box2DGuard([&] { NewEpisode(out); });
  }

  // gymnasium's reset.
  void NewEpisode(const StateRow& out) {
    Destroy();
    listener_ = std::make_unique<Listener>(this);
    world_->SetContactListener(listener_.get());
    game_over_ = false;
    has_prev_shaping_ = false;
    GenerateTerrain();
    GenerateClouds();
    const double init_x = kTerrainStep * kTerrainStartpad / 2, init_y = kTerrainHeight + 2 * kLegH;
    hull_ = CreateDynamic(init_x, init_y, 0.0);
    {
      constexpr int kPoly[5][2] = {{-30, 9}, {6, 9}, {34, 1}, {34, -8}, {-30, -8}};
      b2Vec2 v[5];
      for (int i = 0; i < 5; ++i) v[i] = Vec(kPoly[i][0] / kScale, kPoly[i][1] / kScale);
      b2PolygonShape poly;
      poly.Set(v, 5);
      b2FixtureDef f = BodyFixture(&poly, 5.0);
      f.friction = 0.1f;
      hull_->CreateFixture(&f);
    }
    hull_->ApplyForceToCenter(Vec(Uniform(-kInitialRandom, kInitialRandom), 0), true);
    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : 1;
      b2Body* leg = CreateDynamic(init_x, init_y - kLegH / 2 - kLegDown, i * 0.05);
      b2PolygonShape leg_box;
      leg_box.SetAsBox(static_cast<float>(kLegW / 2), static_cast<float>(kLegH / 2));
      b2FixtureDef lf = BodyFixture(&leg_box, 1.0);
      leg->CreateFixture(&lf);
      legs_[2 * k] = leg;
      joints_[2 * k] = Joint(hull_, leg, 0, kLegDown, 0, kLegH / 2, i, -0.8, 1.1);
      b2Body* lower = CreateDynamic(init_x, init_y - kLegH * 3 / 2 - kLegDown, i * 0.05);
      b2PolygonShape lower_box;
      lower_box.SetAsBox(static_cast<float>(0.8 * kLegW / 2), static_cast<float>(kLegH / 2));
      b2FixtureDef wf = BodyFixture(&lower_box, 1.0);
      lower->CreateFixture(&wf);
      legs_[2 * k + 1] = lower;
      joints_[2 * k + 1] = Joint(leg, lower, 0, -kLegH / 2, 0, kLegH / 2, 1, -1.6, -0.1);
    }
    leg_contact_ = {false, false};
    scroll_ = 0.0;
    lidar_render_ = 0;
    // gymnasium's reset returns the observation of a step with zero torques.
    const float zero[4] = {0, 0, 0, 0};
    Advance(zero, out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const float* a = action[spec_.action];
    // A NaN motor torque makes Box2D's solver fail (gymnasium's pybox2d
    // raises from inside the step): refuse it before the world changes.
    for (int j = 0; j < 4; ++j)
      if (std::isnan(a[j])) throw std::invalid_argument("BipedalWalker: action[" + std::to_string(j) + "] is NaN");
    ClearDraws();
    new_frame_ = true;
    return Box2DGuard([&] { return Advance(a, out); });
  }

  std::array<int, 2> RenderSize() const override {
    return {static_cast<int>(kViewportH), static_cast<int>(kViewportW)};
  }

  // gymnasium's render(): a surface as wide as the scrolled view, of which
  // the frame is the last VIEWPORT_W columns. It also advances the lidar
  // ray it shows (one a frame), as here.
  void Render(uint8_t* rgb) override {
    // Before the first reset there is no terrain to draw (gymnasium's
    // render raises an AttributeError then).
    if (hull_ == nullptr) throw std::runtime_error("BipedalWalker render: no terrain yet (reset the env first)");
    const double s = scroll_ * kScale;
    const int width = PyInt(kViewportW + std::max(0.0, scroll_) * kScale), height = static_cast<int>(kViewportH);
    std::vector<uint8_t> surf(static_cast<size_t>(width) * height * 3, 0);
    Canvas cv(surf.data(), width, height);
    {
      const double xs[4] = {s, s + kViewportW, s + kViewportW, s}, ys[4] = {0, 0, kViewportH, kViewportH};
      int px[4], py[4];
      for (int k = 0; k < 4; ++k) px[k] = PyInt(xs[k]), py[k] = PyInt(ys[k]);
      cv.FillPoly(px, py, 4, {215, 215, 255});
    }
    for (const auto& cloud : clouds_) {
      double x1 = cloud[0][0], x2 = cloud[0][0];
      for (const auto& p : cloud) x1 = std::min(x1, p[0]), x2 = std::max(x2, p[0]);
      if (x2 < scroll_ / 2 || x1 > scroll_ / 2 + kViewportW / kScale) continue;
      int px[5], py[5], gx[5], gy[5];
      for (int k = 0; k < 5; ++k) {
        const double x = cloud[k][0] * kScale + scroll_ * kScale / 2, y = cloud[k][1] * kScale;
        px[k] = PyInt(x), py[k] = PyInt(y), gx[k] = GfxInt(x), gy[k] = GfxInt(y);
      }
      cv.FillPoly(px, py, 5, {255, 255, 255});
      cv.AAPolygon(gx, gy, 5, {255, 255, 255});
    }
    for (int i = 0; i < kTerrainLength - 1; ++i) {
      if (terrain_x_[i + 1] < scroll_ || terrain_x_[i] > scroll_ + kViewportW / kScale) continue;
      const double xs[4] = {terrain_x_[i], terrain_x_[i + 1], terrain_x_[i + 1], terrain_x_[i]};
      const double ys[4] = {terrain_y_[i], terrain_y_[i + 1], 0, 0};
      int px[4], py[4], gx[4], gy[4];
      for (int k = 0; k < 4; ++k) {
        const double x = xs[k] * kScale, y = ys[k] * kScale;
        px[k] = PyInt(x), py[k] = PyInt(y), gx[k] = GfxInt(x), gy[k] = GfxInt(y);
      }
      cv.FillPoly(px, py, 4, {102, 153, 76});
      cv.AAPolygon(gx, gy, 4, {102, 153, 76});
    }
    // gymnasium moves the lidar ray at every render() call; EnvPool's
    // render() changes nothing, so a frame drawn again without a step
    // keeps its ray (render_advances_each_call: gymnasium's way).
    if (new_frame_ || advance_each_render_) lidar_render_ = (lidar_render_ + 1) % 100;
    new_frame_ = false;
    const int i = lidar_render_;
    if (i < 20) {
      const Lidar& l = lidar_[i < 10 ? i : 20 - i - 1];
      cv.ClippedLine(PyInt(lidar_p1_.x * kScale), PyInt(lidar_p1_.y * kScale), PyInt(l.p2x * kScale),
                     PyInt(l.p2y * kScale), {255, 0, 0});
    }
    // drawlist: the terrain (gymnasium's reversed list), the legs, the hull.
    for (size_t k = 0; k < terrain_.size(); ++k) {
      const b2Fixture* f = terrain_[k]->GetFixtureList();
      if (f->GetType() == b2Shape::e_edge) {
        // edge i of the terrain, i counted before the list was reversed
        const int e = static_cast<int>(terrain_.size() - 1 - k) - static_cast<int>(obstacles_.size());
        const auto* edge = static_cast<const b2EdgeShape*>(f->GetShape());
        const b2Transform& t = terrain_[k]->GetTransform();
        const b2Vec2 a = b2Mul(t, edge->m_vertex1), b = b2Mul(t, edge->m_vertex2);
        const float sc = static_cast<float>(kScale);
        cv.AALines({a.x * sc, b.x * sc}, {a.y * sc, b.y * sc}, {76, e % 2 == 0 ? 255 : 204, 76});
      } else {
        DrawPolygon(cv, f, {255, 255, 255}, {153, 153, 153});
      }
    }
    for (int k = 0; k < 4; ++k) {
      const int s = k < 2 ? -1 : 1;
      DrawPolygon(cv, legs_[k]->GetFixtureList(), {153 - s * 25, 76 - s * 25, 127 - s * 25},
                  {102 - s * 25, 51 - s * 25, 76 - s * 25});
    }
    DrawPolygon(cv, hull_->GetFixtureList(), {127, 51, 229}, {76, 76, 127});
    const double flagy1 = kTerrainHeight * kScale, flagy2 = flagy1 + 50, x = kTerrainStep * 3 * kScale;
    cv.AALines({static_cast<float>(x), static_cast<float>(x)}, {static_cast<float>(flagy1), static_cast<float>(flagy2)},
               {0, 0, 0});
    const double fx[3] = {x, x, x + 25}, fy[3] = {flagy2, flagy2 - 10, flagy2 - 5};
    int px[4], py[4];
    for (int k = 0; k < 3; ++k) px[k] = PyInt(fx[k]), py[k] = PyInt(fy[k]);
    cv.FillPoly(px, py, 3, {230, 51, 0});
    px[3] = px[0], py[3] = py[0];
    for (int k = 1; k < 4; ++k) cv.ClippedLine(px[k - 1], py[k - 1], px[k], py[k], {0, 0, 0});
    // The frame: the surface's last VIEWPORT_W columns.
    const int w = static_cast<int>(kViewportW);
    for (int y = 0; y < height; ++y)
      std::copy_n(surf.data() + (static_cast<size_t>(y) * width + (width - w)) * 3, static_cast<size_t>(w) * 3,
                  rgb + static_cast<size_t>(y) * w * 3);
  }

 private:
  // polygon(color1), gfxdraw.aapolygon(color1), then the outline closed by
  // hand (path + [path[0]]): polygon(color2, width=1), aapolygon(color2).
  static void DrawPolygon(Canvas& cv, const b2Fixture* f, Rgb c1, Rgb c2) {
    Path path = FixturePath(f, static_cast<float>(kScale));
    FillPath(cv, path, c1);
    AAPolygonPath(cv, path, c1);
    path.x.push_back(path.x[0]);
    path.y.push_back(path.y[0]);
    const int n = static_cast<int>(path.x.size());
    for (int k = 1; k <= n; ++k) {
      const int a = k - 1, b = k % n;  // lines(closed=True): the last segment back to the first point
      cv.ClippedLine(PyInt(path.x[a]), PyInt(path.y[a]), PyInt(path.x[b]), PyInt(path.y[b]), c2);
    }
    AAPolygonPath(cv, path, c2);
  }

  struct Listener : b2ContactListener {
    explicit Listener(BipedalWalker* env) : env(env) {}
    void BeginContact(b2Contact* c) override {
      const b2Body* a = c->GetFixtureA()->GetBody();
      const b2Body* b = c->GetFixtureB()->GetBody();
      if (env->hull_ == a || env->hull_ == b) env->game_over_ = true;
      Legs(a, b, true);
    }
    void EndContact(b2Contact* c) override { Legs(c->GetFixtureA()->GetBody(), c->GetFixtureB()->GetBody(), false); }
    void Legs(const b2Body* a, const b2Body* b, bool touching) {
      for (int i = 0; i < 2; ++i)
        if (env->legs_[2 * i + 1] == a || env->legs_[2 * i + 1] == b) env->leg_contact_[i] = touching;
    }
    BipedalWalker* env;
  };

  struct Lidar : b2RayCastCallback {
    float fraction = 1.0f;
    double p2x = 0, p2y = 0;  // the ray's end, then its last hit (render)
    float ReportFixture(b2Fixture* fixture, const b2Vec2& point, const b2Vec2&, float f) override {
      if ((fixture->GetFilterData().categoryBits & 1) == 0) return -1;
      p2x = point.x;
      p2y = point.y;
      fraction = f;
      return f;
    }
  };

  static b2Vec2 Vec(double x, double y) { return b2Vec2(static_cast<float>(x), static_cast<float>(y)); }

  b2Body* CreateDynamic(double x, double y, double angle) {
    b2BodyDef d;
    d.type = b2_dynamicBody;
    d.position = Vec(x, y);
    d.angle = static_cast<float>(angle);
    return world_->CreateBody(&d);
  }
  // HULL_FD / LEG_FD / LOWER_FD: collide only with the ground.
  static b2FixtureDef BodyFixture(const b2Shape* shape, double density) {
    b2FixtureDef f;
    f.shape = shape;
    f.density = static_cast<float>(density);
    f.restitution = 0.0f;
    f.filter.categoryBits = 0x0020;
    f.filter.maskBits = 0x001;
    return f;
  }
  b2RevoluteJoint* Joint(b2Body* a, b2Body* b, double ax, double ay, double bx, double by, double speed, double lower,
                         double upper) {
    b2RevoluteJointDef j;
    j.bodyA = a;
    j.bodyB = b;
    // pybox2d's revoluteJointDef(bodyA=, bodyB=) sets referenceAngle to
    // bodyB.angle - bodyA.angle (Python floats).
    j.referenceAngle = static_cast<float>(static_cast<double>(b->GetAngle()) - a->GetAngle());
    j.localAnchorA = Vec(ax, ay);
    j.localAnchorB = Vec(bx, by);
    j.enableMotor = true;
    j.enableLimit = true;
    j.maxMotorTorque = static_cast<float>(kMotorsTorque);
    j.motorSpeed = static_cast<float>(speed);
    j.lowerAngle = static_cast<float>(lower);
    j.upperAngle = static_cast<float>(upper);
    return static_cast<b2RevoluteJoint*>(world_->CreateJoint(&j));
  }
  void StaticPolygon(const std::array<std::array<double, 2>, 4>& p) {
    b2Vec2 v[4];
    for (int i = 0; i < 4; ++i) v[i] = Vec(p[i][0], p[i][1]);
    b2PolygonShape poly;
    poly.Set(v, 4);
    b2FixtureDef f;
    f.shape = &poly;
    f.friction = static_cast<float>(kFriction);
    b2BodyDef d;
    b2Body* t = world_->CreateBody(&d);
    t->CreateFixture(&f);
    terrain_.push_back(t);
    obstacles_.push_back(p);
  }

  // gymnasium's _destroy: the terrain (in its reversed list order), the
  // hull, the legs, with no contact listener (no EndContact calls).
  void Destroy() {
    if (terrain_.empty()) return;
    world_->SetContactListener(nullptr);
    for (b2Body* t : terrain_) world_->DestroyBody(t);
    terrain_.clear();
    world_->DestroyBody(hull_);
    hull_ = nullptr;
    for (b2Body*& leg : legs_) {
      world_->DestroyBody(leg);
      leg = nullptr;
    }
  }

  void GenerateTerrain() {
    enum { kGrass, kStump, kStairs, kPit, kStates };
    int64_t state = kGrass;
    double velocity = 0.0, y = kTerrainHeight, original_y = 0;
    int64_t counter = kTerrainStartpad;
    bool oneshot = false;
    int64_t stair_steps = 0, stair_width = 0, stair_height = 0;
    obstacles_.clear();
    for (int i = 0; i < kTerrainLength; ++i) {
      const double x = i * kTerrainStep;
      terrain_x_[i] = x;
      if (state == kGrass && !oneshot) {
        const double d = kTerrainHeight - y;
        velocity = 0.8 * velocity + 0.01 * static_cast<double>((d > 0) - (d < 0));
        if (i > kTerrainStartpad) velocity += Uniform(-1, 1) / kScale;
        y += velocity;
      } else if (state == kPit && oneshot) {
        counter = Integers(3, 5);
        const std::array<std::array<double, 2>, 4> poly = {
            {{x, y}, {x + kTerrainStep, y}, {x + kTerrainStep, y - 4 * kTerrainStep}, {x, y - 4 * kTerrainStep}}};
        StaticPolygon(poly);
        std::array<std::array<double, 2>, 4> moved = poly;
        for (auto& p : moved) p[0] = p[0] + kTerrainStep * static_cast<double>(counter);
        StaticPolygon(moved);
        counter += 2;
        original_y = y;
      } else if (state == kPit && !oneshot) {
        y = original_y;
        if (counter > 1) y -= 4 * kTerrainStep;
      } else if (state == kStump && oneshot) {
        counter = Integers(1, 3);
        const double w = static_cast<double>(counter) * kTerrainStep;
        StaticPolygon({{{x, y}, {x + w, y}, {x + w, y + w}, {x, y + w}}});
      } else if (state == kStairs && oneshot) {
        stair_height = Random() > 0.5 ? +1 : -1;
        stair_width = Integers(4, 5);
        stair_steps = Integers(3, 5);
        original_y = y;
        for (int64_t s = 0; s < stair_steps; ++s) {
          const double x0 = x + static_cast<double>(s * stair_width) * kTerrainStep;
          const double x1 = x + static_cast<double>((1 + s) * stair_width) * kTerrainStep;
          const double y0 = y + static_cast<double>(s * stair_height) * kTerrainStep;
          const double y1 = y + static_cast<double>(-1 + s * stair_height) * kTerrainStep;
          StaticPolygon({{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}});
        }
        counter = stair_steps * stair_width;
      } else if (state == kStairs && !oneshot) {
        const int64_t s = stair_steps * stair_width - counter - stair_height;
        const double n = static_cast<double>(s) / static_cast<double>(stair_width);
        y = original_y + (n * static_cast<double>(stair_height)) * kTerrainStep;
      }
      oneshot = false;
      terrain_y_[i] = y;
      counter -= 1;
      if (counter == 0) {
        counter = Integers(kTerrainGrass / 2, kTerrainGrass);
        if (state == kGrass && hardcore_) {
          state = Integers(1, kStates);
        } else {
          state = kGrass;
        }
        oneshot = true;
      }
    }
    for (int i = 0; i < kTerrainLength - 1; ++i) {
      b2EdgeShape e;
      e.Set(Vec(terrain_x_[i], terrain_y_[i]), Vec(terrain_x_[i + 1], terrain_y_[i + 1]));
      b2FixtureDef f;
      f.shape = &e;
      f.friction = static_cast<float>(kFriction);
      f.filter.categoryBits = 0x0001;
      b2BodyDef d;
      b2Body* t = world_->CreateBody(&d);
      t->CreateFixture(&f);
      terrain_.push_back(t);
    }
    std::reverse(terrain_.begin(), terrain_.end());
  }

  // The clouds only decorate the frame, but their draws come from the
  // same generator, between the terrain's and the initial force's.
  void GenerateClouds() {
    for (auto& cloud : clouds_) {
      const double x = Uniform(0, kTerrainLength) * kTerrainStep;
      const double y = kViewportH / kScale * 3 / 4;
      for (int a = 0; a < 5; ++a) {
        const double px = x + 15 * kTerrainStep * std::sin(3.14 * 2 * a / 5) + Uniform(0, 5 * kTerrainStep);
        const double py = y + 5 * kTerrainStep * std::cos(3.14 * 2 * a / 5) + Uniform(0, 5 * kTerrainStep);
        cloud[a] = {px, py};
      }
    }
  }

  StepResult Advance(const float* action, const StateRow& out) {
    // float(SPEED * np.sign(a)) and float(MOTORS_TORQUE * np.clip(np.abs(a), 0, 1)):
    // float32 products (a Python int times a float32 stays float32).
    float cost[4];
    for (int j = 0; j < 4; ++j) {
      const float a = action[j];
      const float sign = a > 0 ? 1.0f : a < 0 ? -1.0f : a;  // np.sign: 0 and NaN stay
      const float mag = std::clamp(std::fabs(a), 0.0f, 1.0f);
      const float speed = static_cast<float>(j % 2 == 0 ? kSpeedHip : kSpeedKnee) * sign;
      joints_[j]->SetMotorSpeed(speed);
      joints_[j]->SetMaxMotorTorque(static_cast<float>(kMotorsTorque) * mag);
      cost[j] = static_cast<float>(0.00035 * kMotorsTorque) * mag;
    }
    world_->Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = hull_->GetPosition();
    const b2Vec2 vel = hull_->GetLinearVelocity();
    double s[24];
    s[0] = hull_->GetAngle();
    s[1] = 2.0 * hull_->GetAngularVelocity() / kFps;
    s[2] = 0.3 * vel.x * (kViewportW / kScale) / kFps;
    s[3] = 0.3 * vel.y * (kViewportH / kScale) / kFps;
    for (int k = 0; k < 2; ++k) {
      s[4 + 5 * k] = joints_[2 * k]->GetJointAngle();
      s[5 + 5 * k] = joints_[2 * k]->GetJointSpeed() / kSpeedHip;
      s[6 + 5 * k] = joints_[2 * k + 1]->GetJointAngle() + 1.0;
      s[7 + 5 * k] = joints_[2 * k + 1]->GetJointSpeed() / kSpeedKnee;
      s[8 + 5 * k] = leg_contact_[k] ? 1.0 : 0.0;
    }
    for (int i = 0; i < 10; ++i) {
      Lidar& lidar = lidar_[i];
      lidar.fraction = 1.0f;
      lidar.p2x = pos.x + std::sin(1.5 * i / 10.0) * kLidarRange;
      lidar.p2y = pos.y - std::cos(1.5 * i / 10.0) * kLidarRange;
      world_->RayCast(&lidar, pos, Vec(lidar.p2x, lidar.p2y));
      s[14 + i] = lidar.fraction;
    }
    lidar_p1_ = pos;
    scroll_ = pos.x - kViewportW / kScale / 5;
    double shaping = 130 * static_cast<double>(pos.x) / kScale;
    shaping -= 5.0 * std::fabs(s[0]);
    double shaped = 0;
    if (has_prev_shaping_) shaped = shaping - prev_shaping_;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    // reward -= <float32 cost>: NumPy 2 turns the Python float into a
    // float32 and subtracts in float32.
    float cost_paid = static_cast<float>(shaped);
    for (float c : cost) cost_paid -= c;
    double reward = cost_paid;
    StepResult r;
    if (game_over_ || pos.x < 0) {
      reward = -100;
      r.terminated = true;
    }
    if (pos.x > (kTerrainLength - kTerrainGrass) * kTerrainStep) r.terminated = true;
    r.reward = reward;
    float* obs = out[spec_.obs];
    for (int i = 0; i < 24; ++i) obs[i] = static_cast<float>(s[i]);
    WriteDraws(out, spec_.draws);
    return r;
  }

  Spec spec_;
  bool hardcore_;
  bool advance_each_render_;
  bool new_frame_ = true;  // no frame drawn since the last step or reset
  std::array<Lidar, 10> lidar_{};
  b2Vec2 lidar_p1_{0.0f, 0.0f};
  double scroll_ = 0.0;
  int lidar_render_ = 0;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<b2World> world_;
  std::vector<b2Body*> terrain_;
  b2Body* hull_ = nullptr;
  std::array<b2Body*, 4> legs_{};
  std::array<b2RevoluteJoint*, 4> joints_{};
  std::array<bool, 2> leg_contact_{};
  bool game_over_ = false, has_prev_shaping_ = false;
  double prev_shaping_ = 0;
  std::array<double, kTerrainLength> terrain_x_{}, terrain_y_{};
  std::vector<std::array<std::array<double, 2>, 4>> obstacles_;
  std::array<std::array<std::array<double, 2>, 5>, 10> clouds_{};
};

}  // namespace envpool::box2d

#endif  // ENVPOOL_BOX2D_BIPEDAL_WALKER_H_
