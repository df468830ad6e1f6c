// An env that lives in another process. Its Reset/Step hand the command and
// the action to the env's slot of a shared-memory segment, wake the worker
// process that holds the env, wait for it to finish, and copy the results
// from the slot into the env's batch row. The engine schedules these envs
// like any other; only their stepping threads wait (on a futex in the
// segment) while a worker steps.
//
// The family knows nothing of what runs in the workers: the config names
// the segment, the worker count, and the arrays (the same layout rule on
// both sides, checked through slot_bytes). Who creates the segment and the
// workers (src/envpool/python_env) also writes each worker's record: its pid,
// its generation (bumped when it is replaced), how the last one died.
//
// The segment's layout: segment.h.
#ifndef ENVPOOL_PYTHON_ENV_PROC_ENV_H_
#define ENVPOOL_PYTHON_ENV_PROC_ENV_H_

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/result_signal.h"
#include "cpp/platform/process.h"
#include "cpp/platform/shared_memory.h"
#include "cpp/platform/shared_wait.h"
#include "cpp/platform/threads.h"
#include "cpp/python_env/segment.h"

namespace envpool::python_env {

inline std::size_t Align(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

inline DType ParseDType(const std::string& s) {
  if (s == "bool") return DType::kBool;
  if (s == "uint8") return DType::kUInt8;
  if (s == "int32") return DType::kInt32;
  if (s == "int64") return DType::kInt64;
  if (s == "float32") return DType::kFloat32;
  if (s == "float64") return DType::kFloat64;
  throw std::invalid_argument("PythonEnv: unknown dtype '" + s + "'");
}

// One array per line: name \t dtype \t dims (comma separated, empty for a
// scalar) \t number of low bounds \t number of high bounds; the bounds
// themselves are `bounds`, each array's lows then highs.
inline std::vector<ArraySpec> ParseSpecs(const std::string& text, const std::vector<double>& bounds) {
  std::vector<ArraySpec> out;
  std::istringstream lines(text);
  std::string line;
  std::size_t b = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      const std::size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (f.size() != 5) throw std::invalid_argument("PythonEnv: bad array spec line '" + line + "'");
    ArraySpec a{f[0], ParseDType(f[1]), {}, {}, {}};
    std::istringstream dims(f[2]);
    std::string d;
    while (std::getline(dims, d, ','))
      if (!d.empty()) a.shape.push_back(std::stoi(d));
    const std::size_t nl = std::stoul(f[3]), nh = std::stoul(f[4]);
    if (b + nl + nh > bounds.size()) throw std::invalid_argument("PythonEnv: too few bounds for '" + a.name + "'");
    a.low.assign(bounds.begin() + b, bounds.begin() + b + nl);
    a.high.assign(bounds.begin() + b + nl, bounds.begin() + b + nl + nh);
    b += nl + nh;
    out.push_back(std::move(a));
  }
  return out;
}

// The slot layout both sides compute.
struct Layout {
  std::vector<ArraySpec> action, state;
  std::vector<std::size_t> action_off, state_off;
  std::size_t render_off = 0, error_off = 0, slot_bytes = 0, slots_off = 0, total = 0;

  Layout(const Config& c) {
    action = ParseSpecs(c.Get<std::string>("action_spec"), c.Get<std::vector<double>>("action_bounds"));
    state = ParseSpecs(c.Get<std::string>("state_spec"), c.Get<std::vector<double>>("state_bounds"));
    std::size_t off = kControl;
    for (const ArraySpec& a : action) {
      action_off.push_back(off);
      off = Align(off + a.NumBytes(), 8);
    }
    for (const ArraySpec& a : state) {
      state_off.push_back(off);
      off = Align(off + a.NumBytes(), 8);
    }
    render_off = off;
    off = Align(off + static_cast<std::size_t>(c.Get<int>("render_height")) * c.Get<int>("render_width") * 3, 8);
    error_off = off;
    slot_bytes = Align(off + kErrorBytes, 64);
    slots_off = kHeader + kWorkerRecord * static_cast<std::size_t>(c.Get<int>("num_workers"));
    total = slots_off + slot_bytes * static_cast<std::size_t>(c.Get<int>("num_envs"));
  }
};

class ProcEnv : public Env, public ResultSignal {
 public:
  static Config Defaults() {
    return {{"max_episode_steps", int64_t{0}},
            {"shm_name", std::string()},
            {"num_workers", int64_t{1}},
            {"state_spec", std::string()},
            {"state_bounds", std::vector<double>{}},
            {"action_spec", std::string()},
            {"action_bounds", std::vector<double>{}},
            {"slot_bytes", int64_t{0}},
            {"render_height", int64_t{0}},
            {"render_width", int64_t{0}},
            // Seconds a step may take before its worker is killed (0: no limit).
            {"step_timeout", 0.0},
            // Microseconds a waiting thread yields before it sleeps, while this
            // env's results have come within that time (0: sleep at once).
            {"idle_spin_us", 300.0}};
  }

