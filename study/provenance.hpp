// The provenance of the figures behind a sweep, for the report's assumptions table.
//
// Every number in the catalog files carries a tag in its line comment (docs/hardware.md):
//   key: value   # [S] source states it   -> datasheet
//                # [D] derived by arithmetic from sourced facts -> derived
//                # [E] an estimate, with its reason -> assumed
//                # [M] measured -> measured
// tagged_figures() reads those lines back (the YAML loaders drop comments), with the dotted key path
// recovered from indentation, so the report can say where each figure came from without a second
// copy of the sources that could drift from the files.
#pragma once

#include <string>
#include <vector>

#include "planner/report_data.hpp"

namespace engramsim::study {

// Tagged lines of a catalog YAML file whose dotted key starts with one of `key_prefixes` (all when
// empty), as assumptions named "<label> <key>". A missing file gives nothing.
std::vector<planner::Assumption> tagged_figures(const std::string& file, const std::string& label,
                                                const std::vector<std::string>& key_prefixes = {});

// "[S]" -> "datasheet", "[D]" -> "derived", "[E]" -> "assumed", "[M]" -> "measured"; empty otherwise.
std::string provenance_kind(char tag);

}  // namespace engramsim::study
