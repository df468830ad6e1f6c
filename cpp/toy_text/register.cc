// Registers the toy-text families with the engine.
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/toy_text/blackjack.h"
#include "cpp/toy_text/catch.h"
#include "cpp/toy_text/cliff_walking.h"
#include "cpp/toy_text/frozen_lake.h"
#include "cpp/toy_text/nchain.h"
#include "cpp/toy_text/taxi.h"

namespace {

// The raw ceiling: one bare env stepped with uniformly random actions,
// reset when an episode ends (terminated, or max_episode_steps), writing
// into a row of its own: no engine, queue or batch.
template <class E>
std::function<void()> RawStepper(const envpool::Config& c, uint64_t seed) {
  struct Runner {
    envpool::EnvSpec spec;
    std::vector<std::vector<char>> state;
    std::vector<char*> state_ptrs;
    int32_t action = 0;
    const char* action_ptr = reinterpret_cast<const char*>(&action);
    std::unique_ptr<E> env;
    std::mt19937_64 rng;
    int num_actions = 0;
    int64_t max_steps = 0, steps = 0;
  };
  auto r = std::make_shared<Runner>();
  r->spec = E::MakeSpec(c);
  for (const envpool::ArraySpec& a : r->spec.state) r->state.emplace_back(a.NumBytes() + 8);
  for (auto& s : r->state) r->state_ptrs.push_back(s.data());
  r->num_actions = static_cast<int>(r->spec.action[0].high[0]) + 1;
  r->max_steps = c.Get<int64_t>("max_episode_steps");
  r->env = std::make_unique<E>(c);
  r->env->Seed(seed);
  r->rng.seed(seed);
  r->env->Reset(envpool::StateRow(r->state_ptrs.data()));
  return [r] {
    const envpool::StateRow out(r->state_ptrs.data());
    r->action = static_cast<int32_t>(r->rng() % static_cast<uint64_t>(r->num_actions));
    const envpool::StepResult s = r->env->Step(envpool::ActionRow(&r->action_ptr), out);
    if (s.terminated || s.truncated || (r->max_steps > 0 && ++r->steps >= r->max_steps)) {
      r->steps = 0;
      r->env->Reset(out);
    }
  };
}

template <class E>
envpool::Family Make(const char* name) {
  envpool::Family f{
      name, E::Defaults(), &E::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<E>(c); },
      &RawStepper<E>};
  f.kind = "toy_text";
  f.task_module = "envpool.tasks.toy_text";
  return f;
}

void Register() {
  using namespace envpool::toy_text;
  envpool::RegisterFamily(Make<FrozenLake>("FrozenLake"));
  envpool::RegisterFamily(Make<Taxi>("Taxi"));
  envpool::RegisterFamily(Make<CliffWalking>("CliffWalking"));
  envpool::RegisterFamily(Make<Blackjack>("Blackjack"));
  envpool::RegisterFamily(Make<NChain>("NChain"));
  envpool::RegisterFamily(Make<Catch>("Catch"));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
