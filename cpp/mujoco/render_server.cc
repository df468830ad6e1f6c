// envpool_render_server: draws MuJoCo scenes for one stepping thread of a
// pool (render_process.h). Started as `envpool_render_server FD PARENT_PID`
// with the request socket on FD; serves requests one at a time until the
// socket closes or the parent dies, on one GL context of MUJOCO_GL's
// backend (gl_context.h), made at the first request that needs it.
#include <mujoco/mujoco.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/gl_context.h"
#include "cpp/mujoco/render_process.h"
#include "cpp/platform/process.h"

namespace envpool::mujoco {
namespace {

void ThrowMujocoError(const char* msg) { throw std::runtime_error(std::string("MuJoCo error: ") + msg); }
void IgnoreWarning(const char*) {}

struct Model {
  uint64_t serial;
  int off_width, off_height;
  mjModel* m = nullptr;
  mjrContext con;
  mjvScene scene;
  bool has_scene = false;

  ~Model() {
    if (has_scene) mjv_freeScene(&scene);
    mjr_freeContext(&con);
    if (m != nullptr) mj_deleteModel(m);
  }
};

class Server {
 public:
  explicit Server(int fd) : fd_(fd) {}

  // Serves until the stream ends; the exit status for main.
  int Run() {
    std::string payload, reply;
    for (;;) {
      render_wire::Header h;
      if (!render_wire::ReadAll(fd_, &h, sizeof(h))) break;
      payload.resize(h.size);
      if (!render_wire::ReadAll(fd_, payload.data(), h.size)) break;
      uint32_t status = 0;
      try {
        Handle(h.op, payload, &reply);
      } catch (const std::exception& e) {
        status = 1;
        reply = e.what();
      }
      const render_wire::Header r{h.op, status, reply.size()};
      if (!render_wire::WriteAll(fd_, &r, sizeof(r)) || !render_wire::WriteAll(fd_, reply.data(), reply.size())) break;
    }
    Shutdown();
    return 0;
  }

 private:
  template <class T>
  static T Get(const std::string& s, std::size_t* at) {
    if (s.size() < *at + sizeof(T)) throw std::runtime_error("render server: truncated request");
    T v;
    std::memcpy(&v, s.data() + *at, sizeof(T));
    *at += sizeof(T);
    return v;
  }

  void Handle(uint32_t op, const std::string& p, std::string* reply) {
    reply->clear();
    std::size_t at = 0;
    if (op == render_wire::kKeepModels) {
      const auto n = Get<uint64_t>(p, &at);
      std::vector<uint64_t> live;
      for (uint64_t i = 0; i < n; ++i) live.push_back(Get<uint64_t>(p, &at));
      Current();
      std::vector<std::unique_ptr<Model>> kept;
      for (auto& m : models_)
        if (std::find(live.begin(), live.end(), m->serial) != live.end()) kept.push_back(std::move(m));
      models_ = std::move(kept);
      return;
    }
    const auto serial = Get<uint64_t>(p, &at);
    const auto off_width = Get<int>(p, &at);
    const auto off_height = Get<int>(p, &at);
    if (op == render_wire::kMakeContext) {
      Current();
      auto m = std::make_unique<Model>();
      m->serial = serial;
      m->off_width = off_width;
      m->off_height = off_height;
      mjr_defaultContext(&m->con);
      m->m = mj_loadModelBuffer(p.data() + at, static_cast<mjtSize>(p.size() - at));
      if (m->m == nullptr) throw std::runtime_error("render server: cannot load the model it was sent");
      mjr_makeContext(m->m, &m->con, mjFONTSCALE_150);
      models_.push_back(std::move(m));
      return;
    }
    if (op != render_wire::kRender) throw std::runtime_error("render server: unknown request " + std::to_string(op));
    const auto width = Get<int>(p, &at);
    const auto height = Get<int>(p, &at);
    const auto nh = Get<uint64_t>(p, &at);
    Model* model = nullptr;
    for (auto& m : models_)
      if (m->serial == serial && m->off_width == off_width && m->off_height == off_height) model = m.get();
    if (model == nullptr) throw std::runtime_error("render server: a render for a model it was not sent");
    if (width < 1 || height < 1 || width > off_width || height > off_height)
      throw std::runtime_error("render server: the frame does not fit the offscreen buffer");
    Current();
    if (nh > 0) {
      const mjModel* m = model->m;
      if (nh != sizeof(float) * static_cast<uint64_t>(m->nhfielddata) || p.size() < at + nh)
        throw std::runtime_error("render server: height field data of the wrong size");
      std::memcpy(m->hfield_data, p.data() + at, nh);
      at += nh;
      for (int i = 0; i < m->nhfield; ++i) mjr_uploadHField(m, &model->con, i);
    }
    const int ngeom = render_wire::SceneGeoms(p.data() + at, p.size() - at);
    if (!model->has_scene || model->scene.maxgeom < ngeom) {
      if (model->has_scene) mjv_freeScene(&model->scene);
      model->has_scene = false;
      mjv_defaultScene(&model->scene);
      mjv_makeScene(model->m, &model->scene, std::max(ngeom, 1));
      model->has_scene = true;
    }
    render_wire::ReadScene(p.data() + at, p.size() - at, model->m, &model->scene);
    mjr_setBuffer(mjFB_OFFSCREEN, &model->con);
    const mjrRect viewport{0, 0, width, height};
    mjr_render(viewport, &model->scene, &model->con);
    reply->resize(static_cast<std::size_t>(width) * height * 3);
    mjr_readPixels(reinterpret_cast<unsigned char*>(reply->data()), nullptr, viewport, &model->con);
  }

  // Makes the GL context (at first use) current.
  void Current() {
    if (gl_ == nullptr) {
      gl_ = GLContext::Create();
      scope_ = std::make_unique<GLContext::Scope>(*gl_);
    }
  }

  void Shutdown() {
    if (gl_ == nullptr) return;
    try {
      models_.clear();
    } catch (...) {
    }
    scope_.reset();
    gl_.reset();
  }

  int fd_;
  std::unique_ptr<GLContext> gl_;
  std::unique_ptr<GLContext::Scope> scope_;
  std::vector<std::unique_ptr<Model>> models_;
};

}  // namespace
}  // namespace envpool::mujoco

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "envpool_render_server is started by envpool (FD PARENT_PID)\n");
    return 2;
  }
  const int fd = std::atoi(argv[1]);
  // Ends with the thread that started it, even if the socket is shared with
  // a forked copy of the parent.
  envpool::platform::DieWithParent(std::atol(argv[2]));
  mju_user_error = &envpool::mujoco::ThrowMujocoError;
  mju_user_warning = &envpool::mujoco::IgnoreWarning;
  return envpool::mujoco::Server(fd).Run();
}
