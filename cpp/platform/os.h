// Which operating system this is built for, and the one place that includes
// <windows.h> (lean, without its min/max macros, which clash with std::min).
#ifndef ENVPOOL_PLATFORM_OS_H_
#define ENVPOOL_PLATFORM_OS_H_

#if defined(_WIN32)
#define ENVPOOL_WINDOWS 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#elif defined(__APPLE__)
#define ENVPOOL_MACOS 1
#elif defined(__linux__)
#define ENVPOOL_LINUX 1
#else
#error "envpool builds for Linux, macOS and Windows"
#endif

#endif  // ENVPOOL_PLATFORM_OS_H_
