// Concurrent stress tests of the engine core: semaphore, action queue,
// countdown and the whole pool with a counting env. Built and run by
// tests/core/test_core_cpp.py (plain, and under ThreadSanitizer when available).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpp/core/action_queue.h"
#include "cpp/core/pool.h"
#include "cpp/core/raw_ceiling.h"
#include "cpp/core/ring.h"
#include "cpp/core/semaphore.h"

using namespace envpool;

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

static void MaybeYield(std::mt19937& rng) {
  if (rng() % 8 == 0) std::this_thread::yield();
}

void TestSemaphore() {
  Semaphore sem;
  constexpr int kProducers = 3, kConsumers = 4, kEach = 20000;
  std::atomic<int> taken{0};
  std::vector<std::thread> ts;
  for (int c = 0; c < kConsumers; ++c)
    ts.emplace_back([&] {
      while (taken.load() < kProducers * kEach) {
        if (sem.TryAcquire())
          taken.fetch_add(1);
        else
          std::this_thread::yield();
      }
    });
  for (int p = 0; p < kProducers; ++p)
    ts.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) sem.Release(1);
    });
  for (auto& t : ts) t.join();
  CHECK(taken.load() == kProducers * kEach);
  CHECK(!sem.TryAcquire());
  // Blocking acquire is woken by a later release.
  std::thread waiter([&] { sem.Acquire(0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sem.Release(1);
  waiter.join();
  // A waiter that yields gets a token released while it yields, and one
  // whose yielding time runs out (it then sleeps on the futex) still gets
  // a later release: no wake-up is lost between the two phases.
  std::thread yielder([&] { sem.Acquire(0, std::chrono::seconds(10)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  sem.Release(1);
  yielder.join();
  std::thread gives_up([&] { sem.Acquire(0, std::chrono::milliseconds(1)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sem.Release(1);
  gives_up.join();
  CHECK(!sem.TryAcquire());
  // YieldUntil: true as soon as ready, false once the time is up.
  CHECK(!YieldUntil(std::chrono::nanoseconds(0), [] { return false; }));
  CHECK(YieldUntil(std::chrono::nanoseconds(0), [] { return true; }));
  int polls = 0;
  CHECK(YieldUntil(std::chrono::seconds(10), [&] { return ++polls == 40; }));
  const auto start = std::chrono::steady_clock::now();
  CHECK(!YieldUntil(std::chrono::milliseconds(3), [] { return false; }));
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(3));
  std::puts("semaphore ok");
}

// One producer, several consumers with a lane each, in-flight capped as
// the pool does; every task must be run exactly once even with consumers
// preempted between claiming and reading a slot, and Stop() must let the
// queued work finish first. `chunked`: consumers claim with TryPopMany
// (up to 1, 4, 7, ... tasks) as the pool does, blocking in Pop() only when
// nothing is ready, and the producer pushes up to 6 tasks at once; any
// stops past the first in a chunk are handed back, so every consumer still
// gets its own.
void TestActionQueue(bool chunked) {
  constexpr int kEnvs = 16, kConsumers = 4, kRounds = 50000;
  ActionQueue q(kConsumers + 1, kEnvs, kEnvs);
  std::vector<std::atomic<int>> runs(kEnvs);
  std::atomic<int> in_flight{0};
  std::vector<std::atomic<bool>> busy(kEnvs);
  std::atomic<bool> failed{false};
  std::vector<std::thread> ts;
  for (int c = 0; c < kConsumers; ++c)
    ts.emplace_back([&, c] {
      std::mt19937 rng(c);
      Task tasks[16];
      for (;;) {
        int n = chunked ? q.TryPopMany(c, tasks, 1 + 3 * c) : 0;
        if (n == 0) {
          tasks[0] =
              q.Pop(c, c % 2 ? 0 : 2000, std::chrono::microseconds(c % 2 ? 0 : 50));  // sleeping and spinning consumers
          n = 1;
        }
        int stops = 0;
        for (int i = 0; i < n; ++i) {
          const Task& t = tasks[i];
          if (t.kind == Task::kStop) {
            ++stops;
            continue;
          }
          MaybeYield(rng);
          if (!busy[t.env_id].load()) failed = true;  // must be a live task
          runs[t.env_id].fetch_add(1);
          busy[t.env_id].store(false);
          in_flight.fetch_sub(1);
        }
        for (int i = 1; i < stops; ++i) q.ReturnStop();
        if (stops > 0) return;
      }
    });
  std::mt19937 rng(42);
  int sent = 0;
  std::vector<int> sent_per_env(kEnvs, 0);
  std::vector<Task> batch;
  while (sent < kRounds) {
    batch.clear();
    const int want = chunked ? 1 + static_cast<int>(rng() % 6) : 1;
    for (int k = 0; k < want; ++k) {
      const int id = static_cast<int>(rng() % kEnvs);
      if (busy[id].load()) continue;
      busy[id].store(true);
      in_flight.fetch_add(1);
      batch.push_back(Task{Task::kStep, id, nullptr, 0, false, 0});
      ++sent_per_env[id];
      ++sent;
    }
    const int n = static_cast<int>(batch.size());
    if (n == 0) {
      // Every env picked is in flight: give the consumers the core (on a
      // machine with fewer cores than threads, spinning here starved them:
      // the test took minutes instead of a second).
      std::this_thread::yield();
      continue;
    }
    q.Push(batch.data(), n, n);
  }
  // The producer's own lane is served by stealing alone; stop with work
  // still queued.
  q.Stop(kConsumers);
  for (auto& t : ts) t.join();
  CHECK(in_flight.load() == 0);
  CHECK(!failed.load());
  for (int i = 0; i < kEnvs; ++i) CHECK(runs[i].load() == sent_per_env[i]);
  std::puts(chunked ? "action queue (chunked claims) ok" : "action queue ok");
}

void TestLaneFairness() {
  // A consumer whose own lane never empties still serves the other lane,
  // which nobody serves, on its 8th claim (the lanes' turn), not never.
  ActionQueue q(2, 2, 4);
  Task other{Task::kStep, 1, nullptr, 0, false, 0};  // lane 1
  q.Push(&other, 1, 0);
  int own_first = 0;
  for (;;) {
    Task mine{Task::kStep, 0, nullptr, 0, false, 0};  // lane 0
    q.Push(&mine, 1, 0);
    Task t = q.Pop(0, 0, std::chrono::nanoseconds(0));
    if (t.env_id == 1) break;
    CHECK(++own_first < 8);
  }
  CHECK(own_first == 7);  // claims 1..7 prefer the own lane
  // A lane whose own consumer keeps claiming is not served by the other's
  // turns (that only moved envs between threads).
  ActionQueue kept(2, 2, 4);
  for (int round = 0; round < 32; ++round) {
    Task t0{Task::kStep, 0, nullptr, 0, false, 0}, t1{Task::kStep, 1, nullptr, 0, false, 0};
    kept.Push(&t0, 1, 0);
    kept.Push(&t1, 1, 0);
    CHECK(kept.Pop(0, 0, std::chrono::nanoseconds(0)).env_id == 0);
    CHECK(kept.Pop(1, 0, std::chrono::nanoseconds(0)).env_id == 1);
  }
  // An idle consumer takes another lane's work (lane 0 still holds the
  // last `mine`).
  Task t;
  CHECK(q.TryPop(1, &t) && t.env_id == 0);
  CHECK(!q.TryPop(1, &t));
  // Lanes hold blocks of envs (each thread writes adjacent result rows).
  ActionQueue blocks(3, 64, 64);
  CHECK(blocks.LaneOf(0) == 0 && blocks.LaneOf(21) == 0 && blocks.LaneOf(22) == 1);
  CHECK(blocks.LaneOf(42) == 1 && blocks.LaneOf(43) == 2 && blocks.LaneOf(63) == 2);
  std::puts("lane fairness ok");
}

void TestCountdown() {
  // The completing thread must not touch the batch after completing it:
  // the waiter frees it at once (ThreadSanitizer/ASan catch a violation).
  Notifier notifier;
  for (int trial = 0; trial < 2000; ++trial) {
    auto c = std::make_unique<Countdown>();
    c->Reset(8);
    std::vector<std::thread> ts;
    for (int i = 0; i < 8; ++i)
      ts.emplace_back([&notifier, p = c.get()] {
        if (p->Arrive()) notifier.Notify();
      });
    while (!c->Done()) {
      int seen = notifier.Epoch();
      notifier.Wait(seen, [&] { return c->Done(); });
    }
    c.reset();
    for (auto& t : ts) t.join();
  }
  std::puts("countdown ok");
}

// The test envs' keys: obs = 2 int32, action = one int32 >= `low`.
struct PairSpec : EnvSpec {
  StateKey<int32_t> obs = AddState<int32_t>("obs", {2});
  ActionKey<int32_t> action;
  explicit PairSpec(double low) : action(AddAction<int32_t>("action", {}, {low}, {1 << 30})) {}
};

// An env whose observation is (env id, step count); any lost, doubled or
// misplaced step shows up in the sequence.
class CountingEnv : public Env {
 public:
  explicit CountingEnv(int id) : id_(id) {}
  void Reset(const StateRow& out) override {
    count_ = 0;
    Write(out);
  }
  StepResult Step(const ActionRow& a, const StateRow& out) override {
    CHECK(a[spec_.action][0] == count_);  // the action sent for this step
    ++count_;
    if (rng_() % 16 == 0) std::this_thread::yield();
    Write(out);
    StepResult r;
    r.reward = count_;
    r.terminated = count_ % 37 == 0;
    return r;
  }

 private:
  void Write(const StateRow& out) {
    out[spec_.obs][0] = id_;
    out[spec_.obs][1] = count_;
  }
  PairSpec spec_{0};
  int id_;
  int count_ = 0;
};

Family CountingFamily() {
  return Family{"Counting",
                {},
                [](const Config&) { return PairSpec(0); },
                [](const Config&, int id) -> std::unique_ptr<Env> { return std::make_unique<CountingEnv>(id); },
                nullptr};
}

void TestPool(int num_envs, int batch, int threads, AutoresetMode mode, int rounds) {
  Family fam = CountingFamily();
  PoolOptions opt;
  opt.num_envs = num_envs;
  opt.batch_size = batch;
  opt.num_threads = threads;
  opt.max_episode_steps = 50;
  opt.autoreset = mode;
  EnvPool pool(fam, Config{}, opt);
  std::vector<int> expect(num_envs, 0);  // the env's count in its next result
  std::vector<int> ids(num_envs);
  for (int i = 0; i < num_envs; ++i) ids[i] = i;
  pool.Send(Task::kReset, ids.data(), num_envs, nullptr, nullptr);
  const int rows_per_recv = batch;
  for (int r = 0; r < rounds; ++r) {
    auto b = pool.Recv();
    const int rows = b->done.target();
    CHECK(rows == rows_per_recv || pool.sync());
    std::vector<int> next_ids;
    std::vector<int32_t> actions;
    std::vector<char> seen(num_envs, 0);
    for (int row = 0; row < rows; ++row) {
      int id = *reinterpret_cast<int32_t*>(b->Row(kEnvId, row));
      const int32_t* obs = reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys, row));
      CHECK(id >= 0 && id < num_envs && !seen[id]);
      seen[id] = 1;
      CHECK(obs[0] == id);
      bool term = *reinterpret_cast<bool*>(b->Row(kTerminated, row));
      bool trunc = *reinterpret_cast<bool*>(b->Row(kTruncated, row));
      int elapsed = *reinterpret_cast<int32_t*>(b->Row(kElapsedStep, row));
      const float reward = *reinterpret_cast<float*>(b->Row(kReward, row));
      if (mode == AutoresetMode::kSameStep && (term || trunc)) {
        // The row holds the next episode's start; the step's own results
        // (reward = the finished step's count) and its final obs stay.
        CHECK(obs[1] == 0 && elapsed == 0);
        CHECK(reward == expect[id]);
        const int32_t* final_obs = reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys + 1, row));
        CHECK(final_obs[0] == id && final_obs[1] == expect[id]);
        expect[id] = 0;
      } else {
        CHECK(obs[1] == expect[id]);
        CHECK(elapsed == obs[1]);
      }
      bool done = term || trunc;
      // NEXT_STEP: the step after a done is a reset, so count restarts.
      int next_count = (mode == AutoresetMode::kNextStep && done) ? 0 : expect[id] + 1;
      actions.push_back(mode == AutoresetMode::kNextStep && done ? 0 : expect[id]);
      expect[id] = next_count;
      next_ids.push_back(id);
    }
    const char* act = reinterpret_cast<const char*>(actions.data());
    pool.Send(Task::kStep, next_ids.data(), static_cast<int>(next_ids.size()), &act, nullptr);
  }
  // Destroying with work in flight must not hang.
}

// An env whose step sleeps for as many microseconds as its action says
// (negative: throws std::invalid_argument). Observation: (env id, steps).
class SleepyEnv : public Env {
 public:
  explicit SleepyEnv(int id) : id_(id) {}
  void Reset(const StateRow& out) override {
    steps_ = 0;
    Write(out);
  }
  StepResult Step(const ActionRow& a, const StateRow& out) override {
    const int us = a[spec_.action][0];
    if (us < 0) throw std::invalid_argument("asked to fail");
    // At least `us` long: MinGW's sleep_for rounds down to whole
    // milliseconds (300 us would not sleep at all), so yield the rest.
    const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    while (std::chrono::steady_clock::now() < end) std::this_thread::yield();
    ++steps_;
    Write(out);
    return StepResult{};
  }

 private:
  void Write(const StateRow& out) {
    out[spec_.obs][0] = id_;
    out[spec_.obs][1] = steps_;
  }
  PairSpec spec_{-1};
  int id_;
  int steps_ = 0;
};

Family SleepyFamily() {
  return Family{"Sleepy",
                {},
                [](const Config&) { return PairSpec(-1); },
                [](const Config&, int id) -> std::unique_ptr<Env> { return std::make_unique<SleepyEnv>(id); },
                nullptr};
}

// A SleepyEnv that also notes which thread ran each env's last step.
std::vector<std::thread::id> last_stepper(64);
class TracedEnv : public SleepyEnv {
 public:
  explicit TracedEnv(int id) : SleepyEnv(id), id_(id) {}
  StepResult Step(const ActionRow& a, const StateRow& out) override {
    last_stepper[id_] = std::this_thread::get_id();
    return SleepyEnv::Step(a, out);
  }

 private:
  int id_;
};

PoolOptions Opts(int num_envs, int batch, int threads) {
  PoolOptions opt;
  opt.num_envs = num_envs;
  opt.batch_size = batch;
  opt.num_threads = threads;
  return opt;
}

std::vector<int> Ids(const StateBatch& b) {
  std::vector<int> ids;
  for (int row = 0; row < b.done.target(); ++row) ids.push_back(*reinterpret_cast<int32_t*>(b.Row(kEnvId, row)));
  return ids;
}

void SendSteps(EnvPool& pool, const std::vector<int>& ids, int us) {
  std::vector<int32_t> act(ids.size(), us);
  const char* a = reinterpret_cast<const char*>(act.data());
  pool.Send(Task::kStep, ids.data(), static_cast<int>(ids.size()), &a, nullptr);
}

// A slow env sent first is not in the first batch: the fast envs sent after
// it finish first and fill it.
void TestFirstToFinish() {
  Family fam = SleepyFamily();
  EnvPool pool(fam, Config{}, Opts(8, 4, 2));
  std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  pool.Send(Task::kReset, all.data(), 8, nullptr, nullptr);
  pool.Recv();
  pool.Recv();
  for (int round = 0; round < 5; ++round) {
    SendSteps(pool, {0}, 100000);
    SendSteps(pool, {4, 5, 6, 7}, 0);
    std::vector<int> first = Ids(*pool.Recv());
    CHECK(std::find(first.begin(), first.end(), 0) == first.end());
    SendSteps(pool, {1, 2, 3}, 0);
    std::vector<int> second = Ids(*pool.Recv());
    CHECK(std::find(second.begin(), second.end(), 0) != second.end());
  }
  std::puts("first to finish ok");
}

// Several threads in recv/send loops on one async pool: every result is
// delivered exactly once and every env's steps stay in sequence.
void TestThreadedCallers(int threads, int num_envs, int batch) {
  Family fam = SleepyFamily();
  EnvPool pool(fam, Config{}, Opts(num_envs, batch, 2));
  std::vector<int> all(num_envs);
  for (int i = 0; i < num_envs; ++i) all[i] = i;
  pool.Send(Task::kReset, all.data(), num_envs, nullptr, nullptr);
  std::vector<std::atomic<int>> steps(num_envs);
  std::atomic<int> results{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int k = 0; k < 2000; ++k) {
        auto b = pool.Recv();
        CHECK(b->done.target() == batch);
        std::vector<int> ids = Ids(*b);
        for (int row = 0; row < batch; ++row) {
          const int32_t* obs = reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys, row));
          CHECK(obs[0] == ids[row]);
          CHECK(obs[1] == steps[ids[row]].load());
          steps[ids[row]].fetch_add(1);
        }
        results.fetch_add(batch);
        SendSteps(pool, ids, static_cast<int>(rng() % 3));
      }
    });
  }
  for (auto& t : ts) t.join();
  CHECK(results.load() == threads * 2000 * batch);
  std::puts("threaded callers ok");
}

