// A spinning thread's pause, giving up the core, the cores this process may
// use and pinning a thread to one.
#ifndef ENVPOOL_PLATFORM_THREADS_H_
#define ENVPOOL_PLATFORM_THREADS_H_

#include <algorithm>
#include <thread>

#include "cpp/platform/os.h"

#if defined(ENVPOOL_LINUX)
#include <pthread.h>
#include <sched.h>
#elif defined(ENVPOOL_MACOS)
#include <sched.h>
#elif defined(__MINGW32__) && __has_include(<pthread.h>)
#include <pthread.h>  // winpthreads: std::thread's handle is a pthread_t
#endif

namespace envpool::platform {

#if defined(ENVPOOL_WINDOWS)
// The Windows handle behind std::thread::native_handle(): the handle itself
// (MSVC's library), or winpthreads' pthread_t (MinGW's posix threads).
inline HANDLE ThreadHandle(HANDLE h) { return h; }
#if defined(__MINGW32__) && __has_include(<pthread.h>)
inline HANDLE ThreadHandle(pthread_t p) { return pthread_gethandle(p); }
#endif
#endif

inline void CpuRelax() {
#if defined(_MSC_VER) && !defined(__clang__)
  YieldProcessor();
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Lets another ready thread run on this core (the caller runs on at once
// when none wants it).
inline void YieldCore() {
#if defined(ENVPOOL_WINDOWS)
  SwitchToThread();
#else
  sched_yield();
#endif
}

inline int UsableCores() {
#if defined(ENVPOOL_LINUX)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Pins t to core `cpu` (modulo the machine's cores). macOS has no thread
// affinity (only hints to its scheduler): there this does nothing.
inline void PinThread(std::thread& t, int cpu) {
  const int ncpu = static_cast<int>(std::thread::hardware_concurrency());
  if (ncpu <= 0) return;
#if defined(ENVPOOL_LINUX)
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % ncpu, &set);
  pthread_setaffinity_np(t.native_handle(), sizeof(set), &set);
#elif defined(ENVPOOL_WINDOWS)
  // One processor group (up to 64 cores) is all a mask reaches.
  const int bit = cpu % std::min(ncpu, 64);
  SetThreadAffinityMask(ThreadHandle(t.native_handle()), DWORD_PTR{1} << bit);
#else
  (void)t;
  (void)cpu;
#endif
}

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_THREADS_H_
