// Registers the classic-control families with the engine.
#include <memory>

#include "cpp/classic_control/acrobot.h"
#include "cpp/classic_control/cartpole.h"
#include "cpp/classic_control/mountain_car.h"
#include "cpp/classic_control/pendulum.h"
#include "cpp/core/family.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  return envpool::FamilyOf<E>(name, "classic_control", "envpool.tasks.classic_control");
}

void Register() {
  using namespace envpool::classic_control;
  envpool::RegisterFamily(Make<CartPole>("CartPole"));
  envpool::RegisterFamily(Make<Pendulum>("Pendulum"));
  envpool::RegisterFamily(Make<MountainCar>("MountainCar"));
  envpool::RegisterFamily(Make<MountainCarContinuous>("MountainCarContinuous"));
  envpool::RegisterFamily(Make<Acrobot>("Acrobot"));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
