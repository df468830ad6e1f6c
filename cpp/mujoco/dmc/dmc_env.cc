// The DeepMind Control Suite's shared base; see dmc_env.h.
#include "cpp/mujoco/dmc/dmc_env.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>

namespace envpool::mujoco::dmc {

void NumpyRandom::InitGenrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < 624; ++i) mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  pos_ = 624;
}

void NumpyRandom::Seed(uint64_t seed) {
  if (seed <= 0xffffffffULL) {
    InitGenrand(static_cast<uint32_t>(seed));
  } else {
    // numpy's init_by_array with the key {low word, high word}.
    const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    const int n = 2;
    InitGenrand(19650218U);
    int i = 1, j = 0;
    for (int k = 624; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] + static_cast<uint32_t>(j);
      ++i;
      ++j;
      if (i >= 624) {
        mt_[0] = mt_[623];
        i = 1;
      }
      if (j >= n) j = 0;
    }
    for (int k = 623; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
      ++i;
      if (i >= 624) {
        mt_[0] = mt_[623];
        i = 1;
      }
    }
    mt_[0] = 0x80000000U;
    pos_ = 624;
  }
  has_gauss_ = false;
  gauss_ = 0.0;
}

void NumpyRandom::Generate() {
  constexpr uint32_t kUpper = 0x80000000U, kLower = 0x7fffffffU, kMatrix = 0x9908b0dfU;
  int i = 0;
  for (; i < 624 - 397; ++i) {
    const uint32_t y = (mt_[i] & kUpper) | (mt_[i + 1] & kLower);
    mt_[i] = mt_[i + 397] ^ (y >> 1) ^ ((y & 1U) ? kMatrix : 0U);
  }
  for (; i < 623; ++i) {
    const uint32_t y = (mt_[i] & kUpper) | (mt_[i + 1] & kLower);
    mt_[i] = mt_[i + 397 - 624] ^ (y >> 1) ^ ((y & 1U) ? kMatrix : 0U);
  }
  const uint32_t y = (mt_[623] & kUpper) | (mt_[0] & kLower);
  mt_[623] = mt_[396] ^ (y >> 1) ^ ((y & 1U) ? kMatrix : 0U);
  pos_ = 0;
}

