// Rendering in helper processes, for GL implementations that draw one frame
// at a time per process.
//
// Mesa's software rasterizer (llvmpipe, behind OSMesa and Mesa's EGL) has one
// rasterizer per screen and one screen per process, so the GL contexts of a
// pool's stepping threads take turns: 8 envs of 84x84 HalfCheetah on 2
// threads used 1.06 CPUs. Separate processes each have their own. Here each
// stepping thread that renders gets one helper process, envpool_render_server
// (render_server.cc, installed next to the extension), spawned at the
// thread's first render and killed when the thread exits. The thread still
// builds the scene (mjv_updateScene, from its own mjModel and mjData, as
// render.h describes); the helper holds a copy of each model for its GL
// assets (mjr_makeContext), draws the scene it is sent (mjr_render) and
// sends back the pixels (mjr_readPixels), so frames are those the thread
// would have drawn on the same GL backend.
//
// Wire format, over a stream socket pair: every request is a Header and its
// payload, and gets one reply, a Header (status 0: payload is the result;
// 1: payload is an error message) and its payload. Values are in the host's
// layout (both ends are the same build on the same machine).
#ifndef ENVPOOL_MUJOCO_RENDER_PROCESS_H_
#define ENVPOOL_MUJOCO_RENDER_PROCESS_H_

#include <mujoco/mujoco.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace envpool::mujoco {

namespace render_wire {

enum Op : uint32_t {
  // u64 serial, i32 off_width, i32 off_height, the model (mj_saveModel,
  // its offscreen size set): make an mjrContext for it.
  kMakeContext = 1,
  // u64 count, count x u64 serials: free every model not listed.
  kKeepModels = 2,
  // u64 serial, i32 off_width, i32 off_height, i32 width, i32 height,
  // u64 n, n bytes of hfield_data to upload first (0: none), the scene
  // (AppendScene): reply width x height x 3 pixels, bottom row first.
  kRender = 3,
};

struct Header {
  uint32_t op;      // request: an Op
  uint32_t status;  // reply: 0 ok, 1 error
  uint64_t size;    // payload bytes
};

// The scene's values and the arrays the renderer reads (geoms, skins) after
// *out. Scenes with flexes are not supported (SceneSupported).
bool SceneSupported(const mjvScene& s);
void AppendScene(const mjvScene& s, const mjModel* m, std::string* out);
// Fills scn (made by mjv_makeScene for the same model, maxgeom >= the sent
// ngeom) from bytes written by AppendScene. Throws std::runtime_error on a
// malformed or oversized payload.
void ReadScene(const char* p, std::size_t n, const mjModel* m, mjvScene* scn);
// The sent scene's ngeom (the scene capacity the reader needs).
int SceneGeoms(const char* p, std::size_t n);

// Whole reads and writes, retrying on EINTR; false at end of stream or on
// an error (SIGPIPE is never raised).
bool WriteAll(int fd, const void* data, std::size_t n);
bool ReadAll(int fd, void* data, std::size_t n);

}  // namespace render_wire

class RenderProcess {
 public:
  // The server executable: ENVPOOL_RENDER_SERVER if set, else
  // envpool_render_server next to the library this code is in; "" when
  // there is none.
  static std::string ServerPath();
  // Starts a server on GL backend `backend` ("egl"/"osmesa", passed on as
  // MUJOCO_GL). Throws std::runtime_error if it cannot be started.
  static std::unique_ptr<RenderProcess> Spawn(const std::string& backend);
  // Kills and reaps the server (never waits on it otherwise).
  ~RenderProcess();
  RenderProcess(const RenderProcess&) = delete;
  RenderProcess& operator=(const RenderProcess&) = delete;

  // Draws scene (of model m, registered as serial) at width x height into
  // pixels (bottom row first, as mjr_readPixels), with an off_width x
  // off_height offscreen buffer; uploads m's height fields first if asked.
  // Throws std::runtime_error with the server's error, or when the server
  // has died (the process is then unusable: dead() is true).
  void Render(uint64_t serial, const mjModel* m, int off_width, int off_height, bool upload_hfields,
              const mjvScene& scene, int width, int height, unsigned char* pixels);
  // Frees the server's copies of models not in live.
  void KeepModels(const std::vector<uint64_t>& live);
  bool dead() const { return fd_ < 0; }
  pid_t pid() const { return pid_; }

 private:
  RenderProcess(int fd, pid_t pid) : fd_(fd), pid_(pid) {}
  // Sends a request and reads the reply's payload into *reply; throws.
  void Call(uint32_t op, const std::string& payload, std::string* reply);
  [[noreturn]] void Died(const char* when);

  int fd_;
  pid_t pid_;
  std::vector<std::tuple<uint64_t, int, int>> made_;  // (serial, off_width, off_height)
  std::string request_, reply_;
};

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_RENDER_PROCESS_H_
