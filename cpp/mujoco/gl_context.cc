// See gl_context.h. The EGL and OSMesa entry points are declared here (no GL
// headers are needed to build) and resolved with dlsym from the library
// loaded at the first render.
#include "cpp/mujoco/gl_context.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::mujoco {
namespace {

// ---------------------------------------------------------------------------
// EGL (values from the Khronos headers).

using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLint = int32_t;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;

constexpr EGLint kEglSuccess = 0x3000;
constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglDraw = 0x3059;
constexpr EGLint kEglRead = 0x305A;
constexpr EGLenum kEglOpenGLApi = 0x30A2;
constexpr EGLenum kEglPlatformDeviceExt = 0x313F;
// mujoco.egl's attributes: RGBA8, depth 24, stencil 8, pbuffer, desktop GL.
// clang-format off
constexpr EGLint kEglConfigAttribs[] = {
    0x3024, 8,       // EGL_RED_SIZE
    0x3023, 8,       // EGL_GREEN_SIZE
    0x3022, 8,       // EGL_BLUE_SIZE
    0x3021, 8,       // EGL_ALPHA_SIZE
    0x3025, 24,      // EGL_DEPTH_SIZE
    0x3026, 8,       // EGL_STENCIL_SIZE
    0x303F, 0x308E,  // EGL_COLOR_BUFFER_TYPE, EGL_RGB_BUFFER
    0x3033, 0x0001,  // EGL_SURFACE_TYPE, EGL_PBUFFER_BIT
    0x3040, 0x0008,  // EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT
    kEglNone,
};
// clang-format on

struct Egl {
  void* (*GetProcAddress)(const char*) = nullptr;
  EGLint (*GetError)() = nullptr;
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*) = nullptr;
  EGLBoolean (*Terminate)(EGLDisplay) = nullptr;
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*) = nullptr;
  EGLBoolean (*BindAPI)(EGLenum) = nullptr;
  EGLenum (*QueryAPI)() = nullptr;
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*) = nullptr;
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext) = nullptr;
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext) = nullptr;
  EGLContext (*GetCurrentContext)() = nullptr;
  EGLDisplay (*GetCurrentDisplay)() = nullptr;
  EGLSurface (*GetCurrentSurface)(EGLint) = nullptr;
  EGLBoolean (*ReleaseThread)() = nullptr;
  EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*) = nullptr;
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*) = nullptr;
  EGLDisplay display = nullptr;
  EGLConfig config = nullptr;
};

// ---------------------------------------------------------------------------
// OSMesa (values from GL/osmesa.h and GL/gl.h).

using OSMesaContext = void*;
constexpr unsigned kOsmesaRgba = 0x1908;  // GL_RGBA
constexpr unsigned kGlFloat = 0x1406;
constexpr int kOsmesaWidth = 0x20, kOsmesaHeight = 0x21, kOsmesaType = 0x23;
// mujoco.osmesa's context: RGBA, depth 24, stencil 8, no accumulation.
// MuJoCo renders into framebuffer objects of its own, so the context's own
// buffer (here 16x16 floats, as mujoco.osmesa's type) is never drawn.
constexpr int kOsmesaBufferSize = 16;

struct Osmesa {
  OSMesaContext (*CreateContextExt)(unsigned, int, int, int, OSMesaContext) = nullptr;
  unsigned char (*MakeCurrent)(OSMesaContext, void*, unsigned, int, int) = nullptr;
  void (*DestroyContext)(OSMesaContext) = nullptr;
  OSMesaContext (*GetCurrentContext)() = nullptr;
  void (*GetIntegerv)(int, int*) = nullptr;
  unsigned char (*GetColorBuffer)(OSMesaContext, int*, int*, int*, void**) = nullptr;
};

// ---------------------------------------------------------------------------
// The process's backend.

enum class Kind { kNone, kEgl, kOsmesa };

struct Platform {
  Kind kind = Kind::kNone;
  std::string name;          // "egl" / "osmesa"
  std::string error;         // why there is none
  bool bad_setting = false;  // the error is a bad MUJOCO_GL value
  bool software = false;     // Mesa's software rasterizer (see GLContext::Software)
  Egl egl;
  Osmesa osmesa;
};

