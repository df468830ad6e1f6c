// Registers the test-only families (no task id uses them; tests make pools
// of them directly with _envpool.Pool).
#include <memory>

#include "cpp/core/family.h"
#include "cpp/testing/busy.h"
#include "cpp/testing/echo.h"

namespace {

void Register() {
  using envpool::testing::Busy;
  using envpool::testing::Echo;
  // Dict observation and action.
  envpool::RegisterFamily(envpool::Family{
      "Echo", Echo::Defaults(), &Echo::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<Echo>(c); },
      nullptr});
  // Steps that take as long as the action says, or throw.
  envpool::RegisterFamily(envpool::Family{
      "Busy", Busy::Defaults(), &Busy::MakeSpec,
      [](const envpool::Config& c, int id) -> std::unique_ptr<envpool::Env> { return std::make_unique<Busy>(c, id); },
      nullptr});
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
