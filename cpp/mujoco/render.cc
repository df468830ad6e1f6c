// See render.h.
#include "cpp/mujoco/render.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/draw/planar.h"
#include "cpp/mujoco/gl_context.h"
#include "cpp/mujoco/render_process.h"

namespace envpool::mujoco {
namespace {

constexpr int kMaxSize = 32768;

// ---------------------------------------------------------------------------
// Models in use by renderers. A thread's mjrContexts are keyed by a serial
// number handed out per model while renderers use it, not by the model's
// address, which a later model may reuse.

struct ModelRegistry {
  std::mutex mu;
  std::map<const mjModel*, std::pair<uint64_t, int>> live;  // serial, users
  uint64_t next_serial = 1;
  std::atomic<uint64_t> retirements{0};  // bumped when a model loses its last user
};

ModelRegistry& Registry() {
  static auto* r = new ModelRegistry;  // never destroyed: envs may die late
  return *r;
}

// The serials of the models renderers use now.
std::vector<uint64_t> LiveSerials() {
  ModelRegistry& r = Registry();
  std::vector<uint64_t> live;
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& kv : r.live) live.push_back(kv.second.first);
  return live;
}

uint64_t AcquireModel(const mjModel* m) {
  ModelRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, added] = r.live.try_emplace(m, r.next_serial, 0);
  if (added) ++r.next_serial;
  ++it->second.second;
  return it->second.first;
}

void ReleaseModel(const mjModel* m) {
  ModelRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.live.find(m);
  if (it == r.live.end()) return;
  if (--it->second.second == 0) {
    r.live.erase(it);
    r.retirements.fetch_add(1, std::memory_order_release);
  }
}

// ---------------------------------------------------------------------------
// Per thread: the GL context and the mjrContexts made in it.

struct ThreadState {
  struct Entry {
    uint64_t serial;
    int off_width, off_height;
    mjrContext con;
  };
  std::unique_ptr<GLContext> gl;
  std::vector<std::unique_ptr<Entry>> entries;
  uint64_t retirements_seen = 0;

  ThreadState() = default;
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  // At thread exit (a pool's workers exit at close(); the main thread at
  // process exit, before any library's own exit handlers).
  ~ThreadState() {
    if (gl == nullptr) return;
    try {
      GLContext::Scope scope(*gl);
      for (auto& e : entries) mjr_freeContext(&e->con);
    } catch (...) {  // nothing to report to at thread exit
    }
    entries.clear();
    gl.reset();
  }

  // Frees the mjrContexts of models no renderer uses any more. The GL
  // context is current.
  void Sweep() {
    ModelRegistry& r = Registry();
    const uint64_t now = r.retirements.load(std::memory_order_acquire);
    if (now == retirements_seen || entries.empty()) {
      retirements_seen = now;
      return;
    }
    retirements_seen = now;
    const std::vector<uint64_t> live = LiveSerials();
    auto dead = [&](const std::unique_ptr<Entry>& e) {
      return std::find(live.begin(), live.end(), e->serial) == live.end();
    };
    for (auto& e : entries)
      if (dead(e)) mjr_freeContext(&e->con);
    entries.erase(std::remove_if(entries.begin(), entries.end(), dead), entries.end());
  }

  // The mjrContext of model m (serial) with an off_width x off_height
  // offscreen buffer, made at first use as gymnasium makes it (with the
  // model's vis.global.offwidth/offheight set to that size). The GL
  // context is current.
  mjrContext* Get(uint64_t serial, const mjModel* m, int off_width, int off_height) {
    for (auto& e : entries)
      if (e->serial == serial && e->off_width == off_width && e->off_height == off_height) return &e->con;
    auto e = std::make_unique<Entry>();
    e->serial = serial;
    e->off_width = off_width;
    e->off_height = off_height;
    // mjr_makeContext reads the model only; a shallow copy carries the
    // offscreen size without touching the shared model.
    auto sized = std::make_unique<mjModel>(*m);
    sized->vis.global.offwidth = off_width;
    sized->vis.global.offheight = off_height;
    mjr_defaultContext(&e->con);
    try {
      mjr_makeContext(sized.get(), &e->con, mjFONTSCALE_150);
    } catch (...) {
      mjr_freeContext(&e->con);
      throw;
    }
    entries.push_back(std::move(e));
    return &entries.back()->con;
  }
};

thread_local ThreadState t_state;

// Per thread: the helper process that draws its frames (render_process.h),
// and the model retirements it has been told of.
struct ThreadProcess {
  std::unique_ptr<RenderProcess> process;
  uint64_t retirements_seen = 0;

  RenderProcess& Get() {
    if (process != nullptr && process->dead()) process.reset();
    if (process == nullptr) process = RenderProcess::Spawn(GLContext::Backend());
    const uint64_t now = Registry().retirements.load(std::memory_order_acquire);
    if (now != retirements_seen) {
      process->KeepModels(LiveSerials());
      retirements_seen = now;
    }
    return *process;
  }
};

thread_local ThreadProcess t_process;

