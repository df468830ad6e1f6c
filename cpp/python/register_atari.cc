// Registers the Atari family (ALE games) with the engine.
#include "cpp/atari/atari_env.h"
#include "cpp/core/env.h"

void RegisterAtariFamilies() { envpool::RegisterFamily(envpool::atari::MakeFamily()); }
