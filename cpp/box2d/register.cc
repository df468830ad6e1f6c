// Registers the Box2D families with the engine.
#include <memory>
#include <vector>

#include "cpp/box2d/bipedal_walker.h"
#include "cpp/box2d/car_racing.h"
#include "cpp/box2d/lunar_lander.h"
#include "cpp/core/family.h"
#include "cpp/core/raw_ceiling.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  envpool::Family f{
      name, E::Defaults(), &E::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<E>(c); },
      &envpool::RandomActionStepper<E>};
  f.kind = "box2d";
  f.task_module = "envpool.tasks.box2d";
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