// close() from another thread wakes a thread blocked in recv().
void TestCloseWakesWaiter() {
  Family fam = SleepyFamily();
  for (int batch : {4, 2}) {
    EnvPool pool(fam, Config{}, Opts(4, batch, 2));
    std::vector<int> all = {0, 1, 2, 3};
    std::atomic<bool> woke{false};
    // A second calling thread, so recv() waits for sends instead of raising.
    std::thread other([&] {
      SendSteps(pool, {}, 0);
      if (batch == 4) CHECK(pool.Recv()->done.target() == 0);  // sync: an empty batch
    });
    other.join();
    pool.Send(Task::kReset, all.data(), 4, nullptr, nullptr);
    if (batch == 2) {
      pool.Recv();
      pool.Recv();
    } else {
      pool.Recv();
    }
    std::thread waiter([&] {
      try {
        if (batch == 4) SendSteps(pool, {0, 1, 2, 3}, 200000);
        pool.Recv();
        if (batch == 2) pool.Recv();
      } catch (const PoolClosed&) {
        woke = true;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pool.Close();
    waiter.join();
    CHECK(woke.load() || batch == 4);  // sync: the step may have finished first
  }
  std::puts("close wakes waiter ok");
}

// Runs `call`, which must throw a BatchError naming env `env_id` alone.
BatchError FailureOf(const std::function<void()>& call, int env_id) {
  try {
    call();
  } catch (const BatchError& e) {
    CHECK(e.failures.size() == 1 && e.failures[0].env_id == env_id);
    return e;
  }
  CHECK(false && "no BatchError");
  std::abort();
}

// An env that throws: the batch comes back complete with the error, the
// exception keeps its type, and the env is reset on its next step.
void TestEnvErrors() {
  Family fam = SleepyFamily();
  EnvPool pool(fam, Config{}, Opts(4, 4, 2));
  std::vector<int> all = {0, 1, 2, 3};
  pool.Send(Task::kReset, all.data(), 4, nullptr, nullptr);
  pool.Recv();
  std::vector<int32_t> act = {0, -1, 0, 0};
  const char* a = reinterpret_cast<const char*>(act.data());
  const BatchError e = FailureOf([&] { pool.Step(Task::kStep, all.data(), 4, &a, nullptr); }, 1);
  CHECK(Ids(*e.batch) == all);
  bool typed = false;
  try {
    std::rethrow_exception(e.failures[0].error);
  } catch (const std::invalid_argument&) {
    typed = true;
  }
  CHECK(typed);
  CHECK(*reinterpret_cast<bool*>(e.batch->Row(kTerminated, 1)));
  act = {0, 0, 0, 0};
  auto b = pool.Step(Task::kStep, all.data(), 4, &a, nullptr);
  const int32_t* steps1 = reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys, 1));
  const int32_t* steps0 = reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys, 0));
  CHECK(steps1[1] == 0 && steps0[1] == 2);
  std::puts("env errors ok");
}

