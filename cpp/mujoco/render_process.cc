// See render_process.h.
#include "cpp/mujoco/render_process.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace envpool::mujoco {
namespace render_wire {
namespace {

template <class T>
void Put(std::string* out, const T& v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PutBytes(std::string* out, const void* p, std::size_t n) {
  if (n > 0) out->append(static_cast<const char*>(p), n);
}

// Reads n bytes at *p (advancing it) into dst, within [*p, end).
void Take(const char** p, const char* end, void* dst, std::size_t n) {
  if (static_cast<std::size_t>(end - *p) < n) throw std::runtime_error("render process: truncated scene");
  if (n > 0) std::memcpy(dst, *p, n);
  *p += n;
}

}  // namespace

bool SceneSupported(const mjvScene& s) { return s.nflex == 0; }

void AppendScene(const mjvScene& s, const mjModel* m, std::string* out) {
  Put(out, s);  // its pointers mean nothing to the reader, which keeps its own
  PutBytes(out, s.geoms, sizeof(mjvGeom) * s.ngeom);
  if (s.nskin > 0) {
    PutBytes(out, s.skinfacenum, sizeof(int) * s.nskin);
    PutBytes(out, s.skinvertadr, sizeof(int) * s.nskin);
    PutBytes(out, s.skinvertnum, sizeof(int) * s.nskin);
    PutBytes(out, s.skinvert, sizeof(float) * 3 * m->nskinvert);
    PutBytes(out, s.skinnormal, sizeof(float) * 3 * m->nskinvert);
  }
}

int SceneGeoms(const char* p, std::size_t n) {
  if (n < sizeof(mjvScene)) throw std::runtime_error("render process: truncated scene");
  mjvScene s;
  std::memcpy(&s, p, sizeof(mjvScene));
  return s.ngeom;
}

void ReadScene(const char* p, std::size_t n, const mjModel* m, mjvScene* scn) {
  const char* end = p + n;
  mjvScene sent;
  Take(&p, end, &sent, sizeof(mjvScene));
  if (sent.ngeom < 0 || sent.ngeom > scn->maxgeom || sent.nskin != scn->nskin || sent.nflex != 0 ||
      sent.nskin != m->nskin)
    throw std::runtime_error("render process: the scene does not fit the model");
  const mjvScene keep = *scn;
  *scn = sent;
  // The reader's own buffers (mjv_makeScene's, sized for this model).
  scn->maxgeom = keep.maxgeom;
  scn->geoms = keep.geoms;
  scn->geomorder = keep.geomorder;
  scn->flexedgeadr = keep.flexedgeadr;
  scn->flexedgenum = keep.flexedgenum;
  scn->flexvertadr = keep.flexvertadr;
  scn->flexvertnum = keep.flexvertnum;
  scn->flexfaceadr = keep.flexfaceadr;
  scn->flexfacenum = keep.flexfacenum;
  scn->flexfaceused = keep.flexfaceused;
  scn->flexedge = keep.flexedge;
  scn->flexvert = keep.flexvert;
  scn->flexface = keep.flexface;
  scn->flexnormal = keep.flexnormal;
  scn->flextexcoord = keep.flextexcoord;
  scn->skinfacenum = keep.skinfacenum;
  scn->skinvertadr = keep.skinvertadr;
  scn->skinvertnum = keep.skinvertnum;
  scn->skinvert = keep.skinvert;
  scn->skinnormal = keep.skinnormal;
  Take(&p, end, scn->geoms, sizeof(mjvGeom) * scn->ngeom);
  if (scn->nskin > 0) {
    Take(&p, end, scn->skinfacenum, sizeof(int) * scn->nskin);
    Take(&p, end, scn->skinvertadr, sizeof(int) * scn->nskin);
    Take(&p, end, scn->skinvertnum, sizeof(int) * scn->nskin);
    Take(&p, end, scn->skinvert, sizeof(float) * 3 * m->nskinvert);
    Take(&p, end, scn->skinnormal, sizeof(float) * 3 * m->nskinvert);
  }
  if (p != end) throw std::runtime_error("render process: trailing bytes after the scene");
}

bool WriteAll(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool ReadAll(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

}  // namespace render_wire

namespace {

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// The folder of the libmujoco loaded in this process ("" if unknown).
std::string LoadedMujocoDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&mj_version), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

std::string RenderProcess::ServerPath() {
  const char* env = std::getenv("ENVPOOL_RENDER_SERVER");
  if (env != nullptr && *env != '\0') return env;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&RenderProcess::ServerPath), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string dir = info.dli_fname;
  const auto slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash);
  const std::string path = dir + "/envpool_render_server";
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) return "";
  return path;
}

