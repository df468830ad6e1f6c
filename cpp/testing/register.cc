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
  envpool::RegisterFamily(envpool::FamilyOf<Echo>("Echo", "testing", ""));
  // Steps that take as long as the action says, or throw.
  envpool::RegisterFamily(envpool::FamilyOf<Busy>("Busy", "testing", ""));
}

const envpool::FamilyRegistrar registrar(&Register);

}  // namespace
