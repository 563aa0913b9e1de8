// The key tables of docs/scenarios.md are the schemas' own (scenario/schema/deployment_schema.hpp,
// scenario/schema/scheduler_schema.hpp): a key added,
// renamed or re-ranged in code fails here until the docs say the same (tests/support/docs_table.hpp).
#include <gtest/gtest.h>

#include <string>

#include "core/field_table.hpp"
#include "scenario/schema/deployment_schema.hpp"
#include "scenario/schema/disaggregation_schema.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "scenario/schema/scenario_in_run.hpp"
#include "scenario/schema/scenario_workload.hpp"
#include "scenario/schema/scheduler_schema.hpp"
#include "sim/serving/router/router_registry.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim::sim {

using namespace engramsim::scenario;
namespace {

TEST(SchemaDocs, SchedulerTableIsTheSchemas) {
  SchedulerRegistry registry;
  register_builtin_schedulers(registry);
  test::check_docs_table("docs/scenarios.md", "### `deployment.scheduler`",
                         scenario::scheduler_schema(registry).markdown());
}

TEST(SchemaDocs, TopLevelTableIsTheSchemas) {
  test::check_docs_table("docs/scenarios.md", "## Top level", scenario::scenario_schema().markdown());
}

TEST(SchemaDocs, DeploymentTablesAreTheSchemas) {
  RouterRegistry routers;
  register_builtin_routers(routers);
  test::check_docs_table("docs/scenarios.md", "## `deployment`", scenario::deployment_schema(routers).markdown());
  test::check_docs_table("docs/scenarios.md", "### `deployment.engram`", scenario::engram_schema().markdown());
  test::check_docs_table("docs/scenarios.md", "### `deployment.spec_decode`",
                         scenario::spec_decode_schema().markdown());
}

TEST(SchemaDocs, DisaggregatedDeploymentTableIsTheSchemas) {
  RouterRegistry routers;
  register_builtin_routers(routers);
  test::check_docs_table("docs/scenarios.md", "### `deployment` (kind `disaggregated`)",
                         scenario::disaggregated_deployment_schema(routers).markdown());
  test::check_docs_table("docs/disaggregation.md", "## Scenario keys",
                         scenario::disaggregated_deployment_schema(routers).markdown());
}

TEST(SchemaDocs, InRunSectionTablesAreTheSchemas) {
  test::check_docs_table("docs/memory-tiers.md", "### `fabric`", scenario::fabric_schema().markdown());
  test::check_docs_table("docs/memory-tiers.md", "### `kv_offload`", scenario::kv_offload_schema().markdown());
}

TEST(SchemaDocs, WorkloadTablesAreTheSchemas) {
  test::check_docs_table("docs/scenarios.md", "### `workload` (kind `closed_loop`)",
                         scenario::closed_loop_schema().markdown());
  test::check_docs_table("docs/scenarios.md", "### `workload` (kind `open_loop`)",
                         scenario::open_loop_schema().markdown());
  test::check_docs_table("docs/scenarios.md", "### `workload` (kind `trace`)",
                         scenario::trace_workload_schema().markdown());
  test::check_docs_table("docs/scenarios.md", "### `workload.trace`", scenario::trace_schema().markdown());
  test::check_docs_table("docs/scenarios.md", "### `workload` (kind `agentx`)", scenario::agentx_schema().markdown());
}

TEST(SchemaDocs, CompareTableIsTheSchemas) {
  test::check_docs_table("docs/scenarios.md", "## `compare`", scenario::compare_entry_schema().markdown());
}

TEST(SchemaDocs, SloTableIsTheSchemas) {
  test::check_docs_table("docs/scenarios.md", "## `slo`", scenario::slo_schema().markdown());
}

}  // namespace
}  // namespace engramsim::sim
