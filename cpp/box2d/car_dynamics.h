// gymnasium 1.4's car_dynamics.Car (the top-down car of CarRacing) on the
// Box2D 2.3 library that gymnasium's Box2D wheel compiles. Box2D works in
// float32; the car's own arithmetic (wheel speeds, forces) is Python's
// float64, as here, with gymnasium's operation order, so that every value
// rounds as it does in gymnasium.
#ifndef ENVPOOL_BOX2D_CAR_DYNAMICS_H_
#define ENVPOOL_BOX2D_CAR_DYNAMICS_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

namespace envpool::box2d::car_racing {

constexpr double kSize = 0.02;
constexpr double kEnginePower = 100000000 * kSize * kSize;
constexpr double kWheelMomentOfInertia = 4000 * kSize * kSize;
constexpr double kFrictionLimit = 1000000 * kSize * kSize;
constexpr double kWheelR = 27, kWheelW = 14;

// np.sign: -1, 0 or 1 (NaN stays NaN).
inline double Sign(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v; }

// What a body's userData points at: a road tile or a wheel (the hull has
// none), as gymnasium's contact listener tells them apart.
struct Tile {
  int idx = 0;
  int poly = 0;  // its polygon in the env's road_poly (whose colour contacts reset)
  bool visited = false;
  b2Body* body = nullptr;
};

struct Wheel {
  b2Body* body = nullptr;
  b2RevoluteJoint* joint = nullptr;
  double wheel_rad = 0, gas = 0, brake = 0, steer = 0, phase = 0, omega = 0;
  int tiles = 0;  // how many road tiles the wheel touches (gymnasium's w.tiles set)
  // Skid traces (drawn only in rgb_array frames).
  bool has_skid_start = false;
  int64_t skid_particle = -1;  // Particle::serial, -1: None
  bool skid_grass = false;     // the skid particle's grass
  int skid_len = 0;            // and its length (it may have left the deque)
};

struct Particle {
  bool grass = false;
  std::vector<std::array<double, 2>> poly;
  int64_t serial = 0;  // identifies the particle after the deque drops older ones
};

// Box2D's userData of a body: what gymnasium hangs on it.
struct BodyTag {
  Tile* tile = nullptr;
  Wheel* wheel = nullptr;
};

class Car {
 public:
  static constexpr std::array<std::array<int, 2>, 4> kWheelPos{{{-55, 80}, {55, 80}, {-55, -82}, {55, -82}}};

  Car(b2World* world, double init_angle, double init_x, double init_y) : world_(world) {
    static const std::vector<std::vector<std::array<int, 2>>> kHull = {
        {{-60, 130}, {60, 130}, {60, 110}, {-60, 110}},
        {{-15, 120}, {15, 120}, {20, 20}, {-20, 20}},
        {{25, 20}, {50, -10}, {50, -40}, {20, -90}, {-20, -90}, {-50, -40}, {-50, -10}, {-25, 20}},
        {{-50, -120}, {50, -120}, {50, -90}, {-50, -90}}};
    b2BodyDef bd;
    bd.type = b2_dynamicBody;
    bd.position.Set(static_cast<float>(init_x), static_cast<float>(init_y));
    bd.angle = static_cast<float>(init_angle);
    hull = world_->CreateBody(&bd);
    for (const auto& poly : kHull) {
      std::vector<b2Vec2> v;
      for (const auto& p : poly) v.emplace_back(static_cast<float>(p[0] * kSize), static_cast<float>(p[1] * kSize));
      b2PolygonShape shape;
      shape.Set(v.data(), static_cast<int32>(v.size()));
      b2FixtureDef fd;
      fd.shape = &shape;
      fd.density = 1.0f;
      hull->CreateFixture(&fd);
    }
    const double front_k = 1.0;
    for (int i = 0; i < 4; ++i) {
      const double wx = kWheelPos[i][0], wy = kWheelPos[i][1];
      b2BodyDef wd;
      wd.type = b2_dynamicBody;
      wd.position.Set(static_cast<float>(init_x + wx * kSize), static_cast<float>(init_y + wy * kSize));
      wd.angle = static_cast<float>(init_angle);
      Wheel& w = wheels[i];
      w.body = world_->CreateBody(&wd);
      const double poly[4][2] = {{-kWheelW, kWheelR}, {kWheelW, kWheelR}, {kWheelW, -kWheelR}, {-kWheelW, -kWheelR}};
      b2Vec2 v[4];
      for (int k = 0; k < 4; ++k)
        v[k].Set(static_cast<float>(poly[k][0] * front_k * kSize), static_cast<float>(poly[k][1] * front_k * kSize));
      b2PolygonShape shape;
      shape.Set(v, 4);
      b2FixtureDef fd;
      fd.shape = &shape;
      fd.density = 0.1f;
      fd.filter.categoryBits = 0x0020;
      fd.filter.maskBits = 0x001;
      fd.restitution = 0.0f;
      w.body->CreateFixture(&fd);
      w.wheel_rad = front_k * kWheelR * kSize;
      b2RevoluteJointDef rjd;
      rjd.bodyA = hull;
      rjd.bodyB = w.body;
      rjd.localAnchorA.Set(static_cast<float>(wx * kSize), static_cast<float>(wy * kSize));
      rjd.localAnchorB.Set(0, 0);
      rjd.enableMotor = true;
      rjd.enableLimit = true;
      rjd.maxMotorTorque = static_cast<float>(180 * 900 * kSize * kSize);
      rjd.motorSpeed = 0;
      rjd.lowerAngle = -0.4f;
      rjd.upperAngle = 0.4f;
      // pybox2d's revoluteJointDef sets referenceAngle = bodyB.angle - bodyA.angle.
      rjd.referenceAngle = static_cast<float>(static_cast<double>(w.body->GetAngle()) - hull->GetAngle());
      w.joint = static_cast<b2RevoluteJoint*>(world_->CreateJoint(&rjd));
      tags_[i].wheel = &w;
      w.body->SetUserData(&tags_[i]);
    }
  }
  Car(const Car&) = delete;
  Car& operator=(const Car&) = delete;

