// The MuJoCo family; see mujoco_env.h. Semantics follow gymnasium 1.x's
// MuJoCo envs (v4 and v5) arithmetic for arithmetic: the float32 action is
// written to the float64 ctrl, control costs of the action are computed in
// float32 with numpy's summation order (np.sum(np.square(action)) is a
// float32 in gymnasium), and 2/3-vector norms use numpy's dot (an FMA chain).
#include "cpp/mujoco/mujoco_env.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cpp/mujoco/render.h"

namespace envpool::mujoco {
namespace {

// ---------------------------------------------------------------------------
// Config helpers.

double GetNumber(const Config& c, const std::string& key, double fallback) {
  if (!c.Has(key)) return fallback;
  const ConfigValue& v = c.At(key);
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  throw std::invalid_argument("config key '" + key + "' must be a number");
}

bool GetBool(const Config& c, const std::string& key, bool fallback) {
  if (!c.Has(key)) return fallback;
  const ConfigValue& v = c.At(key);
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  throw std::invalid_argument("config key '" + key + "' must be a bool");
}

std::string GetString(const Config& c, const std::string& key,
                      const std::string& fallback) {
  if (!c.Has(key)) return fallback;
  const ConfigValue& v = c.At(key);
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  throw std::invalid_argument("config key '" + key + "' must be a string");
}

std::pair<double, double> GetPair(const Config& c, const std::string& key,
                                  std::pair<double, double> fallback) {
  if (!c.Has(key)) return fallback;
  const ConfigValue& v = c.At(key);
  if (auto* p = std::get_if<std::vector<double>>(&v)) {
    if (p->size() != 2)
      throw std::invalid_argument("config key '" + key +
                                  "' must be a pair (min, max), got " +
                                  std::to_string(p->size()) + " values");
    return {(*p)[0], (*p)[1]};
  }
  throw std::invalid_argument("config key '" + key +
                              "' must be a pair of numbers (min, max)");
}

// ---------------------------------------------------------------------------
// Info fields: every scalar info term any task reports.

enum Field {
  kXPosition,
  kYPosition,
  kDistanceFromOrigin,
  kZDistanceFromOrigin,
  kXVelocity,
  kYVelocity,
  kRewardForward,
  kRewardFwd,
  kForwardReward,
  kRewardRun,
  kRewardCtrl,
  kRewardContact,
  kRewardSurvive,
  kRewardLinvel,
  kRewardQuadctrl,
  kRewardAlive,
  kRewardLinup,
  kRewardImpact,
  kRewardDist,
  kRewardNear,
  kDistancePenalty,
  kVelocityPenalty,
  kNumFields,
};

const char* const kFieldNames[kNumFields] = {
    "x_position",      "y_position",       "distance_from_origin",
    "z_distance_from_origin", "x_velocity", "y_velocity",
    "reward_forward",  "reward_fwd",       "forward_reward",
    "reward_run",      "reward_ctrl",      "reward_contact",
    "reward_survive",  "reward_linvel",    "reward_quadctrl",
    "reward_alive",    "reward_linup",     "reward_impact",
    "reward_dist",     "reward_near",      "distance_penalty",
    "velocity_penalty",
};

// The scalar info terms of a task+version, in gymnasium's order.
std::vector<Field> InfoFields(Task task, int version) {
  const bool v5 = version >= 5;
  switch (task) {
    case Task::kAnt:
      if (v5)
        return {kXPosition,     kYPosition,  kDistanceFromOrigin,
                kXVelocity,     kYVelocity,  kRewardForward,
                kRewardCtrl,    kRewardContact, kRewardSurvive};
      return {kRewardForward, kRewardCtrl,         kRewardSurvive,
              kXPosition,     kYPosition,          kDistanceFromOrigin,
              kXVelocity,     kYVelocity,          kForwardReward};
    case Task::kHalfCheetah:
      if (v5) return {kXPosition, kXVelocity, kRewardForward, kRewardCtrl};
      return {kXPosition, kXVelocity, kRewardRun, kRewardCtrl};
    case Task::kHopper:
    case Task::kWalker2d:
      if (v5)
        return {kXPosition,     kZDistanceFromOrigin, kXVelocity,
                kRewardForward, kRewardCtrl,          kRewardSurvive};
      return {kXPosition, kXVelocity};
    case Task::kSwimmer:
      if (v5)
        return {kXPosition, kYPosition,     kDistanceFromOrigin, kXVelocity,
                kYVelocity, kRewardForward, kRewardCtrl};
      return {kRewardFwd,          kRewardCtrl, kXPosition, kYPosition,
              kDistanceFromOrigin, kXVelocity,  kYVelocity, kForwardReward};
    case Task::kHumanoid:
      if (v5)
        return {kXPosition,     kYPosition,  kDistanceFromOrigin,
                kXVelocity,     kYVelocity,  kRewardSurvive,
                kRewardForward, kRewardCtrl, kRewardContact};
      return {kRewardLinvel, kRewardQuadctrl,     kRewardAlive,
              kXPosition,    kYPosition,          kDistanceFromOrigin,
              kXVelocity,    kYVelocity,          kForwardReward};
    case Task::kHumanoidStandup:
      if (v5)
        return {kXPosition,   kYPosition,      kZDistanceFromOrigin,
                kRewardLinup, kRewardQuadctrl, kRewardImpact};
      return {kRewardLinup, kRewardQuadctrl, kRewardImpact};
    case Task::kInvertedDoublePendulum:
      if (v5) return {kRewardSurvive, kDistancePenalty, kVelocityPenalty};
      return {};
    case Task::kInvertedPendulum:
      if (v5) return {kRewardSurvive};
      return {};
    case Task::kPusher:
      if (v5) return {kRewardDist, kRewardCtrl, kRewardNear};
      return {kRewardDist, kRewardCtrl};
    case Task::kReacher:
      return {kRewardDist, kRewardCtrl};
  }
  return {};
}

bool HasTendonInfo(Task task, int version) {
  return version >= 5 &&
         (task == Task::kHumanoid || task == Task::kHumanoidStandup);
}

// ---------------------------------------------------------------------------
// Models: parsed once per file, copied per env.

std::string ResolveXml(const std::string& xml, const std::string& assets_dir) {
  if (xml.empty()) throw std::invalid_argument("xml_file must not be empty");
  std::string full;
  if (xml[0] == '.' || xml[0] == '/') {
    full = xml;
  } else if (xml[0] == '~') {
    const char* home = std::getenv("HOME");
    full = std::string(home ? home : "") + xml.substr(1);
  } else {
    if (assets_dir.empty())
      throw std::invalid_argument(
          "xml_file '" + xml +
          "' is relative but no assets_dir is configured; pass an absolute "
          "path");
    full = assets_dir + "/" + xml;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(full, ec))
    throw std::invalid_argument("xml_file: file " + full + " does not exist");
  return full;
}

const mjModel* LoadModel(const std::string& path) {
  static std::mutex mu;
  // Never freed: models live for the process.
  static auto* cache = new std::map<std::string, const mjModel*>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  char err[1024] = {0};
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  if (m == nullptr)
    throw std::invalid_argument("MuJoCo could not load xml_file " + path +
                                ": " + err);
  cache->emplace(path, m);
  return m;
}

inline double Norm2(double x, double y) { return std::sqrt(std::fma(y, y, x * x)); }
inline double Norm3(double x, double y, double z) {
  return std::sqrt(std::fma(z, z, std::fma(y, y, x * x)));
}
inline double Clip(double x, double lo, double hi) {
  return std::min(std::max(x, lo), hi);
}

// ---------------------------------------------------------------------------
// Parameters, read once from the config.

struct Params {
  std::string xml_path;
  int frame_skip = 1;
  double forward_reward_weight = 1.0;
  double ctrl_cost_weight = 0.0;
  double contact_cost_weight = 0.0;
  double healthy_reward = 0.0;
  bool terminate_when_unhealthy = true;
  std::pair<double, double> healthy_z{-kInf, kInf};
  std::pair<double, double> healthy_angle{-kInf, kInf};
  std::pair<double, double> healthy_state{-kInf, kInf};
  std::pair<double, double> contact_force{-1.0, 1.0};
  std::pair<double, double> contact_cost_range{-kInf, 10.0};
  double reset_noise_scale = 0.0;
  bool exclude_positions = true;
  bool use_contact_forces = false;
  bool include_cinert = true;
  bool include_cvel = true;
  bool include_qfrc_actuator = true;
  bool include_cfrc_ext = true;
  ConfigValue main_body = int64_t{1};
  double uph_cost_weight = 1.0;
  double reward_near_weight = 0.5;
  double reward_dist_weight = 1.0;
  double reward_control_weight = 1.0;
  bool expose_state = false;
  RenderOptions render;
  // from_pixels: the observation is a frame of `pixels` (render's camera at
  // img_width x img_height), channel first; state_in_info keeps the state
  // observation as info "state".
  bool from_pixels = false;
  bool state_in_info = false;
  RenderOptions pixels;
};

// gymnasium's render keywords: width, height, camera_id, camera_name,
// default_camera_config (as text, see CameraConfig in render.h), max_geom
// and visual_options (as text, see RenderOptions).
RenderOptions ReadRenderOptions(const Config& c) {
  RenderOptions o;
  auto whole = [&](const std::string& key, double fallback) {
    const double v = GetNumber(c, key, fallback);
    if (v != std::floor(v) || v < -1e9 || v > 1e9)
      throw std::invalid_argument("config key '" + key + "' must be an integer");
    return static_cast<int>(v);
  };
  o.width = whole("width", 480);
  o.height = whole("height", 480);
  o.camera_id = whole("camera_id", -1);
  o.camera_name = GetString(c, "camera_name", "");
  o.default_camera = CameraConfig::Parse(GetString(c, "default_camera_config", ""));
  o.max_geom = whole("max_geom", 1000);
  o.visual_flags = RenderOptions::ParseVisualOptions(GetString(c, "visual_options", ""));
  return o;
}

Params ReadParams(const TaskDef& def, const Config& c) {
  Params p;
  p.xml_path = ResolveXml(GetString(c, "xml_file", def.xml_file),
                          GetString(c, "assets_dir", ""));
  const double fs = GetNumber(c, "frame_skip", def.frame_skip);
  if (!(fs >= 1) || fs != std::floor(fs) || fs > 1e6) {
    std::ostringstream msg;
    msg << "frame_skip must be a positive integer, got " << fs;
    throw std::invalid_argument(msg.str());
  }
  p.frame_skip = static_cast<int>(fs);
  p.forward_reward_weight = GetNumber(c, "forward_reward_weight", 1.0);
  p.terminate_when_unhealthy = GetBool(c, "terminate_when_unhealthy", true);
  p.exclude_positions =
      GetBool(c, "exclude_current_positions_from_observation", true);
  p.expose_state = GetBool(c, "expose_state", false);
  p.render = ReadRenderOptions(c);
  p.from_pixels = GetBool(c, "from_pixels", false);
  p.state_in_info = GetBool(c, "state_in_info", false);
  p.pixels = p.render;
  p.pixels.width = static_cast<int>(GetNumber(c, "img_width", 84));
  p.pixels.height = static_cast<int>(GetNumber(c, "img_height", 84));
  if (p.pixels.width < 1 || p.pixels.height < 1 || p.pixels.width > 4096 || p.pixels.height > 4096)
    throw std::invalid_argument("img_width and img_height must be in [1, 4096], got img_width=" +
                                std::to_string(p.pixels.width) + ", img_height=" + std::to_string(p.pixels.height));
  p.include_cinert = GetBool(c, "include_cinert_in_observation", true);
  p.include_cvel = GetBool(c, "include_cvel_in_observation", true);
  p.include_qfrc_actuator =
      GetBool(c, "include_qfrc_actuator_in_observation", true);
  p.include_cfrc_ext = GetBool(c, "include_cfrc_ext_in_observation", true);
  p.use_contact_forces = GetBool(c, "use_contact_forces", false);
  p.healthy_z = GetPair(c, "healthy_z_range", p.healthy_z);
  p.healthy_angle = GetPair(c, "healthy_angle_range", p.healthy_angle);
  p.healthy_state = GetPair(c, "healthy_state_range", p.healthy_state);
  p.contact_force = GetPair(c, "contact_force_range", p.contact_force);
  if (c.Has("main_body")) p.main_body = c.At("main_body");
  switch (def.task) {
    case Task::kHumanoidStandup:
      // v4 hard codes these; v5 names them. Like gymnasium's v5,
      // uph_cost_weight is accepted but does not enter the reward.
      p.ctrl_cost_weight = GetNumber(c, "ctrl_cost_weight", 0.1);
      p.contact_cost_weight = GetNumber(c, "impact_cost_weight", 5e-7);
      p.contact_cost_range =
          GetPair(c, "impact_cost_range", {-kInf, 10.0});
      p.uph_cost_weight = GetNumber(c, "uph_cost_weight", 1.0);
      p.reset_noise_scale = GetNumber(c, "reset_noise_scale", 0.01);
      break;
    case Task::kHumanoid:
      p.ctrl_cost_weight = GetNumber(c, "ctrl_cost_weight", 0.1);
      p.contact_cost_weight = GetNumber(c, "contact_cost_weight", 5e-7);
      p.contact_cost_range = GetPair(c, "contact_cost_range", {-kInf, 10.0});
      p.healthy_reward = GetNumber(c, "healthy_reward", 5.0);
      p.reset_noise_scale = GetNumber(c, "reset_noise_scale", 0.01);
      break;
    case Task::kInvertedDoublePendulum:
      p.healthy_reward = GetNumber(c, "healthy_reward", 10.0);
      p.reset_noise_scale = GetNumber(c, "reset_noise_scale", 0.1);
      break;
    case Task::kInvertedPendulum:
      p.reset_noise_scale = GetNumber(c, "reset_noise_scale", 0.01);
      break;
    case Task::kPusher:
      p.reward_near_weight = GetNumber(c, "reward_near_weight", 0.5);
      p.reward_dist_weight = GetNumber(c, "reward_dist_weight", 1.0);
      p.reward_control_weight = GetNumber(c, "reward_control_weight", 0.1);
      break;
    case Task::kReacher:
      p.reward_dist_weight = GetNumber(c, "reward_dist_weight", 1.0);
      p.reward_control_weight = GetNumber(c, "reward_control_weight", 1.0);
      break;
    default:
      p.ctrl_cost_weight = GetNumber(c, "ctrl_cost_weight", 0.0);
      p.contact_cost_weight = GetNumber(c, "contact_cost_weight", 0.0);
      p.healthy_reward = GetNumber(c, "healthy_reward", 0.0);
      p.reset_noise_scale = GetNumber(c, "reset_noise_scale", 0.0);
      break;
  }
  return p;
}

// ---------------------------------------------------------------------------
// The env.

class MujocoEnv : public Env {
 public:
  MujocoEnv(const TaskDef& def, const Params& p)
      : task_(def.task), v5_(def.version >= 5), p_(p) {
    m_ = LoadModel(p.xml_path);
    d_ = mj_makeData(m_);
    if (d_ == nullptr) throw std::runtime_error("mj_makeData failed");
    try {
      Init();
      renderer_ = std::make_unique<MujocoRenderer>(m_, p_.render);
      if (p_.from_pixels) pixel_renderer_ = std::make_unique<MujocoRenderer>(m_, p_.pixels);
    } catch (...) {
      mj_deleteData(d_);
      throw;
    }
  }
  ~MujocoEnv() override {
    renderer_.reset();
    pixel_renderer_.reset();
    mj_deleteData(d_);
  }
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;

