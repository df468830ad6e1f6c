// MuJoCo's frames where there is no EGL or OSMesa (macOS, Windows): the GL
// contexts and the render server stand-ins, which refuse with one clear
// error at the first render. Stepping, observations and rewards are the
// same as on Linux.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/gl_context.h"
#include "cpp/mujoco/render_process.h"

namespace envpool::mujoco {
namespace {

[[noreturn]] void Unsupported() {
  throw std::runtime_error(
      "MuJoCo rendering (render(), pixel observations) is available on Linux only: envpool draws MuJoCo frames "
      "through EGL or OSMesa, which this platform lacks");
}

}  // namespace

std::unique_ptr<GLContext> GLContext::Create() { Unsupported(); }
std::string GLContext::Backend() { Unsupported(); }
bool GLContext::Software() { Unsupported(); }

std::string RenderProcess::ServerPath() { return ""; }
std::unique_ptr<RenderProcess> RenderProcess::Spawn(const std::string&) { Unsupported(); }
RenderProcess::~RenderProcess() = default;
void RenderProcess::Render(uint64_t, const mjModel*, int, int, bool, const mjvScene&, int, int, unsigned char*) {
  Unsupported();
}
void RenderProcess::KeepModels(const std::vector<uint64_t>&) { Unsupported(); }

}  // namespace envpool::mujoco