  // Car.destroy(): the hull (and with it the joints), then the wheels.
  ~Car() {
    world_->DestroyBody(hull);
    for (Wheel& w : wheels) world_->DestroyBody(w.body);
  }

  void Gas(double gas) {
    gas = std::clamp(gas, 0.0, 1.0);  // np.clip (NaN stays NaN)
    for (int i = 2; i < 4; ++i) {
      double diff = gas - wheels[i].gas;
      if (diff > 0.1) diff = 0.1;
      wheels[i].gas += diff;
    }
  }
  void Brake(double b) {
    for (Wheel& w : wheels) w.brake = b;
  }
  void Steer(double s) {
    wheels[0].steer = s;
    wheels[1].steer = s;
  }

  void Step(double dt) {
    for (Wheel& w : wheels) {
      const double angle = w.joint->GetJointAngle();
      const double dir = Sign(w.steer - angle), val = std::fabs(w.steer - angle);
      w.joint->SetMotorSpeed(static_cast<float>(dir * std::min(50.0 * val, 3.0)));

      const bool grass = w.tiles == 0;
      const double friction_limit = grass ? kFrictionLimit * 0.6 : std::max(kFrictionLimit * 0.6, kFrictionLimit * 1.0);

      const b2Vec2 forw = w.body->GetWorldVector(b2Vec2(0, 1));
      const b2Vec2 side = w.body->GetWorldVector(b2Vec2(1, 0));
      const b2Vec2 v = w.body->GetLinearVelocity();
      const double vf = static_cast<double>(forw.x) * v.x + static_cast<double>(forw.y) * v.y;
      const double vs = static_cast<double>(side.x) * v.x + static_cast<double>(side.y) * v.y;

      w.omega += dt * kEnginePower * w.gas / kWheelMomentOfInertia / (std::fabs(w.omega) + 5.0);

      if (w.brake >= 0.9) {
        w.omega = 0;
      } else if (w.brake > 0) {
        const double brake_force = 15;
        const double bdir = -Sign(w.omega);
        double bval = brake_force * w.brake;
        if (std::fabs(bval) > std::fabs(w.omega)) bval = std::fabs(w.omega);
        w.omega += bdir * bval;
      }
      w.phase += w.omega * dt;

      const double vr = w.omega * w.wheel_rad;
      double f_force = -vf + vr;
      double p_force = -vs;
      f_force *= 205000 * kSize * kSize;
      p_force *= 205000 * kSize * kSize;
      double force = std::sqrt(f_force * f_force + p_force * p_force);

      if (std::fabs(force) > 2.0 * friction_limit) {
        Skid(w, grass);
      } else {
        w.has_skid_start = false;
        w.skid_particle = -1;
      }

      if (std::fabs(force) > friction_limit) {
        f_force /= force;
        p_force /= force;
        force = friction_limit;
        f_force *= force;
        p_force *= force;
      }

      w.omega -= dt * f_force * w.wheel_rad / kWheelMomentOfInertia;

      w.body->ApplyForceToCenter(b2Vec2(static_cast<float>(p_force * side.x + f_force * forw.x),
                                        static_cast<float>(p_force * side.y + f_force * forw.y)),
                                 true);
    }
  }

  b2Body* hull = nullptr;
  std::array<Wheel, 4> wheels;
  // gymnasium's deque(maxlen=30) of skid traces.
  std::deque<Particle> particles;

 private:
  static constexpr size_t kMaxParticles = 30;

  Particle* FindParticle(int64_t serial) {
    for (Particle& p : particles)
      if (p.serial == serial) return &p;
    return nullptr;
  }

  // gymnasium's skid-trace bookkeeping. A particle that the deque dropped
  // stays the wheel's skid_particle there (Python keeps it alive) and keeps
  // growing unseen, which is what a dropped serial does here.
  void Skid(Wheel& w, bool grass) {
    const b2Vec2 pos = w.body->GetPosition();
    if (w.skid_particle >= 0 && w.skid_grass == grass && w.skid_len < 30) {
      ++w.skid_len;
      if (Particle* p = FindParticle(w.skid_particle)) p->poly.push_back({pos.x, pos.y});
    } else if (!w.has_skid_start) {
      w.has_skid_start = true;
    } else {
      // gymnasium's skid_start is w.position, which pybox2d returns as a
      // live reference to the body's position: the trace starts twice at
      // the wheel's current position.
      Particle p;
      p.grass = grass;
      p.poly = {{pos.x, pos.y}, {pos.x, pos.y}};
      p.serial = next_serial_++;
      if (particles.size() == kMaxParticles) particles.pop_front();
      particles.push_back(p);
      w.skid_particle = p.serial;
      w.skid_grass = grass;
      w.skid_len = 2;
      w.has_skid_start = false;
    }
  }

  b2World* world_;
  std::array<BodyTag, 4> tags_;
  int64_t next_serial_ = 0;
};

}  // namespace envpool::box2d::car_racing

#endif  // ENVPOOL_BOX2D_CAR_DYNAMICS_H_
