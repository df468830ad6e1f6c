// Families that misbehave on purpose (tests/api/test_cpp_extension.py):
// "Faulty" throws from Step what its action asks for (4: out_of_range after
// 50 ms, so that it fails after the other envs of a call). Built with
// -DFAULTS_FAMILY=<name> it registers under another name (e.g. one that is
// taken), with -DFAULTS_REGISTER_THROWS its registration throws
// std::invalid_argument, with -DFAULTS_TASK_MODULE=<module> it names a Python
// module that registers its tasks, with -DFAULTS_MISUSE_KEY its Step writes
// its float observation through a double key. It has a raw ceiling (make_raw_stepper).
#include <envpool/envpool.h>

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#ifndef FAULTS_FAMILY
#define FAULTS_FAMILY "Faulty"
#endif
#ifndef FAULTS_TASK_MODULE
#define FAULTS_TASK_MODULE ""
#endif

namespace {

using namespace envpool;

class Faulty : public Env {
 public:
  struct Spec : EnvSpec {
    StateKey<float> obs = AddState<float>("obs", {1});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {4});
  };
  static EnvSpec MakeSpec(const Config&) { return Spec(); }
  explicit Faulty(const Config&) {}
  void Reset(const StateRow& out) override { *out[spec_.obs] = 0.0f; }
  StepResult Step(const ActionRow& action, const StateRow& out) override {
    switch (action[spec_.action][0]) {
      case 1:
        throw std::invalid_argument("faulty: a bad action");
      case 2:
        throw std::out_of_range("faulty: out of range");
      case 3:
        throw std::runtime_error("faulty: broken");
      case 4:
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        throw std::out_of_range("faulty: out of range, late");
    }
#ifdef FAULTS_MISUSE_KEY
    *out[StateKey<double>{spec_.obs.index}] = 1.0;  // the float obs key read as double
#else
    *out[spec_.obs] = 1.0f;
#endif
    return {};
  }

 private:
  Spec spec_;
};

void Register() {
#ifdef FAULTS_REGISTER_THROWS
  throw std::invalid_argument("faulty: refusing to register");
#endif
  Family f{FAULTS_FAMILY, Config{}, &Faulty::MakeSpec,
           [](const Config& c, int) -> std::unique_ptr<Env> { return std::make_unique<Faulty>(c); },
           // A raw ceiling (envpool-bench's "raw" engine): a bare counter.
           [](const Config&, uint64_t) -> std::function<void()> {
             auto n = std::make_shared<uint64_t>(0);
             return [n] { ++*n; };
           }};
  f.kind = "custom";
  f.task_module = FAULTS_TASK_MODULE;
  RegisterFamily(std::move(f));
}

const FamilyRegistrar registrar(&Register);

}  // namespace