// A call naming 16 envs (stepped 40 times so far) in reverse order, each
// with its own action (env 12's says fail), as the calling thread steps it
// (cheap) or the workers do: the rows follow the ids given, env 12's is
// zeroed and terminated, and its next step resets it.
void CheckOwnCall(EnvPool& pool, bool cheap) {
  std::vector<int> ids(16);
  std::vector<int32_t> act(16, cheap ? 0 : 300);
  for (int row = 0; row < 16; ++row) ids[row] = 15 - row;
  act[3] = -1;  // row 3 is env 12
  const char* a = reinterpret_cast<const char*>(act.data());
  const BatchError e = FailureOf([&] { pool.Call(Task::kStep, ids.data(), 16, &a, nullptr); }, 12);
  CHECK(Ids(*e.batch) == ids);
  for (int row = 0; row < 16; ++row) {
    const bool failed = row == 3;
    const int32_t* obs = reinterpret_cast<const int32_t*>(e.batch->Row(kNumCommonKeys, row));
    CHECK(*reinterpret_cast<const bool*>(e.batch->Row(kTerminated, row)) == failed);
    CHECK(obs[0] == (failed ? 0 : ids[row]) && obs[1] == (failed ? 0 : 41));
    CHECK(*reinterpret_cast<const int32_t*>(e.batch->Row(kElapsedStep, row)) == (failed ? 40 : 41));
  }
  std::vector<int32_t> ok(16, cheap ? 0 : 300);
  const char* o = reinterpret_cast<const char*>(ok.data());
  auto b = pool.Call(Task::kStep, ids.data(), 16, &o, nullptr);
  for (int row = 0; row < 16; ++row) {
    const int32_t* obs = reinterpret_cast<const int32_t*>(b->Row(kNumCommonKeys, row));
    CHECK(obs[0] == ids[row] && obs[1] == (row == 3 ? 0 : 42));
  }
}

