// Loads a family module built against the SDK (cpp/sdk/envpool/envpool.h)
// and appends its families to the engine's table.
//
// The module is a plain shared library with its own copy of the inline
// family table (it is opened RTLD_LOCAL, as Python opens extensions), so its
// FamilyRegistrars cannot reach ours: its entry point runs them into its own
// table and hands the families over. Before any C++ object crosses, its ABI
// stamp must equal ours. Everything here runs with the GIL held.
#include "cpp/binding/extension.h"

#include <pybind11/stl.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cpp/core/abi.h"
#include "cpp/core/family.h"
#include "cpp/platform/dynamic_library.h"

namespace py = pybind11;

namespace {

struct Loaded {
  std::string path;
  std::vector<std::string> families;
};

// Handles of the modules loaded (never closed once their families are in
// the table: the families' functions are their code), and which module
// registered each family.
std::map<void*, Loaded>& Modules() {
  static auto* modules = new std::map<void*, Loaded>;
  return *modules;
}
std::map<std::string, std::string>& Owners() {
  static auto* owners = new std::map<std::string, std::string>;
  return *owners;
}

const std::string kRebuild =
    "rebuild it against this envpool: envpool.cpp_extension.load(...) rebuilds by itself when the version or "
    "compiler changes; a CMake build: cmake -Denvpool_DIR=$(python -m envpool --cmake-dir) <source dir> and "
    "build again (with the compiler this envpool was built with)";

// The value of `key=` in an ABI stamp ("" if absent).
std::string StampField(const std::string& stamp, const std::string& key) {
  const std::string tag = key + "=";
  std::size_t at = stamp.rfind(' ' + tag);
  at = stamp.compare(0, tag.size(), tag) == 0 ? 0 : (at == std::string::npos ? at : at + 1);
  if (at == std::string::npos) return "";
  const std::size_t begin = at + tag.size(), end = stamp.find(' ', begin);
  return stamp.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Why a module built for `theirs` is refused, and what its user can do. A
// compiler of another family or major version is the mismatch users of a
// binary wheel meet: say which compiler to use, or how to build envpool with
// theirs.
std::string AbiMismatch(const std::string& path, const std::string& theirs, const std::string& their_compiler) {
  const std::string ours = ENVPOOL_ABI_STAMP;
  std::string msg = "envpool extension '" + path + "' was built for [" + theirs + "] (" + their_compiler +
                    "), but this envpool is [" + ours + "] (" + ENVPOOL_ABI_COMPILER_VERSION + "): ";
  const std::string want = StampField(ours, "compiler"), got = StampField(theirs, "compiler");
  std::string other_fields = theirs, our_fields = ours;
  if (!got.empty()) other_fields.replace(other_fields.find("compiler=" + got), 9 + got.size(), "compiler=");
  our_fields.replace(our_fields.find("compiler=" + want), 9 + want.size(), "compiler=");
  if (got != want && other_fields == our_fields) {
    const auto dash = want.find('-');
    const std::string family = want.substr(0, dash), major = dash == std::string::npos ? "" : want.substr(dash + 1);
    const std::string cxx = family == "gcc" ? "g++-" + major : family == "clang" ? "clang++-" + major : want;
    return msg + "a module must be built by the compiler family and major version envpool was built with (" + want +
           "; this module used " + got + "). Either build the module with " + want +
           ": envpool.cpp_extension.load(...) uses $CXX (CXX=" + cxx + "), a CMake build -DCMAKE_CXX_COMPILER=" + cxx +
           " (on Debian/Ubuntu: apt-get install " +
           (family == "gcc"     ? "g++-"
            : family == "clang" ? "clang-"
                                : "") +
           major +
           "); or build envpool itself with your compiler, which gives it your compiler's stamp: pip install "
           "--no-binary envpool envpool (or pip install . in its source checkout), then rebuild the module";
  }
  return msg + kRebuild;
}

std::vector<std::string> LoadFamilies(const std::string& path) {
  std::string why;
  void* handle = envpool::platform::OpenLibrary(path, &why);
  if (handle == nullptr) throw py::import_error("cannot load envpool extension '" + path + "': " + why);
  if (auto it = Modules().find(handle); it != Modules().end()) {
    envpool::platform::CloseLibrary(handle);  // the same module again (the loader counted it twice)
    return it->second.families;
  }
  struct Closer {
    void* handle;
    bool keep = false;
    ~Closer() {
      if (!keep) envpool::platform::CloseLibrary(handle);
    }
  } closer{handle};
  auto abi = reinterpret_cast<const char* (*)()>(envpool::platform::LibrarySymbol(handle, "envpool_extension_abi"));
  auto compiler =
      reinterpret_cast<const char* (*)()>(envpool::platform::LibrarySymbol(handle, "envpool_extension_compiler"));
  auto entry = reinterpret_cast<int (*)(void*, const char**)>(
      envpool::platform::LibrarySymbol(handle, "envpool_extension_families"));
  if (abi == nullptr || compiler == nullptr || entry == nullptr)
    throw py::import_error("'" + path +
                           "' is not an envpool extension (it has no envpool_extension_* entry points: build it with "
                           "envpool_add_extension() in CMake or envpool.cpp_extension.load(), including "
                           "<envpool/envpool.h>)");
  const std::string theirs = abi(), ours = ENVPOOL_ABI_STAMP;
  if (theirs != ours) throw py::import_error(AbiMismatch(path, theirs, compiler()));

  std::vector<envpool::Family> got;
  const char* error = nullptr;
  const int rc = entry(&got, &error);
  if (rc != 0) {
    const std::string what = "registering the families of envpool extension '" + path +
                             "' failed: " + (error != nullptr ? error : "unknown error");
    got.clear();
    if (rc == 1) throw py::value_error(what);
    throw py::import_error(what);
  }
  if (got.empty())
    throw py::import_error("envpool extension '" + path +
                           "' registers no family (a static envpool::FamilyRegistrar whose function calls "
                           "envpool::RegisterFamily registers one)");
  // Every family checked before any is added: a refused module adds none.
  std::set<std::string> names;
  for (const envpool::Family& f : got) {
    const std::string where = "family '" + f.name + "' of envpool extension '" + path + "'";
    std::string why;
    if (f.name.empty())
      why = "a family of envpool extension '" + path + "' has an empty name";
    else if (f.kind.empty())
      why = where + " has an empty kind";
    else if (!f.make_spec || !f.make_env)
      why = where + " has no make_spec or make_env";
    else if (!names.insert(f.name).second)
      why = where + " is registered twice by the module";
    else if (envpool::FindFamily(f.name) != nullptr) {
      auto owner = Owners().find(f.name);
      why = "family '" + f.name + "' is already registered (" +
            (owner != Owners().end() ? "by envpool extension '" + owner->second + "'" : std::string("built in")) +
            "); envpool extension '" + path + "' cannot register it again (a process holds one build of a family)";
    }
    if (!why.empty()) {
      got.clear();
      throw py::value_error(why);
    }
  }
  Loaded loaded{path, {}};
  for (envpool::Family& f : got) {
    loaded.families.push_back(f.name);
    Owners()[f.name] = path;
    envpool::RegisterFamily(std::move(f));
  }
  closer.keep = true;
  Modules()[handle] = loaded;
  return loaded.families;
}

}  // namespace

void RegisterExtensionLoader(py::module_& m) {
  m.def("load_families", &LoadFamilies, py::arg("path"),
        "Load a family module built against the SDK and register its families; returns their names");
  m.def(
      "sdk_abi",
      [] {
        py::dict d;
        d["stamp"] = ENVPOOL_ABI_STAMP;
        d["compiler"] = ENVPOOL_ABI_COMPILER_VERSION;
        d["version"] = ENVPOOL_VERSION;
        d["sdk_version"] = ENVPOOL_SDK_VERSION;
        return d;
      },
      "The ABI stamp a family module must carry (envpool.cpp_extension)");
  m.def("abi_mismatch", &AbiMismatch, py::arg("path"), py::arg("stamp"), py::arg("compiler"),
        "The ImportError message load_families gives a module built for another ABI stamp");
}