  static EnvSpec MakeSpec(const Config& c) {
    Layout layout(c);
    EnvSpec spec;
    spec.state = layout.state;
    spec.action = layout.action;
    return spec;
  }

  ProcEnv(const Config& c, int env_id)
      : layout_(c),
        env_id_(env_id),
        render_h_(c.Get<int>("render_height")),
        render_w_(c.Get<int>("render_width")),
        step_timeout_(c.Get<double>("step_timeout")),
        yield_for_(static_cast<int64_t>(c.Get<double>("idle_spin_us") * 1000)) {
    const int num_envs = c.Get<int>("num_envs");
    const int num_workers = c.Get<int>("num_workers");
    if (num_workers < 1 || num_workers > num_envs)
      throw std::invalid_argument("PythonEnv: num_workers must be in [1, num_envs]");
    if (static_cast<std::size_t>(c.Get<int64_t>("slot_bytes")) != layout_.slot_bytes)
      throw std::invalid_argument("PythonEnv: slot_bytes " + std::to_string(c.Get<int64_t>("slot_bytes")) +
                                  " differs from the engine's " + std::to_string(layout_.slot_bytes));
    worker_ = static_cast<int>(static_cast<int64_t>(env_id) * num_workers / num_envs);
    const std::string name = c.Get<std::string>("shm_name");
    try {
      segment_.emplace(platform::SharedMemory::Open(name, layout_.total));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string("PythonEnv: ") + e.what());
    }
    base_ = segment_->data();
    if (Word(base_, offsetof(SegmentHeader, magic))->load() != kMagic) {
      throw std::invalid_argument("PythonEnv: shared memory '" + name + "' is not an envpool segment");
    }
    record_ = base_ + RecordOffset(worker_);
    slot_ = base_ + layout_.slots_off + layout_.slot_bytes * env_id;
    gen_ = Word(record_, offsetof(WorkerRecord, gen))->load(std::memory_order_acquire);
  }
  ~ProcEnv() override = default;

  // The seed goes with the next reset (gymnasium's reset(seed=...)); later
  // resets carry none, so the env's own generator continues.
  void Seed(uint64_t seed) override {
    seed_ = seed;
    has_seed_ = true;
  }

