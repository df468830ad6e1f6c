// Aligned allocation (std::aligned_alloc is missing from Windows' C
// library, whose aligned blocks need their own free) and the machine's
// physical memory.
#ifndef ENVPOOL_PLATFORM_MEMORY_H_
#define ENVPOOL_PLATFORM_MEMORY_H_

#include <cstddef>
#include <cstdlib>

#include "cpp/platform/os.h"

#if defined(ENVPOOL_WINDOWS)
#include <malloc.h>
#elif defined(ENVPOOL_MACOS)
#include <sys/sysctl.h>
#include <sys/types.h>
#else
#include <unistd.h>
#endif

namespace envpool::platform {

// `bytes` must be a multiple of `alignment` (as for std::aligned_alloc);
// nullptr when out of memory. Free with AlignedFree.
inline void* AlignedAlloc(std::size_t alignment, std::size_t bytes) {
#if defined(ENVPOOL_WINDOWS)
  return _aligned_malloc(bytes, alignment);
#else
  return std::aligned_alloc(alignment, bytes);
#endif
}

inline void AlignedFree(void* p) {
#if defined(ENVPOOL_WINDOWS)
  _aligned_free(p);
#else
  std::free(p);
#endif
}

// Physical memory in bytes; 0 when unknown.
inline double PhysicalMemory() {
#if defined(ENVPOOL_WINDOWS)
  MEMORYSTATUSEX s;
  s.dwLength = sizeof(s);
  return GlobalMemoryStatusEx(&s) ? static_cast<double>(s.ullTotalPhys) : 0.0;
#elif defined(ENVPOOL_MACOS)
  uint64_t bytes = 0;
  std::size_t len = sizeof(bytes);
  return sysctlbyname("hw.memsize", &bytes, &len, nullptr, 0) == 0 ? static_cast<double>(bytes) : 0.0;
#else
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
#endif
}

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_MEMORY_H_
