// The MuJoCo family's shared base; see mujoco_env.h.
#include "cpp/mujoco/mujoco_env.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cpp/core/warnings.h"

namespace envpool::mujoco {
namespace {

std::string ResolveXmlPath(const std::string& xml, const std::string& assets_dir) {
  if (xml.empty()) throw std::invalid_argument("xml_file must not be empty");
  std::string full;
  if (xml[0] == '.' || xml[0] == '/') {
    full = xml;
  } else if (xml[0] == '~') {
    const char* home = std::getenv("HOME");
    full = std::string(home ? home : "") + xml.substr(1);
  } else {
    if (assets_dir.empty())
      throw std::invalid_argument("xml_file '" + xml +
                                  "' is relative but no assets_dir is configured; pass an absolute path");
    full = assets_dir + "/" + xml;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(full, ec))
    throw std::invalid_argument("xml_file: file " + full + " does not exist");
  return full;
}

// Parsing a model costs milliseconds and its arrays are read-only during
// simulation, so every env (and every pool) on the same file shares one.
const mjModel* LoadModel(const std::string& path) {
  static std::mutex mu;
  // Never freed: envs on other threads may still hold them at exit.
  static auto* cache = new std::map<std::string, const mjModel*>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  char err[1024] = {0};
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  if (m == nullptr) throw std::invalid_argument("MuJoCo could not load xml_file " + path + ": " + err);
  cache->emplace(path, m);
  return m;
}

int ReadFrameSkip(const Config& c) {
  const int64_t fs = c.Get<int64_t>("frame_skip");
  // The bound keeps one agent step from running for hours.
  if (fs < 1 || fs > 1000000)
    throw std::invalid_argument("frame_skip must be a positive integer (at most 1000000), got " + std::to_string(fs));
  return static_cast<int>(fs);
}

// The exception unwinds through MuJoCo's C frames (built with unwind
// tables) to the engine, which hands it to the caller as a RuntimeError
// naming the env; the pool stays usable.
void ThrowMujocoError(const char* msg) { throw std::runtime_error(std::string("MuJoCo error: ") + msg); }

// Called on worker threads without the GIL: queued, issued by the binding.
void PostMujocoWarning(const char* msg) { envpool::PostWarning(std::string("MuJoCo warning: ") + msg); }

}  // namespace

void InstallMujocoHandlers() {
  // Handlers someone else installed (mujoco's Python bindings throw their
  // own exception type) are kept: the engine reports any exception.
  if (mju_user_error == nullptr) mju_user_error = &ThrowMujocoError;
  if (mju_user_warning == nullptr) mju_user_warning = &PostMujocoWarning;
}

void CheckMujocoVersion() {
  if (mj_version() != mjVERSION_HEADER)
    throw std::runtime_error("MuJoCo version mismatch: envpool was compiled against MuJoCo headers " +
                             std::to_string(mjVERSION_HEADER) + " but the loaded libmujoco is " +
                             std::to_string(mj_version()) + " (" + mj_versionString() +
                             "); reinstall envpool against the installed mujoco wheel");
}

namespace {

// gymnasium's render keywords: width, height, camera_id, camera_name,
// default_camera_config (as text, see CameraConfig in render.h), max_geom
// and visual_options (as text, see RenderOptions).
RenderOptions ReadRenderOptions(const Config& c) {
  auto whole = [&](const std::string& key) {
    const int64_t v = c.Get<int64_t>(key);
    if (v < -1000000000 || v > 1000000000) throw std::invalid_argument("config key '" + key + "' is out of range");
    return static_cast<int>(v);
  };
  RenderOptions o;
  o.width = whole("width");
  o.height = whole("height");
  o.camera_id = whole("camera_id");
  o.camera_name = c.Get<std::string>("camera_name");
  o.default_camera = CameraConfig::Parse(c.Get<std::string>("default_camera_config"));
  o.max_geom = whole("max_geom");
  o.visual_flags = RenderOptions::ParseVisualOptions(c.Get<std::string>("visual_options"));
  o.process = RenderOptions::ParseProcess(c.Get<std::string>("render_processes"));
  return o;
}

}  // namespace

void AddRenderDefaults(Config* c, const std::string& default_camera_config) {
  // gymnasium's MujocoEnv keywords.
  c->Set("width", int64_t{480});
  c->Set("height", int64_t{480});
  c->Set("camera_id", int64_t{-1});
  c->Set("camera_name", std::string());
  c->Set("default_camera_config", default_camera_config);
  c->Set("max_geom", int64_t{1000});
  c->Set("visual_options", std::string());
  // Pixel observations: the camera above at img_width x img_height.
  c->Set("from_pixels", false);
  c->Set("img_height", int64_t{84});
  c->Set("img_width", int64_t{84});
  c->Set("state_in_info", false);
  // Where frames are drawn (RenderOptions::Process).
  c->Set("render_processes", std::string("auto"));
}

Range GetRange(const Config& c, const std::string& key) {
  const auto& p = c.Get<std::vector<double>>(key);
  if (p.size() != 2)
    throw std::invalid_argument("config key '" + key + "' must be a pair (min, max), got " + std::to_string(p.size()) +
                                " values");
  return {p[0], p[1]};
}

Config GymDefaults(int version, const std::string& xml_file, int frame_skip,
                   std::initializer_list<std::pair<std::string, ConfigValue>> keys) {
  Config c;
  c.Set("xml_file", xml_file);
  if (version >= 5) c.Set("frame_skip", int64_t{frame_skip});
  for (const auto& [k, v] : keys) c.Set(k, v);
  c.Set("assets_dir", std::string());
  c.Set("expose_state", false);
  c.Set("model_randomization", std::string());
  c.Set("model_info", false);
  return c;
}

BodyStateObs::BodyStateObs(const Config& c, bool is_v5) : v5(is_v5) {
  if (!v5) return;
  cinert = c.Get<bool>("include_cinert_in_observation");
  cvel = c.Get<bool>("include_cvel_in_observation");
  qfrc_actuator = c.Get<bool>("include_qfrc_actuator_in_observation");
  cfrc_ext = c.Get<bool>("include_cfrc_ext_in_observation");
}

int BodyStateObs::Size(const mjModel* m) const {
  const int nb = m->nbody, nv = m->nv;
  if (!v5) return 10 * nb + 6 * nb + nv + 6 * nb;
  return (cinert ? 10 * (nb - 1) : 0) + (cvel ? 6 * (nb - 1) : 0) + (qfrc_actuator ? nv - 6 : 0) +
         (cfrc_ext ? 6 * (nb - 1) : 0);
}

void BodyStateObs::Write(ObsWriter* w, const mjModel* m, const mjData* d) const {
  const int nb = m->nbody, nv = m->nv;
  if (!v5) {
    w->Put(d->cinert, 10 * nb);
    w->Put(d->cvel, 6 * nb);
    w->Put(d->qfrc_actuator, nv);
    w->Put(d->cfrc_ext, 6 * nb);
    return;
  }
  if (cinert) w->Put(d->cinert + 10, 10 * (nb - 1));
  if (cvel) w->Put(d->cvel + 6, 6 * (nb - 1));
  if (qfrc_actuator) w->Put(d->qfrc_actuator + 6, nv - 6);
  if (cfrc_ext) w->Put(d->cfrc_ext + 6, 6 * (nb - 1));
}

void MujocoSpec::AddTendonInfo(const mjModel* m) {
  tendon_length = AddState<double>("info:tendon_length", {static_cast<int>(m->ntendon)});
  tendon_velocity = AddState<double>("info:tendon_velocity", {static_cast<int>(m->ntendon)});
}

void MujocoSpec::Finish(const MujocoEnv& env) {
  const mjModel* m = env.model();
  AddInitialState(env);
  AddModelInfo(env);
  if (env.from_pixels()) {
    // "obs" becomes the frame, channel first; the task's state observation
    // goes to a scratch, and to info "state" with state_in_info.
    ArraySpec& o = this->state[obs.index];
    state_size = static_cast<int>(o.NumElements());
    const auto [h, w] = env.pixel_size();
    o = Spec<uint8_t>("obs", {3, h, w}, {0.0}, {255.0});
    pixels = StateKey<uint8_t>{obs.index};
    if (env.state_in_info()) state_info = AddState<double>("info:state", {state_size});
  }
  std::vector<double> lo(m->nu), hi(m->nu);
  for (int i = 0; i < m->nu; ++i) {
    // gymnasium's Box is float32: the bounds are the float32 values.
    lo[i] = static_cast<float>(m->actuator_ctrlrange[2 * i]);
    hi[i] = static_cast<float>(m->actuator_ctrlrange[2 * i + 1]);
  }
  action = AddAction<float>("action", {static_cast<int>(m->nu)}, std::move(lo), std::move(hi));
}

std::string MujocoEnv::ResolveXml(const Config& c) {
  return ResolveXmlPath(c.Get<std::string>("xml_file"), c.Get<std::string>("assets_dir"));
}

MujocoEnv::MujocoEnv(const Config& c, const std::string& xml_path, int fixed_frame_skip, int min_nq, int min_nv)
    : MujocoBase(c, LoadModel(xml_path)),
      xml_path_(xml_path),
      frame_skip_(c.Has("frame_skip") ? ReadFrameSkip(c) : fixed_frame_skip) {
  const RenderOptions render = ReadRenderOptions(c);
  if (c.Get<bool>("from_pixels")) {
    RenderOptions pixels = render;
    pixels.width = static_cast<int>(std::clamp<int64_t>(c.Get<int64_t>("img_width"), -1, 1 << 20));
    pixels.height = static_cast<int>(std::clamp<int64_t>(c.Get<int64_t>("img_height"), -1, 1 << 20));
    if (pixels.width < 1 || pixels.height < 1 || pixels.width > 4096 || pixels.height > 4096)
      throw std::invalid_argument("img_width and img_height must be in [1, 4096], got img_width=" +
                                  std::to_string(pixels.width) + ", img_height=" + std::to_string(pixels.height));
    MakeRenderers(render, &pixels);
    state_in_info_ = c.Get<bool>("state_in_info");
  } else {
    MakeRenderers(render, nullptr);
  }
  const int nq = m_->nq, nv = m_->nv, nu = m_->nu, nb = m_->nbody;
  // The task indexes qpos/qvel by position (e.g. qpos[2] is the torso height).
  if (nq < min_nq || nv < min_nv)
    throw std::invalid_argument("the model has too few joints (nq=" + std::to_string(nq) +
                                ", nv=" + std::to_string(nv) + ") for this task");
  dt_ = m_->opt.timestep * frame_skip_;
  sq32_.resize(std::max(nu, 1));
  sq64_.resize(std::max(6 * nb, nu) + 1);
}

void MujocoEnv::Reset(const StateRow& out) {
  ResetData();
  ResetModel();
  mj_forward(m_, d_);
  RecordInitialState();
  const MujocoSpec& s = spec();
  if (from_pixels() && state_.empty()) state_.assign(s.state_size, 0.0);
  // Batch rows are recycled: every key is written on every reset.
  for (StateKey<double> k : s.infos) *out[k] = 0.0;
  WriteReset(out);
  WriteExtras(out, s);
}

StepResult MujocoEnv::Step(const ActionRow& action, const StateRow& out) {
  const MujocoSpec& s = spec();
  const StepResult r = StepModel(action[s.action], out);
  WriteExtras(out, s);
  return r;
}

void MujocoEnv::WriteExtras(const StateRow& out, const MujocoSpec& s) {
  if (s.tendon_length.index >= 0) {
    const int nt = m_->ntendon;
    std::copy(d_->ten_length, d_->ten_length + nt, out[s.tendon_length]);
    std::copy(d_->ten_velocity, d_->ten_velocity + nt, out[s.tendon_velocity]);
  }
  if (s.state_info.index >= 0) std::copy(state_.begin(), state_.end(), out[s.state_info]);
  WriteBaseState(out, s);
}

int MujocoEnv::BodyId(const char* name) const {
  const int id = mj_name2id(m_, mjOBJ_BODY, name);
  if (id < 0) throw std::invalid_argument(std::string("the model has no body '") + name + "'");
  return id;
}

void MujocoEnv::NoiseUniform(double s) {
  for (int i = 0; i < m_->nq; ++i) d_->qpos[i] = m_->qpos0[i] + Uniform(-s, s);
  for (int i = 0; i < m_->nv; ++i) d_->qvel[i] = 0.0 + Uniform(-s, s);
}

void MujocoEnv::NoiseUniformNormal(double s) {
  for (int i = 0; i < m_->nq; ++i) d_->qpos[i] = m_->qpos0[i] + Uniform(-s, s);
  for (int i = 0; i < m_->nv; ++i) d_->qvel[i] = 0.0 + s * normal_(rng_);
}

void MujocoEnv::MassCenter(double* x, double* y) const {
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

bool MujocoEnv::StateFinite() const {
  for (int i = 0; i < m_->nq; ++i)
    if (!std::isfinite(d_->qpos[i])) return false;
  for (int i = 0; i < m_->nv; ++i)
    if (!std::isfinite(d_->qvel[i])) return false;
  return true;
}

std::function<void()> MakeRawStepper(const MujocoEnv& env, uint64_t seed) {
  return MakeRawStepper(env.model(), env.frame_skip(), seed);
}

std::function<void()> MakeRawStepper(const mjModel* model, int frame_skip, uint64_t seed) {
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
  auto raw = std::make_shared<Raw>();
  raw->m = mj_copyModel(nullptr, model);
  raw->d = raw->m ? mj_makeData(raw->m) : nullptr;
  if (!raw->m || !raw->d) throw std::runtime_error("MuJoCo allocation failed");
  raw->frame_skip = frame_skip;
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
    // An episode of gymnasium's usual length, then a reset, so the ceiling
    // includes what resets cost.
    if (++raw->steps >= 1000) {
      raw->steps = 0;
      mj_resetData(m, d);
      mj_forward(m, d);
    }
  };
}

}  // namespace envpool::mujoco