uint32_t NumpyRandom::Next32() {
  if (pos_ >= 624) Generate();
  uint32_t y = mt_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

double NumpyRandom::Gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    const double g = gauss_;
    gauss_ = 0.0;
    return g;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * RandomSample() - 1.0;
    x2 = 2.0 * RandomSample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

namespace {

// rewards._sigmoids, term for term.
double SigmoidValue(double x, double value_at_1, Sigmoid sigmoid) {
  switch (sigmoid) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * std::log(value_at_1));
      const double xs = x * scale;
      return std::exp(-0.5 * (xs * xs));
    }
    case Sigmoid::kHyperbolic: {
      const double scale = std::acosh(1 / value_at_1);
      return 1 / std::cosh(x * scale);
    }
    case Sigmoid::kLongTail: {
      const double scale = std::sqrt(1 / value_at_1 - 1);
      const double xs = x * scale;
      return 1 / (xs * xs + 1);
    }
    case Sigmoid::kReciprocal: {
      const double scale = 1 / value_at_1 - 1;
      return 1 / (std::abs(x) * scale + 1);
    }
    case Sigmoid::kCosine: {
      const double scale = std::acos(2 * value_at_1 - 1) / std::numbers::pi;
      const double xs = x * scale;
      return std::abs(xs) < 1 ? (1 + std::cos(std::numbers::pi * xs)) / 2 : 0.0;
    }
    case Sigmoid::kLinear: {
      const double scale = 1 - value_at_1;
      const double xs = x * scale;
      return std::abs(xs) < 1 ? 1 - xs : 0.0;
    }
    case Sigmoid::kQuadratic: {
      const double scale = std::sqrt(1 - value_at_1);
      const double xs = x * scale;
      return std::abs(xs) < 1 ? 1 - xs * xs : 0.0;
    }
    case Sigmoid::kTanhSquared: {
      const double scale = std::atanh(std::sqrt(1 - value_at_1));
      const double t = std::tanh(x * scale);
      return 1 - t * t;
    }
  }
  return 0.0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::invalid_argument("cannot read dm_control model file " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// dm_control's common assets, by the names its XML includes them with.
constexpr const char* kCommonAssets[] = {"./common/materials.xml", "./common/skybox.xml", "./common/visual.xml"};

struct LoadedModel {
  const mjModel* model;
  const mjModel* noact;  // the same with actuation disabled
};

// mujoco.MjModel.from_xml_string(xml, assets) as dm_control calls it: the
// XML and the assets in a VFS. Parsing costs milliseconds and the arrays are
// read-only while simulating, so envs (and pools) on the same XML share one.
LoadedModel LoadModel(const std::string& model_dir, const std::string& xml, const std::string& name,
                      const char* asset_dir) {
  static std::mutex mu;
  // Never freed: envs on other threads may still hold them at exit.
  static auto* cache = new std::map<std::string, LoadedModel>();
  const std::string key = model_dir + '\n' + (asset_dir ? asset_dir : "") + '\n' + xml;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  struct Guard {
    mjVFS* v;
    ~Guard() { mj_deleteVFS(v); }
  } guard{&vfs};
  for (const char* asset : kCommonAssets) {
    const std::string data = ReadFile(model_dir + "/" + asset);
    if (mj_addBufferVFS(&vfs, asset, data.data(), static_cast<int>(data.size())) != 0)
      throw std::runtime_error(std::string("MuJoCo could not add asset ") + asset);
  }
  if (asset_dir != nullptr) {
    // dog.get_model_and_assets: the folder's files by their bare names.
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(model_dir + "/" + asset_dir, ec)) {
      if (!entry.is_regular_file()) continue;
      const std::string data = ReadFile(entry.path().string());
      const std::string file = entry.path().filename().string();
      if (mj_addBufferVFS(&vfs, file.c_str(), data.data(), static_cast<int>(data.size())) != 0)
        throw std::runtime_error("MuJoCo could not add asset " + file);
    }
    if (ec) throw std::invalid_argument("cannot list dm_control assets in " + model_dir + "/" + asset_dir);
  }
  const char* main = "model_.xml";
  if (mj_addBufferVFS(&vfs, main, xml.data(), static_cast<int>(xml.size())) != 0)
    throw std::runtime_error("MuJoCo could not add the model XML");
  char err[1024] = {0};
  mjModel* m = mj_loadXML(main, &vfs, err, sizeof(err));
  if (m == nullptr) throw std::invalid_argument("MuJoCo could not load the dm_control model " + name + ": " + err);
  mjModel* noact = mj_copyModel(nullptr, m);
  if (noact == nullptr) throw std::runtime_error("mj_copyModel failed");
  noact->opt.disableflags |= mjDSBL_ACTUATION;
  LoadedModel loaded{m, noact};
  cache->emplace(key, loaded);
  return loaded;
}

}  // namespace

