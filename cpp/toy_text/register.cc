// Registers the toy-text families with the engine.
#include <memory>

#include "cpp/core/family.h"
#include "cpp/core/raw_ceiling.h"
#include "cpp/toy_text/blackjack.h"
#include "cpp/toy_text/catch.h"
#include "cpp/toy_text/cliff_walking.h"
#include "cpp/toy_text/frozen_lake.h"
#include "cpp/toy_text/nchain.h"
#include "cpp/toy_text/taxi.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  envpool::Family f{
      name, E::Defaults(), &E::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<E>(c); },
      &envpool::RandomActionStepper<E>};
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
