// The calibration profile's keys, declared once (core/field_table.hpp): the strict loader reads
// with this table, render_calibration_profile writes with it, and it is the key table of
// docs/calibration.md ("Profile keys"). The GPU calibration tool compiles it text-only (no YAML
// library): it writes profiles and reads none.
#pragma once

#include "core/field_table.hpp"
#include "hardware/calibration_profile.hpp"

namespace engramsim {

const FieldTable<CalibrationProfile>& calibration_profile_schema();

}  // namespace engramsim
