// Numbers as text, one place for the printf formats the tool writes (tables, notes, command lines,
// goldens, the SimGrid helper's pipe).
#pragma once

#include <cstdint>
#include <string>

namespace engramsim {

// Fixed notation with `decimals` digits through std::to_chars (locale-independent, the same text on
// every platform), no "-0"; for NaN/inf "null" when `json`, "" otherwise. The results files' format.
std::string format_number(double v, int decimals = 6, bool json = true);

// `v` formatted by a printf conversion for one double ("%.4g", "%.2f", "%g").
std::string printf_number(double v, const char* spec);

// printf's "%.*f": `digits` decimals ("nan", "inf" as printf writes them).
std::string fixed_digits(double v, int digits);

// 17 significant digits: reads back to the same double.
std::string round_trip_number(double v);

// An integer with its digits grouped by threes: 1234567 -> "1,234,567".
std::string with_commas(std::int64_t v);

}  // namespace engramsim
