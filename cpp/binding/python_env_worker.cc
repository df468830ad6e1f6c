#include "cpp/binding/python_env_worker.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cpp/platform/process.h"
#include "cpp/platform/shared_wait.h"
#include "cpp/platform/threads.h"
#include "cpp/python_env/segment.h"

namespace py = pybind11;

namespace envpool::binding {

using python_env::SegmentHeader;
using python_env::SlotControl;
using python_env::Word;
using python_env::WorkerRecord;

// A worker process's loop over its slots of a shared-memory segment, so that a
// step costs the worker no Python of its own: only the env's step (and, where
// the arrays need it, small Python helpers). The protocol, shared with whoever
// posts the requests, is cpp/python_env/segment.h's; a request is pending while
// the slot's req != done and its gen is the loop's.
// Pending requests are served in arrival order (their tickets), one at a time:
// begun = req, the command, status, then done = req and a wake-up of a poster
// that sleeps. Between them, a change of the record's control word (bumped
// once per request, then the doorbell, by the pool's owner) calls
// `control(n)` for the n new requests, which come another way (a pipe: the
// gymnasium vector env's call/get_attr/set_attr).
namespace {

// Wakes the posters of these slots that sleep on done (they raise their flag
// before they re-check done and sleep; the first waker lowers it), and as
// many threads asleep on the segment's epoch (u32 @16 of the header, bumped
// at each result; u32 @20 counts its sleepers) as there are results.
void Wake(char* base, std::vector<char*>& slots) {
  for (char* s : slots)
    if (Word(s, offsetof(SlotControl, sleeping))->exchange(0, std::memory_order_seq_cst) != 0)
      platform::WakeSharedWord(Word(s, offsetof(SlotControl, done)), INT_MAX);
  if (!slots.empty() && Word(base, offsetof(SegmentHeader, epoch_waiters))->load(std::memory_order_seq_cst) != 0)
    platform::WakeSharedWord(Word(base, offsetof(SegmentHeader, epoch)), static_cast<int>(slots.size()));
  slots.clear();
}

// How a step command is served without the Python handler: the env's bound
// step, how its action is read from the slot, where its observation goes.
struct FastStep {
  std::vector<py::object> step;  // per slot
  std::vector<std::size_t> action_off, obs_off;
  char action_kind = 0;  // 'i' signed / 'u' unsigned / 'b' bool integer read here; 0: action_reader(k)
  int action_size = 0;
  py::object action_reader, write_obs, write_info;
  py::dtype obs_dtype;
  std::size_t obs_bytes = 0;
  std::vector<py::ssize_t> obs_shape;
};

py::object ReadInt(const char* p, char kind, int size) {
  if (kind == 'b') return py::int_(p[0] != 0 ? 1 : 0);
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<std::size_t>(size));  // little-endian
  if (kind != 'i') return py::int_(u);
  const int shift = 64 - 8 * size;  // sign-extends a narrower int
  return py::int_(static_cast<int64_t>(u << shift) >> shift);
}

// One step the fast way; what goes wrong is a Python exception, as in the handler.
uint32_t FastStepOnce(char* base, char* slot, std::size_t k, const FastStep& f) {
  py::object action =
      f.action_kind != 0 ? ReadInt(base + f.action_off[k], f.action_kind, f.action_size) : f.action_reader(k);
  py::object result = f.step[k](action);
  if (!PyTuple_Check(result.ptr()) || PyTuple_GET_SIZE(result.ptr()) != 5) {
    // Raised as a Python exception, so that the serving loop reports it as
    // the env's (a C++ one would end the worker process).
    PyErr_SetString(PyExc_ValueError, "step() must return (obs, reward, terminated, truncated, info)");
    throw py::error_already_set();
  }
  py::tuple r = py::reinterpret_borrow<py::tuple>(result);
  py::handle obs = r[0];
  bool copied = false;
  if (py::isinstance<py::array>(obs)) {
    py::array a = py::reinterpret_borrow<py::array>(obs);
    // Copied as is only in the space's own shape: another one goes through
    // write_obs (numpy's assignment, which broadcasts or refuses it), as an
    // observation of another dtype does.
    if (a.dtype().equal(f.obs_dtype) && static_cast<std::size_t>(a.nbytes()) == f.obs_bytes &&
        (a.flags() & py::array::c_style) != 0 && static_cast<std::size_t>(a.ndim()) == f.obs_shape.size() &&
        std::equal(f.obs_shape.begin(), f.obs_shape.end(), a.shape())) {
      std::memcpy(base + f.obs_off[k], a.data(), f.obs_bytes);
      copied = true;
    }
  }
  if (!copied) f.write_obs(k, obs);
  const double reward = PyFloat_AsDouble(r[1].ptr());
  if (reward == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  const int terminated = PyObject_IsTrue(r[2].ptr());
  if (terminated < 0) throw py::error_already_set();
  const int truncated = PyObject_IsTrue(r[3].ptr());
  if (truncated < 0) throw py::error_already_set();
  if (!f.write_info.is_none()) f.write_info(k, r[4]);
  std::memcpy(slot + offsetof(SlotControl, reward), &reward, sizeof(reward));
  slot[offsetof(SlotControl, terminated)] = static_cast<char>(terminated);
  slot[offsetof(SlotControl, truncated)] = static_cast<char>(truncated);
  return 0;
}

}  // namespace

static void RegisterServeSlots(py::module_& m) {
  m.def(
      "_serve_slots",
      [](uintptr_t addr, std::size_t record_off, std::size_t closing_off, const std::vector<std::size_t>& slot_off,
         uint32_t gen, long parent_pid, const py::object& handle, const py::object& fail, const py::object& fast,
         double idle_spin_us, const py::object& control, uint32_t control_seen) {
        char* base = reinterpret_cast<char*>(addr);
        std::atomic<uint32_t>* doorbell = Word(base + record_off, offsetof(WorkerRecord, doorbell));
        std::atomic<uint32_t>* sleeping = Word(base + record_off, offsetof(WorkerRecord, sleeping));
        // control_seen: the word as the worker read it before it told the
        // owner it was ready (a request can come as soon as it has).
        std::atomic<uint32_t>* control_word = Word(base + record_off, offsetof(WorkerRecord, control));
        std::atomic<uint32_t>* closing = Word(base, closing_off);
        std::optional<FastStep> f;
        if (!fast.is_none()) {
          py::tuple t = fast.cast<py::tuple>();
          f.emplace();
          f->step = t[0].cast<std::vector<py::object>>();
          f->action_off = t[1].cast<std::vector<std::size_t>>();
          const std::string kind = t[2].cast<std::string>();
          f->action_kind = kind.empty() ? 0 : kind[0];
          f->action_size = t[3].cast<int>();
          f->action_reader = t[4];
          f->obs_off = t[5].cast<std::vector<std::size_t>>();
          f->obs_dtype = py::dtype::from_args(t[6]);
          f->obs_bytes = t[7].cast<std::size_t>();
          f->write_obs = t[8];
          f->write_info = t[9];
          f->obs_shape = t[10].cast<std::vector<py::ssize_t>>();
        }
        const std::size_t n = slot_off.size();
        // Done is published at once, but waking a poster that sleeps on it
        // (a system call here, a context switch there) is held back while
        // the next steps are short, so that a poster waiting for a block of
        // cheap steps wakes once: a result waits at most about kHoldFor.
        constexpr auto kHoldFor = std::chrono::microseconds(50);
        const auto idle_spin = std::chrono::nanoseconds(static_cast<int64_t>(idle_spin_us * 1000));
        std::vector<std::chrono::steady_clock::duration> expected(n, std::chrono::steady_clock::duration::zero());
        std::vector<char*> held;
        held.reserve(n);
        auto held_since = std::chrono::steady_clock::now();
        // Whether the loop's last wait for a request (from running out of
        // work to the next ring) was shorter than idle_spin.
        bool short_gaps = true;
        for (;;) {
          const uint32_t bell = doorbell->load(std::memory_order_acquire);
          // After the doorbell: the owner bumps control first, so a ring
          // seen here has its control bump seen too.
          if (const uint32_t c = control_word->load(std::memory_order_seq_cst); c != control_seen) {
            const uint32_t n = c - control_seen;
            control_seen = c;
            control(n);
          }
          for (;;) {
            std::size_t best = n;
            uint32_t best_ticket = 0, best_req = 0;
            for (std::size_t k = 0; k < n; ++k) {
              char* s = base + slot_off[k];
              const uint32_t req = Word(s, offsetof(SlotControl, req))->load(std::memory_order_acquire);
              if (req == Word(s, offsetof(SlotControl, done))->load(std::memory_order_relaxed) ||
                  Word(s, offsetof(SlotControl, gen))->load(std::memory_order_relaxed) != gen)
                continue;
              const uint32_t ticket = Word(s, offsetof(SlotControl, ticket))->load(std::memory_order_relaxed);
              if (best == n || static_cast<int32_t>(ticket - best_ticket) < 0) {
                best = k;
                best_ticket = ticket;
                best_req = req;
              }
            }
            if (best == n) break;
            // A step expected to be long (or a result held back too long)
            // releases the held-back wake-ups first.
            const auto now = std::chrono::steady_clock::now();
            if (!held.empty() && (expected[best] > kHoldFor || now - held_since > kHoldFor)) Wake(base, held);
            char* s = base + slot_off[best];
            Word(s, offsetof(SlotControl, begun))
                ->store(best_req, std::memory_order_release);  // begun: the step timeout counts from here
            uint32_t status = 0;
            if (f && Word(s, offsetof(SlotControl, cmd))->load(std::memory_order_relaxed) == python_env::kCmdStep) {
              try {
                status = FastStepOnce(base, s, best, *f);
              } catch (py::error_already_set& e) {
                if (!e.matches(PyExc_Exception)) throw;  // SystemExit, KeyboardInterrupt: the worker ends
                // An error set by the C API (a reward float() refuses) has no
                // traceback: None, as a null object cannot be passed.
                py::object tb = e.trace() ? e.trace() : py::none();
                status = fail(best, best_req, e.value(), tb).cast<uint32_t>();
              }
            } else {
              status = handle(best, best_req).cast<uint32_t>();
            }
            Word(s, offsetof(SlotControl, status))->store(status, std::memory_order_relaxed);
            Word(s, offsetof(SlotControl, done))->store(best_req, std::memory_order_seq_cst);
            Word(base, offsetof(SegmentHeader, epoch))->fetch_add(1, std::memory_order_seq_cst);
            expected[best] = std::chrono::steady_clock::now() - now;
            if (held.empty()) held_since = now;
            held.push_back(s);
          }
          Wake(base, held);
          if (closing->load(std::memory_order_acquire) != 0) return std::string("closed");
          // While the next request has come soon after the last batch (a sync
          // loop of cheap steps: the caller's turnaround is tens of us), wait
          // for it yielding rather than asleep: a sleeping worker's core may
          // halt, and waking it (futex, then the hypervisor) cost CartPole
          // (8 envs, 2 workers, 2 cores) 70-85 of its 110-125 us per batch step. A
          // gap longer than idle_spin (a learner between steps) turns this
          // off until a gap is short again; the yields give the core to any
          // thread that wants it.
          const auto idle_since = std::chrono::steady_clock::now();
          if (short_gaps && idle_spin.count() > 0) {
            py::gil_scoped_release release;
            while (doorbell->load(std::memory_order_acquire) == bell &&
                   std::chrono::steady_clock::now() - idle_since < idle_spin)
              platform::YieldCore();
          }
          bool rang = doorbell->load(std::memory_order_acquire) != bell;
          if (rang) {
            short_gaps = true;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            continue;
          }
          rang = true;
          sleeping->store(1, std::memory_order_seq_cst);
          if (doorbell->load(std::memory_order_seq_cst) == bell) {
            py::gil_scoped_release release;
            platform::WaitSharedWord(doorbell, bell, std::chrono::milliseconds(500));
            rang = doorbell->load(std::memory_order_acquire) != bell;
          }
          sleeping->store(0, std::memory_order_relaxed);
          short_gaps = std::chrono::steady_clock::now() - idle_since < idle_spin;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
          if (!rang && platform::ParentGone(parent_pid)) return std::string("orphaned");
        }
      },
      py::arg("addr"), py::arg("record_off"), py::arg("closing_off"), py::arg("slot_off"), py::arg("gen"),
      py::arg("parent_pid"), py::arg("handle"), py::arg("fail"), py::arg("fast"), py::arg("idle_spin_us"),
      py::arg("control"), py::arg("control_seen"),
      "Serve the slots at slot_off (offsets from addr) until the word at closing_off is set ('closed') or the "
      "parent is gone ('orphaned'); see the protocol above. An idle loop yields up to idle_spin_us before it "
      "sleeps while requests have come within that time");
}

void RegisterPythonEnvWorker(py::module_& m) {
  RegisterServeSlots(m);
  m.def(
      "_segment_layout",
      [] {
        py::dict out;
        for (const auto& [name, value] : python_env::SegmentLayout()) out[py::str(name)] = value;
        return out;
      },
      "The users'-env segment's sizes, constants and field offsets (cpp/python_env/segment.h), which the Python "
      "side reads instead of copying. Not a public API.");
  // Process-shared futex words (e.g. in a shared-memory segment that worker
  // processes step envs through): the address is an integer, the word a
  // uint32. Not a public API.
  m.def(
      "_epoch_wake",
      [](uintptr_t addr) {
        reinterpret_cast<std::atomic<uint32_t>*>(addr)->fetch_add(1, std::memory_order_seq_cst);
        platform::WakeSharedWord(reinterpret_cast<std::atomic<uint32_t>*>(addr), INT_MAX);
      },
      py::arg("addr"), "Bump the uint32 at addr (atomically) and wake its waiters");
  m.def(
      "_futex_wake",
      [](uintptr_t addr) { platform::WakeSharedWord(reinterpret_cast<std::atomic<uint32_t>*>(addr), INT_MAX); },
      py::arg("addr"), "Wake the waiters on the uint32 at addr");
}

}  // namespace envpool::binding
