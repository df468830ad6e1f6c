// LunarLander: gymnasium 1.4's LunarLander (discrete and continuous; gravity,
// wind and turbulence keywords), on the Box2D library gymnasium's box2d wheel
// compiles. Every float operation follows gymnasium's: Box2D computes in
// float32, the observation and reward in float64 from Box2D's float32 values,
// and each Python float handed to Box2D rounds to float32 where pybox2d's
// wrapper rounds it.
#ifndef ENVPOOL_BOX2D_LUNAR_LANDER_H_
#define ENVPOOL_BOX2D_LUNAR_LANDER_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

#include "cpp/box2d/common.h"
#include "cpp/box2d/draw.h"

namespace envpool::box2d {

class LunarLander : public Box2DEnv {
 public:
  static constexpr double kFps = 50, kScale = 30.0, kMainEnginePower = 13.0, kSideEnginePower = 0.6;
  static constexpr double kInitialRandom = 1000.0;
  static constexpr double kLegAway = 20, kLegDown = 18, kLegW = 2, kLegH = 8, kLegSpringTorque = 40;
  static constexpr double kSideEngineHeight = 14, kSideEngineAway = 12, kMainEngineYLocation = 4;
  static constexpr double kViewportW = 600, kViewportH = 400;
  static constexpr int kChunks = 11;
  // Reset: 12 heights, 2 force components, 2 wind indices, the first step's 2 dispersions.
  static constexpr int kMaxDraws = 18;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{1000}},
            {"continuous", false},
            {"gravity", -10.0},
            {"enable_wind", false},
            {"wind_power", 15.0},
            {"turbulence_power", 1.5},
            {"report_draws", false},
            {"particles", false},
            {"render_advances_each_call", false}};
  }

  struct Spec : EnvSpec {
    StateKey<float> obs =
        AddState<float>("obs", {8}, {-2.5, -2.5, -10.0, -10.0, -2 * std::numbers::pi, -10.0, -0.0, -0.0},
                        {2.5, 2.5, 10.0, 10.0, 2 * std::numbers::pi, 10.0, 1.0, 1.0});
    bool continuous;
    ActionKey<int32_t> discrete;
    ActionKey<float> box;
    DrawKeys draws;
    explicit Spec(const Config& c) : continuous(c.Get<bool>("continuous")) {
      if (continuous) {
        box = AddAction<float>("action", {2}, {-1.0, -1.0}, {1.0, 1.0});
      } else {
        discrete = AddAction<int32_t>("action", {}, {0}, {3});
      }
      draws = AddDrawKeys(*this, c, kMaxDraws);
      const double g = c.Get<double>("gravity");
      if (!(-12.0 < g && g < 0.0))
        throw std::invalid_argument("gravity (current value: " + std::to_string(g) + ") must be between -12 and 0");
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit LunarLander(const Config& c)
      : spec_(c),
        gravity_(c.Get<double>("gravity")),
        wind_power_(c.Get<double>("wind_power")),
        turbulence_power_(c.Get<double>("turbulence_power")),
        enable_wind_(c.Get<bool>("enable_wind")),
        particles_on_(c.Get<bool>("particles")),
        advance_each_render_(c.Get<bool>("render_advances_each_call")) {
    SetDrawCapacity(kMaxDraws, c.Get<bool>("report_draws"));
  }

  void Reset(const StateRow& out) override {
    ClearDraws();
    new_frame_ = true;
    Box2DGuard([&] { NewEpisode(out); });
  }

  // gymnasium's reset.
  void NewEpisode(const StateRow& out) {
    // A new world each episode, as gymnasium makes one (its broad-phase
    // tree and contact lists start empty).
    particles_.clear();
    world_.reset();
    listener_ = std::make_unique<Listener>(this);
    world_ = std::make_unique<b2World>(b2Vec2(0.0f, static_cast<float>(gravity_)));
    world_->SetContactListener(listener_.get());
    game_over_ = false;
    has_prev_shaping_ = false;
    leg_contact_ = {false, false};
    const double w = kViewportW / kScale, h = kViewportH / kScale;

    // Terrain.
    std::array<double, kChunks + 1> height{};
    for (double& y : height) y = Uniform(0, h / 2);
    std::array<double, kChunks> chunk_x{};
    for (int i = 0; i < kChunks; ++i) chunk_x[i] = w / (kChunks - 1) * i;
    helipad_x1_ = chunk_x[kChunks / 2 - 1];
    helipad_x2_ = chunk_x[kChunks / 2 + 1];
    helipad_y_ = h / 4;
    for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = helipad_y_;
    for (int i = 0; i < kChunks; ++i) {
      // height[-1] at i = 0: Python's last element.
      const double prev = height[i == 0 ? kChunks : i - 1];
      smooth_y_[i] = 0.33 * (prev + height[i] + height[i + 1]);
    }
    b2BodyDef moon_def;
    moon_ = world_->CreateBody(&moon_def);
    {
      b2EdgeShape bottom;
      bottom.Set(b2Vec2(0.0f, 0.0f), b2Vec2(static_cast<float>(w), 0.0f));
      b2FixtureDef f;
      f.shape = &bottom;
      moon_->CreateFixture(&f);
    }
    for (int i = 0; i < kChunks - 1; ++i) {
      b2EdgeShape e;
      e.Set(Vec(chunk_x[i], smooth_y_[i]), Vec(chunk_x[i + 1], smooth_y_[i + 1]));
      b2FixtureDef f;
      f.shape = &e;
      f.density = 0;
      f.friction = 0.1f;
      moon_->CreateFixture(&f);
    }
    chunk_x_ = chunk_x;

    // The lander.
    const double initial_y = kViewportH / kScale, initial_x = kViewportW / kScale / 2;
    {
      b2BodyDef d;
      d.type = b2_dynamicBody;
      d.position = Vec(initial_x, initial_y);
      d.angle = 0.0f;
      lander_ = world_->CreateBody(&d);
      constexpr int kPoly[6][2] = {{-14, 17}, {-17, 0}, {-17, -10}, {17, -10}, {17, 0}, {14, 17}};
      b2Vec2 v[6];
      for (int i = 0; i < 6; ++i) v[i] = Vec(kPoly[i][0] / kScale, kPoly[i][1] / kScale);
      b2PolygonShape poly;
      poly.Set(v, 6);
      b2FixtureDef f;
      f.shape = &poly;
      f.density = 5.0f;
      f.friction = 0.1f;
      f.filter.categoryBits = 0x0010;
      f.filter.maskBits = 0x001;
      f.restitution = 0.0f;
      lander_->CreateFixture(&f);
    }
    const double fx = Uniform(-kInitialRandom, kInitialRandom);
    const double fy = Uniform(-kInitialRandom, kInitialRandom);
    lander_->ApplyForceToCenter(Vec(fx, fy), true);
    if (enable_wind_) {
      wind_idx_ = Integers(-9999, 9999);
      torque_idx_ = Integers(-9999, 9999);
    }

    // The legs.
    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : 1;
      b2BodyDef d;
      d.type = b2_dynamicBody;
      d.position = Vec(initial_x - i * kLegAway / kScale, initial_y);
      d.angle = static_cast<float>(i * 0.05);
      legs_[k] = world_->CreateBody(&d);
      b2PolygonShape box;
      box.SetAsBox(static_cast<float>(kLegW / kScale), static_cast<float>(kLegH / kScale));
      b2FixtureDef f;
      f.shape = &box;
      f.density = 1.0f;
      f.restitution = 0.0f;
      f.filter.categoryBits = 0x0020;
      f.filter.maskBits = 0x001;
      legs_[k]->CreateFixture(&f);
      b2RevoluteJointDef j;
      j.bodyA = lander_;
      j.bodyB = legs_[k];
      // pybox2d's revoluteJointDef(bodyA=, bodyB=) sets referenceAngle to
      // bodyB.angle - bodyA.angle (Python floats).
      j.referenceAngle = static_cast<float>(static_cast<double>(legs_[k]->GetAngle()) - lander_->GetAngle());
      j.localAnchorA = b2Vec2(0.0f, 0.0f);
      j.localAnchorB = Vec(i * kLegAway / kScale, kLegDown / kScale);
      j.enableMotor = true;
      j.enableLimit = true;
      j.maxMotorTorque = static_cast<float>(kLegSpringTorque);
      j.motorSpeed = static_cast<float>(+0.3 * i);
      if (i == -1) {
        j.lowerAngle = static_cast<float>(+0.9 - 0.5);
        j.upperAngle = static_cast<float>(+0.9);
      } else {
        j.lowerAngle = static_cast<float>(-0.9);
        j.upperAngle = static_cast<float>(-0.9 + 0.5);
      }
      world_->CreateJoint(&j);
    }
    // gymnasium's reset returns the observation of a no-op step.
    Advance(0, 0.0f, 0.0f, out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    int a = 0;
    float a0 = 0.0f, a1 = 0.0f;
    if (spec_.continuous) {
      a0 = action[spec_.box][0];
      a1 = action[spec_.box][1];
    } else {
      a = action[spec_.discrete][0];
      if (a < 0 || a > 3)
        throw std::invalid_argument("LunarLander: action must be in [0, 3], got " + std::to_string(a));
    }
    new_frame_ = true;
    return Box2DGuard([&] { return Advance(a, a0, a1, out); });
  }

  std::array<int, 2> RenderSize() const override {
    return {static_cast<int>(kViewportH), static_cast<int>(kViewportW)};
  }

  // gymnasium's render(): it also ages the particles (ttl -= 0.15 a frame)
  // and forgets the expired ones, at every call; here only the first frame
  // after a step or reset does (EnvPool's render() changes nothing, so a
  // frame drawn again is the same), unless render_advances_each_call.
  void Render(uint8_t* rgb) override {
    // Before the first reset there is no terrain to draw (gymnasium's
    // render raises an AttributeError then).
    if (lander_ == nullptr) throw std::runtime_error("LunarLander render: no moon yet (reset the env first)");
    Canvas cv(rgb, static_cast<int>(kViewportW), static_cast<int>(kViewportH));
    cv.Fill({255, 255, 255});
    if (new_frame_ || advance_each_render_) {
      for (Particle& p : particles_) p.ttl -= 0.15;
      CleanParticles(false);
    }
    new_frame_ = false;
    for (int i = 0; i < kChunks - 1; ++i) {
      const double h = kViewportH / kScale;
      const double xs[4] = {chunk_x_[i], chunk_x_[i + 1], chunk_x_[i + 1], chunk_x_[i]};
      const double ys[4] = {smooth_y_[i], smooth_y_[i + 1], h, h};
      int px[4], py[4], gx[4], gy[4];
      for (int k = 0; k < 4; ++k) {
        px[k] = PyInt(xs[k] * kScale);
        py[k] = PyInt(ys[k] * kScale);
        gx[k] = GfxInt(xs[k] * kScale);
        gy[k] = GfxInt(ys[k] * kScale);
      }
      cv.FillPoly(px, py, 4, {0, 0, 0});
      cv.AAPolygon(gx, gy, 4, {0, 0, 0});
    }
    auto flags = [&] {
      for (double x : {helipad_x1_, helipad_x2_}) {
        x = x * kScale;
        const double flagy1 = helipad_y_ * kScale, flagy2 = flagy1 + 50;
        cv.ClippedLine(PyInt(x), PyInt(flagy1), PyInt(x), PyInt(flagy2), {255, 255, 255});
        const double fx[3] = {x, x, x + 25}, fy[3] = {flagy2, flagy2 - 10, flagy2 - 5};
        int px[3], py[3], gx[3], gy[3];
        for (int k = 0; k < 3; ++k) {
          px[k] = PyInt(fx[k]);
          py[k] = PyInt(fy[k]);
          gx[k] = GfxInt(fx[k]);
          gy[k] = GfxInt(fy[k]);
        }
        cv.FillPoly(px, py, 3, {204, 204, 0});
        cv.AAPolygon(gx, gy, 3, {204, 204, 0});
      }
    };
    // The flags are drawn once per fixture drawn (gymnasium's loop nesting);
    // their anti-aliased edges blend again each time.
    for (const Particle& p : particles_) {
      const Rgb c{PyInt(std::max(0.2, 0.15 + p.ttl) * 255), PyInt(std::max(0.2, 0.5 * p.ttl) * 255),
                  PyInt(std::max(0.2, 0.5 * p.ttl) * 255)};
      for (const b2Fixture* f = p.body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
        // circle(color1), circle(color2): the same filled disc twice
        CircleFixture(cv, f, static_cast<float>(kScale), c);
        CircleFixture(cv, f, static_cast<float>(kScale), c);
        flags();
      }
    }
    for (const b2Body* b : {lander_, legs_[0], legs_[1]}) {
      for (const b2Fixture* f = b->GetFixtureList(); f != nullptr; f = f->GetNext()) {
        // polygon(color1), gfxdraw.aapolygon(color1), aalines(color2, closed=True)
        const Path path = FixturePath(f, static_cast<float>(kScale));
        FillPath(cv, path, {128, 102, 230});
        AAPolygonPath(cv, path, {128, 102, 230});
        AALinesPath(cv, path, {77, 77, 128}, true);
        flags();
      }
    }
  }

 private:
  struct Particle {
    b2Body* body;
    double ttl;
  };

  // gymnasium's _create_particle: a small ball that collides only with the
  // ground. Particles are made only when the env renders (particles=True):
  // they never touch the lander or its legs and sit in islands of their own,
  // so the lander's dynamics are the same with or without them (as in
  // gymnasium, where they exist only with a render_mode).
  b2Body* CreateParticle(double mass, double x, double y, double ttl) {
    b2BodyDef d;
    d.type = b2_dynamicBody;
    d.position = Vec(x, y);
    d.angle = 0.0f;
    b2Body* body = world_->CreateBody(&d);
    b2CircleShape circle;
    circle.m_radius = static_cast<float>(2 / kScale);
    circle.m_p = b2Vec2(0.0f, 0.0f);
    b2FixtureDef f;
    f.shape = &circle;
    f.density = static_cast<float>(mass);
    f.friction = 0.1f;
    f.filter.categoryBits = 0x0100;
    f.filter.maskBits = 0x001;
    f.restitution = 0.3f;
    body->CreateFixture(&f);
    particles_.push_back({body, ttl});
    CleanParticles(false);
    return body;
  }
  void CleanParticles(bool all) {
    while (!particles_.empty() && (all || particles_.front().ttl < 0)) {
      world_->DestroyBody(particles_.front().body);
      particles_.pop_front();
    }
  }

  struct Listener : b2ContactListener {
    explicit Listener(LunarLander* env) : env(env) {}
    void BeginContact(b2Contact* c) override { Touch(c, true); }
    void EndContact(b2Contact* c) override { Touch(c, false); }
    void Touch(b2Contact* c, bool begin) {
      const b2Body* a = c->GetFixtureA()->GetBody();
      const b2Body* b = c->GetFixtureB()->GetBody();
      if (begin && (env->lander_ == a || env->lander_ == b)) env->game_over_ = true;
      for (int i = 0; i < 2; ++i)
        if (env->legs_[i] == a || env->legs_[i] == b) env->leg_contact_[i] = begin;
    }
    LunarLander* env;
  };

  // A Python float (float64) handed to Box2D: pybox2d rounds it to float32.
  static b2Vec2 Vec(double x, double y) { return b2Vec2(static_cast<float>(x), static_cast<float>(y)); }

  // gymnasium's step: wind, engines, world step, observation and reward.
  StepResult Advance(int a, float a0, float a1, const StateRow& out) {
    if (enable_wind_ && !(leg_contact_[0] || leg_contact_[1])) {
      const double wind_mag = std::tanh(std::sin(0.02 * static_cast<double>(wind_idx_)) +
                                        std::sin(std::numbers::pi * 0.01 * static_cast<double>(wind_idx_))) *
                              wind_power_;
      ++wind_idx_;
      lander_->ApplyForceToCenter(Vec(wind_mag, 0.0), true);
      const double torque_mag = std::tanh(std::sin(0.02 * static_cast<double>(torque_idx_)) +
                                          std::sin(std::numbers::pi * 0.01 * static_cast<double>(torque_idx_))) *
                                turbulence_power_;
      ++torque_idx_;
      lander_->ApplyTorque(static_cast<float>(torque_mag), true);
    }
    // np.clip(action, -1, +1) in float32, then float64.
    const double c0 = static_cast<double>(std::clamp(a0, -1.0f, 1.0f));
    const double c1 = static_cast<double>(std::clamp(a1, -1.0f, 1.0f));
    const double angle = lander_->GetAngle();
    const double tip0 = std::sin(angle), tip1 = std::cos(angle);
    const double side0 = -tip1, side1 = tip0;
    double dispersion[2];
    for (double& d : dispersion) d = Uniform(-1.0, +1.0) / kScale;
    double m_power = 0.0;
    if ((spec_.continuous && c0 > 0.0) || (!spec_.continuous && a == 2)) {
      m_power = spec_.continuous ? (std::clamp(c0, 0.0, 1.0) + 1.0) * 0.5 : 1.0;
      const double ox = tip0 * (kMainEngineYLocation / kScale + 2 * dispersion[0]) + side0 * dispersion[1];
      const double oy = -tip1 * (kMainEngineYLocation / kScale + 2 * dispersion[0]) - side1 * dispersion[1];
      const b2Vec2 pos = lander_->GetPosition();
      const double ix = pos.x + ox, iy = pos.y + oy;
      const b2Vec2 impulse_pos = Vec(ix, iy);
      if (particles_on_) {
        b2Body* p = CreateParticle(3.5, ix, iy, m_power);
        p->ApplyLinearImpulse(Vec(ox * kMainEnginePower * m_power, oy * kMainEnginePower * m_power), impulse_pos, true);
      }
      lander_->ApplyLinearImpulse(Vec(-ox * kMainEnginePower * m_power, -oy * kMainEnginePower * m_power), impulse_pos,
                                  true);
    }
    double s_power = 0.0;
    if ((spec_.continuous && std::fabs(c1) > 0.5) || (!spec_.continuous && (a == 1 || a == 3))) {
      double direction;
      if (spec_.continuous) {
        direction = c1 > 0 ? 1.0 : -1.0;  // np.sign (|c1| > 0.5: never 0 or NaN)
        s_power = std::clamp(std::fabs(c1), 0.5, 1.0);
      } else {
        direction = a - 2;
        s_power = 1.0;
      }
      const double ox = tip0 * dispersion[0] + side0 * (3 * dispersion[1] + direction * kSideEngineAway / kScale);
      const double oy = -tip1 * dispersion[0] - side1 * (3 * dispersion[1] + direction * kSideEngineAway / kScale);
      const b2Vec2 pos = lander_->GetPosition();
      const double ix = pos.x + ox - tip0 * 17 / kScale, iy = pos.y + oy + tip1 * kSideEngineHeight / kScale;
      const b2Vec2 impulse_pos = Vec(ix, iy);
      if (particles_on_) {
        b2Body* p = CreateParticle(0.7, ix, iy, s_power);
        p->ApplyLinearImpulse(Vec(ox * kSideEnginePower * s_power, oy * kSideEnginePower * s_power), impulse_pos, true);
      }
      lander_->ApplyLinearImpulse(Vec(-ox * kSideEnginePower * s_power, -oy * kSideEnginePower * s_power), impulse_pos,
                                  true);
    }
    world_->Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = lander_->GetPosition();
    const b2Vec2 vel = lander_->GetLinearVelocity();
    const double s[8] = {
        (pos.x - kViewportW / kScale / 2) / (kViewportW / kScale / 2),
        (pos.y - (helipad_y_ + kLegDown / kScale)) / (kViewportH / kScale / 2),
        vel.x * (kViewportW / kScale / 2) / kFps,
        vel.y * (kViewportH / kScale / 2) / kFps,
        lander_->GetAngle(),
        20.0 * lander_->GetAngularVelocity() / kFps,
        leg_contact_[0] ? 1.0 : 0.0,
        leg_contact_[1] ? 1.0 : 0.0,
    };
    double reward = 0;
    const double shaping = -100 * std::sqrt(s[0] * s[0] + s[1] * s[1]) - 100 * std::sqrt(s[2] * s[2] + s[3] * s[3]) -
                           100 * std::fabs(s[4]) + 10 * s[6] + 10 * s[7];
    if (has_prev_shaping_) reward = shaping - prev_shaping_;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    reward -= m_power * 0.30;
    reward -= s_power * 0.03;
    StepResult r;
    if (game_over_ || std::fabs(s[0]) >= 1.0) {
      r.terminated = true;
      reward = -100;
    }
    if (!lander_->IsAwake()) {
      r.terminated = true;
      reward = +100;
    }
    r.reward = reward;
    float* obs = out[spec_.obs];
    for (int i = 0; i < 8; ++i) obs[i] = static_cast<float>(s[i]);
    WriteDraws(out, spec_.draws);
    return r;
  }

  Spec spec_;
  double gravity_, wind_power_, turbulence_power_;
  bool enable_wind_, particles_on_;
  bool advance_each_render_;
  bool new_frame_ = true;  // no frame drawn since the last step or reset
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<b2World> world_;
  std::deque<Particle> particles_;
  b2Body* moon_ = nullptr;
  b2Body* lander_ = nullptr;
  std::array<b2Body*, 2> legs_{};
  std::array<bool, 2> leg_contact_{};
  bool game_over_ = false, has_prev_shaping_ = false;
  double prev_shaping_ = 0;
  int64_t wind_idx_ = 0, torque_idx_ = 0;
  double helipad_x1_ = 0, helipad_x2_ = 0, helipad_y_ = 0;
  std::array<double, kChunks> chunk_x_{}, smooth_y_{};
};

}  // namespace envpool::box2d

#endif  // ENVPOOL_BOX2D_LUNAR_LANDER_H_
