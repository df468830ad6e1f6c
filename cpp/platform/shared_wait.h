// Sleeping on a 32-bit word in memory shared between processes, with a
// timeout, and waking it (the semantics of wait.h's WaitWord/WakeWord):
// Linux's shared futex, macOS's shared ulock. Windows has no wait on an
// address that crosses processes: a word inside a segment mapped through
// SharedMemory gets a named semaphore (Local\envpool-<segment>-<offset>),
// which a wake releases and a wait takes; a token left over by a wake that
// found no sleeper makes one later wait return early, which callers
// tolerate as they tolerate any early return. A word in memory mapped some
// other way is polled (a 1 ms sleep per wait).
#ifndef ENVPOOL_PLATFORM_SHARED_WAIT_H_
#define ENVPOOL_PLATFORM_SHARED_WAIT_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>

#include "cpp/platform/os.h"
#include "cpp/platform/shared_memory.h"
#include "cpp/platform/wait.h"

#if defined(ENVPOOL_LINUX)
#include <time.h>
#endif

namespace envpool::platform {

#if defined(ENVPOOL_WINDOWS)
// At most this many tokens wait in a word's semaphore.
constexpr LONG kMaxWakeTokens = 64;

// The named semaphore of the word (made at its first use), or nullptr
// when the word is in no segment mapped through SharedMemory.
inline HANDLE WordSemaphore(const void* word) {
  SegmentTable& t = Segments();
  std::lock_guard<std::mutex> lock(t.mu);
  const char* w = static_cast<const char*>(word);
  for (MappedSegment& s : t.segments) {
    if (w < s.base || w >= s.base + s.size) continue;
    const std::size_t off = static_cast<std::size_t>(w - s.base);
    auto it = s.semaphores.find(off);
    if (it != s.semaphores.end()) return it->second;
    const std::string name = "Local\\envpool-" + s.name + "-" + std::to_string(off);
    HANDLE h = CreateSemaphoreA(nullptr, 0, kMaxWakeTokens, name.c_str());  // or opens the existing one
    if (h != nullptr) s.semaphores.emplace(off, h);
    return h;
  }
  return nullptr;
}
#endif

// Sleeps while the word holds `expected`, at most `timeout` (negative: no
// limit). May return early.
inline void WaitSharedWord(std::atomic<uint32_t>* word, uint32_t expected, std::chrono::nanoseconds timeout) {
#if defined(ENVPOOL_LINUX)
  if (timeout.count() < 0) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, nullptr, nullptr, 0);
    return;
  }
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timespec t{static_cast<time_t>(s.count()), static_cast<long>((timeout - s).count())};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &t, nullptr, 0);
#elif defined(ENVPOOL_MACOS)
  // ulock's timeout is in microseconds, 0 meaning none.
  uint32_t us = 0;
  if (timeout.count() >= 0) {
    const auto d = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
    us = static_cast<uint32_t>(std::clamp<int64_t>(d, 1, UINT32_MAX));
  }
  __ulock_wait(ulock::kCompareAndWaitShared | ulock::kNoErrno, word, expected, us);
#else
  HANDLE h = WordSemaphore(word);
  if (word->load(std::memory_order_seq_cst) != expected) return;
  DWORD ms = INFINITE;
  if (timeout.count() >= 0) {
    const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(timeout + std::chrono::nanoseconds(999999));
    ms = static_cast<DWORD>(std::min<int64_t>(d.count(), INFINITE - 1));
  }
  if (h == nullptr) {
    Sleep(std::min<DWORD>(ms, 1));
    return;
  }
  WaitForSingleObject(h, ms);
#endif
}

// Wakes up to `count` processes' threads sleeping on the word (INT_MAX: all).
inline void WakeSharedWord(std::atomic<uint32_t>* word, int count) {
#if defined(ENVPOOL_LINUX)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, count, nullptr, nullptr, 0);
#elif defined(ENVPOOL_MACOS)
  __ulock_wake(ulock::kCompareAndWaitShared | ulock::kNoErrno | (count > 1 ? ulock::kWakeAll : 0), word, 0);
#else
  HANDLE h = WordSemaphore(word);
  if (h == nullptr) return;  // its waiters poll
  for (int i = 0; i < std::min<int>(count, kMaxWakeTokens); ++i)
    if (!ReleaseSemaphore(h, 1, nullptr)) break;  // full: enough tokens wait
#endif
}

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_SHARED_WAIT_H_
