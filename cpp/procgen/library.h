// procgen's engine (the libenv.so of procgen 0.10.7's wheel), loaded with
// dlopen() when a Procgen pool is made: a missing or foreign library is a
// clear error at make, never a crash or an undefined symbol at import.
#ifndef ENVPOOL_PROCGEN_LIBRARY_H_
#define ENVPOOL_PROCGEN_LIBRARY_H_

#include <dlfcn.h>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cpp/procgen/libenv_abi.h"

namespace envpool::procgen {

inline constexpr const char* kProcgenVersion = "0.10.7";

struct Library {
  std::string dir;  // holds libenv.so, version.txt and assets/
  abi::VersionFn version = nullptr;
  abi::MakeFn make = nullptr;
  abi::TensorTypesFn tensor_types = nullptr;
  abi::SetBuffersFn set_buffers = nullptr;
  abi::ObserveFn observe = nullptr;
  abi::ActFn act = nullptr;
  abi::CloseFn close = nullptr;
};

// libenv_make builds its games' assets and, the first time in a process,
// loads every image (procgen's own VecGame makes its games on one thread):
// makes and closes take turns.
inline std::mutex& MakeMutex() {
  static std::mutex m;
  return m;
}

// The folder the build installs the library in: _procgen/ beside the module
// that holds this code (envpool/_envpool*.so).
inline std::string DefaultLibraryDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&DefaultLibraryDir), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string module = info.dli_fname;
  const std::size_t slash = module.rfind('/');
  return (slash == std::string::npos ? std::string(".") : module.substr(0, slash)) + "/_procgen";
}

// The library in `dir` (empty: DefaultLibraryDir()), loaded once per process (never unloaded: its games
// may outlive any one pool). Throws std::runtime_error saying what is wrong
// and how to get it.
inline const Library& LoadLibrary(const std::string& given) {
  const std::string dir = given.empty() ? DefaultLibraryDir() : given;
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Library>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(dir);
  if (it != loaded.end()) return *it->second;
  const std::string how =
      " Procgen's ids need procgen 0.10.7's engine (libenv.so and its assets), which envpool's build "
      "takes from procgen's cp310 wheel (CMake option ENVPOOL_PROCGEN, third_party/procgen) and installs in "
      "envpool/_procgen/; reinstall envpool built with it.";
  if (dir.empty()) throw std::runtime_error("Procgen: cannot tell where the envpool module is." + how);
  std::string version;
  {
    std::ifstream f(dir + "/version.txt");
    if (!f) throw std::runtime_error("Procgen: " + dir + "/version.txt is missing." + how);
    std::getline(f, version);
  }
  if (version != kProcgenVersion)
    throw std::runtime_error("Procgen: " + dir + " holds procgen " + version + "'s engine, not " + kProcgenVersion +
                             "'s." + how);
  {
    std::ifstream f(dir + "/assets/misc_assets/robot_greenDrive1.png");
    if (!f) throw std::runtime_error("Procgen: " + dir + "/assets/ (procgen's images) is missing." + how);
  }
  const std::string path = dir + "/libenv.so";
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    throw std::runtime_error("Procgen: cannot load " + path + ": " + (err != nullptr ? err : "?") + "." + how);
  }
  auto lib = std::make_unique<Library>();
  lib->dir = dir;
  auto sym = [&](const char* name) {
    void* s = dlsym(h, name);
    if (s == nullptr) {
      dlclose(h);
      throw std::runtime_error("Procgen: " + path + " has no " + name + ": not procgen's libenv." + how);
    }
    return s;
  };
  lib->version = reinterpret_cast<abi::VersionFn>(sym("libenv_version"));
  lib->make = reinterpret_cast<abi::MakeFn>(sym("libenv_make"));
  lib->tensor_types = reinterpret_cast<abi::TensorTypesFn>(sym("libenv_get_tensortypes"));
  lib->set_buffers = reinterpret_cast<abi::SetBuffersFn>(sym("libenv_set_buffers"));
  lib->observe = reinterpret_cast<abi::ObserveFn>(sym("libenv_observe"));
  lib->act = reinterpret_cast<abi::ActFn>(sym("libenv_act"));
  lib->close = reinterpret_cast<abi::CloseFn>(sym("libenv_close"));
  if (lib->version() != abi::kVersion) {
    const int v = lib->version();
    dlclose(h);
    throw std::runtime_error("Procgen: " + path + " implements libenv version " + std::to_string(v) + ", not " +
                             std::to_string(abi::kVersion) + "." + how);
  }
  return *(loaded[dir] = std::move(lib));
}

}  // namespace envpool::procgen

#endif  // ENVPOOL_PROCGEN_LIBRARY_H_
