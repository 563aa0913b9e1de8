// The key tables of docs/scenarios.md are the schemas' own (spec/scheduler_schema.hpp): a key added,
// renamed or re-ranged in code fails here until the docs say the same (tests/support/docs_table.hpp).
#include <gtest/gtest.h>

#include <string>

#include "core/field_table.hpp"
#include "sim/serving/scheduler_registry.hpp"
#include "spec/scheduler_schema.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim::sim {
namespace {

TEST(SchemaDocs, SchedulerTableIsTheSchemas) {
  SchedulerRegistry registry;
  register_builtin_schedulers(registry);
  test::check_docs_table("docs/scenarios.md", "### `deployment.scheduler`", scheduler_schema(registry).markdown());
}

}  // namespace
}  // namespace engramsim::sim
