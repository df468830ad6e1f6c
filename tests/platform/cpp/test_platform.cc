// The platform layer (cpp/platform) on the system it is built for: waits on
// a word within the process and across processes (a child process of this
// executable, through a shared-memory segment), aligned allocation, cores,
// memory, and noticing a process's end. Built and run natively by
// tests/platform/test_platform.py, and for Windows under wine.
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cpp/platform/memory.h"
#include "cpp/platform/process.h"
#include "cpp/platform/shared_memory.h"
#include "cpp/platform/shared_wait.h"
#include "cpp/platform/threads.h"
#include "cpp/platform/wait.h"

namespace p = envpool::platform;
using Clock = std::chrono::steady_clock;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

constexpr int kRounds = 2000;
constexpr std::size_t kSegmentBytes = 4096;

// Two threads hand a counter back and forth, each sleeping on its word.
void TestWaitWord() {
  std::atomic<uint32_t> ping{0}, pong{0};
  std::thread t([&] {
    for (uint32_t i = 1; i <= kRounds; ++i) {
      while (ping.load() != i) p::WaitWord(&ping, i - 1);
      pong.store(i);
      p::WakeWord(&pong, 1);
    }
  });
  for (uint32_t i = 1; i <= kRounds; ++i) {
    ping.store(i);
    p::WakeWord(&ping, INT_MAX);
    while (pong.load() != i) p::WaitWord(&pong, i - 1);
  }
  t.join();
  // A wait on a word that no longer holds `expected` returns at once.
  std::atomic<int> word{5};
  p::WaitWord(&word, 4);
  std::puts("wait word ok");
}

void TestMemoryAndThreads() {
  for (std::size_t bytes : {64, 128, 4096, 1 << 20}) {
    void* m = p::AlignedAlloc(64, bytes);
    CHECK(m != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(m) % 64 == 0);
    std::memset(m, 1, bytes);
    p::AlignedFree(m);
  }
  CHECK(p::PhysicalMemory() > 0);
  CHECK(p::UsableCores() >= 1);
  std::atomic<bool> ran{false};
  std::thread t([&] {
    for (int i = 0; i < 100; ++i) p::YieldCore();
    p::CpuRelax();
    ran = true;
  });
  p::PinThread(t, 0);
  t.join();
  CHECK(ran);
  std::puts("memory and threads ok");
}

// The child's side: ping-pong on words 0 and 1 of the segment, then report
// whether it sees its parent alive.
int Child(const std::string& name, long parent) {
  p::SharedMemory seg = p::SharedMemory::Open(name, kSegmentBytes);
  auto* ping = reinterpret_cast<std::atomic<uint32_t>*>(seg.data());
  auto* pong = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 64);
  auto* flags = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 128);
  for (uint32_t i = 1; i <= kRounds; ++i) {
    while (ping->load() != i) p::WaitSharedWord(ping, i - 1, std::chrono::seconds(5));
    pong->store(i);
    p::WakeSharedWord(pong, 1);
  }
  flags->store(p::ParentGone(parent) ? 2 : 1);
  return 0;
}

// A child that sleeps on a word nobody changes, until killed.
int Sleeper(const std::string& name) {
  p::SharedMemory seg = p::SharedMemory::Open(name, kSegmentBytes);
  auto* word = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 192);
  word->store(1);
  p::WakeSharedWord(word, INT_MAX);
  for (;;) p::WaitSharedWord(word, 1, std::chrono::nanoseconds(-1));
}

void TestAcrossProcesses(const std::string& self) {
  const std::string name = "/envpool-platform-test-" + std::to_string(p::CurrentPid());
  p::SharedMemory seg = p::SharedMemory::Create(name, kSegmentBytes);
  for (std::size_t i = 0; i < kSegmentBytes; ++i) CHECK(seg.data()[i] == 0);
  auto* ping = reinterpret_cast<std::atomic<uint32_t>*>(seg.data());
  auto* pong = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 64);
  auto* flags = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 128);
  auto* asleep = reinterpret_cast<std::atomic<uint32_t>*>(seg.data() + 192);

  // A wait that nobody wakes ends at its timeout.
  const auto t0 = Clock::now();
  p::WaitSharedWord(pong, 0, std::chrono::milliseconds(50));
  const auto waited = Clock::now() - t0;
  CHECK(waited < std::chrono::seconds(5));

  {
    p::ChildProcess child(self, {"child", name, std::to_string(p::CurrentPid())});
    CHECK(p::ProcessAlive(child.pid()));
    const auto start = Clock::now();
    for (uint32_t i = 1; i <= kRounds; ++i) {
      ping->store(i);
      p::WakeSharedWord(ping, INT_MAX);
      while (pong->load() != i) {
        p::WaitSharedWord(pong, i - 1, std::chrono::seconds(5));
        CHECK(Clock::now() - start < std::chrono::seconds(120));
      }
    }
    CHECK(child.Wait() == 0);
    CHECK(flags->load() == 1);  // the child saw its parent alive
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRounds;
    std::printf("cross-process round trip %.1f us\n", us);
  }
  std::puts("cross-process wait ok");

  {
    p::ChildProcess sleeper(self, {"sleeper", name});
    const long pid = sleeper.pid();
    const auto start = Clock::now();
    while (asleep->load() != 1) {
      p::WaitSharedWord(asleep, 0, std::chrono::milliseconds(100));
      CHECK(Clock::now() - start < std::chrono::seconds(60));
    }
    CHECK(p::ProcessAlive(pid));
    p::KillProcess(pid);
    CHECK(sleeper.Wait() != 0);
    CHECK(!p::ProcessAlive(pid) || p::ParentGone(pid));
    // From the child's side, a parent that is gone: this process's pid is
    // not that of the dead child's.
    CHECK(p::ParentGone(pid));
  }
  std::puts("process death ok");
  p::SharedMemory::Unlink(name);
}

std::string SelfPath(const char* argv0) {
#if defined(ENVPOOL_WINDOWS)
  char buf[MAX_PATH];
  const DWORD n = GetModuleFileNameA(nullptr, buf, MAX_PATH);
  if (n > 0 && n < MAX_PATH) return std::string(buf, n);
#endif
  return argv0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "child") return Child(argv[2], std::atol(argv[3]));
  if (argc == 3 && std::string(argv[1]) == "sleeper") return Sleeper(argv[2]);
  TestWaitWord();
  TestMemoryAndThreads();
  TestAcrossProcesses(SelfPath(argv[0]));
  std::puts("all ok");
  return 0;
}