std::unique_ptr<RenderProcess> RenderProcess::Spawn(const std::string& backend) {
  const std::string path = ServerPath();
  if (path.empty())
    throw std::runtime_error(
        "the MuJoCo render server (envpool_render_server) was not found next to envpool's extension; set "
        "ENVPOOL_RENDER_SERVER to its path, or render_processes='off'");
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error(Errno("socketpair"));
  // The server's end becomes its fd 3 (a duplicate above 3, so that dup2
  // always makes a new descriptor, which exec keeps).
  const int child_end = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  close(sv[1]);
  if (child_end < 0) {
    close(sv[0]);
    throw std::runtime_error(Errno("fcntl"));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_end, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // Its own process group: a Ctrl-C at the terminal interrupts Python, not
  // the renders of the threads it is waiting for.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  std::vector<std::string> env_strings;
  const char* library_path = nullptr;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0) {
      library_path = *e + 16;
    } else if (std::strncmp(*e, "MUJOCO_GL=", 10) != 0) {
      env_strings.emplace_back(*e);
    }
  }
  env_strings.push_back("MUJOCO_GL=" + backend);
  // The server links libmujoco like the extension. Its relative RUNPATH finds
  // a mujoco package installed beside envpool; one installed elsewhere (pip
  // --target, PYTHONPATH overlays) is found through the folder of the
  // libmujoco this process loaded, so both run the same library.
  const std::string mujoco_dir = LoadedMujocoDir();
  std::string search = mujoco_dir;
  if (library_path != nullptr && *library_path != '\0')
    search += (search.empty() ? "" : ":") + std::string(library_path);
  if (!search.empty()) env_strings.push_back("LD_LIBRARY_PATH=" + search);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string arg0 = path, arg1 = "3", arg2 = std::to_string(getpid());
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, path.c_str(), &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(child_end);
  if (rc != 0) {
    close(sv[0]);
    throw std::runtime_error("cannot start the MuJoCo render server " + path + ": " + std::strerror(rc));
  }
  return std::unique_ptr<RenderProcess>(new RenderProcess(sv[0], pid));
}

RenderProcess::~RenderProcess() {
  if (fd_ >= 0) close(fd_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

void RenderProcess::Died(const char* when) {
  close(fd_);
  fd_ = -1;
  std::string how = "exited";
  int status = 0;
  kill(pid_, SIGKILL);  // if it only closed its end
  pid_t r;
  while ((r = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  if (r == pid_) {
    if (WIFEXITED(status)) how = "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) how = "was killed by signal " + std::to_string(WTERMSIG(status));
  }
  const pid_t pid = pid_;
  pid_ = -1;
  throw std::runtime_error("the MuJoCo render process (pid " + std::to_string(pid) + ") " + how + " " + when +
                           "; a new one is started at the next render");
}

void RenderProcess::Call(uint32_t op, const std::string& payload, std::string* reply) {
  if (fd_ < 0) throw std::runtime_error("the MuJoCo render process is gone");
  const render_wire::Header h{op, 0, payload.size()};
  if (!render_wire::WriteAll(fd_, &h, sizeof(h)) || !render_wire::WriteAll(fd_, payload.data(), payload.size()))
    Died("before a request reached it");
  render_wire::Header r;
  if (!render_wire::ReadAll(fd_, &r, sizeof(r))) Died("while rendering");
  reply->resize(r.size);
  if (!render_wire::ReadAll(fd_, reply->data(), r.size)) Died("while rendering");
  if (r.status != 0) throw std::runtime_error(*reply);
}

void RenderProcess::Render(uint64_t serial, const mjModel* m, int off_width, int off_height, bool upload_hfields,
                           const mjvScene& scene, int width, int height, unsigned char* pixels) {
  using render_wire::Put;
  const auto key = std::make_tuple(serial, off_width, off_height);
  if (std::find(made_.begin(), made_.end(), key) == made_.end()) {
    // mj_saveModel reads the model only; a shallow copy carries the
    // offscreen size (as the in-thread renderer's mjr_makeContext gets it).
    mjModel sized = *m;
    sized.vis.global.offwidth = off_width;
    sized.vis.global.offheight = off_height;
    const mjtSize n = mj_sizeModel(&sized);
    request_.clear();
    Put(&request_, serial);
    Put(&request_, off_width);
    Put(&request_, off_height);
    const std::size_t at = request_.size();
    request_.resize(at + static_cast<std::size_t>(n));
    mj_saveModel(&sized, nullptr, request_.data() + at, n);
    Call(render_wire::kMakeContext, request_, &reply_);
    made_.push_back(key);
  }
  request_.clear();
  Put(&request_, serial);
  Put(&request_, off_width);
  Put(&request_, off_height);
  Put(&request_, width);
  Put(&request_, height);
  const uint64_t nh = upload_hfields ? sizeof(float) * static_cast<uint64_t>(m->nhfielddata) : 0;
  Put(&request_, nh);
  render_wire::PutBytes(&request_, m->hfield_data, nh);
  render_wire::AppendScene(scene, m, &request_);
  Call(render_wire::kRender, request_, &reply_);
  const std::size_t want = static_cast<std::size_t>(width) * height * 3;
  if (reply_.size() != want) throw std::runtime_error("the MuJoCo render process sent a frame of the wrong size");
  std::memcpy(pixels, reply_.data(), want);
}

void RenderProcess::KeepModels(const std::vector<uint64_t>& live) {
  auto dead = [&](const std::tuple<uint64_t, int, int>& k) {
    return std::find(live.begin(), live.end(), std::get<0>(k)) == live.end();
  };
  if (std::none_of(made_.begin(), made_.end(), dead)) return;
  request_.clear();
  render_wire::Put(&request_, static_cast<uint64_t>(live.size()));
  for (uint64_t s : live) render_wire::Put(&request_, s);
  Call(render_wire::kKeepModels, request_, &reply_);
  made_.erase(std::remove_if(made_.begin(), made_.end(), dead), made_.end());
}

}  // namespace envpool::mujoco
