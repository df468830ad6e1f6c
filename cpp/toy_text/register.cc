// Registers the toy-text families with the engine.

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
  return envpool::RandomActionFamily<E>(name, "toy_text", "envpool.tasks.toy_text");
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
