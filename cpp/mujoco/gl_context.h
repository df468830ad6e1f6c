// Off-screen OpenGL contexts for MuJoCo's renderer (mjr_*), created in C++
// with no window and no GL library linked: the library is dlopen()ed at the
// first render, so importing envpool and stepping never need one.
//
// Backends, chosen once per process at the first render, like MuJoCo's
// Python bindings choose with MUJOCO_GL:
//   MUJOCO_GL=egl     EGL on a device display (EGL_EXT_platform_device; a
//                     GPU driver's, or Mesa's software device), as
//                     mujoco.egl: MUJOCO_EGL_DEVICE_ID picks the device.
//   MUJOCO_GL=osmesa  Mesa's OSMesa (software), as mujoco.osmesa.
//   unset or empty    EGL if a context can be made, else OSMesa.
// Anything else, or no usable library, is an exception naming what was
// tried; nothing here ever exits the process. ENVPOOL_EGL_LIBRARY and
// ENVPOOL_OSMESA_LIBRARY name a library to load instead of the system's
// libEGL.so.1 / libOSMesa.so.8 (.6).
//
// How libmujoco finds GL (3.17): mjr_makeContext loads the GL entry points
// once per process (a function-local static, mjGladLoadGL) through a
// *GetProcAddress it looks up with dlsym in the global symbol scope:
// MUJOCO_GL's (osmesa: OSMesaGetProcAddress, egl: eglGetProcAddress, glx or
// glfw: glXGetProcAddressARB) first, then eglGetProcAddress,
// OSMesaGetProcAddress, glXGetProcAddressARB in that order, and only then a
// platform library loaded RTLD_LOCAL (found by file name with
// dl_iterate_phdr). So the library of the chosen backend is made global
// (RTLD_GLOBAL) only once a context works on it; a backend that was tried
// and failed stays RTLD_LOCAL, invisible to MuJoCo. Because the entry points
// are loaded once, every renderer of the process (ours, or gymnasium's
// through the mujoco bindings) must use the same backend.
#ifndef ENVPOOL_MUJOCO_GL_CONTEXT_H_
#define ENVPOOL_MUJOCO_GL_CONTEXT_H_

#include <memory>
#include <string>

namespace envpool::mujoco {

class GLContext {
 public:
  // A new context for the calling thread on the process's backend (chosen,
  // and its library loaded, at the first call). Throws std::runtime_error
  // when no GL is available, std::invalid_argument for a bad MUJOCO_GL.
  static std::unique_ptr<GLContext> Create();
  // The process's backend, "egl" or "osmesa" (chosen if not yet); throws
  // like Create().
  static std::string Backend();
  // Whether the backend draws with Mesa's software rasterizer (OSMesa, or
  // EGL's llvmpipe/softpipe), whose contexts in one process draw one frame
  // at a time (render_process.h); throws like Create().
  static bool Software();

  // Destroy on the thread that created it.
  virtual ~GLContext() = default;
  GLContext(const GLContext&) = delete;
  GLContext& operator=(const GLContext&) = delete;

  // Makes the context current on this thread for the scope's life. A
  // context of the same backend that was current before (e.g. one of the
  // mujoco bindings' on the main thread) is made current again at the end;
  // otherwise ours stays current (no switch on the next render).
  class Scope {
   public:
    explicit Scope(GLContext& c) : c_(c) { c_.Enter(); }
    ~Scope() { c_.Leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GLContext& c_;
  };

 protected:
  GLContext() = default;
  virtual void Enter() = 0;  // throws std::runtime_error
  virtual void Leave() noexcept = 0;
};

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_GL_CONTEXT_H_
