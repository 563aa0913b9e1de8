// A step's time put together in one place (sim/serving/replica/step_cost.hpp): the model's price or
// the in-run tier's measured stall, the host KV-offload copies, and the floors.
#include <gtest/gtest.h>

#include "sim/serving/replica/step_cost.hpp"

namespace engramsim::sim {
namespace {

StepCost model_cost() {
  StepCost c;
  c.compute = Time::ms(10);
  c.host_overhead = Time::ms(1);
  c.engram_stall = Time::ms(2);  // the formula's
  c.engram_fetch = Time::ms(5);
  c.total = Time::ms(13);
  return c;
}

TEST(StepCost, TheFormulasPriceStandsWithoutTheTierOrCopies) {
  const AssembledStepCost a = assemble_step_cost({model_cost(), nullptr, {}, {}, Time::ms(100), Time::ms(100)});
  EXPECT_EQ(a.cost.total, Time::ms(13));
  EXPECT_EQ(a.cost.engram_stall, Time::ms(2));
  EXPECT_EQ(a.offload_write_exposed, Time::zero());
}

TEST(StepCost, TheInRunStallReplacesTheFormulas) {
  EngramStepOutcome o;
  o.stall = Time::ms(4);
  o.fetch = Time::ms(9);
  const AssembledStepCost a = assemble_step_cost({model_cost(), &o, {}, {}, Time::ms(100), Time::ms(100)});
  EXPECT_EQ(a.cost.total, Time::ms(15));  // 10 compute + 1 host + 4 measured
  EXPECT_EQ(a.cost.engram_stall, Time::ms(4));
  EXPECT_EQ(a.cost.engram_fetch, Time::ms(9));
}

TEST(StepCost, LoadsPrecedeTheStepAndWritesRunBesideIt) {
  const AssembledStepCost hidden = assemble_step_cost({model_cost(), nullptr, Time::ms(3), Time::ms(10), {}, {}});
  EXPECT_EQ(hidden.cost.total, Time::ms(16));  // 13 + 3 of loads; the 10 ms of writes fit beside it
  EXPECT_EQ(hidden.offload_write_exposed, Time::zero());
  const AssembledStepCost exposed = assemble_step_cost({model_cost(), nullptr, Time::ms(3), Time::ms(20), {}, {}});
  EXPECT_EQ(exposed.cost.total, Time::ms(20));
  EXPECT_EQ(exposed.offload_write_exposed, Time::ms(4));
}

TEST(StepCost, FloorsKeepTheStepPositiveAndAfterItsFetch) {
  const AssembledStepCost tiny = assemble_step_cost({StepCost{}, nullptr, {}, {}, Time::ms(5), Time::ms(5)});
  EXPECT_EQ(tiny.cost.total, Time::ns(1));
  const AssembledStepCost gated =
      assemble_step_cost({model_cost(), nullptr, {}, {}, Time::ms(100), Time::ms(100) + Time::ms(20)});
  EXPECT_EQ(gated.cost.total, Time::ms(20));
}

}  // namespace
}  // namespace engramsim::sim
