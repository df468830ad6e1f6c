// CarRacing: gymnasium 1.4's CarRacing (continuous and discrete actions,
// lap_complete_percent, domain_randomize) on the Box2D library gymnasium's
// box2d wheel compiles. The track is generated at reset from the env's own
// draws (reported with report_draws=True); the observation is the 96x96
// frame gymnasium draws with pygame (state_pixels), drawn here by ports of
// the same pygame routines (car_racing_draw.h).
#ifndef ENVPOOL_BOX2D_CAR_RACING_H_
#define ENVPOOL_BOX2D_CAR_RACING_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/box2d/car_dynamics.h"
#include "cpp/box2d/car_racing_draw.h"
#include "cpp/box2d/common.h"

namespace envpool::box2d {

class CarRacing : public Box2DEnv {
 public:
  static constexpr int kStateW = 96, kStateH = 96, kVideoW = 600, kVideoH = 400;
  static constexpr int kWindowW = 1000, kWindowH = 800;
  static constexpr double kScale = 6.0, kTrackRad = 900 / kScale, kPlayfield = 2000 / kScale, kFps = 50;
  static constexpr double kZoom = 2.7;
  static constexpr double kTrackDetailStep = 21 / kScale, kTrackTurnRate = 0.31, kTrackWidth = 40 / kScale;
  static constexpr double kBorder = 8 / kScale, kGrassDim = kPlayfield / 20.0;
  static constexpr int kBorderMinCount = 4, kCheckpoints = 12;
  // Reset: 24 draws per track attempt, 7 for domain_randomize's colours. An
  // attempt fails about one time in ten; info["draws"] holds 32 attempts.
  static constexpr int kMaxAttempts = 32, kMaxDraws = 24 * kMaxAttempts + 7;

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{1000}},
            {"lap_complete_percent", 0.95},
            {"domain_randomize", false},
            {"continuous", true},
            // CarRacing-v2 (gymnasium < 1.0): finishing the lap truncates the
            // episode instead of terminating it.
            {"lap_truncates", false},
            // gymnasium's verbose: its track-generation messages, on stdout.
            {"verbose", false},
            {"report_draws", false},
            {"expose_state", false}};
  }

  struct Spec : EnvSpec {
    StateKey<uint8_t> obs = AddState<uint8_t>("obs", {kStateH, kStateW, 3}, {0}, {255});
    // gymnasium's info["lap_finished"], which it sets only on the step that
    // ends the episode (True: the lap is done; False: the car left the
    // playfield): here every row has it, False on the other steps.
    StateKey<bool> lap_finished = AddState<bool>("info:lap_finished", {});
    bool continuous;
    ActionKey<int32_t> discrete;
    ActionKey<float> box;
    DrawKeys draws;
    // expose_state: info["car"] (the hull's x, y, angle, vx, vy, angular
    // velocity, then per wheel x, y, angle, omega, phase, joint angle),
    // info["track_len"] and info["tiles_visited"].
    StateKey<double> car;
    StateKey<int32_t> track_len, tiles_visited;
    explicit Spec(const Config& c) : continuous(c.Get<bool>("continuous")) {
      if (continuous) {
        box = AddAction<float>("action", {3}, {-1.0, 0.0, 0.0}, {1.0, 1.0, 1.0});
      } else {
        discrete = AddAction<int32_t>("action", {}, {0}, {4});
      }
      draws = AddDrawKeys(*this, c, kMaxDraws);
      if (c.Get<bool>("expose_state")) {
        car = AddState<double>("info:car", {6 + 4 * 6});
        track_len = AddState<int32_t>("info:track_len", {});
        tiles_visited = AddState<int32_t>("info:tiles_visited", {});
      }
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit CarRacing(const Config& c)
      : spec_(c),
        lap_complete_percent_(c.Get<double>("lap_complete_percent")),
        domain_randomize_(c.Get<bool>("domain_randomize")),
        lap_truncates_(c.Get<bool>("lap_truncates")),
        verbose_(c.Get<bool>("verbose")),
        world_(b2Vec2(0, 0)),
        listener_(this),
        surf_(static_cast<size_t>(kWindowW) * kWindowH * 3) {
    SetDrawCapacity(kMaxDraws, c.Get<bool>("report_draws"));
    world_.SetAllowSleeping(true);
  }
  ~CarRacing() override { Destroy(); }

  void Reset(const StateRow& out) override {
    ClearDraws();
    Destroy();
    world_.SetContactListener(&listener_);
    reward_ = prev_reward_ = 0.0;
    tile_visited_count_ = 0;
    t_ = 0.0;
    new_lap_ = false;
    road_poly_.clear();
    if (domain_randomize_) RandomizeColors();
    int attempts = 0;
    while (!CreateTrack()) {
      if (verbose_) Say("retry to generate track (normal if there are not manyinstances of this message)\n");
      if (++attempts >= kMaxAttempts && spec_.draws.draws.index >= 0)
        throw std::runtime_error("CarRacing: more track attempts than info['draws'] holds");
    }
    car_ = std::make_unique<car_racing::Car>(&world_, track_[0][1], track_[0][2], track_[0][3]);
    Box2DGuard([&] { return DoStep(nullptr, out); });
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    return Box2DGuard([&] { return DoStep(&action, out); });
  }

  std::array<int, 2> RenderSize() const override { return {kVideoH, kVideoW}; }
  void Render(uint8_t* rgb) override {
    if (!car_) {
      std::fill(rgb, rgb + static_cast<size_t>(kVideoW) * kVideoH * 3, 0);
      return;
    }
    DrawWindow(true);
    car_racing::Smoothscale(surf_.data(), kWindowW, kWindowH, rgb, kVideoW, kVideoH);
  }

 private:
  using Vec2 = draw::Vec2;

  struct RoadPoly {
    std::array<Vec2, 4> pts;
    std::array<double, 3> color;
  };

  // gymnasium's FrictionDetector.
  class Listener : public b2ContactListener {
   public:
    explicit Listener(CarRacing* env) : env_(env) {}
    void BeginContact(b2Contact* c) override { Contact(c, true); }
    void EndContact(b2Contact* c) override { Contact(c, false); }

   private:
    void Contact(b2Contact* c, bool begin) {
      auto* u1 = static_cast<car_racing::BodyTag*>(c->GetFixtureA()->GetBody()->GetUserData());
      auto* u2 = static_cast<car_racing::BodyTag*>(c->GetFixtureB()->GetBody()->GetUserData());
      car_racing::BodyTag *tile = nullptr, *obj = nullptr;
      if (u1 != nullptr && u1->tile != nullptr) {
        tile = u1;
        obj = u2;
      }
      if (u2 != nullptr && u2->tile != nullptr) {
        tile = u2;
        obj = u1;
      }
      if (tile == nullptr) return;
      car_racing::Tile& t = *tile->tile;
      env_->road_poly_[t.poly].color = env_->road_color_;
      if (obj == nullptr || obj->wheel == nullptr) return;
      if (begin) {
        ++obj->wheel->tiles;
        if (!t.visited) {
          t.visited = true;
          env_->reward_ += 1000.0 / static_cast<double>(env_->track_.size());
          env_->tile_visited_count_ += 1;
          if (t.idx == 0 && static_cast<double>(env_->tile_visited_count_) / static_cast<double>(env_->track_.size()) >
                                env_->lap_complete_percent_)
            env_->new_lap_ = true;
        }
      } else {
        --obj->wheel->tiles;
      }
    }
    CarRacing* env_;
  };

  void Destroy() {
    // gymnasium's _destroy(): the road, then the car. Its EndContact calls
    // there only touch what is being destroyed.
    world_.SetContactListener(nullptr);
    for (auto& t : tiles_) world_.DestroyBody(t->body);
    tiles_.clear();
    tags_.clear();
    car_.reset();
  }

  void RandomizeColors() {
    for (double& v : road_color_) v = Uniform(0, 210);
    for (double& v : bg_color_) v = Uniform(0, 210);
    grass_color_ = bg_color_;
    grass_color_[Integers(0, 3)] += 20;
  }

  bool CreateTrack() {
    std::array<std::array<double, 3>, kCheckpoints> checkpoints;
    for (int c = 0; c < kCheckpoints; ++c) {
      const double noise = Uniform(0, 2 * std::numbers::pi * 1 / kCheckpoints);
      double alpha = 2 * std::numbers::pi * c / kCheckpoints + noise;
      double rad = Uniform(kTrackRad / 3, kTrackRad);
      if (c == 0) {
        alpha = 0;
        rad = 1.5 * kTrackRad;
      }
      if (c == kCheckpoints - 1) {
        alpha = 2 * std::numbers::pi * c / kCheckpoints;
        start_alpha_ = 2 * std::numbers::pi * (-0.5) / kCheckpoints;
        rad = 1.5 * kTrackRad;
      }
      checkpoints[c] = {alpha, rad * std::cos(alpha), rad * std::sin(alpha)};
    }
    double x = 1.5 * kTrackRad, y = 0, beta = 0;
    int dest_i = 0, laps = 0, no_freeze = 2500;
    std::vector<std::array<double, 4>> track;
    bool visited_other_side = false;
    while (true) {
      double alpha = std::atan2(y, x);
      if (visited_other_side && alpha > 0) {
        laps += 1;
        visited_other_side = false;
      }
      if (alpha < 0) {
        visited_other_side = true;
        alpha += 2 * std::numbers::pi;
      }
      double dest_alpha = 0, dest_x = 0, dest_y = 0;
      while (true) {
        bool failed = true;
        while (true) {
          const auto& cp = checkpoints[dest_i % kCheckpoints];
          dest_alpha = cp[0];
          dest_x = cp[1];
          dest_y = cp[2];
          if (alpha <= dest_alpha) {
            failed = false;
            break;
          }
          dest_i += 1;
          if (dest_i % kCheckpoints == 0) break;
        }
        if (!failed) break;
        alpha -= 2 * std::numbers::pi;
      }
      const double r1x = std::cos(beta), r1y = std::sin(beta);
      const double p1x = -r1y, p1y = r1x;
      const double dest_dx = dest_x - x, dest_dy = dest_y - y;
      double proj = r1x * dest_dx + r1y * dest_dy;
      while (beta - alpha > 1.5 * std::numbers::pi) beta -= 2 * std::numbers::pi;
      while (beta - alpha < -1.5 * std::numbers::pi) beta += 2 * std::numbers::pi;
      const double prev_beta = beta;
      proj *= kScale;
      if (proj > 0.3) beta -= std::min(kTrackTurnRate, std::fabs(0.001 * proj));
      if (proj < -0.3) beta += std::min(kTrackTurnRate, std::fabs(0.001 * proj));
      x += p1x * kTrackDetailStep;
      y += p1y * kTrackDetailStep;
      track.push_back({alpha, prev_beta * 0.5 + beta * 0.5, x, y});
      if (laps > 4) break;
      no_freeze -= 1;
      if (no_freeze == 0) break;
    }

    // The closed loop i1..i2: the first lap is ignored, the second is kept.
    int i1 = -1, i2 = -1;
    int i = static_cast<int>(track.size());
    while (true) {
      i -= 1;
      if (i == 0) return false;
      const bool pass_through_start = track[i][0] > start_alpha_ && track[i - 1][0] <= start_alpha_;
      if (pass_through_start && i2 == -1) {
        i2 = i;
      } else if (pass_through_start && i1 == -1) {
        i1 = i;
        break;
      }
    }
    if (verbose_)
      Say("Track generation: " + std::to_string(i1) + ".." + std::to_string(i2) + " -> " + std::to_string(i2 - i1) +
          "-tiles track\n");
    if (i2 - 1 <= i1) return false;  // (gymnasium would index an empty track)
    track = std::vector<std::array<double, 4>>(track.begin() + i1, track.begin() + (i2 - 1));

    const double first_beta = track[0][1];
    const double first_perp_x = std::cos(first_beta), first_perp_y = std::sin(first_beta);
    const double dx = first_perp_x * (track[0][2] - track.back()[2]);
    const double dy = first_perp_y * (track[0][3] - track.back()[3]);
    if (std::sqrt(dx * dx + dy * dy) > kTrackDetailStep) return false;

    // Red-white border on hard turns (Python's negative indices wrap).
    const int n = static_cast<int>(track.size());
    auto at = [&](int k) -> const std::array<double, 4>& { return track[((k % n) + n) % n]; };
    std::vector<char> border(n, 0);
    for (int k = 0; k < n; ++k) {
      bool good = true;
      double oneside = 0;
      for (int neg = 0; neg < kBorderMinCount; ++neg) {
        const double beta1 = at(k - neg - 0)[1], beta2 = at(k - neg - 1)[1];
        good = good && std::fabs(beta1 - beta2) > kTrackTurnRate * 0.2;
        oneside += car_racing::Sign(beta1 - beta2);
      }
      good = good && std::fabs(oneside) == kBorderMinCount;
      border[k] = good;
    }
    for (int k = 0; k < n; ++k)
      for (int neg = 0; neg < kBorderMinCount; ++neg) border[((k - neg) % n + n) % n] |= border[k];

    // The tiles.
    tiles_.reserve(n);
    tags_.reserve(n);
    for (int k = 0; k < n; ++k) {
      const auto& [alpha1, beta1, x1, y1] = at(k);
      const auto& [alpha2, beta2, x2, y2] = at(k - 1);
      (void)alpha1, (void)alpha2;
      const Vec2 road1_l{x1 - kTrackWidth * std::cos(beta1), y1 - kTrackWidth * std::sin(beta1)};
      const Vec2 road1_r{x1 + kTrackWidth * std::cos(beta1), y1 + kTrackWidth * std::sin(beta1)};
      const Vec2 road2_l{x2 - kTrackWidth * std::cos(beta2), y2 - kTrackWidth * std::sin(beta2)};
      const Vec2 road2_r{x2 + kTrackWidth * std::cos(beta2), y2 + kTrackWidth * std::sin(beta2)};
      const std::array<Vec2, 4> vertices{road1_l, road1_r, road2_r, road2_l};
      b2Vec2 v[4];
      for (int j = 0; j < 4; ++j) v[j].Set(static_cast<float>(vertices[j].x), static_cast<float>(vertices[j].y));
      b2PolygonShape shape;
      shape.Set(v, 4);
      b2FixtureDef fd;
      fd.shape = &shape;
      b2BodyDef bd;
      auto tile = std::make_unique<car_racing::Tile>();
      tile->body = world_.CreateBody(&bd);
      tile->body->CreateFixture(&fd);
      tile->idx = k;
      tile->poly = static_cast<int>(road_poly_.size());
      tags_.push_back(std::make_unique<car_racing::BodyTag>());
      tags_.back()->tile = tile.get();
      tile->body->SetUserData(tags_.back().get());
      tile->body->GetFixtureList()->SetSensor(true);
      const double c = 0.01 * (k % 3) * 255;
      road_poly_.push_back({vertices, {road_color_[0] + c, road_color_[1] + c, road_color_[2] + c}});
      tiles_.push_back(std::move(tile));
      if (border[k]) {
        const double side = car_racing::Sign(beta2 - beta1);
        const Vec2 b1_l{x1 + side * kTrackWidth * std::cos(beta1), y1 + side * kTrackWidth * std::sin(beta1)};
        const Vec2 b1_r{x1 + side * (kTrackWidth + kBorder) * std::cos(beta1),
                        y1 + side * (kTrackWidth + kBorder) * std::sin(beta1)};
        const Vec2 b2_l{x2 + side * kTrackWidth * std::cos(beta2), y2 + side * kTrackWidth * std::sin(beta2)};
        const Vec2 b2_r{x2 + side * (kTrackWidth + kBorder) * std::cos(beta2),
                        y2 + side * (kTrackWidth + kBorder) * std::sin(beta2)};
        const double w = k % 2 == 0 ? 255 : 0;
        road_poly_.push_back({{b1_l, b1_r, b2_r, b2_l}, {255, w, w}});
      }
    }
    track_ = std::move(track);
    return true;
  }

  StepResult DoStep(const ActionRow* action, const StateRow& out) {
    if (action != nullptr) {
      if (spec_.continuous) {
        const float* a = (*action)[spec_.box];
        // NaN gas makes the car's position NaN, where gymnasium's renderer
        // raises (int(NaN)) after the world has moved: refused up front.
        // (NaN steering and braking leave the car finite there, and here.)
        if (std::isnan(a[1])) throw std::invalid_argument("CarRacing: action[1] (gas) is NaN");
        car_->Steer(-static_cast<double>(a[0]));
        car_->Gas(a[1]);
        car_->Brake(a[2]);
      } else {
        const int a = *(*action)[spec_.discrete];
        if (a < 0 || a > 4)
          throw std::invalid_argument("CarRacing: action must be in [0, 4] (Discrete(5)), got " + std::to_string(a));
        car_->Steer(-0.6 * (a == 1) + 0.6 * (a == 2));
        car_->Gas(0.2 * (a == 3));
        car_->Brake(0.8 * (a == 4));
      }
    }
    car_->Step(1.0 / kFps);
    world_.Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);
    t_ += 1.0 / kFps;
    // gymnasium draws the state before this step's -0.1 (the score shows it).
    DrawWindow(false);
    car_racing::Smoothscale(surf_.data(), kWindowW, kWindowH, out[spec_.obs], kStateW, kStateH);

    StepResult r;
    bool lap_finished = false;
    if (action != nullptr) {
      reward_ -= 0.1;
      r.reward = reward_ - prev_reward_;
      prev_reward_ = reward_;
      if (tile_visited_count_ == static_cast<int>(track_.size()) || new_lap_) {
        r.terminated = !lap_truncates_;
        r.truncated = lap_truncates_;
        lap_finished = true;
      }
      const b2Vec2 p = car_->hull->GetPosition();
      if (std::fabs(p.x) > kPlayfield || std::fabs(p.y) > kPlayfield) {
        r.terminated = true;
        r.reward = -100;
        lap_finished = false;
      }
    }
    *out[spec_.lap_finished] = lap_finished;
    WriteDraws(out, spec_.draws);
    if (spec_.car.index >= 0) WriteState(out);
    return r;
  }

  // One line on the process's stdout, whole (envs of a pool print from
  // several threads), and flushed, as Python's print reaches a terminal.
  static void Say(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }

  void WriteState(const StateRow& out) const {
    double* s = out[spec_.car];
    const b2Body* h = car_->hull;
    const double hull[6] = {h->GetPosition().x,       h->GetPosition().y,       h->GetAngle(),
                            h->GetLinearVelocity().x, h->GetLinearVelocity().y, h->GetAngularVelocity()};
    std::copy(hull, hull + 6, s);
    for (int i = 0; i < 4; ++i) {
      const car_racing::Wheel& w = car_->wheels[i];
      const double v[6] = {w.body->GetPosition().x, w.body->GetPosition().y, w.body->GetAngle(), w.omega, w.phase,
                           w.joint->GetJointAngle()};
      std::copy(v, v + 6, s + 6 + 6 * i);
    }
    *out[spec_.track_len] = static_cast<int32_t>(track_.size());
    *out[spec_.tiles_visited] = tile_visited_count_;
  }

  // gymnasium's _render up to (not including) the final smoothscale, into
  // surf_ (the 1000x800 window, rows top to bottom).
  void DrawWindow(bool draw_particles) {
    using car_racing::Frame;
    Frame f(surf_.data(), kWindowW, kWindowH);
    f.Clear();
    const double angle = -static_cast<double>(car_->hull->GetAngle());
    const double zoom = 0.1 * kScale * std::max(1 - t_, 0.0) + kZoom * kScale * std::min(t_, 1.0);
    const b2Vec2 pos = car_->hull->GetPosition();
    const double scroll_x = -static_cast<double>(pos.x) * zoom, scroll_y = -static_cast<double>(pos.y) * zoom;
    const Vec2 tr = draw::RotateRad({scroll_x, scroll_y}, angle);
    const Vec2 trans{kWindowW / 2.0 + tr.x, kWindowH / 4.0 + tr.y};

    // The road.
    const double b = kPlayfield;
    const Vec2 field[4] = {{b, b}, {b, -b}, {-b, -b}, {-b, b}};
    f.ColoredPolygon(field, 4, bg_color_, zoom, trans, angle, false);
    for (int gx = -20; gx < 20; gx += 2) {
      for (int gy = -20; gy < 20; gy += 2) {
        const Vec2 grass[4] = {{kGrassDim * gx + kGrassDim, kGrassDim * gy + 0},
                               {kGrassDim * gx + 0, kGrassDim * gy + 0},
                               {kGrassDim * gx + 0, kGrassDim * gy + kGrassDim},
                               {kGrassDim * gx + kGrassDim, kGrassDim * gy + kGrassDim}};
        f.ColoredPolygon(grass, 4, grass_color_, zoom, trans, angle, true);
      }
    }
    for (const RoadPoly& p : road_poly_) f.ColoredPolygon(p.pts.data(), 4, p.color, zoom, trans, angle, true);

    f.DrawCar(*car_, zoom, trans, angle, draw_particles);
    f.FlipVertically();
    f.Indicators(*car_);
    char text[64];
    std::snprintf(text, sizeof(text), "%04.0f", reward_);
    f.RewardText(text);
  }

  Spec spec_;
  double lap_complete_percent_;
  bool domain_randomize_, lap_truncates_, verbose_;
  b2World world_;
  Listener listener_;
  std::vector<std::unique_ptr<car_racing::Tile>> tiles_;
  std::vector<std::unique_ptr<car_racing::BodyTag>> tags_;
  std::unique_ptr<car_racing::Car> car_;
  std::vector<std::array<double, 4>> track_;
  std::vector<RoadPoly> road_poly_;
  std::array<double, 3> road_color_{102, 102, 102}, bg_color_{102, 204, 102}, grass_color_{102, 230, 102};
  double start_alpha_ = 0, reward_ = 0, prev_reward_ = 0, t_ = 0;
  int tile_visited_count_ = 0;
  bool new_lap_ = false;
  std::vector<uint8_t> surf_;
};

}  // namespace envpool::box2d

#endif  // ENVPOOL_BOX2D_CAR_RACING_H_
