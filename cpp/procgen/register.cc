// Registers the Procgen family (procgen 0.10.7's engine, see procgen_env.h).
#include <memory>
#include <random>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/procgen/procgen_env.h"

namespace {

using envpool::procgen::ProcgenEnv;

// The raw ceiling: procgen's library stepped bare with uniformly random
// actions (its own resets included), no observation copied out.
std::function<void()> RawStepper(const envpool::Config& c, uint64_t seed) {
  struct Runner {
    std::unique_ptr<ProcgenEnv> env;
    std::vector<std::vector<char>> state;
    std::vector<char*> ptrs;
    std::mt19937_64 rng;
  };
  auto r = std::make_shared<Runner>();
  r->env = std::make_unique<ProcgenEnv>(c);
  for (const envpool::ArraySpec& a : ProcgenEnv::MakeSpec(c).state) r->state.emplace_back(a.NumBytes() + 8);
  for (auto& s : r->state) r->ptrs.push_back(s.data());
  r->rng.seed(seed);
  r->env->Seed(seed);
  r->env->Reset(envpool::StateRow(r->ptrs.data()));
  return [r] { r->env->RawStep(static_cast<int32_t>(r->rng() % envpool::procgen::kNumActions)); };
}

void Register() {
  envpool::Family f{
      "Procgen", ProcgenEnv::Defaults(), &ProcgenEnv::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<ProcgenEnv>(c); },
      &RawStepper};
  f.kind = "procgen";
  f.task_module = "envpool.tasks.procgen";
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  envpool::RegisterFamily(std::move(f));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