// Whether Process::kAuto renders in helper processes (decided once).
bool AutoInProcess() {
  static const bool on = GLContext::Software() && !RenderProcess::ServerPath().empty();
  return on;
}

// numpy.median of n values (NaN for none): the middle one, or the mean of
// the two middle ones.
double Median(std::vector<double> v) {
  const std::size_t n = v.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  if (n % 2 == 1) return v[n / 2];
  return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

double ParseNumber(const std::string& key, const std::string& text) {
  const std::string t = Trim(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0')
    throw std::invalid_argument("default_camera_config: " + key + " must be a number, got '" + text + "'");
  return v;
}

int ParseInt(const std::string& key, const std::string& text) {
  const double v = ParseNumber(key, text);
  if (v != std::floor(v) || std::abs(v) > 1e9)
    throw std::invalid_argument("default_camera_config: " + key + " must be an integer, got '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

// ---------------------------------------------------------------------------
// CameraConfig.

CameraConfig CameraConfig::Parse(const std::string& text) {
  CameraConfig c;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (Trim(item).empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("default_camera_config: expected key=value, got '" + Trim(item) + "'");
    const std::string key = Trim(item.substr(0, eq));
    const std::string value = item.substr(eq + 1);
    if (key == "type") {
      c.type = ParseInt(key, value);
    } else if (key == "fixedcamid") {
      c.fixedcamid = ParseInt(key, value);
    } else if (key == "trackbodyid") {
      c.trackbodyid = ParseInt(key, value);
    } else if (key == "orthographic") {
      c.orthographic = ParseInt(key, value);
    } else if (key == "distance") {
      c.distance = ParseNumber(key, value);
    } else if (key == "azimuth") {
      c.azimuth = ParseNumber(key, value);
    } else if (key == "elevation") {
      c.elevation = ParseNumber(key, value);
    } else if (key == "lookat") {
      std::array<double, 3> a{};
      std::stringstream vs(value);
      std::string x;
      int n = 0;
      while (std::getline(vs, x, ',')) {
        if (n == 3) break;
        a[n++] = ParseNumber(key, x);
      }
      if (n != 3 || std::getline(vs, x, ','))
        throw std::invalid_argument("default_camera_config: lookat must be three numbers, got '" + Trim(value) + "'");
      c.lookat = a;
    } else {
      throw std::invalid_argument("default_camera_config: unknown key '" + key +
                                  "' (known: type, fixedcamid, trackbodyid, orthographic, distance, azimuth, "
                                  "elevation, lookat)");
    }
  }
  return c;
}

void CameraConfig::ApplyTo(mjvCamera* cam) const {
  if (type) cam->type = *type;
  if (fixedcamid) cam->fixedcamid = *fixedcamid;
  if (trackbodyid) cam->trackbodyid = *trackbodyid;
  if (orthographic) cam->orthographic = *orthographic;
  if (distance) cam->distance = *distance;
  if (azimuth) cam->azimuth = *azimuth;
  if (elevation) cam->elevation = *elevation;
  if (lookat)
    for (int i = 0; i < 3; ++i) cam->lookat[i] = (*lookat)[i];
}

std::vector<std::pair<int, bool>> RenderOptions::ParseVisualOptions(const std::string& text) {
  std::vector<std::pair<int, bool>> flags;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (Trim(item).empty()) continue;
    const auto eq = item.find('=');
    const std::string key = Trim(item.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : Trim(item.substr(eq + 1));
    char* end = nullptr;
    const long flag = std::strtol(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || flag < 0 || flag >= mjNVISFLAG)
      throw std::invalid_argument("visual_options: a flag must be an mjtVisFlag index in [0, " +
                                  std::to_string(mjNVISFLAG) + "), got '" + key + "'");
    if (value != "0" && value != "1")
      throw std::invalid_argument("visual_options: flag " + key + " must be 0 or 1, got '" + value + "'");
    flags.emplace_back(static_cast<int>(flag), value == "1");
  }
  return flags;
}

RenderOptions::Process RenderOptions::ParseProcess(const std::string& text) {
  if (text == "auto") return Process::kAuto;
  if (text == "on") return Process::kOn;
  if (text == "off") return Process::kOff;
  throw std::invalid_argument("render_processes must be 'auto', 'on' or 'off', got '" + text + "'");
}

// ---------------------------------------------------------------------------
// MujocoRenderer.

MujocoRenderer::MujocoRenderer(const mjModel* m, const RenderOptions& o)
    : m_(m),
      scene_m_(m),
      width_(o.width),
      height_(o.height),
      camera_id_(o.camera_id),
      max_geom_(o.max_geom),
      process_(o.process),
      default_camera_(o.default_camera),
      visual_flags_(o.visual_flags) {
  if (o.width < 1 || o.height < 1 || o.width > kMaxSize || o.height > kMaxSize)
    throw std::invalid_argument("width and height must be in [1, " + std::to_string(kMaxSize) +
                                "], got width=" + std::to_string(o.width) + ", height=" + std::to_string(o.height));
  if (o.max_geom < 1 || o.max_geom > 1000000)
    throw std::invalid_argument("max_geom must be in [1, 1000000], got " + std::to_string(o.max_geom));
  if (!o.camera_name.empty()) {
    if (o.camera_id != -1)
      throw std::invalid_argument("Both `camera_id` and `camera_name` cannot be specified at the same time.");
    camera_id_ = mj_name2id(m, mjOBJ_CAMERA, o.camera_name.c_str());
    if (camera_id_ < 0) {
      std::string names;
      for (int i = 0; i < m->ncam; ++i) {
        const char* n = mj_id2name(m, mjOBJ_CAMERA, i);
        names += std::string(names.empty() ? "" : ", ") + "'" + (n != nullptr ? n : "") + "'";
      }
      throw std::invalid_argument("camera_name '" + o.camera_name + "' is not a camera of the model (its cameras: " +
                                  (names.empty() ? "none" : names) + ")");
    }
  } else if (o.camera_id < -1 || o.camera_id >= m->ncam) {
    throw std::invalid_argument("camera_id must be -1 (the free camera) or a camera of the model, in [0, " +
                                std::to_string(m->ncam) + "), got " + std::to_string(o.camera_id));
  }
  off_width_ = std::max(m->vis.global.offwidth, width_);
  off_height_ = std::max(m->vis.global.offheight, height_);
}

MujocoRenderer::~MujocoRenderer() {
  if (set_up_) mjv_freeScene(&scene_);
  if (model_serial_ != 0) ReleaseModel(m_);
}

void MujocoRenderer::SetUp(mjData* d) {
  model_serial_ = AcquireModel(m_);
  mjv_defaultScene(&scene_);
  mjv_makeScene(m_, &scene_, max_geom_);
  set_up_ = true;
  mjv_defaultCamera(&camera_);
  mjv_defaultOption(&option_);
  for (const auto& [flag, on] : visual_flags_) option_.flags[flag] = on ? 1 : 0;  // BaseRender's visual_options
  mjv_defaultPerturb(&perturb_);
  // OffScreenViewer._init_camera, then MujocoRenderer._set_cam_config.
  camera_.type = mjCAMERA_FREE;
  camera_.fixedcamid = -1;
  std::vector<double> axis(m_->ngeom);
  for (int i = 0; i < 3; ++i) {
    for (int g = 0; g < m_->ngeom; ++g) axis[g] = d->geom_xpos[3 * g + i];
    camera_.lookat[i] = Median(axis);
  }
  camera_.distance = m_->stat.extent;
  default_camera_.ApplyTo(&camera_);
  pixels_.resize(static_cast<std::size_t>(width_) * height_ * 3);
}

bool MujocoRenderer::InProcess() {
  if (process_ == RenderOptions::Process::kOff) return false;
  if (m_->nflex > 0) {  // scenes with flexes are not sent (render_process.h)
    if (process_ == RenderOptions::Process::kOn)
      throw std::invalid_argument("render_processes='on' does not support models with flexes");
    return false;
  }
  return process_ == RenderOptions::Process::kOn || AutoInProcess();
}

void MujocoRenderer::Render(mjData* d, uint8_t* rgb, bool channel_first) {
  RenderProcess* process = InProcess() ? &t_process.Get() : nullptr;
  ThreadState& t = t_state;
  std::optional<GLContext::Scope> scope;
  if (process == nullptr) {
    if (t.gl == nullptr) t.gl = GLContext::Create();
    scope.emplace(*t.gl);
    t.Sweep();
  }
  if (!set_up_) SetUp(d);
  // OffScreenViewer.render(camera_id=...): -1 is the free camera.
  camera_.type = camera_id_ == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
  camera_.fixedcamid = camera_id_;
  mjv_updateScene(scene_m_, d, &option_, &perturb_, &camera_, mjCAT_ALL, &scene_);
  if (process != nullptr) {
    process->Render(model_serial_, m_, off_width_, off_height_, upload_hfields_, scene_, width_, height_,
                    pixels_.data());
  } else {
    mjrContext* con = t.Get(model_serial_, m_, off_width_, off_height_);
    if (upload_hfields_)
      for (int i = 0; i < m_->nhfield; ++i) mjr_uploadHField(m_, con, i);
    // Several mjrContexts may share this GL context: bind this one's buffer.
    mjr_setBuffer(mjFB_OFFSCREEN, con);
    const mjrRect viewport{0, 0, width_, height_};
    mjr_render(viewport, &scene_, con);
    mjr_readPixels(pixels_.data(), nullptr, viewport, con);
  }
  const std::size_t row = static_cast<std::size_t>(width_) * 3;
  if (!channel_first) {
    for (int r = 0; r < height_; ++r) std::memcpy(rgb + r * row, pixels_.data() + (height_ - 1 - r) * row, row);
    return;
  }
  const std::size_t plane = static_cast<std::size_t>(width_) * height_;
  for (int r = 0; r < height_; ++r) {
    draw::PlanarFromRgb(pixels_.data() + (height_ - 1 - r) * row, width_, rgb + static_cast<std::size_t>(r) * width_,
                        plane);
  }
}

}  // namespace envpool::mujoco
