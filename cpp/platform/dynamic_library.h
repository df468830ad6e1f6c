// Loading a shared library at run time and finding its symbols: dlopen
// (RTLD_LOCAL, as Python loads extensions) or LoadLibrary.
#ifndef ENVPOOL_PLATFORM_DYNAMIC_LIBRARY_H_
#define ENVPOOL_PLATFORM_DYNAMIC_LIBRARY_H_

#include <string>

#include "cpp/platform/os.h"

#if !defined(ENVPOOL_WINDOWS)
#include <dlfcn.h>
#endif

namespace envpool::platform {

// The library's handle, or nullptr with the reason in *error.
inline void* OpenLibrary(const std::string& path, std::string* error) {
#if defined(ENVPOOL_WINDOWS)
  HMODULE h = LoadLibraryA(path.c_str());
  if (h == nullptr && error != nullptr)
    *error = "LoadLibrary failed (Windows error " + std::to_string(GetLastError()) + ")";
  return reinterpret_cast<void*>(h);
#else
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr && error != nullptr) {
    const char* why = dlerror();
    *error = why != nullptr ? why : "dlopen failed";
  }
  return h;
#endif
}

inline void* LibrarySymbol(void* library, const char* name) {
#if defined(ENVPOOL_WINDOWS)
  return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(library), name));
#else
  return dlsym(library, name);
#endif
}

inline void CloseLibrary(void* library) {
#if defined(ENVPOOL_WINDOWS)
  FreeLibrary(reinterpret_cast<HMODULE>(library));
#else
  dlclose(library);
#endif
}

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_DYNAMIC_LIBRARY_H_