// A call of cheap steps stays on the calling thread once tasks are timed
// (a hand-off would cost more than the work); expensive steps are shared
// with the workers. Either way every env steps once per call.
void TestWhereCallsStep() {
  Family fam{"Traced",
             {},
             [](const Config&) { return PairSpec(-1); },
             [](const Config&, int id) -> std::unique_ptr<Env> { return std::make_unique<TracedEnv>(id); },
             nullptr};
  const std::thread::id me = std::this_thread::get_id();
  for (int us : {0, 300}) {
    EnvPool pool(fam, Config{}, Opts(16, 16, 2));
    std::vector<int> ids(16);
    for (int i = 0; i < 16; ++i) ids[i] = i;
    std::vector<int32_t> act(16, us);
    const char* a = reinterpret_cast<const char*>(act.data());
    pool.Call(Task::kReset, ids.data(), 16, nullptr, nullptr);
    int elsewhere = 0;
    for (int round = 1; round <= 40; ++round) {
      auto b = pool.Call(Task::kStep, ids.data(), 16, &a, nullptr);
      for (int row = 0; row < 16; ++row) CHECK(reinterpret_cast<int32_t*>(b->Row(kNumCommonKeys, row))[1] == round);
      if (round > 32)  // every env timed at least once by now
        for (int i = 0; i < 16; ++i) elsewhere += last_stepper[i] != me;
    }
#ifndef __SANITIZE_THREAD__  // ThreadSanitizer makes even the cheap step cost microseconds
    if (us == 0) CHECK(elsewhere == 0);
#endif
    if (us > 0) CHECK(elsewhere > 0);
    CheckOwnCall(pool, /*cheap=*/us == 0);
  }
  std::puts("stepping thread ok");
}

