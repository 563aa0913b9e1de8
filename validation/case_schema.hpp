// The keys of one validation case (an entry of `cases:` in scenarios/validation/cases.yaml),
// declared once (core/field_table.hpp): the loader reads a case through case_schema() and the key
// table of docs/validation.md is its markdown(). The meaning of the values: validation_case.hpp.
//
// What stays by hand: `config` and `also_published` are the sources' free-form records (config.model,
// config.gpu and config.same_as are read); a `set:` block is scenario overrides (key paths with any
// YAML values) passed on to the scenario. The rules that join keys (exactly one of reproduce and
// unsupported, a tolerance no wider than its metric kind's, what a sweep metric reads) are the
// tables' rules, run once their keys are read.
#pragma once

#include <optional>
#include <string>

#include "core/field_table.hpp"
#include "validation/validation_case.hpp"

namespace engramsim::validation {

// A case's keys as read, with what the rules that join them need besides the case.
struct CaseInput {
  ValidationCase c;
  std::string base_dir;                      // relative paths resolve against it (set before reading)
  std::optional<Tolerance> published_range;  // published.range
  std::optional<Tolerance> tolerance;        // the case's own `tolerance:`
  // Read and checked, not interpreted.
  std::string published_unit, basis = "published", derivation;
  std::string source_where, source_date, retrieved_via;
  struct Suggested {
    double rel = 0.0, abs = 0.0, abs_pp = 0.0;
  } suggested;
};

const FieldTable<CaseInput>& case_schema();

}  // namespace engramsim::validation