  void Seed(uint64_t seed) override {
    rng_.seed(seed);
    normal_.reset();
  }

  EnvSpec Spec() const {
    EnvSpec spec;
    if (p_.from_pixels)
      spec.state.push_back(envpool::Spec<uint8_t>("obs", {3, p_.pixels.height, p_.pixels.width}, {0.0}, {255.0}));
    else
      spec.state.push_back(envpool::Spec<double>("obs", {obs_size_}));
    for (Field f : fields_)
      spec.state.push_back(
          envpool::Spec<double>(std::string("info:") + kFieldNames[f], {}));
    if (tendon_key_ >= 0) {
      spec.state.push_back(
          envpool::Spec<double>("info:tendon_length", {static_cast<int>(m_->ntendon)}));
      spec.state.push_back(
          envpool::Spec<double>("info:tendon_velocity", {static_cast<int>(m_->ntendon)}));
    }
    if (qpos0_key_ >= 0) {
      spec.state.push_back(envpool::Spec<double>("info:qpos0", {static_cast<int>(m_->nq)}));
      spec.state.push_back(envpool::Spec<double>("info:qvel0", {static_cast<int>(m_->nv)}));
    }
    if (state_key_ >= 0) spec.state.push_back(envpool::Spec<double>("info:state", {obs_size_}));
    std::vector<double> lo(m_->nu), hi(m_->nu);
    for (int i = 0; i < m_->nu; ++i) {
      // gymnasium's Box is float32: the bounds are the float32 values.
      lo[i] = static_cast<float>(m_->actuator_ctrlrange[2 * i]);
      hi[i] = static_cast<float>(m_->actuator_ctrlrange[2 * i + 1]);
    }
    spec.action.push_back(
        envpool::Spec<float>("action", {static_cast<int>(m_->nu)}, std::move(lo), std::move(hi)));
    return spec;
  }