// Debug builds (this test is built without NDEBUG) refuse a key handle
// that names a missing key or one of another element type.
void TestKeyChecks() {
  PairSpec spec(0);
  const DType types[] = {DType::kInt32};
  int32_t cell[2] = {0, 0};
  char* ptrs[] = {reinterpret_cast<char*>(cell)};
  StateRow row(ptrs, nullptr, KeyTypes{types, 1});
  row[spec.obs][1] = 7;
  CHECK(cell[1] == 7);
  auto refused = [&](auto key) {
    try {
      row[key];
    } catch (const std::logic_error&) {
      return true;
    }
    return false;
  };
  CHECK(refused(StateKey<float>{0}));    // wrong element type
  CHECK(refused(StateKey<int32_t>{1}));  // no such key
  CHECK(refused(StateKey<int32_t>{}));   // a key never added
  std::puts("key checks ok");
}

// The async ring's claim protocol, on one thread: rows go to batches in
// order; a claim whose slot still holds the batch this thread is receiving
// republishes that slot as soon as the batch is complete and proceeds; once
// the pool is closed, a claim that would wait gets a discard batch.
struct RingHost : BatchRing::Host {
  StateLayout layout{{Spec<int32_t>("x", {})}};
  BatchRing* ring = nullptr;
  std::atomic<bool> is_closed{false};
  std::vector<uint64_t> republished;
  std::vector<std::shared_ptr<StateBatch>> kept;
  std::shared_ptr<StateBatch> Make(int rows) {
    auto memory = std::make_shared<BatchMemory>(BatchBytes(layout, rows));
    auto b = std::make_shared<StateBatch>(layout, rows, rows, memory->Get());
    kept.push_back(b);
    return b;
  }
  bool closed() const override { return is_closed; }
  void Republish(uint64_t number) override {
    republished.push_back(number);
    ring->Publish(number, Make(2));
  }
  StateBatch* DiscardBatch() override { return Make(1).get(); }
};

