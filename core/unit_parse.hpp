// Parsing of unit strings into unit types.
//
// Accepted forms: a finite non-negative number immediately or space-separated followed by a unit.
// SI prefixes (k, M, G, T, P, E; powers of 1000) and IEC prefixes (Ki, Mi, Gi, Ti, Pi; powers of 1024)
// on sizes and bandwidths; SI prefixes on FLOP rates; ns/us/ms/s/min/h for times.
//   sizes:      "264B", "141GB", "288GiB", "3.84TB"
//   bandwidths: "900GB/s", "8TB/s", "64GiB/s"
//   FLOP rates: "2.25PFLOPS", "989TFLOPS"
//   times:      "70us", "1.5ms", "2s"
//   money:      "1.41USD/h" (rate), "5USD/GB" (per capacity), "0.05USD/GiB"
// A bare number, an unknown unit, a negative, NaN or infinite value throws UnitParseError with a
// message saying what was expected (the caller adds file, line and field).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/units.hpp"

namespace engramsim {

class UnitParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Bytes parse_bytes(std::string_view text);
Bandwidth parse_bandwidth(std::string_view text);
FlopRate parse_flop_rate(std::string_view text);
Time parse_time(std::string_view text);
MoneyRate parse_money_rate(std::string_view text);
MoneyPerByte parse_money_per_byte(std::string_view text);

}  // namespace engramsim