  // render_mode="rgb_array": MuJoCo's renderer on this thread's GL context,
  // as gymnasium's MujocoRenderer (see render.h).
  std::array<int, 2> RenderSize() const override { return {renderer_->height(), renderer_->width()}; }
  void Render(uint8_t* rgb) override { renderer_->Render(d_, rgb); }

  void Reset(const StateRow& out) override {
    mj_resetData(m_, d_);
    const int nq = m_->nq, nv = m_->nv;
    double* qpos = d_->qpos;
    double* qvel = d_->qvel;
    const double* init_qpos = m_->qpos0;
    const double s = p_.reset_noise_scale;
    switch (task_) {
      case Task::kAnt:
      case Task::kHalfCheetah:
      case Task::kInvertedDoublePendulum:
        // qpos uniform, qvel normal.
        for (int i = 0; i < nq; ++i) qpos[i] = init_qpos[i] + Uniform(-s, s);
        for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + s * normal_(rng_);
        break;
      case Task::kReacher: {
        for (int i = 0; i < nq; ++i) qpos[i] = Uniform(-0.1, 0.1) + init_qpos[i];
        double gx, gy;
        do {
          gx = Uniform(-0.2, 0.2);
          gy = Uniform(-0.2, 0.2);
        } while (!(Norm2(gx, gy) < 0.2));
        qpos[nq - 2] = gx;
        qpos[nq - 1] = gy;
        for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + Uniform(-0.005, 0.005);
        qvel[nv - 2] = qvel[nv - 1] = 0.0;
        break;
      }
      case Task::kPusher: {
        for (int i = 0; i < nq; ++i) qpos[i] = init_qpos[i];
        double cx, cy;
        do {
          cx = Uniform(-0.3, 0.0);
          cy = Uniform(-0.2, 0.2);
        } while (!(Norm2(cx - 0.0, cy - 0.0) > 0.17));
        qpos[nq - 4] = cx;
        qpos[nq - 3] = cy;
        qpos[nq - 2] = 0.0;
        qpos[nq - 1] = 0.0;
        for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + Uniform(-0.005, 0.005);
        for (int i = nv - 4; i < nv; ++i) qvel[i] = 0.0;
        break;
      }
      default:
        // qpos and qvel uniform.
        for (int i = 0; i < nq; ++i) qpos[i] = init_qpos[i] + Uniform(-s, s);
        for (int i = 0; i < nv; ++i) qvel[i] = 0.0 + Uniform(-s, s);
        break;
    }
    mj_forward(m_, d_);
    if (qpos0_key_ >= 0) {
      std::copy(qpos, qpos + nq, qpos0_.begin());
      std::copy(qvel, qvel + nv, qvel0_.begin());
    }
    WriteObs(StateObs(out));
    // Reset info: v5's _get_reset_info terms, zero elsewhere.
    double f[kNumFields] = {0};
    if (v5_) {
      switch (task_) {
        case Task::kAnt:
        case Task::kSwimmer:
        case Task::kHumanoid:
          f[kXPosition] = qpos[0];
          f[kYPosition] = qpos[1];
          f[kDistanceFromOrigin] = Norm2(qpos[0], qpos[1]);
          break;
        case Task::kHalfCheetah:
          f[kXPosition] = qpos[0];
          break;
        case Task::kHopper:
        case Task::kWalker2d:
          f[kXPosition] = qpos[0];
          f[kZDistanceFromOrigin] = qpos[1] - init_qpos[1];
          break;
        case Task::kHumanoidStandup:
          f[kXPosition] = qpos[0];
          f[kYPosition] = qpos[1];
          f[kZDistanceFromOrigin] = qpos[2] - init_qpos[2];
          break;
        default:
          break;
      }
    }
    WriteInfo(f, out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const float* a = action.In<float>(0);
    const double* qpos = d_->qpos;
    double f[kNumFields];
    StepResult r;
    double x0 = 0.0, y0 = 0.0;
    switch (task_) {
      case Task::kAnt:
        x0 = d_->xpos[3 * main_body_];
        y0 = d_->xpos[3 * main_body_ + 1];
        break;
      case Task::kHumanoid:
        MassCenter(&x0, &y0);
        break;
      case Task::kHalfCheetah:
      case Task::kHopper:
      case Task::kWalker2d:
        x0 = qpos[0];
        break;
      case Task::kSwimmer:
        x0 = qpos[0];
        y0 = qpos[1];
        break;
      case Task::kReacher:
      case Task::kPusher:
        // v4 computes the reward before simulating.
        if (!v5_) ManipulationReward(a, f, &r);
        break;
      default:
        break;
    }

    for (int i = 0; i < m_->nu; ++i) d_->ctrl[i] = a[i];
    for (int k = 0; k < p_.frame_skip; ++k) mj_step(m_, d_);
    if (need_rne_) mj_rnePostConstraint(m_, d_);

    double* obs = StateObs(out);
    WriteObs(obs);

    switch (task_) {
      case Task::kAnt: {
        const double x1 = d_->xpos[3 * main_body_];
        const double y1 = d_->xpos[3 * main_body_ + 1];
        const double vx = (x1 - x0) / dt_, vy = (y1 - y0) / dt_;
        const bool healthy = AntHealthy();
        const float ctrl = CtrlCost32(a, p_.ctrl_cost_weight);
        f[kXVelocity] = vx;
        f[kYVelocity] = vy;
        if (v5_) {
          const double fwd = vx * p_.forward_reward_weight;
          const double hr = healthy ? p_.healthy_reward : 0.0 * p_.healthy_reward;
          const double contact = ContactCost();
          const double costs = static_cast<double>(ctrl) + contact;
          r.reward = (fwd + hr) - costs;
          r.terminated = !healthy && p_.terminate_when_unhealthy;
          f[kXPosition] = qpos[0];
          f[kYPosition] = qpos[1];
          f[kDistanceFromOrigin] = Norm2(qpos[0], qpos[1]);
          f[kRewardForward] = fwd;
          f[kRewardCtrl] = -ctrl;
          f[kRewardContact] = -contact;
          f[kRewardSurvive] = hr;
        } else {
          const double fwd = vx;
          const double hr =
              (healthy || p_.terminate_when_unhealthy) ? p_.healthy_reward
                                                       : 0.0 * p_.healthy_reward;
          double costs = ctrl;
          f[kRewardCtrl] = -ctrl;
          if (p_.use_contact_forces) {
            const double contact = ContactCost();
            costs = static_cast<double>(ctrl) + contact;
            // gymnasium's v4 reports the contact cost as reward_ctrl.
            f[kRewardCtrl] = -contact;
          }
          r.reward = (fwd + hr) - costs;
          r.terminated = p_.terminate_when_unhealthy ? !healthy : false;
          f[kRewardForward] = fwd;
          f[kRewardSurvive] = hr;
          f[kXPosition] = x1;
          f[kYPosition] = y1;
          f[kDistanceFromOrigin] = Norm2(x1, y1);
          f[kForwardReward] = fwd;
        }
        break;
      }
      case Task::kHalfCheetah: {
        const double vx = (qpos[0] - x0) / dt_;
        const float ctrl = CtrlCost32(a, p_.ctrl_cost_weight);
        const double fwd = p_.forward_reward_weight * vx;
        r.reward = fwd - static_cast<double>(ctrl);
        f[kXPosition] = qpos[0];
        f[kXVelocity] = vx;
        f[v5_ ? kRewardForward : kRewardRun] = fwd;
        f[kRewardCtrl] = -ctrl;
        break;
      }
      case Task::kHopper:
      case Task::kWalker2d: {
        const double vx = (qpos[0] - x0) / dt_;
        const float ctrl = CtrlCost32(a, p_.ctrl_cost_weight);
        const double fwd = p_.forward_reward_weight * vx;
        const bool healthy = task_ == Task::kHopper ? HopperHealthy()
                                                    : WalkerHealthy();
        double hr;
        if (v5_)
          hr = healthy ? p_.healthy_reward : 0.0 * p_.healthy_reward;
        else
          hr = (healthy || p_.terminate_when_unhealthy)
                   ? p_.healthy_reward
                   : 0.0 * p_.healthy_reward;
        r.reward = (fwd + hr) - static_cast<double>(ctrl);
        r.terminated = !healthy && p_.terminate_when_unhealthy;
        f[kXPosition] = qpos[0];
        f[kZDistanceFromOrigin] = qpos[1] - m_->qpos0[1];
        f[kXVelocity] = vx;
        f[kRewardForward] = fwd;
        f[kRewardCtrl] = -ctrl;
        f[kRewardSurvive] = hr;
        break;
      }
      case Task::kSwimmer: {
        const double vx = (qpos[0] - x0) / dt_, vy = (qpos[1] - y0) / dt_;
        const double fwd = p_.forward_reward_weight * vx;
        const float ctrl = CtrlCost32(a, p_.ctrl_cost_weight);
        r.reward = fwd - static_cast<double>(ctrl);
        f[kRewardFwd] = f[kRewardForward] = f[kForwardReward] = fwd;
        f[kRewardCtrl] = -ctrl;
        f[kXPosition] = qpos[0];
        f[kYPosition] = qpos[1];
        f[kDistanceFromOrigin] = Norm2(qpos[0], qpos[1]);
        f[kXVelocity] = vx;
        f[kYVelocity] = vy;
        break;
      }
      case Task::kHumanoid: {
        double x1, y1;
        MassCenter(&x1, &y1);
        const double vx = (x1 - x0) / dt_, vy = (y1 - y0) / dt_;
        const double ctrl = p_.ctrl_cost_weight * SumSquares(d_->ctrl, m_->nu);
        const double fwd = p_.forward_reward_weight * vx;
        const bool healthy =
            p_.healthy_z.first < qpos[2] && qpos[2] < p_.healthy_z.second;
        f[kXVelocity] = vx;
        f[kYVelocity] = vy;
        if (v5_) {
          const double hr = healthy ? p_.healthy_reward : 0.0 * p_.healthy_reward;
          const double contact = Clip(
              p_.contact_cost_weight * SumSquares(d_->cfrc_ext, 6 * m_->nbody),
              p_.contact_cost_range.first, p_.contact_cost_range.second);
          r.reward = (fwd + hr) - (ctrl + contact);
          r.terminated = !healthy && p_.terminate_when_unhealthy;
          f[kXPosition] = qpos[0];
          f[kYPosition] = qpos[1];
          f[kDistanceFromOrigin] = Norm2(qpos[0], qpos[1]);
          f[kRewardSurvive] = hr;
          f[kRewardForward] = fwd;
          f[kRewardCtrl] = -ctrl;
          f[kRewardContact] = -contact;
        } else {
          const double hr = (healthy || p_.terminate_when_unhealthy)
                                ? p_.healthy_reward
                                : 0.0 * p_.healthy_reward;
          r.reward = (fwd + hr) - ctrl;
          r.terminated = p_.terminate_when_unhealthy ? !healthy : false;
          f[kRewardLinvel] = fwd;
          f[kRewardQuadctrl] = -ctrl;
          f[kRewardAlive] = hr;
          f[kXPosition] = x1;
          f[kYPosition] = y1;
          f[kDistanceFromOrigin] = Norm2(x1, y1);
          f[kForwardReward] = fwd;
        }
        break;
      }
      case Task::kHumanoidStandup: {
        const double uph = (qpos[2] - 0) / m_->opt.timestep;
        const double ctrl = p_.ctrl_cost_weight * SumSquares(d_->ctrl, m_->nu);
        double impact =
            p_.contact_cost_weight * SumSquares(d_->cfrc_ext, 6 * m_->nbody);
        if (v5_)
          impact = Clip(impact, p_.contact_cost_range.first,
                        p_.contact_cost_range.second);
        else
          impact = std::min(impact, 10.0);
        r.reward = uph - ctrl - impact + 1;
        f[kXPosition] = qpos[0];
        f[kYPosition] = qpos[1];
        f[kZDistanceFromOrigin] = qpos[2] - m_->qpos0[2];
        f[kRewardLinup] = uph;
        f[kRewardQuadctrl] = -ctrl;
        f[kRewardImpact] = -impact;
        break;
      }
      case Task::kInvertedPendulum: {
        bool finite = true;
        for (int i = 0; i < obs_size_; ++i) finite = finite && std::isfinite(obs[i]);
        r.terminated = !finite || std::fabs(obs[1]) > 0.2;
        r.reward = v5_ ? (r.terminated ? 0.0 : 1.0) : 1.0;
        f[kRewardSurvive] = r.reward;
        break;
      }
      case Task::kInvertedDoublePendulum: {
        const double x = d_->site_xpos[0], y = d_->site_xpos[2];
        const double v1 = d_->qvel[1], v2 = d_->qvel[2];
        const double dist = 0.01 * (x * x) + (y - 2) * (y - 2);
        const double vel = 0.001 * (v1 * v1) + 0.005 * (v2 * v2);
        r.terminated = y <= 1;
        const double alive =
            v5_ ? p_.healthy_reward * (r.terminated ? 0 : 1) : 10.0;
        r.reward = alive - dist - vel;
        f[kRewardSurvive] = alive;
        f[kDistancePenalty] = -dist;
        f[kVelocityPenalty] = -vel;
        break;
      }
      case Task::kReacher:
      case Task::kPusher:
        if (v5_) ManipulationReward(a, f, &r);
        break;
    }
    WriteInfo(f, out);
    return r;
  }

 private:
  void Init() {
    const int nq = m_->nq, nv = m_->nv, nu = m_->nu, nb = m_->nbody;
    dt_ = m_->opt.timestep * p_.frame_skip;
    sq32_.resize(std::max(nu, 1));
    sq64_.resize(std::max(6 * nb, nu) + 1);
    cf_.resize(6 * nb);
    auto body = [&](const char* name) {
      int id = mj_name2id(m_, mjOBJ_BODY, name);
      if (id < 0)
        throw std::invalid_argument(std::string("the model has no body '") +
                                    name + "'");
      return id;
    };
    auto need_q = [&](int q, int v) {
      if (nq < q || nv < v)
        throw std::invalid_argument("the model has too few joints (nq=" +
                                    std::to_string(nq) + ", nv=" +
                                    std::to_string(nv) + ") for this task");
    };
    switch (task_) {
      case Task::kAnt:
        need_q(3, 0);
        if (v5_) {
          if (auto* i = std::get_if<int64_t>(&p_.main_body)) {
            if (*i < 0 || *i >= nb)
              throw std::invalid_argument(
                  "main_body " + std::to_string(*i) + " is out of range [0, " +
                  std::to_string(nb) + ")");
            main_body_ = static_cast<int>(*i);
          } else if (auto* s = std::get_if<std::string>(&p_.main_body)) {
            main_body_ = body(s->c_str());
          } else {
            throw std::invalid_argument(
                "main_body must be a body id (int) or a body name (str)");
          }
        } else {
          main_body_ = body("torso");
        }
        need_rne_ = v5_ || p_.use_contact_forces;
        break;
      case Task::kHumanoid:
      case Task::kHumanoidStandup:
        need_q(3, v5_ ? 6 : 0);
        need_rne_ = true;
        break;
      case Task::kHopper:
      case Task::kWalker2d:
        need_q(3, 0);
        break;
      case Task::kSwimmer:
        need_q(2, 0);
        break;
      case Task::kHalfCheetah:
        need_q(1, 0);
        break;
      case Task::kInvertedPendulum:
        need_q(2, 0);
        break;
      case Task::kInvertedDoublePendulum:
        need_q(1, 3);
        if (m_->nsite < 1)
          throw std::invalid_argument("the model has no site");
        break;
      case Task::kReacher:
        need_q(2, 2);
        fingertip_ = body("fingertip");
        target_ = body("target");
        break;
      case Task::kPusher:
        need_q(7, 7);
        tips_arm_ = body("tips_arm");
        object_ = body("object");
        goal_ = body("goal");
        break;
    }
    fields_ = InfoFields(task_, v5_ ? 5 : 4);
    int key = 1 + static_cast<int>(fields_.size());
    if (HasTendonInfo(task_, v5_ ? 5 : 4)) {
      tendon_key_ = key;
      key += 2;
    }
    if (p_.expose_state) {
      qpos0_key_ = key;
      key += 2;
      qpos0_.assign(nq, 0.0);
      qvel0_.assign(nv, 0.0);
    }
    // Measure the observation by writing one (forward first so that every
    // derived quantity is defined).
    mj_forward(m_, d_);
    std::vector<double> scratch(4 * (nq + nv) + 40 * nb + 64);
    obs_size_ = WriteObs(scratch.data());
    mj_resetData(m_, d_);
    if (p_.from_pixels) {
      state_.assign(obs_size_, 0.0);
      if (p_.state_in_info) state_key_ = key++;
    }
  }

  double Uniform(double lo, double hi) {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
  }

  // w * np.sum(np.square(action)) with a float32 action: float32 throughout.
  float CtrlCost32(const float* a, double weight) {
    const int nu = m_->nu;
    for (int i = 0; i < nu; ++i) sq32_[i] = a[i] * a[i];
    return static_cast<float>(weight) * NumpySum(sq32_.data(), nu);
  }

  double SumSquares(const double* x, int n) {
    for (int i = 0; i < n; ++i) sq64_[i] = x[i] * x[i];
    return NumpySum(sq64_.data(), n);
  }

  // contact_cost_weight * sum(clip(cfrc_ext)^2), after WriteObs filled cf_.
  double ContactCost() {
    return p_.contact_cost_weight * SumSquares(cf_.data(), 6 * m_->nbody);
  }

  void ClipContactForces() {
    const int n = 6 * m_->nbody;
    for (int i = 0; i < n; ++i)
      cf_[i] = Clip(d_->cfrc_ext[i], p_.contact_force.first,
                    p_.contact_force.second);
  }

  void MassCenter(double* x, double* y) const {
    const int nb = m_->nbody;
    double sx = 0.0, sy = 0.0;
    for (int b = 0; b < nb; ++b) {
      sx += m_->body_mass[b] * d_->xipos[3 * b];
      sy += m_->body_mass[b] * d_->xipos[3 * b + 1];
    }
    const double total = NumpySum(m_->body_mass, nb);
    *x = sx / total;
    *y = sy / total;
  }

  bool AntHealthy() const {
    const double* qpos = d_->qpos;
    for (int i = 0; i < m_->nq; ++i)
      if (!std::isfinite(qpos[i])) return false;
    for (int i = 0; i < m_->nv; ++i)
      if (!std::isfinite(d_->qvel[i])) return false;
    return p_.healthy_z.first <= qpos[2] && qpos[2] <= p_.healthy_z.second;
  }

  bool HopperHealthy() const {
    const double* qpos = d_->qpos;
    const auto [lo, hi] = p_.healthy_state;
    bool ok = true;
    for (int i = 2; i < m_->nq; ++i) ok = ok && lo < qpos[i] && qpos[i] < hi;
    for (int i = 0; i < m_->nv; ++i)
      ok = ok && lo < d_->qvel[i] && d_->qvel[i] < hi;
    return ok && WalkerHealthy();
  }

  bool WalkerHealthy() const {
    const double z = d_->qpos[1], angle = d_->qpos[2];
    return p_.healthy_z.first < z && z < p_.healthy_z.second &&
           p_.healthy_angle.first < angle && angle < p_.healthy_angle.second;
  }

  // Reacher and Pusher rewards (v4 before the simulation, v5 after).
  void ManipulationReward(const float* a, double* f, StepResult* r) {
    const int nu = m_->nu;
    for (int i = 0; i < nu; ++i) sq32_[i] = a[i] * a[i];
    const float sum = NumpySum(sq32_.data(), nu);
    const double* xp = d_->xpos;
    if (task_ == Task::kReacher) {
      const double* ft = xp + 3 * fingertip_;
      const double* tg = xp + 3 * target_;
      const double dist =
          Norm3(ft[0] - tg[0], ft[1] - tg[1], ft[2] - tg[2]);
      double rd;
      float rc;
      if (v5_) {
        rd = -dist * p_.reward_dist_weight;
        rc = -sum * static_cast<float>(p_.reward_control_weight);
      } else {
        rd = -dist;
        rc = -sum;
      }
      r->reward = rd + static_cast<double>(rc);
      f[kRewardDist] = rd;
      f[kRewardCtrl] = rc;
    } else {
      const double* ob = xp + 3 * object_;
      const double* tip = xp + 3 * tips_arm_;
      const double* gl = xp + 3 * goal_;
      const double near =
          Norm3(ob[0] - tip[0], ob[1] - tip[1], ob[2] - tip[2]);
      const double dist = Norm3(ob[0] - gl[0], ob[1] - gl[1], ob[2] - gl[2]);
      if (v5_) {
        const double rn = -near * p_.reward_near_weight;
        const double rd = -dist * p_.reward_dist_weight;
        const float rc = -sum * static_cast<float>(p_.reward_control_weight);
        r->reward = (rd + static_cast<double>(rc)) + rn;
        f[kRewardDist] = rd;
        f[kRewardCtrl] = rc;
        f[kRewardNear] = rn;
      } else {
        const double rn = -near, rd = -dist;
        const float rc = -sum;
        r->reward = (rd + static_cast<double>(0.1f * rc)) + 0.5 * rn;
        f[kRewardDist] = rd;
        f[kRewardCtrl] = rc;
      }
    }
  }

  // Writes the observation; returns its size.
  int WriteObs(double* o) {
    const int nq = m_->nq, nv = m_->nv, nb = m_->nbody;
    const double* qpos = d_->qpos;
    const double* qvel = d_->qvel;
    int k = 0;
    auto put = [&](const double* src, int n) {
      for (int i = 0; i < n; ++i) o[k + i] = src[i];
      k += n;
    };
    auto put_clip10 = [&](const double* src, int n) {
      for (int i = 0; i < n; ++i) o[k + i] = Clip(src[i], -10.0, 10.0);
      k += n;
    };
    switch (task_) {
      case Task::kAnt: {
        const int skip = p_.exclude_positions ? 2 : 0;
        put(qpos + skip, nq - skip);
        put(qvel, nv);
        if (v5_ || p_.use_contact_forces) ClipContactForces();
        if (v5_) {
          if (p_.include_cfrc_ext) put(cf_.data() + 6, 6 * (nb - 1));
        } else if (p_.use_contact_forces) {
          put(cf_.data(), 6 * nb);
        }
        break;
      }
      case Task::kHalfCheetah: {
        const int skip = p_.exclude_positions ? 1 : 0;
        put(qpos + skip, nq - skip);
        put(qvel, nv);
        break;
      }
      case Task::kHopper:
      case Task::kWalker2d: {
        const int skip = p_.exclude_positions ? 1 : 0;
        put(qpos + skip, nq - skip);
        put_clip10(qvel, nv);
        break;
      }
      case Task::kSwimmer: {
        const int skip = p_.exclude_positions ? 2 : 0;
        put(qpos + skip, nq - skip);
        put(qvel, nv);
        break;
      }
      case Task::kHumanoid:
      case Task::kHumanoidStandup: {
        const bool exclude =
            (task_ == Task::kHumanoidStandup && !v5_) || p_.exclude_positions;
        const int skip = exclude ? 2 : 0;
        put(qpos + skip, nq - skip);
        put(qvel, nv);
        if (v5_) {
          if (p_.include_cinert) put(d_->cinert + 10, 10 * (nb - 1));
          if (p_.include_cvel) put(d_->cvel + 6, 6 * (nb - 1));
          if (p_.include_qfrc_actuator) put(d_->qfrc_actuator + 6, nv - 6);
          if (p_.include_cfrc_ext) put(d_->cfrc_ext + 6, 6 * (nb - 1));
        } else {
          put(d_->cinert, 10 * nb);
          put(d_->cvel, 6 * nb);
          put(d_->qfrc_actuator, nv);
          put(d_->cfrc_ext, 6 * nb);
        }
        break;
      }
      case Task::kInvertedPendulum:
        put(qpos, nq);
        put(qvel, nv);
        break;
      case Task::kInvertedDoublePendulum:
        o[k++] = qpos[0];
        for (int i = 1; i < nq; ++i) o[k++] = std::sin(qpos[i]);
        for (int i = 1; i < nq; ++i) o[k++] = std::cos(qpos[i]);
        put_clip10(qvel, nv);
        put_clip10(d_->qfrc_constraint, v5_ ? 1 : nv);
        break;
      case Task::kReacher: {
        o[k++] = std::cos(qpos[0]);
        o[k++] = std::cos(qpos[1]);
        o[k++] = std::sin(qpos[0]);
        o[k++] = std::sin(qpos[1]);
        put(qpos + 2, nq - 2);
        put(qvel, 2);
        const double* ft = d_->xpos + 3 * fingertip_;
        const double* tg = d_->xpos + 3 * target_;
        for (int i = 0; i < (v5_ ? 2 : 3); ++i) o[k++] = ft[i] - tg[i];
        break;
      }
      case Task::kPusher:
        put(qpos, 7);
        put(qvel, 7);
        put(d_->xpos + 3 * tips_arm_, 3);
        put(d_->xpos + 3 * object_, 3);
        put(d_->xpos + 3 * goal_, 3);
        break;
    }
    return k;
  }

  // Where the state observation goes: the obs, or a scratch when the
  // observation is pixels (WriteInfo renders them).
  double* StateObs(const StateRow& out) { return p_.from_pixels ? state_.data() : out.Out<double>(0); }

  void WriteInfo(const double* f, const StateRow& out) {
    const int n = static_cast<int>(fields_.size());
    for (int i = 0; i < n; ++i) *out.Out<double>(1 + i) = f[fields_[i]];
    if (tendon_key_ >= 0) {
      const int nt = m_->ntendon;
      std::copy(d_->ten_length, d_->ten_length + nt,
                out.Out<double>(tendon_key_));
      std::copy(d_->ten_velocity, d_->ten_velocity + nt,
                out.Out<double>(tendon_key_ + 1));
    }
    if (qpos0_key_ >= 0) {
      std::copy(qpos0_.begin(), qpos0_.end(), out.Out<double>(qpos0_key_));
      std::copy(qvel0_.begin(), qvel0_.end(), out.Out<double>(qpos0_key_ + 1));
    }
    if (state_key_ >= 0) std::copy(state_.begin(), state_.end(), out.Out<double>(state_key_));
    if (p_.from_pixels) pixel_renderer_->Render(d_, out.Out<uint8_t>(0), /*channel_first=*/true);
  }

  Task task_;
  bool v5_;
  Params p_;
  const mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  double dt_ = 0.0;
  bool need_rne_ = false;
  int main_body_ = 1;
  int fingertip_ = -1, target_ = -1, tips_arm_ = -1, object_ = -1, goal_ = -1;
  int obs_size_ = 0;
  std::vector<Field> fields_;
  int tendon_key_ = -1;
  int qpos0_key_ = -1;
  std::vector<double> qpos0_, qvel0_;
  int state_key_ = -1;
  std::vector<double> state_;  // the state observation, with from_pixels
  std::vector<float> sq32_;
  std::vector<double> sq64_;
  std::vector<double> cf_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::unique_ptr<MujocoRenderer> renderer_;
  std::unique_ptr<MujocoRenderer> pixel_renderer_;  // from_pixels
};

// ---------------------------------------------------------------------------
// The table.

// The default_camera_config gymnasium's class uses, as CameraConfig text:
// the module's DEFAULT_CAMERA_CONFIG (the same for v4 and v5), except that
// Swimmer has none and InvertedDoublePendulum-v5's keyword defaults to None.
std::string DefaultCameraConfig(Task task, int version) {
  switch (task) {
    case Task::kAnt:
    case Task::kHalfCheetah:
      return "distance=4.0";
    case Task::kHopper:
      return "trackbodyid=2;distance=3.0;lookat=0.0,0.0,1.15;elevation=-20.0";
    case Task::kHumanoid:
      return "trackbodyid=1;distance=4.0;lookat=0.0,0.0,2.0;elevation=-20.0";
    case Task::kHumanoidStandup:
      return "trackbodyid=1;distance=4.0;lookat=0.0,0.0,0.8925;elevation=-20.0";
    case Task::kInvertedDoublePendulum:
      if (version >= 5) break;
      return "trackbodyid=0;distance=4.1225;lookat=0.0,0.0,0.12250000000000005";
    case Task::kInvertedPendulum:
      return "trackbodyid=0;distance=2.04";
    case Task::kPusher:
      return "trackbodyid=-1;distance=4.0";
    case Task::kReacher:
      return "trackbodyid=0";
    case Task::kWalker2d:
      return "trackbodyid=2;distance=4.0;lookat=0.0,0.0,1.15;elevation=-20.0";
    case Task::kSwimmer:
      break;
  }
  return "";
}

Config Defaults(Task task, int version, const std::string& xml,
                int frame_skip) {
  const bool v5 = version >= 5;
  using V = std::vector<double>;
  Config c;
  c.Set("xml_file", xml);
  if (v5) c.Set("frame_skip", int64_t{frame_skip});
  switch (task) {
    case Task::kAnt:
      if (v5) {
        c.Set("forward_reward_weight", 1.0);
        c.Set("ctrl_cost_weight", 0.5);
        c.Set("contact_cost_weight", 5e-4);
        c.Set("healthy_reward", 1.0);
        c.Set("main_body", int64_t{1});
        c.Set("terminate_when_unhealthy", true);
        c.Set("healthy_z_range", V{0.2, 1.0});
        c.Set("contact_force_range", V{-1.0, 1.0});
        c.Set("reset_noise_scale", 0.1);
        c.Set("exclude_current_positions_from_observation", true);
        c.Set("include_cfrc_ext_in_observation", true);
      } else {
        c.Set("ctrl_cost_weight", 0.5);
        c.Set("use_contact_forces", false);
        c.Set("contact_cost_weight", 5e-4);
        c.Set("healthy_reward", 1.0);
        c.Set("terminate_when_unhealthy", true);
        c.Set("healthy_z_range", V{0.2, 1.0});
        c.Set("contact_force_range", V{-1.0, 1.0});
        c.Set("reset_noise_scale", 0.1);
        c.Set("exclude_current_positions_from_observation", true);
      }
      break;
    case Task::kHalfCheetah:
      c.Set("forward_reward_weight", 1.0);
      c.Set("ctrl_cost_weight", 0.1);
      c.Set("reset_noise_scale", 0.1);
      c.Set("exclude_current_positions_from_observation", true);
      break;
    case Task::kHopper:
      c.Set("forward_reward_weight", 1.0);
      c.Set("ctrl_cost_weight", 1e-3);
      c.Set("healthy_reward", 1.0);
      c.Set("terminate_when_unhealthy", true);
      c.Set("healthy_state_range", V{-100.0, 100.0});
      c.Set("healthy_z_range", V{0.7, kInf});
      c.Set("healthy_angle_range", V{-0.2, 0.2});
      c.Set("reset_noise_scale", 5e-3);
      c.Set("exclude_current_positions_from_observation", true);
      break;
    case Task::kWalker2d:
      c.Set("forward_reward_weight", 1.0);
      c.Set("ctrl_cost_weight", 1e-3);
      c.Set("healthy_reward", 1.0);
      c.Set("terminate_when_unhealthy", true);
      c.Set("healthy_z_range", V{0.8, 2.0});
      c.Set("healthy_angle_range", V{-1.0, 1.0});
      c.Set("reset_noise_scale", 5e-3);
      c.Set("exclude_current_positions_from_observation", true);
      break;
    case Task::kSwimmer:
      c.Set("forward_reward_weight", 1.0);
      c.Set("ctrl_cost_weight", 1e-4);
      c.Set("reset_noise_scale", 0.1);
      c.Set("exclude_current_positions_from_observation", true);
      break;
    case Task::kHumanoid:
      c.Set("forward_reward_weight", 1.25);
      c.Set("ctrl_cost_weight", 0.1);
      if (v5) {
        c.Set("contact_cost_weight", 5e-7);
        c.Set("contact_cost_range", V{-kInf, 10.0});
      }
      c.Set("healthy_reward", 5.0);
      c.Set("terminate_when_unhealthy", true);
      c.Set("healthy_z_range", V{1.0, 2.0});
      c.Set("reset_noise_scale", 1e-2);
      c.Set("exclude_current_positions_from_observation", true);
      if (v5) {
        c.Set("include_cinert_in_observation", true);
        c.Set("include_cvel_in_observation", true);
        c.Set("include_qfrc_actuator_in_observation", true);
        c.Set("include_cfrc_ext_in_observation", true);
      }
      break;
    case Task::kHumanoidStandup:
      if (v5) {
        c.Set("uph_cost_weight", 1.0);
        c.Set("ctrl_cost_weight", 0.1);
        c.Set("impact_cost_weight", 5e-7);
        c.Set("impact_cost_range", V{-kInf, 10.0});
        c.Set("reset_noise_scale", 1e-2);
        c.Set("exclude_current_positions_from_observation", true);
        c.Set("include_cinert_in_observation", true);
        c.Set("include_cvel_in_observation", true);
        c.Set("include_qfrc_actuator_in_observation", true);
        c.Set("include_cfrc_ext_in_observation", true);
      }
      break;
    case Task::kInvertedDoublePendulum:
      if (v5) {
        c.Set("healthy_reward", 10.0);
        c.Set("reset_noise_scale", 0.1);
      }
      break;
    case Task::kInvertedPendulum:
      if (v5) c.Set("reset_noise_scale", 0.01);
      break;
    case Task::kPusher:
      if (v5) {
        c.Set("reward_near_weight", 0.5);
        c.Set("reward_dist_weight", 1.0);
        c.Set("reward_control_weight", 0.1);
      }
      break;
    case Task::kReacher:
      if (v5) {
        c.Set("reward_dist_weight", 1.0);
        c.Set("reward_control_weight", 1.0);
      }
      break;
  }
  c.Set("assets_dir", std::string());
  c.Set("expose_state", false);
  // Rendering (gymnasium's MujocoEnv keywords).
  c.Set("width", int64_t{480});
  c.Set("height", int64_t{480});
  c.Set("camera_id", int64_t{-1});
  c.Set("camera_name", std::string());
  c.Set("default_camera_config", DefaultCameraConfig(task, version));
  c.Set("max_geom", int64_t{1000});
  c.Set("visual_options", std::string());
  // Pixel observations (issue 15): the camera above at img_width x img_height.
  c.Set("from_pixels", false);
  c.Set("img_height", int64_t{84});
  c.Set("img_width", int64_t{84});
  c.Set("state_in_info", false);
  return c;
}

}  // namespace

const std::vector<TaskDef>& TaskDefs() {
  static const std::vector<TaskDef> defs = [] {
    struct Row {
      const char* name;
      Task task;
      const char* xml4;
      const char* xml5;
      int frame_skip;
      int max_episode_steps;
    };
    const Row rows[] = {
        {"Ant", Task::kAnt, "ant.xml", "ant.xml", 5, 1000},
        {"HalfCheetah", Task::kHalfCheetah, "half_cheetah.xml",
         "half_cheetah.xml", 5, 1000},
        {"Hopper", Task::kHopper, "hopper.xml", "hopper.xml", 4, 1000},
        {"Humanoid", Task::kHumanoid, "humanoid.xml", "humanoid.xml", 5, 1000},
        {"HumanoidStandup", Task::kHumanoidStandup, "humanoidstandup.xml",
         "humanoidstandup.xml", 5, 1000},
        {"InvertedDoublePendulum", Task::kInvertedDoublePendulum,
         "inverted_double_pendulum.xml", "inverted_double_pendulum.xml", 5,
         1000},
        {"InvertedPendulum", Task::kInvertedPendulum, "inverted_pendulum.xml",
         "inverted_pendulum.xml", 2, 1000},
        {"Pusher", Task::kPusher, "pusher.xml", "pusher_v5.xml", 5, 100},
        {"Reacher", Task::kReacher, "reacher.xml", "reacher.xml", 2, 50},
        {"Swimmer", Task::kSwimmer, "swimmer.xml", "swimmer.xml", 4, 1000},
        {"Walker2d", Task::kWalker2d, "walker2d.xml", "walker2d_v5.xml", 4,
         1000},
    };
    std::vector<TaskDef> out;
    for (const Row& r : rows) {
      for (int v : {4, 5}) {
        const std::string xml = v == 4 ? r.xml4 : r.xml5;
        out.push_back(TaskDef{std::string(r.name) + "-v" + std::to_string(v),
                              r.task, v, xml, r.frame_skip,
                              r.max_episode_steps,
                              Defaults(r.task, v, xml, r.frame_skip)});
      }
    }
    return out;
  }();
  return defs;
}

namespace {
// MuJoCo's fatal errors (mju_error: e.g. its stack/arena out of memory)
// call exit() by default. Thrown instead, the exception unwinds through
// MuJoCo's C frames (built with unwind tables) to the engine, which hands
// it to the caller as a RuntimeError naming the env.
void ThrowMujocoError(const char* msg) { throw std::runtime_error(std::string("MuJoCo error: ") + msg); }
}  // namespace

void InstallMujocoErrorHandler() {
  // A handler someone else installed (mujoco's Python bindings throw their
  // own exception type) is kept: the engine reports any exception.
  if (mju_user_error == nullptr) mju_user_error = &ThrowMujocoError;
}

void CheckMujocoVersion() {
  if (mj_version() != mjVERSION_HEADER)
    throw std::runtime_error(
        "MuJoCo version mismatch: envpool was compiled against MuJoCo headers " +
        std::to_string(mjVERSION_HEADER) + " but the loaded libmujoco is " +
        std::to_string(mj_version()) + " (" + mj_versionString() +
        "); reinstall envpool against the installed mujoco wheel");
}

EnvSpec MakeSpec(const TaskDef& def, const Config& config) {
  MujocoEnv env(def, ReadParams(def, config));
  return env.Spec();
}

std::unique_ptr<Env> MakeEnv(const TaskDef& def, const Config& config,
                             int /*env_id*/) {
  return std::make_unique<MujocoEnv>(def, ReadParams(def, config));
}

std::function<void()> MakeRawStepper(const TaskDef& def, const Config& config,
                                     uint64_t seed) {
  struct Raw {
    mjModel* m = nullptr;
    mjData* d = nullptr;
    int frame_skip = 1;
    int steps = 0;
    uint64_t state = 0;
    ~Raw() {
      if (d) mj_deleteData(d);
      if (m) mj_deleteModel(m);
    }
  };
  const Params p = ReadParams(def, config);
  auto raw = std::make_shared<Raw>();
  raw->m = mj_copyModel(nullptr, LoadModel(p.xml_path));
  raw->d = mj_makeData(raw->m);
  if (!raw->m || !raw->d) throw std::runtime_error("MuJoCo allocation failed");
  raw->frame_skip = p.frame_skip;
  raw->state = seed * 0x9E3779B97F4A7C15ULL + 1;
  mj_forward(raw->m, raw->d);
  return [raw] {
    mjModel* m = raw->m;
    mjData* d = raw->d;
    for (int i = 0; i < m->nu; ++i) {
      // splitmix64 -> uniform in the ctrl range
      uint64_t z = (raw->state += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
      const double lo = m->actuator_ctrlrange[2 * i];
      const double hi = m->actuator_ctrlrange[2 * i + 1];
      d->ctrl[i] = static_cast<float>(lo + (hi - lo) * u);
    }
    for (int k = 0; k < raw->frame_skip; ++k) mj_step(m, d);
    if (++raw->steps >= 1000) {
      raw->steps = 0;
      mj_resetData(m, d);
      mj_forward(m, d);
    }
  };
}

}  // namespace envpool::mujoco
