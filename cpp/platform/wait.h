// Sleeping on a 32-bit word until another thread of this process changes it
// and wakes the word: Linux's private futex, macOS's ulock (what libc++'s
// std::atomic::wait uses), Windows' WaitOnAddress. As with a futex, a wait
// returns at once unless the word still holds `expected`, may return
// without a wake, and a wake between the caller's check and the wait is not
// lost: callers re-check their condition in a loop.
#ifndef ENVPOOL_PLATFORM_WAIT_H_
#define ENVPOOL_PLATFORM_WAIT_H_

#include <atomic>
#include <climits>
#include <cstdint>

#include "cpp/platform/os.h"

#if defined(ENVPOOL_LINUX)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(ENVPOOL_MACOS)
// libSystem's ulock calls (macOS 10.12+; the _SHARED operation waits on a
// word in memory shared between processes).
extern "C" int __ulock_wait(uint32_t operation, void* addr, uint64_t value, uint32_t timeout_us);
extern "C" int __ulock_wake(uint32_t operation, void* addr, uint64_t wake_value);
#endif

namespace envpool::platform {

#if defined(ENVPOOL_MACOS)
namespace ulock {
constexpr uint32_t kCompareAndWait = 1, kCompareAndWaitShared = 3, kWakeAll = 0x100, kNoErrno = 0x01000000;
}  // namespace ulock
#endif

template <class T>
inline void WaitWord(std::atomic<T>* word, T expected) {
  static_assert(sizeof(T) == 4 && sizeof(std::atomic<T>) == 4, "a wait word is 32 bits");
#if defined(ENVPOOL_LINUX)
  syscall(SYS_futex, reinterpret_cast<T*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
#elif defined(ENVPOOL_MACOS)
  __ulock_wait(ulock::kCompareAndWait | ulock::kNoErrno, word, static_cast<uint32_t>(expected), 0);
#else
  WaitOnAddress(reinterpret_cast<volatile VOID*>(word), &expected, sizeof(T), INFINITE);
#endif
}

// Wakes up to `count` threads sleeping on the word (INT_MAX: all; macOS
// and Windows wake one or all, so count > 1 wakes all there).
template <class T>
inline void WakeWord(std::atomic<T>* word, int count) {
  static_assert(sizeof(T) == 4 && sizeof(std::atomic<T>) == 4, "a wait word is 32 bits");
#if defined(ENVPOOL_LINUX)
  syscall(SYS_futex, reinterpret_cast<T*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
#elif defined(ENVPOOL_MACOS)
  __ulock_wake(ulock::kCompareAndWait | ulock::kNoErrno | (count > 1 ? ulock::kWakeAll : 0), word, 0);
#else
  if (count > 1) {
    WakeByAddressAll(reinterpret_cast<PVOID>(word));
  } else {
    WakeByAddressSingle(reinterpret_cast<PVOID>(word));
  }
#endif
}

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_WAIT_H_
