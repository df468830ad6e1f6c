// Registers the test-only families (no task id uses them; tests make pools
// of them directly with _envpool.Pool).
#include <memory>
#include <utility>

#include "cpp/core/family.h"
#include "cpp/testing/busy.h"
#include "cpp/testing/echo.h"

namespace {

void Register() {
  using envpool::testing::Busy;
  using envpool::testing::Echo;
  // Dict observation and action.
  envpool::Family echo{
      "Echo", Echo::Defaults(), &Echo::MakeSpec,
      [](const envpool::Config& c, int) -> std::unique_ptr<envpool::Env> { return std::make_unique<Echo>(c); },
      nullptr};
  echo.kind = "testing";
  envpool::RegisterFamily(std::move(echo));
  // Steps that take as long as the action says, or throw.
  envpool::Family busy{
      "Busy", Busy::Defaults(), &Busy::MakeSpec,
      [](const envpool::Config& c, int id) -> std::unique_ptr<envpool::Env> { return std::make_unique<Busy>(c, id); },
      nullptr};
  busy.kind = "testing";
  envpool::RegisterFamily(std::move(busy));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