// A receiving thread whose batch (1) comes after the claimed row's (0):
// its batch completes only after this claim, so the claim waits for slot 0
// alone, which another thread publishes. Waiting for batch 1 first hung
// (TestThreadedCallers, 4 receivers). If the claim is still waiting 10 s
// after the publish, the host closes, which ends any wait, and the checks
// fail.
void TestRingClaimBeforeOwnBatch() {
  RingHost host;
  BatchRing ring(&host, /*batch_size=*/2, /*size=*/3);
  host.ring = &ring;
  std::vector<std::shared_ptr<StateBatch>> batches = {host.Make(2), host.Make(2), host.Make(2)};
  ring.Publish(1, batches[1]);
  ring.Publish(2, batches[2]);
  BatchRing::Ticket& mine = BatchRing::Receiving();
  mine = BatchRing::Ticket{&ring, 1, false};
  std::atomic<bool> claimed{false};
  std::thread publisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ring.Publish(0, batches[0]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!claimed.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!claimed.load()) host.is_closed = true;
  });
  const BatchRing::Row r = ring.Claim();
  claimed = true;
  publisher.join();
  CHECK(!host.is_closed.load());
  CHECK(r.batch == batches[0].get() && r.row == 0);
  CHECK(!mine.published && host.republished.empty());
  mine = BatchRing::Ticket{};
}