double Tolerance(double x, double lower, double upper, double margin, Sigmoid sigmoid, double value_at_margin) {
  const bool in_bounds = lower <= x && x <= upper;
  if (margin == 0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  const double d = (x < lower ? lower - x : x - upper) / margin;
  return SigmoidValue(d, value_at_margin, sigmoid);
}

Config DmcDefaults(const std::string& task_name, double time_limit, int n_sub_steps,
                   std::initializer_list<std::pair<std::string, ConfigValue>> keys) {
  Config c;
  c.Set("task_name", task_name);
  c.Set("model_dir", std::string());
  c.Set("model_xml", std::string());
  c.Set("time_limit", time_limit);
  c.Set("n_sub_steps", int64_t{n_sub_steps});
  for (const auto& [k, v] : keys) c.Set(k, v);
  c.Set("expose_state", false);
  c.Set("model_randomization", std::string());
  c.Set("model_info", false);
  // physics.render's defaults.
  c.Set("width", int64_t{320});
  c.Set("height", int64_t{240});
  c.Set("camera_id", int64_t{-1});
  // EnvPool's pixel observations.
  c.Set("from_pixels", false);
  c.Set("img_height", int64_t{84});
  c.Set("img_width", int64_t{84});
  // Where frames are drawn (RenderOptions::Process in render.h).
  c.Set("render_processes", std::string("auto"));
  return c;
}

void DmcSpec::Finish(const DmcEnv& env, const char* draws_name, int draws_size) {
  const mjModel* m = env.model();
  AddInitialState(env);
  if (env.expose_state() && draws_name != nullptr)
    draws = AddState<double>(std::string("info:") + draws_name, {draws_size});
  AddModelInfo(env);
  if (env.from_pixels()) {
    for (ArraySpec& a : state)
      if (a.name.rfind("obs:", 0) == 0) a.name = "info:" + a.name.substr(4);
    const auto [h, w] = env.pixel_size();
    pixels = AddState<uint8_t>("obs:pixels", {3, h, w}, {0.0}, {255.0});
  }
  // mujoco.action_spec: the ctrlrange of limited actuators, else
  // +-mjMAXVAL.
  std::vector<double> lo(m->nu), hi(m->nu);
  for (int i = 0; i < m->nu; ++i) {
    const bool limited = m->actuator_ctrllimited[i] != 0;
    lo[i] = limited ? m->actuator_ctrlrange[2 * i] : -mjMAXVAL;
    hi[i] = limited ? m->actuator_ctrlrange[2 * i + 1] : mjMAXVAL;
  }
  action = AddAction<double>("action", {static_cast<int>(m->nu)}, std::move(lo), std::move(hi));
}

DmcEnv::SharedModels DmcEnv::LoadDomain(const Config& c, const std::string& domain, const char* asset_dir) {
  const std::string dir = c.Get<std::string>("model_dir");
  if (dir.empty()) throw std::invalid_argument("model_dir (dm_control's suite folder) is not set");
  std::string xml = c.Get<std::string>("model_xml");
  if (xml.empty()) xml = ReadFile(dir + "/" + domain + ".xml");
  const LoadedModel loaded = LoadModel(dir, xml, domain, asset_dir);
  return {loaded.model, loaded.noact};
}

DmcEnv::DmcEnv(const Config& c, const std::string& domain, bool own_model, const char* asset_dir)
    : DmcEnv(c, domain, own_model, LoadDomain(c, domain, asset_dir)) {}

DmcEnv::DmcEnv(const Config& c, const std::string& domain, bool own_model, const SharedModels& models)
    : MujocoBase(c, models.model, own_model), domain_(domain), noact_(models.noact) {
  const int64_t n = c.Get<int64_t>("n_sub_steps");
  if (n < 1 || n > 1000000)
    throw std::invalid_argument("n_sub_steps must be in [1, 1000000], got " + std::to_string(n));
  n_sub_steps_ = static_cast<int>(n);
  const double time_limit = c.Get<double>("time_limit");
  if (!(time_limit > 0)) throw std::invalid_argument("time_limit must be positive, got " + std::to_string(time_limit));
  // control.Environment: a float, compared with the step count.
  step_limit_ = std::isinf(time_limit) ? kInf : time_limit / (m_->opt.timestep * n_sub_steps_);
  RenderOptions render;
  auto whole = [&](const char* key) {
    const int64_t v = c.Get<int64_t>(key);
    if (v < -1000000 || v > 1000000)
      throw std::invalid_argument(std::string("config key '") + key + "' is out of range");
    return static_cast<int>(v);
  };
  render.width = whole("width");
  render.height = whole("height");
  render.camera_id = whole("camera_id");
  render.process = RenderOptions::ParseProcess(c.Get<std::string>("render_processes"));
  // dm_control's MjvOption hides rangefinder rays.
  render.visual_flags = {{mjVIS_RANGEFINDER, false}};
  if (render.camera_id == -1) {
    // dm_control's Camera: mjv_defaultFreeCamera, which the renderer's own
    // free camera (gymnasium's) is overridden with.
    mjvCamera cam;
    mjv_defaultCamera(&cam);
    mjv_defaultFreeCamera(m_, &cam);
    render.default_camera.lookat = std::array<double, 3>{cam.lookat[0], cam.lookat[1], cam.lookat[2]};
    render.default_camera.distance = cam.distance;
    render.default_camera.azimuth = cam.azimuth;
    render.default_camera.elevation = cam.elevation;
    render.default_camera.orthographic = cam.orthographic;
  }
  if (c.Get<bool>("from_pixels")) {
    RenderOptions pixels = render;
    pixels.height = whole("img_height");
    pixels.width = whole("img_width");
    if (pixels.width < 1 || pixels.height < 1 || pixels.width > 4096 || pixels.height > 4096)
      throw std::invalid_argument("img_width and img_height must be in [1, 4096], got img_width=" +
                                  std::to_string(pixels.width) + ", img_height=" + std::to_string(pixels.height));
    MakeRenderers(render, &pixels);
  } else {
    MakeRenderers(render, nullptr);
  }
}

void DmcEnv::ForwardWithoutActuation() {
  if (env_model().owned()) {
    const int flags = m_->opt.disableflags;
    m_->opt.disableflags |= mjDSBL_ACTUATION;
    mj_forward(m_, d_);
    m_->opt.disableflags = flags;
  } else {
    mj_forward(noact_, d_);
  }
}

void DmcEnv::PhysicsStep(int n) {
  if (m_->opt.integrator != mjINT_RK4) {
    mj_step2(m_, d_);
    for (int i = 1; i < n; ++i) mj_step(m_, d_);
  } else {
    for (int i = 0; i < n; ++i) mj_step(m_, d_);
  }
  mj_step1(m_, d_);
}

void DmcEnv::Reset(const StateRow& out) {
  step_count_ = 0;
  ResetData();
  ForwardWithoutActuation();
  InitializeEpisode();
  ForwardWithoutActuation();
  RecordInitialState();
  Observe(out);
  WriteState(out, spec());
}

void DmcEnv::WriteState(const StateRow& out, const DmcSpec& s) const {
  WriteBaseState(out, s);
  if (s.draws.index >= 0) {
    double* d = out[s.draws];
    const size_t n = s.state[s.draws.index].NumElements();
    for (size_t i = 0; i < n; ++i) d[i] = i < draws_.size() ? draws_[i] : 0.0;
  }
}

StepResult DmcEnv::Step(const ActionRow& action, const StateRow& out) {
  const DmcSpec& s = spec();
  BeforeStep(action[s.action]);
  PhysicsStep(n_sub_steps_);
  StepResult r;
  r.reward = Reward();
  Observe(out);
  WriteState(out, s);
  ++step_count_;
  if (static_cast<double>(step_count_) >= step_limit_) {
    r.truncated = true;  // LAST with discount 1
  } else if (const std::optional<double> discount = Termination()) {
    r.terminated = true;
    r.discount = static_cast<float>(*discount);
  }
  return r;
}

void DmcEnv::RandomizeLimitedAndRotationalJoints() {
  for (int j = 0; j < m_->njnt; ++j) {
    const int type = m_->jnt_type[j];
    const int adr = m_->jnt_qposadr[j];
    const double lo = m_->jnt_range[2 * j], hi = m_->jnt_range[2 * j + 1];
    if (m_->jnt_limited[j]) {
      if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
        d_->qpos[adr] = random_.Uniform(lo, hi);
      } else if (type == mjJNT_BALL) {
        throw std::logic_error("limited ball joints are not randomized here");
      }
    } else if (type == mjJNT_HINGE) {
      d_->qpos[adr] = random_.Uniform(-std::numbers::pi, std::numbers::pi);
    } else if (type == mjJNT_BALL || type == mjJNT_FREE) {
      // Ball: randn(4); free: rand(4) (dm_control's choice), normalised.
      double q[4];
      for (double& v : q) v = type == mjJNT_BALL ? random_.Gauss() : random_.RandomSample();
      const double norm = Norm4(q);
      double* dst = d_->qpos + adr + (type == mjJNT_FREE ? 3 : 0);
      for (int k = 0; k < 4; ++k) dst[k] = q[k] / norm;
    }
  }
}

int DmcEnv::Id(mjtObj type, const char* name) const {
  const int id = mj_name2id(m_, type, name);
  if (id < 0)
    throw std::invalid_argument(std::string("the dm_control model has no ") + mju_type2Str(type) + " '" + name + "'");
  return id;
}

std::function<void()> MakeRawStepper(const DmcEnv& env, uint64_t seed) {
  return envpool::mujoco::MakeRawStepper(env.model(), env.n_sub_steps(), seed);
}

}  // namespace envpool::mujoco::dmc
