// Registers the BabyAI family with the engine: one env class, its level
// chosen by the "level" option (the task ids and their options are in
// src/envpool/tasks/babyai.py).

#include "cpp/core/family.h"
#include "cpp/core/raw_ceiling.h"
#include "cpp/minigrid/babyai/level.h"

namespace {

void Register() {
  envpool::RegisterFamily(
      envpool::RandomActionFamily<envpool::minigrid::babyai::BabyAIEnv>("BabyAI", "minigrid", "envpool.tasks.babyai"));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