template <class F>
bool Sym(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

std::string EnvOr(const char* var, const char* fallback) {
  const char* v = std::getenv(var);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

// dlopen()s the first of names that loads, RTLD_LOCAL; *loaded is its name.
void* OpenLocal(const std::vector<std::string>& names, std::string* loaded, std::string* why) {
  std::string errors;
  for (const std::string& n : names) {
    void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) {
      *loaded = n;
      return h;
    }
    const char* e = dlerror();
    // Appended piece by piece: GCC 12 flagged the concatenated temporary
    // (-Wstringop-overflow, a false positive at the LTO link).
    if (!errors.empty()) errors += "; ";
    if (e != nullptr) {
      errors += e;
    } else {
      errors += n;
      errors += ": cannot be loaded";
    }
  }
  *why = errors;
  return nullptr;
}

// Makes the loaded library's symbols global, for libmujoco's GL loader.
void Promote(const std::string& loaded) { dlopen(loaded.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD); }

std::string Hex(EGLint v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%04X", static_cast<unsigned>(v));
  return buf;
}

// Loads libEGL and initialises a device display as mujoco.egl does. False
// with *why on failure (the library stays RTLD_LOCAL).
bool SetUpEgl(Egl* egl, std::string* loaded, std::string* why) {
  const std::string name = EnvOr("ENVPOOL_EGL_LIBRARY", "libEGL.so.1");
  std::vector<std::string> names{name};
  if (name == "libEGL.so.1") names.push_back("libEGL.so");
  void* lib = OpenLocal(names, loaded, why);
  if (lib == nullptr) return false;
  if (!Sym(lib, "eglGetProcAddress", &egl->GetProcAddress) || !Sym(lib, "eglGetError", &egl->GetError) ||
      !Sym(lib, "eglInitialize", &egl->Initialize) || !Sym(lib, "eglTerminate", &egl->Terminate) ||
      !Sym(lib, "eglChooseConfig", &egl->ChooseConfig) || !Sym(lib, "eglBindAPI", &egl->BindAPI) ||
      !Sym(lib, "eglQueryAPI", &egl->QueryAPI) || !Sym(lib, "eglCreateContext", &egl->CreateContext) ||
      !Sym(lib, "eglDestroyContext", &egl->DestroyContext) || !Sym(lib, "eglMakeCurrent", &egl->MakeCurrent) ||
      !Sym(lib, "eglGetCurrentContext", &egl->GetCurrentContext) ||
      !Sym(lib, "eglGetCurrentDisplay", &egl->GetCurrentDisplay) ||
      !Sym(lib, "eglGetCurrentSurface", &egl->GetCurrentSurface) ||
      !Sym(lib, "eglReleaseThread", &egl->ReleaseThread)) {
    *why = *loaded + " lacks an EGL 1.4 entry point";
    return false;
  }
  egl->QueryDevicesEXT = reinterpret_cast<decltype(egl->QueryDevicesEXT)>(egl->GetProcAddress("eglQueryDevicesEXT"));
  egl->GetPlatformDisplayEXT =
      reinterpret_cast<decltype(egl->GetPlatformDisplayEXT)>(egl->GetProcAddress("eglGetPlatformDisplayEXT"));
  if (egl->QueryDevicesEXT == nullptr || egl->GetPlatformDisplayEXT == nullptr) {
    *why = *loaded + " lacks EGL_EXT_device_enumeration / EGL_EXT_platform_base (needed for a headless display)";
    return false;
  }
  EGLint n = 0;
  if (!egl->QueryDevicesEXT(0, nullptr, &n) || n <= 0) {
    *why = "EGL reports no devices";
    return false;
  }
  std::vector<EGLDeviceEXT> devices(n);
  if (!egl->QueryDevicesEXT(n, devices.data(), &n) || n <= 0) {
    *why = "EGL reports no devices";
    return false;
  }
  devices.resize(n);
  int first = 0, last = n;
  if (const char* id = std::getenv("MUJOCO_EGL_DEVICE_ID"); id != nullptr && *id != '\0') {
    char* end = nullptr;
    const long v = std::strtol(id, &end, 10);
    if (*end != '\0' || v < 0 || v >= n) {
      *why = "MUJOCO_EGL_DEVICE_ID must be an integer in [0, " + std::to_string(n - 1) + "], got '" + id + "'";
      return false;
    }
    first = static_cast<int>(v);
    last = first + 1;
  }
  for (int i = first; i < last && egl->display == nullptr; ++i) {
    EGLDisplay d = egl->GetPlatformDisplayEXT(kEglPlatformDeviceExt, devices[i], nullptr);
    if (d == nullptr || egl->GetError() != kEglSuccess) continue;
    EGLint major = 0, minor = 0;
    if (egl->Initialize(d, &major, &minor) && egl->GetError() == kEglSuccess) egl->display = d;
  }
  if (egl->display == nullptr) {
    *why = "no EGL device display could be initialised";
    return false;
  }
  EGLint num = 0;
  if (!egl->ChooseConfig(egl->display, kEglConfigAttribs, &egl->config, 1, &num) || num < 1) {
    *why = "EGL has no RGBA8/depth24/stencil8 desktop-OpenGL config";
    egl->Terminate(egl->display);
    egl->display = nullptr;
    return false;
  }
  return true;
}

bool SetUpOsmesa(Osmesa* osm, std::string* loaded, std::string* why) {
  const std::string name = EnvOr("ENVPOOL_OSMESA_LIBRARY", "libOSMesa.so.8");
  std::vector<std::string> names{name};
  if (name == "libOSMesa.so.8") {
    names.push_back("libOSMesa.so.6");
    names.push_back("libOSMesa.so");
  }
  void* lib = OpenLocal(names, loaded, why);
  if (lib == nullptr) return false;
  if (!Sym(lib, "OSMesaCreateContextExt", &osm->CreateContextExt) ||
      !Sym(lib, "OSMesaMakeCurrent", &osm->MakeCurrent) || !Sym(lib, "OSMesaDestroyContext", &osm->DestroyContext) ||
      !Sym(lib, "OSMesaGetCurrentContext", &osm->GetCurrentContext) ||
      !Sym(lib, "OSMesaGetIntegerv", &osm->GetIntegerv) || !Sym(lib, "OSMesaGetColorBuffer", &osm->GetColorBuffer) ||
      dlsym(lib, "OSMesaGetProcAddress") == nullptr) {
    *why = *loaded + " lacks an OSMesa entry point";
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Contexts.

class EglContext : public GLContext {
 public:
  explicit EglContext(const Egl& egl) : egl_(egl) {
    const EGLenum api = egl_.QueryAPI();
    egl_.BindAPI(kEglOpenGLApi);
    ctx_ = egl_.CreateContext(egl_.display, egl_.config, nullptr, nullptr);
    const EGLint err = egl_.GetError();
    if (api != kEglOpenGLApi) egl_.BindAPI(api);
    if (ctx_ == nullptr) throw std::runtime_error("eglCreateContext failed (EGL error " + Hex(err) + ")");
  }
  ~EglContext() override {
    const EGLenum api = egl_.QueryAPI();
    egl_.BindAPI(kEglOpenGLApi);
    if (egl_.GetCurrentContext() == ctx_) egl_.MakeCurrent(egl_.display, nullptr, nullptr, nullptr);
    egl_.DestroyContext(egl_.display, ctx_);
    if (api != kEglOpenGLApi) egl_.BindAPI(api);
    if (egl_.GetCurrentContext() == nullptr) egl_.ReleaseThread();
  }

 protected:
  void Enter() override {
    prev_api_ = egl_.QueryAPI();
    if (prev_api_ != kEglOpenGLApi) egl_.BindAPI(kEglOpenGLApi);
    prev_ = egl_.GetCurrentContext();
    if (prev_ == ctx_) {
      prev_ = nullptr;
      return;
    }
    if (prev_ != nullptr) {
      prev_display_ = egl_.GetCurrentDisplay();
      prev_draw_ = egl_.GetCurrentSurface(kEglDraw);
      prev_read_ = egl_.GetCurrentSurface(kEglRead);
    }
    if (!egl_.MakeCurrent(egl_.display, nullptr, nullptr, ctx_)) {
      const EGLint err = egl_.GetError();
      Leave();
      throw std::runtime_error("eglMakeCurrent failed (EGL error " + Hex(err) + ")");
    }
  }
  void Leave() noexcept override {
    if (prev_ != nullptr) egl_.MakeCurrent(prev_display_, prev_draw_, prev_read_, prev_);
    if (prev_api_ != kEglOpenGLApi) egl_.BindAPI(prev_api_);
    prev_ = nullptr;
  }

 private:
  const Egl& egl_;
  EGLContext ctx_ = nullptr;
  EGLenum prev_api_ = kEglOpenGLApi;
  EGLContext prev_ = nullptr;
  EGLDisplay prev_display_ = nullptr;
  EGLSurface prev_draw_ = nullptr, prev_read_ = nullptr;
};

class OsmesaContext : public GLContext {
 public:
  explicit OsmesaContext(const Osmesa& osm) : osm_(osm), buffer_(4 * kOsmesaBufferSize * kOsmesaBufferSize) {
    ctx_ = osm_.CreateContextExt(kOsmesaRgba, 24, 8, 0, nullptr);
    if (ctx_ == nullptr) throw std::runtime_error("OSMesaCreateContextExt failed");
  }
  ~OsmesaContext() override {
    if (osm_.GetCurrentContext() == ctx_) osm_.MakeCurrent(nullptr, nullptr, 0, 0, 0);
    osm_.DestroyContext(ctx_);
  }

 protected:
  void Enter() override {
    prev_ = osm_.GetCurrentContext();
    if (prev_ == ctx_) {
      prev_ = nullptr;
      return;
    }
    if (prev_ != nullptr) {
      // The current context's buffer, to bind it back afterwards.
      int format = 0;
      osm_.GetIntegerv(kOsmesaType, &prev_type_);
      if (!osm_.GetColorBuffer(prev_, &prev_width_, &prev_height_, &format, &prev_buffer_)) prev_ = nullptr;
      int w = 0, h = 0;
      osm_.GetIntegerv(kOsmesaWidth, &w);
      osm_.GetIntegerv(kOsmesaHeight, &h);
      if (prev_ != nullptr && (w != prev_width_ || h != prev_height_)) prev_ = nullptr;
    }
    if (!osm_.MakeCurrent(ctx_, buffer_.data(), kGlFloat, kOsmesaBufferSize, kOsmesaBufferSize)) {
      Leave();
      throw std::runtime_error("OSMesaMakeCurrent failed");
    }
  }
  void Leave() noexcept override {
    if (prev_ != nullptr) osm_.MakeCurrent(prev_, prev_buffer_, prev_type_, prev_width_, prev_height_);
    prev_ = nullptr;
  }

 private:
  const Osmesa& osm_;
  std::vector<float> buffer_;
  OSMesaContext ctx_ = nullptr;
  OSMesaContext prev_ = nullptr;
  void* prev_buffer_ = nullptr;
  int prev_type_ = 0, prev_width_ = 0, prev_height_ = 0;
};

// Whether a context works on this thread: made current and released.
// *renderer: EGL's GL_RENDERER string.
bool Probe(const Platform& p, std::string* why, std::string* renderer = nullptr) {
  try {
    std::unique_ptr<GLContext> c;
    if (p.kind == Kind::kEgl)
      c = std::make_unique<EglContext>(p.egl);
    else
      c = std::make_unique<OsmesaContext>(p.osmesa);
    GLContext::Scope scope(*c);
    if (renderer != nullptr && p.kind == Kind::kEgl) {
      constexpr unsigned kGlRenderer = 0x1F01;
      auto get_string = reinterpret_cast<const unsigned char* (*)(unsigned)>(p.egl.GetProcAddress("glGetString"));
      const unsigned char* s = get_string != nullptr ? get_string(kGlRenderer) : nullptr;
      if (s != nullptr) *renderer = reinterpret_cast<const char*>(s);
    }
    return true;
  } catch (const std::exception& e) {
    *why = e.what();
    return false;
  }
}

bool TryEgl(Platform* p, std::string* why) {
  std::string loaded;
  if (!SetUpEgl(&p->egl, &loaded, why)) return false;
  p->kind = Kind::kEgl;
  std::string renderer;
  if (!Probe(*p, why, &renderer)) {
    p->kind = Kind::kNone;
    p->egl.Terminate(p->egl.display);
    return false;
  }
  Promote(loaded);
  p->name = "egl";
  // Mesa's device display without a GPU: "llvmpipe (LLVM 15.0.6, 256 bits)".
  p->software = renderer.find("llvmpipe") != std::string::npos || renderer.find("softpipe") != std::string::npos;
  return true;
}

bool TryOsmesa(Platform* p, std::string* why) {
  std::string loaded;
  if (!SetUpOsmesa(&p->osmesa, &loaded, why)) return false;
  p->kind = Kind::kOsmesa;
  if (!Probe(*p, why)) {
    p->kind = Kind::kNone;
    return false;
  }
  Promote(loaded);
  p->name = "osmesa";
  p->software = true;  // OSMesa draws with Mesa's software rasterizers only
  return true;
}

const char kHint[] =
    " (Debian/Ubuntu: apt-get install libosmesa6 for software rendering, or a GPU driver that provides "
    "libEGL; choose with MUJOCO_GL=egl or MUJOCO_GL=osmesa)";

Platform* ChoosePlatform() {
  auto* p = new Platform;  // lives for the process: contexts point into it
  const std::string want = EnvOr("MUJOCO_GL", "");
  std::string why_egl, why_osmesa;
  if (want == "egl") {
    if (!TryEgl(p, &why_egl)) p->error = "MUJOCO_GL=egl, but EGL is not usable: " + why_egl + kHint;
  } else if (want == "osmesa") {
    if (!TryOsmesa(p, &why_osmesa)) p->error = "MUJOCO_GL=osmesa, but OSMesa is not usable: " + why_osmesa + kHint;
  } else if (want.empty()) {
    if (!TryEgl(p, &why_egl) && !TryOsmesa(p, &why_osmesa)) {
      p->error =
          "MuJoCo rendering needs OpenGL, and none is usable: EGL: " + why_egl + "; OSMesa: " + why_osmesa + kHint;
    } else if (p->kind == Kind::kOsmesa) {
      // libmujoco would take a globally visible eglGetProcAddress (someone
      // else's libEGL) before ours; with MUJOCO_GL=osmesa it asks for OSMesa's.
      void* self = dlopen(nullptr, RTLD_NOW);
      if (self != nullptr && dlsym(self, "eglGetProcAddress") != nullptr) {
        p->kind = Kind::kNone;
        p->error = "EGL is not usable here (" + why_egl +
                   "), so rendering would use OSMesa, but a libEGL loaded by something else in this process would take "
                   "precedence in MuJoCo's GL loader: set MUJOCO_GL=osmesa";
      }
    }
  } else {
    p->bad_setting = true;
    p->error =
        "MUJOCO_GL must be 'egl' or 'osmesa' (or unset: EGL if usable, else OSMesa) for envpool's off-screen "
        "MuJoCo rendering, got '" +
        want + "'";
  }
  return p;
}

const Platform& GetPlatform() {
  static std::mutex mu;
  static Platform* platform = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (platform == nullptr) platform = ChoosePlatform();
  if (platform->kind == Kind::kNone) {
    if (platform->bad_setting) throw std::invalid_argument(platform->error);
    throw std::runtime_error(platform->error);
  }
  return *platform;
}

}  // namespace

std::unique_ptr<GLContext> GLContext::Create() {
  const Platform& p = GetPlatform();
  if (p.kind == Kind::kEgl) return std::make_unique<EglContext>(p.egl);
  return std::make_unique<OsmesaContext>(p.osmesa);
}

std::string GLContext::Backend() { return GetPlatform().name; }

bool GLContext::Software() { return GetPlatform().software; }

}  // namespace envpool::mujoco