void TestRingClaims() {
  RingHost host;
  BatchRing ring(&host, /*batch_size=*/2, /*size=*/3);
  host.ring = &ring;
  std::vector<std::shared_ptr<StateBatch>> batches;
  for (uint64_t n = 0; n < 3; ++n) {
    batches.push_back(host.Make(2));
    ring.Publish(n, batches.back());
    CHECK(ring.Published(n) && ring.Owner(n) == batches.back());
  }
  CHECK(!ring.Published(3));
  for (int i = 0; i < 6; ++i) {
    const BatchRing::Row r = ring.Claim();
    CHECK(r.batch == batches[i / 2].get() && r.row == i % 2);
  }
  // This thread receives batch 0, which is complete: the claim of batch
  // 3's first row republishes slot 0 for batch 3 rather than wait.
  BatchRing::Ticket& mine = BatchRing::Receiving();
  mine = BatchRing::Ticket{&ring, 0, false};
  CHECK(batches[0]->done.Arrive(2));
  const BatchRing::Row r3 = ring.Claim();
  CHECK(mine.published && host.republished == std::vector<uint64_t>{3});
  CHECK(ring.Published(3) && r3.batch == ring.Owner(3).get() && r3.row == 0);
  CHECK(ring.Claim().batch == r3.batch);  // batch 3's second row: its slot is ready
  // Batch 4's slot still holds batch 1, which nobody republishes: once the
  // pool is closed the claim goes to a one-row discard batch.
  host.is_closed = true;
  const BatchRing::Row discard = ring.Claim();
  CHECK(discard.batch != batches[1].get() && discard.batch->capacity == 1 && discard.row == 0);
  CHECK(host.republished.size() == 1);
  mine = BatchRing::Ticket{};
  // A ticket of another ring is not this thread's batch: no early publish.
  BatchRing other(&host, 2, 3);
  mine = BatchRing::Ticket{&other, 1, false};
  CHECK(ring.Claim().batch->capacity == 1 && !mine.published);
  mine = BatchRing::Ticket{};
  TestRingClaimBeforeOwnBatch();
  std::puts("ring claims ok");
}