  void Reset(const StateRow& out) override {
    if (Posted(kCmdReset)) {
      has_seed_ = false;  // the posted reset carried it
    } else {
      Call(kCmdReset);
    }
    CopyOut(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    if (!Posted(kCmdStep)) {
      CopyActions(action);
      Call(kCmdStep);
    }
    CopyOut(out);
    StepResult r;
    std::memcpy(&r.reward, slot_ + offsetof(SlotControl, reward), sizeof(double));
    r.terminated = slot_[offsetof(SlotControl, terminated)] != 0;
    r.truncated = slot_[offsetof(SlotControl, truncated)] != 0;
    return r;
  }

  // Hands the step (or reset) to the worker now; the Step/Reset that
  // follows waits for it. Anything unusual (a replaced or broken worker) is
  // left to that call.
  void Prepare(const ActionRow* action, const uint64_t* seed) override {
    if (posted_ != 0) return;
    const uint32_t g = Word(record_, offsetof(WorkerRecord, gen))->load(std::memory_order_acquire);
    if (g != gen_ || GivenUp() || (unreset_ && action != nullptr)) return;
    if (action != nullptr) {
      CopyActions(*action);
      Post(kCmdStep, g);
    } else {
      if (seed != nullptr) Seed(*seed);
      Post(kCmdReset, g);
    }
  }

  // ResultSignal. A request the worker took up longer than step_timeout
  // ago counts as finished: the Step that follows kills the worker (its
  // clock started when this first saw the request taken up).
  bool Finished() override {
    if (posted_ == 0) return true;  // not started: the Step/Reset calls and waits
    if (Word(slot_, offsetof(SlotControl, done))->load(std::memory_order_acquire) == want_) return true;
    if (Word(base_, offsetof(SegmentHeader, closing))->load() != 0 ||
        Word(record_, offsetof(WorkerRecord, gen))->load(std::memory_order_acquire) != posted_gen_ || GivenUp())
      return true;
    if (step_timeout_ <= 0 || Word(slot_, offsetof(SlotControl, begun))->load(std::memory_order_acquire) != want_)
      return false;
    const auto now = std::chrono::steady_clock::now();
    if (!begun_seen_) {
      begun_seen_ = true;
      begun_at_ = now;
    }
    return std::chrono::duration<double>(now - begun_at_).count() > step_timeout_;
  }
  uint32_t Epoch() const override {
    return Word(base_, offsetof(SegmentHeader, epoch))->load(std::memory_order_seq_cst);
  }
  void WaitEpoch(uint32_t seen, std::chrono::nanoseconds timeout) override {
    std::atomic<uint32_t>* epoch = Word(base_, offsetof(SegmentHeader, epoch));
    std::atomic<uint32_t>* waiters = Word(base_, offsetof(SegmentHeader, epoch_waiters));
    // Raised before the last check: a worker bumps epoch, then wakes if any.
    waiters->fetch_add(1, std::memory_order_seq_cst);
    if (epoch->load(std::memory_order_seq_cst) == seen) platform::WaitSharedWord(epoch, seen, timeout);
    waiters->fetch_sub(1, std::memory_order_seq_cst);
  }
  void WakeAll() override {
    Word(base_, offsetof(SegmentHeader, epoch))->fetch_add(1, std::memory_order_seq_cst);
    platform::WakeSharedWord(Word(base_, offsetof(SegmentHeader, epoch)), INT_MAX);
  }

  std::array<int, 2> RenderSize() const override { return {render_h_, render_w_}; }
  void Render(uint8_t* rgb) override {
    Posted(0);
    Call(kCmdRender);
    std::memcpy(rgb, slot_ + layout_.render_off, static_cast<std::size_t>(render_h_) * render_w_ * 3);
  }

 private:
  std::string Who() const { return "env " + std::to_string(env_id_); }

  // The owner gave up restarting this env's worker (see the record's
  // `broken`): no worker will serve it again.
  bool GivenUp() const { return Word(record_, offsetof(WorkerRecord, broken))->load() != 0; }
  std::string GivenUpMessage() const { return Who() + ": its worker process could not be restarted"; }

  // How the worker's previous process ended, in words, and what comes next
  // for this env: the engine resets an env after a failed step or reset,
  // not after a failed render. `cmd`: the call that fails; `unreset`: one
  // after the call that was first told of the death, with no reset since.
  std::string DeathMessage(uint32_t cmd, bool unreset = false) const {
    const int32_t pid = static_cast<int32_t>(Word(record_, offsetof(WorkerRecord, pid))->load());
    const int32_t status = static_cast<int32_t>(Word(record_, offsetof(WorkerRecord, death_status))->load());
    std::string how;
    if (status < 0) {
      const std::string sig = platform::SignalName(-status);
      how = "killed by signal " + std::to_string(-status) + (!sig.empty() ? " (" + sig + ")" : "");
    } else {
      how = "exited with code " + std::to_string(status);
    }
    (void)pid;
    const std::string died = Who() + ": its worker process " + std::to_string(worker_) + " died (" + how + ")";
    if (cmd == kCmdRender) return died + "; this env's next step raises this too, and the step after resets it";
    if (unreset) return died + " and this env was not reset since; it is reset on its next step";
    return died + "; its envs are re-created and reset on their next step";
  }

  // The env is re-created in the worker of generation g: its first reset
  // there carries the seed this env was last seeded with (the pool's seed +
  // env id, or the last reset(seed=...)), so that a run with a worker's death
  // is still reproducible.
  void Replaced(uint32_t g) {
    gen_ = g;
    has_seed_ = true;
    unreset_ = true;
  }

  void CopyActions(const ActionRow& action) {
    for (std::size_t k = 0; k < layout_.action.size(); ++k)
      std::memcpy(slot_ + layout_.action_off[k], ActionPtr(action, static_cast<int>(k), layout_.action[k].dtype),
                  layout_.action[k].NumBytes());
  }

  // Whether a request for cmd was posted by Prepare (then waited for here).
  // One for another command is waited for and dropped.
  bool Posted(uint32_t cmd) {
    if (posted_ == 0) return false;
    const uint32_t was = posted_;
    posted_ = 0;
    Wait(was);
    if (was == cmd) return true;
    return false;
  }

  void Call(uint32_t cmd) {
    const uint32_t g = Word(record_, offsetof(WorkerRecord, gen))->load(std::memory_order_acquire);
    if (g != gen_) {
      // The worker was replaced since this env last ran: the env it held
      // is gone. A reset simply starts on the new one.
      Replaced(g);
      if (cmd != kCmdReset) FailUnposted(DeathMessage(cmd));
    }
    if (GivenUp()) FailUnposted(GivenUpMessage());
    // The new worker's env has not been reset: a step there would step an
    // env that gymnasium refuses to step (or garbage). The engine resets an
    // env after a failed step, not after a failed render, so a step after
    // the render that was told of the death still fails, once.
    if (unreset_ && cmd != kCmdReset) FailUnposted(DeathMessage(cmd, /*unreset=*/true));
    Post(cmd, g);
    posted_ = 0;
    Wait(cmd);
  }

  // A call that fails here, before its request is posted: the slot still
  // holds the previous request's answer, which may be an error the env
  // raised (a failed render's, say), and the pool's Python side raises an
  // answered error as the call's own (its type and traceback), so the
  // answer is marked as answering no request. No worker reads the slot
  // meanwhile: its request is done.
  [[noreturn]] void FailUnposted(const std::string& message) {
    Word(slot_, offsetof(SlotControl, error_req))
        ->store(Word(slot_, offsetof(SlotControl, done))->load(std::memory_order_acquire) + 1,
                std::memory_order_release);
    throw std::runtime_error(message);
  }

  void Post(uint32_t cmd, uint32_t g) {
    Word(slot_, offsetof(SlotControl, cmd))->store(cmd, std::memory_order_relaxed);
    Word(slot_, offsetof(SlotControl, gen))->store(g, std::memory_order_relaxed);
    std::memcpy(slot_ + offsetof(SlotControl, seed), &seed_, sizeof(seed_));
    Word(slot_, offsetof(SlotControl, has_seed))
        ->store(cmd == kCmdReset && has_seed_ ? 1 : 0, std::memory_order_relaxed);
    if (cmd == kCmdReset) {
      has_seed_ = false;
      unreset_ = false;
    }
    // The arrival number: the worker serves its pending requests in order.
    Word(slot_, offsetof(SlotControl, ticket))
        ->store(Word(record_, offsetof(WorkerRecord, ticket))->fetch_add(1, std::memory_order_relaxed),
                std::memory_order_relaxed);
    std::atomic<uint32_t>* req = Word(slot_, offsetof(SlotControl, req));
    want_ = req->load(std::memory_order_relaxed) + 1;
    posted_gen_ = g;
    posted_ = cmd;
    begun_seen_ = false;
    req->store(want_, std::memory_order_release);
    std::atomic<uint32_t>* doorbell = Word(record_, offsetof(WorkerRecord, doorbell));
    doorbell->fetch_add(1, std::memory_order_seq_cst);
    // The worker raises its flag before it re-checks the doorbell and sleeps:
    // a busy worker costs no system call here, and of the envs posted to a
    // sleeping worker only the first wakes it.
    if (Word(record_, offsetof(WorkerRecord, sleeping))->exchange(0, std::memory_order_seq_cst) != 0)
      platform::WakeSharedWord(doorbell, 1);
  }

  // Waits for the posted request, noticing a closing pool, a dead worker
  // and the step timeout (the segment's owner wakes us on the first two).
  // Waits for the posted request (of command cmd) to be done.
  void Wait(uint32_t cmd) {
    const uint32_t want = want_, g = posted_gen_;
    std::atomic<uint32_t>* gen = Word(record_, offsetof(WorkerRecord, gen));
    std::atomic<uint32_t>* done = Word(slot_, offsetof(SlotControl, done));
    const auto entered = std::chrono::steady_clock::now();
    auto start = begun_seen_ ? begun_at_ : entered;
    for (int spin = 0; spin < 64; ++spin)
      if (done->load(std::memory_order_acquire) == want) break;
    // While this env's results have come soon (cheap steps), wait for them
    // yielding before sleeping, for the reason the worker loop does (its
    // idle_spin): a thread asleep on a futex costs its core a halt and the
    // worker a wake-up call. Long steps sleep at once.
    if (short_waits_ && yield_for_.count() > 0) {
      while (done->load(std::memory_order_acquire) != want && std::chrono::steady_clock::now() - entered < yield_for_)
        platform::YieldCore();
    }
    for (;;) {
      const uint32_t seen = done->load(std::memory_order_acquire);
      if (seen == want) break;
      // The worker wakes us only while this flag is up (a wake-up costs it
      // a system call), so raise it before the last check.
      std::atomic<uint32_t>* sleeping = Word(slot_, offsetof(SlotControl, sleeping));
      sleeping->store(1, std::memory_order_seq_cst);
      if (done->load(std::memory_order_seq_cst) == seen)
        platform::WaitSharedWord(done, seen, std::chrono::milliseconds(100));
      sleeping->store(0, std::memory_order_relaxed);
      if (done->load(std::memory_order_acquire) == want) break;
      if (Word(base_, offsetof(SegmentHeader, closing))->load() != 0)
        throw std::runtime_error(Who() + ": the pool was closed while its worker process was stepping it");
      if (gen->load(std::memory_order_acquire) != g) {
        Replaced(gen->load(std::memory_order_acquire));
        throw std::runtime_error(DeathMessage(cmd));
      }
      // The worker's last replacement died while starting and was given up:
      // no worker will take this request, nor start again.
      if (GivenUp()) throw std::runtime_error(GivenUpMessage());
      // The timeout counts from when the worker took the request up (not
      // while a new worker starts).
      if (step_timeout_ > 0 && Word(slot_, offsetof(SlotControl, begun))->load(std::memory_order_acquire) != want)
        start = std::chrono::steady_clock::now();
      else if (step_timeout_ > 0 &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > step_timeout_) {
        const int32_t pid = static_cast<int32_t>(Word(record_, offsetof(WorkerRecord, pid))->load());
        if (pid > 0) platform::KillProcess(pid);
        // Wait for the owner to replace the worker, so that this env's next
        // call sees the new generation (and resets on it).
        for (int i = 0; i < 100 && gen->load(std::memory_order_acquire) == g; ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        Replaced(gen->load(std::memory_order_acquire));
        throw std::runtime_error(Who() + ": its step took over " + std::to_string(step_timeout_) +
                                 " s (step_timeout); its worker process was killed, and its envs are re-created and "
                                 "reset on their next step");
      }
    }
    short_waits_ = std::chrono::steady_clock::now() - entered < yield_for_;
    const uint32_t status = Word(slot_, offsetof(SlotControl, status))->load(std::memory_order_acquire);
    if (status != kOk) {
      uint32_t len = 0;
      std::memcpy(&len, slot_ + layout_.error_off, sizeof(len));
      len = std::min<uint32_t>(len, kErrorBytes - 8);
      const std::string msg(slot_ + layout_.error_off + 8, len);
      if (status == kValueError) throw std::invalid_argument(msg);
      if (status == kIndexError) throw std::out_of_range(msg);
      throw std::runtime_error(msg);
    }
  }

  void CopyOut(const StateRow& out) {
    for (std::size_t k = 0; k < layout_.state.size(); ++k)
      std::memcpy(StatePtr(out, static_cast<int>(k), layout_.state[k].dtype), slot_ + layout_.state_off[k],
                  layout_.state[k].NumBytes());
  }

  static void* StatePtr(const StateRow& out, int k, DType t) {
    switch (t) {
      case DType::kBool:
        return out[StateKey<bool>{k}];
      case DType::kUInt8:
        return out[StateKey<uint8_t>{k}];
      case DType::kInt32:
        return out[StateKey<int32_t>{k}];
      case DType::kInt64:
        return out[StateKey<int64_t>{k}];
      case DType::kFloat32:
        return out[StateKey<float>{k}];
      case DType::kFloat64:
        return out[StateKey<double>{k}];
    }
    return nullptr;
  }
  static const void* ActionPtr(const ActionRow& a, int k, DType t) {
    switch (t) {
      case DType::kBool:
        return a[ActionKey<bool>{k}];
      case DType::kUInt8:
        return a[ActionKey<uint8_t>{k}];
      case DType::kInt32:
        return a[ActionKey<int32_t>{k}];
      case DType::kInt64:
        return a[ActionKey<int64_t>{k}];
      case DType::kFloat32:
        return a[ActionKey<float>{k}];
      case DType::kFloat64:
        return a[ActionKey<double>{k}];
    }
    return nullptr;
  }

  Layout layout_;
  int env_id_;
  int worker_ = 0;
  int render_h_, render_w_;
  double step_timeout_;
  std::optional<platform::SharedMemory> segment_;
  char* base_ = nullptr;
  char* record_ = nullptr;
  char* slot_ = nullptr;
  uint32_t gen_ = 0;
  uint64_t seed_ = 0;
  bool has_seed_ = false;
  bool unreset_ = false;  // re-created in a new worker and not reset there yet
  uint32_t posted_ = 0;   // the command Prepare posted, 0 if none
  uint32_t want_ = 0, posted_gen_ = 0;
  std::chrono::nanoseconds yield_for_;
  bool short_waits_ = true;  // this env's last wait took under yield_for_
  // When Finished() first saw the posted request taken up (step_timeout).
  bool begun_seen_ = false;
  std::chrono::steady_clock::time_point begun_at_;
};

}  // namespace envpool::python_env

#endif  // ENVPOOL_PYTHON_ENV_PROC_ENV_H_
