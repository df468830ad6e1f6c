#include "cpp/python/futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace py = pybind11;

namespace envpool::python {

void RegisterFutex(py::module_& m) {
  // Process-shared futex words (e.g. in a shared-memory segment that worker
  // processes step envs through): the address is an integer, the word a
  // uint32. Not a public API.
  m.def(
      "_futex_wait",
      [](uintptr_t addr, uint32_t expected, double timeout_s) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        if (word->load(std::memory_order_acquire) != expected) return true;
        py::gil_scoped_release release;
        timespec t{static_cast<time_t>(timeout_s),
                   static_cast<long>((timeout_s - static_cast<time_t>(timeout_s)) * 1e9)};
        syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout_s >= 0 ? &t : nullptr, nullptr, 0);
        return word->load(std::memory_order_acquire) != expected;
      },
      py::arg("addr"), py::arg("expected"), py::arg("timeout_s"),
      "Sleep while the uint32 at addr holds expected (at most timeout_s; < 0: no limit); whether it changed");
  m.def(
      "_futex_store_wake",
      [](uintptr_t addr, uint32_t value) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        word->store(value, std::memory_order_release);
        syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), py::arg("value"), "Store value (release) in the uint32 at addr and wake its waiters");
  m.def(
      "_futex_store_wake_if",
      [](uintptr_t addr, uint32_t value, uintptr_t flag) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        word->store(value, std::memory_order_seq_cst);
        // The waiter raises its flag before it re-checks the word and sleeps.
        if (reinterpret_cast<std::atomic<uint32_t>*>(flag)->load(std::memory_order_seq_cst) != 0)
          syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), py::arg("value"), py::arg("flag"),
      "Store value in the uint32 at addr; wake its waiters if the uint32 at flag is set (one sleeps)");
  m.def(
      "_futex_wake",
      [](uintptr_t addr) {
        syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), "Wake the waiters on the uint32 at addr");
}

}  // namespace envpool::python
