// Registers the Box2D families with the engine.
#include <vector>

#include "cpp/box2d/bipedal_walker.h"
#include "cpp/box2d/car_racing.h"
#include "cpp/box2d/lunar_lander.h"
#include "cpp/core/family.h"
#include "cpp/core/raw_ceiling.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  envpool::Family f = envpool::RandomActionFamily<E>(name, "box2d", "envpool.tasks.box2d");
  f.bench = {{"quick_num_envs", std::vector<double>{1, 8}}};
  return f;
}

void Register() {
  using namespace envpool::box2d;
  envpool::RegisterFamily(Make<LunarLander>("LunarLander"));
  envpool::RegisterFamily(Make<BipedalWalker>("BipedalWalker"));
  envpool::RegisterFamily(Make<CarRacing>("CarRacing"));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
