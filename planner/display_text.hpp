// Text the report writes for a buyer that needs no report data: GPU names as buyers say them, and
// numbers for prose. Kept apart from report_style.hpp so that the report's data and its styles can
// both use them without including each other.
#pragma once

#include <string>

namespace engramsim::planner {

// A GPU or node preset as a buyer names it: "hgx-b200" -> "B200", "gb200-nvl72" -> "GB200 NVL72",
// "mi355x-8" -> "MI355X", "a100-80gb" -> "A100 80GB".
std::string gpu_display_name(const std::string& preset);

// A number for prose with about `significant` significant digits and never an exponent:
// 682934.2 -> "682934", 0.0123456 -> "0.01235", 125 -> "125".
std::string plain_number(double v, int significant = 4);

}  // namespace engramsim::planner
