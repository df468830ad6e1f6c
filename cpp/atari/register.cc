// Registers the Atari family (ALE games) with the engine.
#include "cpp/atari/atari_env.h"
#include "cpp/core/family.h"

namespace {

void Register() {
  envpool::Family f = envpool::atari::MakeFamily();
  // Resets and emulation are slow: the short default bench stops at 8 envs.
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  envpool::RegisterFamily(std::move(f));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
