// The keys of a validation case: one declaration (case_schema) reads every case of the set and is
// the key table of docs/validation.md.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/docs_table.hpp"
#include "tests/support/test_paths.hpp"
#include "validation/case_schema.hpp"

namespace engramsim::validation {
namespace {

std::string error_of(const std::string& case_text) {
  try {
    validation_set_from_yaml("schema_version: 1\ncases:\n" + case_text, "cases.yaml",
                             engramsim::test::source_root() + "/scenarios/validation");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kHead =
    "  - id: a\n"
    "    level: step\n"
    "    metric: decode_step_time_s\n"
    "    published: {value: \"20ms\"}\n"
    "    source: {name: s, url: \"u\", where: \"w\"}\n"
    "    config: {model: llama-2-70b}\n"
    "    representable: full\n";

TEST(ValidationSchema, DocsTableIsTheSchemas) {
  test::check_docs_table("docs/validation.md", "## Case keys (`scenarios/validation/cases.yaml`)",
                         case_schema().markdown());
}

TEST(ValidationSchema, ErrorsNameTheFieldAndItsPlace) {
  const std::string step = "    reproduce:\n      step: {model: llama-2-70b, node: hgx-h100, tp: 4";
  EXPECT_EQ(error_of(kHead + step + ", decode: {seqs: 8, context: 1024}}\n"), "");
  EXPECT_NE(error_of(kHead + step + "}\n").find("cases.yaml:11:13: cases[0].reproduce.step: give a decode and/or"),
            std::string::npos);
  EXPECT_NE(error_of(kHead + step + ", decode: {seqs: 0, context: 1}}\n")
                .find("cases.yaml:11:72: cases[0].reproduce.step.decode.seqs: value 0 out of range"),
            std::string::npos);
  EXPECT_NE(error_of(kHead + step + ", decode: {seqs: 8, context: 1}, precision: {kv_cach: fp8}}\n")
                .find("reproduce.step.precision.kv_cach: unknown field; did you mean 'kv_cache'?"),
            std::string::npos);
  EXPECT_NE(error_of(kHead + step + ", prefill: {tokens: 64}, layer: 1}\n")
                .find("reproduce.step.layer: a layer is only read together with ops"),
            std::string::npos);
  // The source's suggestion is checked for shape like every other map.
  EXPECT_NE(error_of(kHead + "    suggested_tolerance: {rell: 0.1}\n    unsupported: \"why\"\n")
                .find("cases[0].suggested_tolerance.rell: unknown field; did you mean 'rel'?"),
            std::string::npos);
  EXPECT_NE(error_of(kHead + "    unsupported: \"why\"\n    reproduce: {same_as: b}\n")
                .find("give exactly one of reproduce and unsupported"),
            std::string::npos);
}

}  // namespace
}  // namespace engramsim::validation