// RegisterFamily refuses a family without a kind and a repeated name.
void TestRegisterFamily() {
  auto refused = [](Family f, const std::string& word) {
    try {
      RegisterFamily(std::move(f));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
  };
  Family f = CountingFamily();
  f.name = "RegisterTest";
  CHECK(refused(f, "RegisterTest"));  // no kind
  f.kind = "testing";
  RegisterFamily(f);
  CHECK(FindFamily("RegisterTest") != nullptr);
  CHECK(refused(f, "already registered"));
  std::puts("register family ok");
}

// RawCeiling's sync calls: every env steps once a call, never on two
// threads at once, and none before the last step of the call before;
// the run ends after a whole call (uneven blocks, more threads than envs'
// blocks of equal size, more threads than cores).
void TestRawSyncCalls(int threads, int envs) {
  struct Counts {
    std::vector<std::atomic<int>> steps, busy;
    std::atomic<int> completed{0};
    explicit Counts(int n) : steps(n), busy(n) {}
  };
  auto counts = std::make_shared<Counts>(envs);
  Family fam = CountingFamily();
  fam.make_raw_stepper = [counts, envs](const Config&, uint64_t seed) -> std::function<void()> {
    const int e = static_cast<int>(seed);
    auto rng = std::make_shared<std::mt19937>(e);
    return [counts, envs, e, rng] {
      const int call = counts->steps[e].load();
      CHECK(counts->busy[e].exchange(1) == 0);
      CHECK(counts->completed.load() >= call * envs);
      MaybeYield(*rng);
      counts->steps[e].store(call + 1);
      counts->busy[e].store(0);
      counts->completed.fetch_add(1);
    };
  };
  const double rate = RawCeiling(fam, Config{}, threads, 0.05, 0, envs, /*sync_calls=*/true);
  CHECK(rate > 0);
  const int calls = counts->steps[0].load();
  CHECK(calls > 0);
  for (int e = 0; e < envs; ++e) CHECK(counts->steps[e].load() == calls);
  CHECK(counts->completed.load() == calls * envs);
}

int main() {
  TestKeyChecks();
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  TestSemaphore();
  TestActionQueue(/*chunked=*/false);
  TestActionQueue(/*chunked=*/true);
  TestLaneFairness();
  TestCountdown();
  // Rounds sized for a loaded machine (the suite runs on two pytest-xdist
  // workers): there every hand-off between threads waits for a core, a
  // scheduler slice of milliseconds, and 20000 rounds a case took minutes.
  for (auto mode : {AutoresetMode::kNextStep, AutoresetMode::kSameStep}) {
    TestPool(8, 8, 2, mode, 3000);   // sync
    TestPool(16, 4, 3, mode, 5000);  // async
    TestPool(33, 7, 4, mode, 5000);  // async, uneven
    TestPool(5, 1, 2, mode, 5000);   // async, batch of one
  }
  std::puts("pool ok");
  TestFirstToFinish();
  TestThreadedCallers(2, 8, 2);
  TestThreadedCallers(4, 16, 3);
  TestCloseWakesWaiter();
  TestEnvErrors();
  TestWhereCallsStep();
  TestRingClaims();
  TestRegisterFamily();
  TestRawSyncCalls(2, 8);
  TestRawSyncCalls(2, 5);
  TestRawSyncCalls(3, 4);
  TestRawSyncCalls(1, 3);
  std::puts("raw sync calls ok");
  std::puts("all ok");
  std::fflush(stdout);
  return 0;
}
