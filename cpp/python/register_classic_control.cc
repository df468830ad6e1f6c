// Registers the classic-control families with the engine.
#include <memory>

#include "cpp/classic_control/acrobot.h"
#include "cpp/classic_control/cartpole.h"
#include "cpp/classic_control/mountain_car.h"
#include "cpp/classic_control/pendulum.h"
#include "cpp/core/env.h"
#include "cpp/testing/busy.h"
#include "cpp/testing/echo.h"

namespace {

template <class E>
envpool::Family Make(const char* name) {
  return envpool::Family{name, E::Defaults(), &E::MakeSpec,
                         [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> {
                           return std::make_unique<E>(c);
                         },
                         nullptr};
}

}  // namespace

void RegisterClassicControlFamilies() {
  using namespace envpool::classic_control;
  envpool::RegisterFamily(Make<CartPole>("CartPole"));
  envpool::RegisterFamily(Make<Pendulum>("Pendulum"));
  envpool::RegisterFamily(Make<MountainCar>("MountainCar"));
  envpool::RegisterFamily(Make<MountainCarContinuous>("MountainCarContinuous"));
  envpool::RegisterFamily(Make<Acrobot>("Acrobot"));
  // Test-only: dict observation and action (no task id uses it).
  envpool::RegisterFamily(Make<envpool::testing::Echo>("Echo"));
  // Test-only: steps that take as long as the action says, or throw.
  envpool::RegisterFamily(envpool::Family{"Busy", envpool::testing::Busy::Defaults(),
                                          &envpool::testing::Busy::MakeSpec,
                                          [](const envpool::Config& c, int id) -> std::unique_ptr<envpool::Env> {
                                            return std::make_unique<envpool::testing::Busy>(c, id);
                                          },
                                          nullptr});
}
